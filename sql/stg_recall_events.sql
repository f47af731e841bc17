-- Every recall event: flushed into the Lance table, or still waiting in the spool
-- (flushed_at is null for those).
-- reads: nothing
create or replace view stg_recall_events as
with flushed as (
    select event_id, query_id, query_text, memory_id, rank, score, mode, agent, tool, session_id,
           recalled_at, flushed_at
    from raw_recall_events
),
spooled as (
    select event_id, query_id, query_text, memory_id, rank, score, mode, agent, tool, session_id,
           recalled_at, cast(null as timestamptz) as flushed_at
    from raw_recall_spool
)
select * from flushed
union all
select * from spooled
