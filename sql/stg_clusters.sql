-- Every cluster of fragments with its conflict risk (defined once, in
-- memlib/consensus/conflicts.py: 2 x the confidence-weighted share of its fragments on a
-- losing side of a disagreement, at most 1) and, when it has one, its consensus unit.
-- reads: nothing
create or replace view stg_clusters as
with clusters as (
    select * from raw_clusters
),
units as (
    select * from raw_cluster_units
)
select
    c.cluster_id, c.fragment_ids, coalesce(c.n_fragments, len(c.fragment_ids)) as n_fragments,
    c.conflict_risk, c.last_updated as last_updated_at, try_cast(c.topic_distribution as json) as topic_distribution,
    -- its main topic: the largest share of its distribution (the first such, in name order)
    map_keys(shares)[list_position(map_values(shares), list_max(map_values(shares)))] as top_topic,
    u.built_at as unit_built_at, u.contract_id, u.contract_version, u.status as contract_status,
    coalesce(u.n_disagreements, 0) as n_disagreements, try_cast(u.unit as json) as unit
from clusters c
cross join lateral (select try_cast(try_cast(c.topic_distribution as json) as map(varchar, double)) as shares) d
left join units u on u.cluster_id = c.cluster_id
