-- What each agent session did on both sides of memlib, up to the as-of time: its tasks in
-- the control plane (by status as of then) beside the memories it wrote and recalled. A
-- memory was written in a session when its metadata names the session, or, naming none,
-- when the session's agent created it between the session's start and end. One row per
-- session that has tasks, recalls or a session record.
create or replace view mart_session_tasks as
with params as (
    select * from memlib_params
),
sessions as (
    select session_id, agent, project_id, started_at, coalesce(ended_at, (select as_of from params)) as ended_at
    from raw_sessions
    where started_at <= (select as_of from params)
),
tasks as (
    select
        session_id, any_value(agent) as task_agent, count(*) as n_tasks,
        count(*) filter (where status = 'done') as n_done,
        count(*) filter (where status = 'failed') as n_failed,
        count(*) filter (where status = 'dead') as n_dead,
        count(*) filter (where status in ('queued', 'running', 'blocked')) as n_open
    from stg_tasks
    where session_id is not null
    group by session_id
),
recalls as (
    select session_id, count(distinct query_id) as n_recalls, count(distinct memory_id) as n_memories_recalled
    from int_recall_events_as_of
    where session_id is not null
    group by session_id
),
written as (
    select s.session_id, count(distinct m.id) as n_memories_written
    from int_memory_as_of m
    join sessions s
      on json_extract_string(m.metadata, '$.session_id') = s.session_id
      or (json_extract_string(m.metadata, '$.session_id') is null and m.agent = s.agent
          and m.created_at between s.started_at and s.ended_at)
    group by s.session_id
),
keys as (
    select session_id from sessions union select session_id from tasks union select session_id from recalls
)
select
    k.session_id, coalesce(s.agent, t.task_agent) as agent, s.project_id,
    coalesce(t.n_tasks, 0) as n_tasks, coalesce(t.n_done, 0) as n_done, coalesce(t.n_failed, 0) as n_failed,
    coalesce(t.n_dead, 0) as n_dead, coalesce(t.n_open, 0) as n_open,
    coalesce(w.n_memories_written, 0) as n_memories_written,
    coalesce(r.n_recalls, 0) as n_recalls, coalesce(r.n_memories_recalled, 0) as n_memories_recalled
from keys k
left join sessions s using (session_id)
left join tasks t using (session_id)
left join recalls r using (session_id)
left join written w using (session_id)
