-- Every task created by the as-of time, with its status then (its last status event; the
-- tasks table holds only the status now) and the agent and project of its session (the
-- agent that enqueued it when the session is not in the store).
-- reads: stg_task_events
create or replace view stg_tasks as
with params as (
    select * from memlib_params
),
status_as_of as (
    select task_id, arg_max(status_after, event_id) as status, max(attempt) as attempts
    from stg_task_events
    where status_after is not null
    group by task_id
)
select
    t.task_id, t.session_id, coalesce(s.agent, t.agent) as agent, s.project_id, t.kind, t.priority,
    coalesce(a.status, 'queued') as status, coalesce(a.attempts, 0) as attempts, t.max_attempts,
    make_timestamp(t.created_us)::timestamptz as created_at
from raw_tasks t
left join status_as_of a using (task_id)
left join raw_sessions s using (session_id)
where t.created_us <= epoch_us((select as_of from params))
