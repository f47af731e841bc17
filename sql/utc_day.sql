-- The UTC calendar day of a timestamp. DuckDB computes calendar functions of TIMESTAMPTZ
-- (date_trunc, date_diff, a cast to date, adding an interval) through ICU at about 0.25 us
-- a row; in UTC a day is 86,400 s, so the day is arithmetic on the microseconds.
-- reads: day_us
create or replace macro utc_day(ts) as
    date '1970-01-01' + cast(floor(epoch_us(ts) / day_us()) as integer)
