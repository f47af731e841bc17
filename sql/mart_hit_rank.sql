-- How deep in the result list recalled memories sat, within the window.
-- reads: int_recall_events_as_of
create or replace view mart_hit_rank as
with events as (
    select * from int_recall_events_as_of where is_in_window
)
select rank, mode, count(*) as n_recalls
from events
group by all
