-- Every memory as stored, without its embedding. Reads the raw Lance table.
create or replace view stg_memories as
with source as (
    select * from raw_memories
)
select
    id, kind, level, text, source, agent, project_id, root_task_id, iteration_id,
    name, description, objective, details, title, context, decision, consequences,
    content, importance, speaker, tags, metadata,
    created_at, updated_at, expires_at, ttl_days,
    usage_count, last_accessed_at, recalls_folded_until,
    manual_promote_flag, confidence
from source
