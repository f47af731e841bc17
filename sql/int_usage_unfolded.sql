-- The one definition of the recall events a memory's usage_count has not folded in yet:
-- those flushed after the row's recalls_folded_until, and those still in the spool.
-- v_memory adds all of them to usage_count, so a report is current without a maintenance
-- run; `memlib maintain` folds the flushed ones into the rows (memlib/lifecycle/maintenance.py).
-- reads: stg_memories, stg_recall_events
create or replace view int_usage_unfolded as
with memories as (
    select id, recalls_folded_until from stg_memories
),
events as (
    select memory_id, recalled_at, flushed_at from stg_recall_events
)
select
    m.id as memory_id,
    count(*) as n_unfolded,
    max(e.recalled_at) as last_unfolded_at,
    count(e.flushed_at) as n_unfolded_flushed,
    max(e.recalled_at) filter (where e.flushed_at is not null) as last_unfolded_flushed_at,
    max(e.flushed_at) as unfolded_flushed_until
from memories m
join events e
  on e.memory_id = m.id
 and (e.flushed_at is null
      or m.recalls_folded_until is null
      or e.flushed_at > m.recalls_folded_until)
group by m.id
