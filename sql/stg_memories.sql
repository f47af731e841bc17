-- Every memory as stored, without its embedding. Reads the raw Lance table; columns an older
-- store lacks arrive as nulls and take the models' defaults here.
-- reads: nothing
create or replace view stg_memories as
with source as (
    select * from raw_memories
)
select
    id, kind, level, text, source, agent, user_id, project_id, root_task_id, iteration_id,
    name, description, objective, details, title, context, decision, consequences,
    content, importance, speaker, tags, metadata,
    created_at, updated_at, expires_at, ttl_days,
    coalesce(usage_count, 0) as usage_count, last_accessed_at, recalls_folded_until,
    coalesce(manual_promote_flag, false) as manual_promote_flag, coalesce(confidence, 100) as confidence
from source
