-- Decay score against idle days for each half-life rule of the decay policy (not its
-- projects' overrides) and a few usage levels: the curves the TTL/decay report draws, from
-- the same macro as mart_decay.
-- reads: decay_score
create or replace view mart_decay_curve as
with params as (
    select decay_policy from memlib_params
),
half_lives as (
    select coalesce(r.kind, case when r.level is not null then 'level ' || r.level end, 'default') as applies_to,
           r.half_life_days
    from memlib_policy_rule r
    join params p on r.policy = p.decay_policy
    where r.project_id is null and r.half_life_days is not null
),
days as (
    select range as idle_days from range(0, 366, 5)
),
usages as (
    select unnest([0, 5, 50]) as usage
)
select h.applies_to, h.half_life_days, u.usage, d.idle_days,
       decay_score(d.idle_days, h.half_life_days, u.usage) as decay_score
from half_lives h, days d, usages u
