-- Confidence of memories by source, kind and project, in 10-point bins.
-- reads: int_memory_as_of
create or replace view mart_confidence as
with memories as (
    select * from int_memory_as_of
)
select
    source, kind, project_id, project_name,
    least(confidence // 10 * 10, 90) as confidence_bin,
    count(*) as n_memories,
    avg(confidence) as avg_confidence
from memories
group by all
