-- Each slot of each consensus unit built under a contract, against what the contract
-- version the unit obeyed asks of it: coverage, the minimum ratio, whether it is required,
-- and whether it is met (a required slot below its minimum is not).
-- reads: stg_clusters, stg_contracts
create or replace view mart_slot_coverage as
with units as (
    select cluster_id, top_topic, contract_id, contract_version, contract_status, unit
    from stg_clusters
    where unit is not null and contract_id is not null
),
slots as (
    select u.*, unnest(map_entries(try_cast(u.unit->'slot_coverage' as map(varchar, double)))) as entry
    from units u
),
contracts as (
    select * from stg_contracts
),
asked as (
    select
        s.cluster_id, s.top_topic, s.contract_id, s.contract_version, s.contract_status,
        s.entry.key as slot,
        s.entry.value as coverage,
        coalesce(cast(c.contract->'slots'->(s.entry.key)->>'min_coverage_ratio' as double), 0) as min_coverage_ratio,
        coalesce(cast(c.contract->'slots'->(s.entry.key)->>'required' as boolean), true) as required
    from slots s
    left join contracts c on c.contract_id = s.contract_id and c.version = s.contract_version
)
select *, coverage >= min_coverage_ratio as met
from asked
