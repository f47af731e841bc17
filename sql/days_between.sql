-- Days (fractional) from one timestamp to another: a memory's idle time, its age.
-- reads: day_us
create or replace macro days_between(since, until) as
    (epoch_us(until) - epoch_us(since)) / day_us()
