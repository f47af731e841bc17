-- Every memory with its usage as of now: the usage folded by `maintain` plus the recall
-- events it has not folded yet (int_usage_unfolded); and the name of its project.
-- reads: int_usage_unfolded, stg_memories
create or replace view v_memory as
with memories as (
    select * from stg_memories
),
unfolded as (
    select memory_id, n_unfolded, last_unfolded_at from int_usage_unfolded
),
projects as (
    select id as project_id, name as project_name from memories where kind = 'project'
)
select
    m.* exclude (usage_count, last_accessed_at),
    p.project_name,
    m.usage_count + coalesce(u.n_unfolded, 0) as usage_count,
    greatest(m.last_accessed_at, u.last_unfolded_at) as last_accessed_at,
    m.usage_count as usage_count_folded
from memories m
left join unfolded u on u.memory_id = m.id
left join projects p on p.project_id = m.project_id
