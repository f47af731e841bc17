-- Every saved version of every retention contract (memlib/consensus, seed 001).
-- reads: nothing
create or replace view stg_contracts as
with source as (
    select * from raw_contracts
)
select contract_id, version, saved_at, try_cast(contract as json) as contract
from source
