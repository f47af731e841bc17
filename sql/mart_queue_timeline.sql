-- Queue depth (tasks waiting: queued or blocked) and tasks in flight at the end of each
-- hour of the window, with what happened in that hour: enqueued, claims, acks, failures,
-- nacks (retries), lease expiries and dead letters. Levels count every event before the
-- window too; the counts only the hour's own.
-- reads: stg_task_events
create or replace view mart_queue_timeline as
with params as (
    select * from memlib_params
),
bounds as (
    select date_trunc('hour', as_of - to_days(window_days)) as first_hour, date_trunc('hour', as_of) as last_hour
    from params
),
hours as (
    select unnest(generate_series(first_hour, last_hour, interval 1 hour)) as hour from bounds
),
per_hour as (
    select
        greatest(date_trunc('hour', "at"), (select first_hour from bounds)) as hour,
        sum(depth_delta) as depth_delta,
        sum(in_flight_delta) as in_flight_delta,
        count(*) filter (where kind = 'enqueued' and "at" >= (select first_hour from bounds)) as n_enqueued,
        count(*) filter (where kind = 'claimed' and "at" >= (select first_hour from bounds)) as n_claims,
        count(*) filter (where kind = 'acked' and "at" >= (select first_hour from bounds)) as n_acks,
        count(*) filter (where kind = 'failed' and "at" >= (select first_hour from bounds)) as n_failed,
        count(*) filter (where kind = 'nacked' and "at" >= (select first_hour from bounds)) as n_nacks,
        count(*) filter (where kind = 'lease_expired' and "at" >= (select first_hour from bounds)) as n_lease_expiries,
        count(*) filter (where kind = 'dead_lettered' and "at" >= (select first_hour from bounds)) as n_dead_letters
    from stg_task_events
    group by 1
)
select
    h.hour,
    cast(sum(coalesce(p.depth_delta, 0)) over w as bigint) as queue_depth,
    cast(sum(coalesce(p.in_flight_delta, 0)) over w as bigint) as in_flight,
    coalesce(p.n_enqueued, 0) as n_enqueued, coalesce(p.n_claims, 0) as n_claims,
    coalesce(p.n_acks, 0) as n_acks, coalesce(p.n_failed, 0) as n_failed, coalesce(p.n_nacks, 0) as n_nacks,
    coalesce(p.n_lease_expiries, 0) as n_lease_expiries, coalesce(p.n_dead_letters, 0) as n_dead_letters
from hours h
left join per_hour p using (hour)
window w as (order by h.hour)
