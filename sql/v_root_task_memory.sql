-- Root tasks (level 1), with current usage.
-- reads: v_memory
create or replace view v_root_task_memory as
with memories as (
    select * from v_memory where kind = 'root_task'
)
select id, project_id, objective, source, created_at, ttl_days as ttl, usage_count,
       last_accessed_at, manual_promote_flag, confidence, tags, metadata
from memories
