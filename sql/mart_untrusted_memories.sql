-- Memories nobody vouches for, as of the report's date (models.trusted, bound in
-- memlib_trust): from a tool's output or a web page, or tagged untrusted. Search keeps half
-- their score and build_context shows them after the trusted ones, labelled.
-- reads: int_memory_as_of
create or replace view mart_untrusted_memories as
with trust as (
    select * from memlib_trust
)
select m.id, m.kind, m.project_id, m.project_name, m.source, m.agent, m.created_at, m.text
from int_memory_as_of m, trust t
where list_contains(t.untrusted_sources, m.source) or list_contains(m.tags, t.untrusted_tag)
