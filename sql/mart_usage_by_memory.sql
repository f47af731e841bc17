-- materialize: table
-- Usage of every memory as of the report date: all-time and within the window, its rank
-- among the most recalled, and whether it was ever recalled.
-- reads: int_memory_as_of, int_recall_events_as_of
create or replace view mart_usage_by_memory as
with memories as (
    select * from int_memory_as_of
),
window_events as (
    select memory_id, count(*) as n_recalls_window, count(distinct agent) as n_agents_window
    from int_recall_events_as_of
    where is_in_window
    group by memory_id
)
select
    m.id, m.kind, m.level, m.project_id, m.project_name, m.source, m.confidence, m.created_at, m.text,
    m.usage_as_of as n_recalls,
    coalesce(w.n_recalls_window, 0) as n_recalls_window,
    coalesce(w.n_agents_window, 0) as n_agents_window,
    m.last_used_as_of as last_recalled_at,
    m.usage_as_of = 0 as is_never_recalled,
    rank() over (order by m.usage_as_of desc) as usage_rank
from memories m
left join window_events w on w.memory_id = m.id
