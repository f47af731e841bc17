-- materialize: table
-- Memories that existed at the as-of date, in the report's project (and person's) scope, with their usage
-- as of that date: recall events up to then, plus usage imported without events (the folded
-- usage_count beyond the events it folded).
-- reads: stg_recall_events, v_memory
create or replace view int_memory_as_of as
with params as (
    select * from memlib_params
),
memories as (
    select m.*
    from v_memory m, params p
    where m.created_at <= p.as_of
      and (p.project_id is null or m.project_id = p.project_id)
      and (p.user_id is null or m.user_id = p.user_id)
),
event_usage as (
    select
        e.memory_id,
        count(*) filter (where e.recalled_at <= p.as_of) as n_events,
        max(e.recalled_at) filter (where e.recalled_at <= p.as_of) as last_event_at,
        count(*) filter (where e.flushed_at <= m.recalls_folded_until) as n_folded
    from stg_recall_events e
    join memories m on m.id = e.memory_id
    cross join params p
    group by e.memory_id
)
select
    m.id, m.kind, m.level, m.project_id, m.project_name, m.root_task_id, m.iteration_id,
    m.source, m.agent, m.user_id, m.tags, m.metadata, m.text, m.importance,
    m.created_at, m.updated_at, m.expires_at, m.ttl_days, m.manual_promote_flag, m.confidence,
    m.usage_count, m.usage_count_folded, m.last_accessed_at,
    greatest(m.usage_count_folded - coalesce(u.n_folded, 0), 0)
        + coalesce(u.n_events, 0) as usage_as_of,
    coalesce(u.last_event_at,
             case when m.last_accessed_at <= p.as_of then m.last_accessed_at end) as last_used_as_of,
    p.as_of
from memories m
cross join params p
left join event_usage u on u.memory_id = m.id
