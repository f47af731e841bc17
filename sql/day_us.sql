-- Microseconds in a UTC day (86,400 s). Timestamps are compared and subtracted as
-- microseconds since 1970 (epoch_us); utc_day.sql says why.
-- reads: nothing
create or replace macro day_us() as 86400e6
