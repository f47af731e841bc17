-- Approval tickets requested by the as-of time, as they stood then: pending, approved or
-- rejected, and how long each waited (to its decision, or to the as-of time if pending).
-- reads: nothing
create or replace view mart_approval_waits as
with params as (
    select * from memlib_params
),
tickets as (
    select
        a.approval_id, a.task_id, a.request, a.requested_by, a.decided_by, a.reason,
        make_timestamp(a.requested_us)::timestamptz as requested_at,
        case when a.decided_us <= epoch_us((select as_of from params))
             then make_timestamp(a.decided_us)::timestamptz end as decided_at,
        a.status
    from raw_approvals a
    where a.requested_us <= epoch_us((select as_of from params))
)
select
    approval_id, task_id, request, requested_by, requested_at, decided_at,
    case when decided_at is null then 'pending' else status end as status,
    case when decided_at is null then null else decided_by end as decided_by,
    (epoch_us(coalesce(decided_at, (select as_of from params))) - epoch_us(requested_at)) / 1e6 as wait_seconds
from tickets
