-- Projects (level 0), with current usage.
-- reads: v_memory
create or replace view v_project_memory as
with memories as (
    select * from v_memory where kind = 'project'
)
select id, name, description, source, created_at, ttl_days as ttl, usage_count,
       last_accessed_at, confidence, manual_promote_flag, tags, metadata
from memories
