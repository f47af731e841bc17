-- Fragments nothing cited (citation_count 0) and no consensus unit used as evidence.
-- reads: stg_clusters, stg_fragments
create or replace view mart_fragments_never_cited as
with fragments as (
    select * from stg_fragments
),
evidence as (
    select distinct unnest(from_json(unit->'evidence_pointers', '["varchar"]')) as fragment_id
    from stg_clusters where unit is not null
)
select f.fragment_id, f.source_agent, f.reported_at, f.confidence, f.content
from fragments f
where f.citation_count = 0
  and f.fragment_id not in (select fragment_id from evidence)
