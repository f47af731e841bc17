-- The memories each retention policy would drop, and why; `memlib retention plan` and
-- `apply` read exactly this view. A memory is judged by its project's override of the
-- policy if the policy has one (memlib_policy rows with a project_id), else by the policy.
-- Never a candidate: manual_promote_flag, TTL -1, a protected kind or tag, anything created
-- or recalled within the grace window. Reasons:
--   expired        past its own TTL, or past the policy's ttl_days for its kind or level
--   decayed        decay score (decay_score.sql, the policy's half-lives) below the minimum
--   low_confidence confidence below the minimum
--   old_iteration  in an iteration older than the project's keep_iterations latest ones
--                  (summaries excepted: they stay for good). Iterations are ordered by their
--                  latest memory, which is usually their summary: removing the detail of an
--                  old iteration does not make it look newer.
create or replace view mart_retention_candidates as
with policies as (
    select * from memlib_policy
),
rules as (
    select * from memlib_policy_rule
),
memories as (
    select * from int_memory_as_of
),
ttl as (
    select id, is_expired from mart_ttl
),
windowed as (
    select id, n_recalls_window from mart_usage_by_memory
),
params as (
    select * from memlib_params
),
-- each memory under each policy: its project's override row, else the policy's own row
assigned as (
    select p.*, m.id as memory_id
    from memories m
    join policies p on p.project_id is null or p.project_id = m.project_id
    qualify row_number() over (partition by p.policy, m.id order by p.project_id nulls last) = 1
),
iterations as (
    select
        project_id, iteration_id,
        row_number() over (partition by project_id
                           order by max(created_at) desc, iteration_id desc) as recency
    from memories
    where iteration_id is not null
    group by project_id, iteration_id
),
resolved as (
    select
        a.policy, a.version, a.drop_expired, a.min_decay_score, a.min_confidence,
        a.grace_days, a.keep_iterations, a.protected_kinds, a.protected_tags,
        m.*,
        coalesce(m.last_used_as_of, m.created_at) as last_touched_at,
        coalesce(hk.half_life_days, hl.half_life_days, hd.half_life_days) as half_life_days,
        coalesce(tk.ttl_days, tl.ttl_days) as policy_ttl_days,
        i.recency as iteration_recency
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
    left join iterations i on i.project_id = m.project_id and i.iteration_id = m.iteration_id
),
judged as (
    select
        r.*, w.n_recalls_window,
        decay_score((epoch_us(r.as_of) - epoch_us(r.last_touched_at)) / 86400e6,
                    r.half_life_days, r.usage_as_of) as decay_score,
        r.drop_expired and (t.is_expired or coalesce(
            r.created_at + to_days(r.policy_ttl_days) <= r.as_of, false)) as is_expired_reason,
        r.confidence < r.min_confidence as is_low_confidence_reason,
        r.kind <> 'summary' and coalesce(r.iteration_recency > r.keep_iterations, false)
            as is_old_iteration_reason,
        strlen(r.text) + coalesce(strlen(r.metadata), 0) + 4 * pa.embedding_dims as est_bytes
    from resolved r
    join ttl t on t.id = r.id
    join windowed w on w.id = r.id
    cross join params pa
    where not r.manual_promote_flag
      and r.ttl_days <> -1
      and not list_contains(r.protected_kinds, r.kind)
      and not list_has_any(coalesce(r.tags, []), r.protected_tags)
      and r.last_touched_at <= r.as_of - to_days(r.grace_days)
)
select
    policy, version as policy_version, id, kind, level, project_id, iteration_id, source,
    created_at, last_touched_at, usage_as_of, n_recalls_window, decay_score, half_life_days,
    confidence, ttl_days, policy_ttl_days, expires_at, est_bytes,
    list_filter(['expired', 'decayed', 'low_confidence', 'old_iteration'],
                (reason, i) -> [is_expired_reason, decay_score < min_decay_score,
                                is_low_confidence_reason, is_old_iteration_reason][i])
        as reasons
from judged
where is_expired_reason or decay_score < min_decay_score or is_low_confidence_reason
   or is_old_iteration_reason
