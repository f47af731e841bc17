-- Every disagreement a consensus unit keeps, one row each: its cluster, kind and point, and
-- both sides' claims, evidence fragments and agents (side a: the larger by confidence).
-- reads: stg_clusters
create or replace view mart_disagreements as
with clusters as (
    select * from stg_clusters where unit is not null
),
points as (
    select c.cluster_id, unnest(from_json(c.unit->'disagreements', '["json"]')) as d
    from clusters c
)
select
    cluster_id,
    d->>'kind' as kind,
    d->>'point' as point,
    d->'a'->>'claim' as claim_a,
    from_json(d->'a'->'agents', '["varchar"]') as agents_a,
    from_json(d->'a'->'fragment_ids', '["varchar"]') as fragment_ids_a,
    d->'b'->>'claim' as claim_b,
    from_json(d->'b'->'agents', '["varchar"]') as agents_b,
    from_json(d->'b'->'fragment_ids', '["varchar"]') as fragment_ids_b
from points
