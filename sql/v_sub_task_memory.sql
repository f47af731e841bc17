-- Sub tasks (level 2), with current usage.
-- reads: v_memory
create or replace view v_sub_task_memory as
with memories as (
    select * from v_memory where kind = 'sub_task'
)
select id, root_task_id, project_id, details, metadata, source, created_at, ttl_days as ttl,
       usage_count, last_accessed_at, manual_promote_flag, confidence, tags
from memories
