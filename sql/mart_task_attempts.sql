-- One row per claim of a task (an attempt) up to the as-of time: who held it, when it
-- ended and how: acked, failed, nacked, lease_expired, approval_requested, cancelled, or
-- still 'running' at the as-of time (a lease that ran out but no claim has swept yet
-- counts as lease_expired at the lease's end). claim_to_end_seconds is the latency from
-- claim to ack for acked attempts.
-- reads: stg_task_events
create or replace view mart_task_attempts as
with params as (
    select * from memlib_params
),
changes as (
    select *, lead(kind) over w as next_kind, lead("at") over w as next_at
    from stg_task_events
    where status_after is not null
    window w as (partition by task_id order by event_id)
),
unswept as (
    select task_id, make_timestamp(lease_until_us)::timestamptz as lease_end
    from raw_tasks
    where status = 'running'
)
select
    c.task_id, c.attempt, c.worker, c.session_id, c."at" as claimed_at,
    case
        when c.next_kind is not null then c.next_kind
        when u.lease_end < (select as_of from params) then 'lease_expired'
        else 'running'
    end as outcome,
    coalesce(c.next_at, case when u.lease_end < (select as_of from params) then u.lease_end end) as ended_at,
    (epoch_us(coalesce(c.next_at, case when u.lease_end < (select as_of from params) then u.lease_end end))
        - epoch_us(c."at")) / 1e6 as claim_to_end_seconds
from changes c
left join unswept u on u.task_id = c.task_id and c.next_kind is null
where c.kind = 'claimed'
