-- materialize: table
-- Recall events up to the as-of date, for memories in the report's project scope, with the
-- recalled memory's kind, level and project (not the query texts: three million of them
-- would dominate the table and no mart reads them).
-- reads: int_memory_as_of, stg_recall_events, utc_day
create or replace view int_recall_events_as_of as
with params as (
    select * from memlib_params
),
events as (
    select * from stg_recall_events
),
memories as (
    -- memories in the report's scope; none created after the as-of date can have events before it
    select id, kind, level, project_id, project_name, confidence from int_memory_as_of
)
select
    e.query_id, e.memory_id, e.rank, e.score, e.mode, e.agent, e.tool, e.session_id,
    e.recalled_at, utc_day(e.recalled_at) as recalled_on,
    m.kind, m.level, m.project_id, m.project_name, m.confidence,
    e.recalled_at > p.as_of - to_days(p.window_days) as is_in_window
from events e
join memories m on m.id = e.memory_id
cross join params p
where e.recalled_at <= p.as_of
