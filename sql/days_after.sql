-- A timestamp `days` days later, in microseconds since 1970 (compare with epoch_us(...)):
-- adding an interval to a TIMESTAMPTZ goes through ICU's calendar (see utc_day).
-- reads: day_us
create or replace macro days_after(ts, days) as
    epoch_us(ts) + days * day_us()
