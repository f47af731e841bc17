-- The control plane's event log (memlib.control) up to the as-of time, one row per event.
-- Each event that changes a task's status says which status it leaves the task in
-- (status_after) and which it found (status_before, from the task's previous such event),
-- so queue depth and tasks in flight at any time are running sums of depth_delta and
-- in_flight_delta. Depth counts the tasks waiting: queued (claimable or backing off) or
-- blocked on an approval. (An approval decided while another is pending counts the task as
-- queued until the other is decided: a rare case the event log alone cannot tell apart.)
-- reads: nothing
create or replace view stg_task_events as
with params as (
    select * from memlib_params
),
events as (
    select
        event_id, task_id, session_id, kind, attempt, worker, detail,
        make_timestamp(at_us)::timestamptz as "at",
        case kind
            when 'enqueued' then 'queued' when 'claimed' then 'running' when 'acked' then 'done'
            when 'failed' then 'failed' when 'nacked' then 'queued' when 'lease_expired' then 'queued'
            when 'dead_lettered' then 'dead' when 'approval_requested' then 'blocked'
            when 'approved' then 'queued' when 'rejected' then 'rejected' when 'cancelled' then 'cancelled'
            when 'requeued' then 'queued'
        end as status_after
    from raw_task_events
    where at_us <= epoch_us((select as_of from params))
),
changes as (
    select *, lag(status_after) over (partition by task_id order by event_id) as status_before
    from events
    where status_after is not null
)
select
    e.event_id, e.task_id, e.session_id, e.kind, e.attempt, e.worker, e.detail, e."at",
    e.status_after, c.status_before,
    coalesce(cast(c.status_after in ('queued', 'blocked') as integer)
             - cast(coalesce(c.status_before in ('queued', 'blocked'), false) as integer), 0) as depth_delta,
    coalesce(cast(c.status_after = 'running' as integer)
             - cast(coalesce(c.status_before = 'running', false) as integer), 0) as in_flight_delta
from events e
left join changes c using (event_id)
