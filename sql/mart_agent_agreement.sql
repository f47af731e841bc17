-- Agreement between agents: for each pair (agent_a, agent_b), how many disagreements put
-- them on the same side (agree) and on opposite sides (disagree). Symmetric; an agent's
-- pair with itself counts the disagreements it took part in. agreement_share: the share of
-- the disagreements both took part in that put them on one side.
-- reads: mart_disagreements
create or replace view mart_agent_agreement as
with sides as (
    select row_number() over () as disagreement_no, agents_a, agents_b from mart_disagreements
),
members as (
    select disagreement_no, unnest(agents_a) as agent, 'a' as side from sides
    union all
    select disagreement_no, unnest(agents_b) as agent, 'b' as side from sides
)
select
    x.agent as agent_a, y.agent as agent_b,
    count(*) filter (where x.side = y.side) as n_agree,
    count(*) filter (where x.side != y.side) as n_disagree,
    n_agree / count(*) as agreement_share
from members x
join members y on x.disagreement_no = y.disagreement_no
group by all
