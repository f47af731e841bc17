-- The usage report's headline numbers.
-- reads: int_recall_events_as_of, mart_usage_by_memory
create or replace view mart_usage_summary as
with usage as (
    select * from mart_usage_by_memory
),
events as (
    select * from int_recall_events_as_of where is_in_window
)
select
    (select count(*) from events) as n_recalls_window,
    (select count(distinct query_id) from events) as n_queries_window,
    (select count(*) from usage) as n_memories,
    (select count(*) filter (where is_never_recalled) from usage) as n_never_recalled,
    (select avg(case when is_never_recalled then 1.0 else 0.0 end) from usage) as never_recalled_share,
    (select count(*) filter (where n_recalls_window > 0) from usage) as n_recalled_in_window
