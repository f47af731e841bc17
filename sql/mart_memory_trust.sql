-- Memories by where they came from, as of the report's date, and whether that source is
-- trusted (models.trusted, bound in memlib_trust; a memory tagged untrusted counts as such).
-- reads: int_memory_as_of
create or replace view mart_memory_trust as
with trust as (
    select * from memlib_trust
)
select
    coalesce(m.source, '(none)') as source,
    not (list_contains(t.untrusted_sources, m.source) or coalesce(list_contains(m.tags, t.untrusted_tag), false))
        as trusted,
    count(*) as n_memories
from int_memory_as_of m, trust t
group by all
