-- The memories each retention policy would drop, and why. Never a candidate: a memory with
-- manual_promote_flag, one that never expires (ttl -1), or one used within the policy's
-- grace window. Reasons: expired TTL, decay score below the policy's minimum, confidence
-- below the policy's minimum.
create or replace view mart_retention_candidates as
with policies as (
    select * from memlib_policy
),
params as (
    select * from memlib_params
),
decay as (
    select * from mart_decay
),
ttl as (
    select id, expires_at, is_expired from mart_ttl
),
memories as (
    select id, text, metadata from int_memory_as_of
),
windowed as (
    select id, n_recalls_window from mart_usage_by_memory
),
judged as (
    select
        p.policy, d.id, d.kind, d.level, d.project_id, d.source, d.created_at,
        d.last_touched_at, d.usage_as_of, d.decay_score, d.confidence, d.ttl_days,
        t.expires_at, w.n_recalls_window,
        p.drop_expired and t.is_expired as is_expired_reason,
        d.decay_score < p.min_decay_score as is_decayed_reason,
        d.confidence < p.min_confidence as is_low_confidence_reason,
        strlen(m.text) + coalesce(strlen(m.metadata), 0) + 4 * pa.embedding_dims
            as est_bytes
    from decay d
    join ttl t on t.id = d.id
    join memories m on m.id = d.id
    join windowed w on w.id = d.id
    cross join policies p
    cross join params pa
    where not d.manual_promote_flag
      and d.ttl_days <> -1
      and d.last_touched_at <= d.as_of - to_days(p.grace_days)
)
select
    policy, id, kind, level, project_id, source, created_at, last_touched_at, usage_as_of,
    n_recalls_window, decay_score, confidence, ttl_days, expires_at, est_bytes,
    list_filter(['expired', 'decayed', 'low_confidence'],
                (reason, i) -> [is_expired_reason, is_decayed_reason, is_low_confidence_reason][i])
        as reasons
from judged
where is_expired_reason or is_decayed_reason or is_low_confidence_reason
