-- materialize: cache
-- The memories each retention policy would drop, and why; `memlib retention plan` and
-- `apply` read exactly this view. A memory is judged by its project's override of the
-- policy if the policy has one (memlib_policy rows with a project_id), else by the policy;
-- its half-life and decay score come from int_memory_policy, as the decay report's do.
-- Never a candidate: manual_promote_flag, TTL -1, a protected kind or tag, anything created
-- or recalled within the grace window. Reasons:
--   expired        past its own TTL, or past the policy's ttl_days for its kind or level
--   decayed        decay score (decay_score.sql, the policy's half-lives) below the minimum
--   low_confidence confidence below the minimum
--   old_iteration  in an iteration older than the project's keep_iterations latest ones
--                  (summaries excepted: they stay for good). Iterations are ordered by their
--                  latest memory, which is usually their summary: removing the detail of an
--                  old iteration does not make it look newer.
-- reads: days_after, decay_score, int_memory_as_of, int_memory_policy, mart_ttl, mart_usage_by_memory
create or replace view mart_retention_candidates as
with judged_by_policy as (
    select * from int_memory_policy
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
iterations as (
    select
        project_id, iteration_id,
        row_number() over (partition by project_id
                           order by max(created_at) desc, iteration_id desc) as recency
    from int_memory_as_of
    where iteration_id is not null
    group by project_id, iteration_id
),
judged as (
    select
        r.*, w.n_recalls_window,
        r.drop_expired and (t.is_expired or coalesce(
            days_after(r.created_at, r.policy_ttl_days) <= epoch_us(r.as_of), false)) as is_expired_reason,
        r.confidence < r.min_confidence as is_low_confidence_reason,
        r.kind <> 'summary' and coalesce(i.recency > r.keep_iterations, false)
            as is_old_iteration_reason,
        r.text_bytes + 4 * pa.embedding_dims as est_bytes
    from judged_by_policy r
    join ttl t on t.id = r.id
    left join iterations i on i.project_id = r.project_id and i.iteration_id = r.iteration_id
    join windowed w on w.id = r.id
    cross join params pa
    where not r.manual_promote_flag
      and r.ttl_days <> -1
      and not list_contains(r.protected_kinds, r.kind)
      and not list_has_any(coalesce(r.tags, []), r.protected_tags)
      and days_after(r.last_touched_at, r.grace_days) <= epoch_us(r.as_of)
)
select
    policy, policy_version, id, kind, level, project_id, project_name, iteration_id, source,
    created_at, last_touched_at, usage_as_of, n_recalls_window, decay_score, half_life_days,
    confidence, ttl_days, policy_ttl_days, expires_at, est_bytes,
    list_filter(['expired', 'decayed', 'low_confidence', 'old_iteration'],
                (reason, i) -> [is_expired_reason, decay_score < min_decay_score,
                                is_low_confidence_reason, is_old_iteration_reason][i])
        as reasons
from judged
where is_expired_reason or decay_score < min_decay_score or is_low_confidence_reason
   or is_old_iteration_reason
