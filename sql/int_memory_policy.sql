-- materialize: table
-- Every memory judged under every policy of the connection (memlib_policy): the settings in
-- force for it (its project's override if the policy has one, else the policy's own), its
-- half-life and the policy's TTL for it (a kind's rule wins over its level's rule, which
-- wins over the default rule), and its decay score (decay_score.sql). The one place a
-- half-life is looked up: mart_decay shows it, mart_retention_candidates acts on it.
-- reads: days_between, decay_score, int_memory_as_of
create or replace view int_memory_policy as
with policies as (
    select * from memlib_policy
),
rules as (
    select * from memlib_policy_rule
),
memories as (
    select * from int_memory_as_of
),
assigned as (
    select p.*, m.id as memory_id
    from memories m
    join policies p on p.project_id is null or p.project_id = m.project_id
    qualify row_number() over (partition by p.policy, m.id order by p.project_id nulls last) = 1
),
resolved as (
    select
        a.policy, a.version as policy_version, a.drop_expired, a.min_decay_score,
        a.min_confidence, a.grace_days, a.keep_iterations, a.protected_kinds, a.protected_tags,
        -- the memory's columns the marts read (its text only by size: three copies of every
        -- text would make this the widest table of a report run)
        m.id, m.kind, m.level, m.project_id, m.project_name, m.iteration_id, m.source, m.tags,
        m.created_at, m.expires_at, m.ttl_days, m.manual_promote_flag, m.confidence,
        m.usage_as_of, m.as_of, strlen(m.text) + coalesce(strlen(m.metadata), 0) as text_bytes,
        coalesce(m.last_used_as_of, m.created_at) as last_touched_at,
        coalesce(hk.half_life_days, hl.half_life_days, hd.half_life_days) as half_life_days,
        coalesce(tk.ttl_days, tl.ttl_days) as policy_ttl_days
    from assigned a
    join memories m on m.id = a.memory_id
    left join rules hk on hk.policy = a.policy and hk.project_id is not distinct from a.project_id
        and hk.kind = m.kind and hk.half_life_days is not null
    left join rules hl on hl.policy = a.policy and hl.project_id is not distinct from a.project_id
        and hl.kind is null and hl.level = m.level and hl.half_life_days is not null
    left join rules hd on hd.policy = a.policy and hd.project_id is not distinct from a.project_id
        and hd.kind is null and hd.level is null and hd.half_life_days is not null
    left join rules tk on tk.policy = a.policy and tk.project_id is not distinct from a.project_id
        and tk.kind = m.kind and tk.ttl_days is not null
    left join rules tl on tl.policy = a.policy and tl.project_id is not distinct from a.project_id
        and tl.kind is null and tl.level = m.level and tl.ttl_days is not null
)
select
    *,
    days_between(last_touched_at, as_of) as idle_days,
    half_life_days * (1 + ln(1 + usage_as_of)) as effective_half_life_days,
    decay_score(days_between(last_touched_at, as_of), half_life_days,
                usage_as_of) as decay_score
from resolved
