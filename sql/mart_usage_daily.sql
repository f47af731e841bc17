-- materialize: cache
-- Recalls per day, project, kind, level and agent (up to the as-of date).
-- reads: int_recall_events_as_of
create or replace view mart_usage_daily as
with events as (
    select * from int_recall_events_as_of
)
select
    recalled_on, project_id, project_name, kind, level, agent,
    count(*) as n_recalls,
    count(distinct query_id) as n_queries,
    count(distinct memory_id) as n_memories
from events
group by all
