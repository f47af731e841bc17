-- TTL status of every memory as of the report date. Expiry is defined once, by the store:
-- expires_at = created_at + ttl_days (null for ttl -1); expired means expires_at <= as_of.
-- reads: int_memory_as_of, utc_day
create or replace view mart_ttl as
with memories as (
    select * from int_memory_as_of
)
select
    id, kind, level, project_id, source, created_at, ttl_days, expires_at,
    utc_day(expires_at) - utc_day(as_of) as days_left,
    coalesce(expires_at <= as_of, false) as is_expired,
    manual_promote_flag, usage_as_of, as_of
from memories
