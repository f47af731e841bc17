-- Memories below the confidence threshold that agents still recalled within the window.
-- reads: mart_usage_by_memory
create or replace view mart_risky_recalls as
with params as (
    select * from memlib_params
),
usage as (
    select * from mart_usage_by_memory
)
select u.id, u.kind, u.project_id, u.project_name, u.source, u.confidence, u.n_recalls_window,
       u.n_agents_window, u.last_recalled_at, u.text
from usage u, params p
where u.confidence < p.low_confidence
  and u.n_recalls_window > 0
