-- materialize: cache
-- What each agent session did on both sides of memlib, up to the as-of time: its tasks in
-- the control plane (by status as of then) beside the memories it wrote and recalled. A
-- memory was written in a session when its metadata names the session, or, naming none,
-- when the session's agent created it between the session's start and end. One row per
-- session that has tasks, recalls or a session record.
-- reads: int_memory_as_of, int_recall_events_as_of, stg_tasks
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
named as (
    -- memories whose metadata names their session
    select json_extract_string(metadata, '$.session_id') as session_id, count(*) as n
    from int_memory_as_of
    where json_extract_string(metadata, '$.session_id') is not null
    group by all
),
mine as (
    -- memories naming no session: how many its agent had created by each moment (ties
    -- counted together), so a session's count is two look-ups, not a join of every memory
    -- with every session of its agent
    select agent, created_at, count(*) over (partition by agent order by created_at) as n_before
    from int_memory_as_of
    where json_extract_string(metadata, '$.session_id') is null and agent is not null
),
unnamed as (
    select s.session_id, coalesce(upto.n_before, 0) - coalesce(before.n_before, 0) as n
    from sessions s
    asof left join mine upto on upto.agent = s.agent and s.ended_at >= upto.created_at
    asof left join mine before on before.agent = s.agent and s.started_at > before.created_at
),
written as (
    select s.session_id, coalesce(n.n, 0) + coalesce(u.n, 0) as n_memories_written
    from sessions s
    left join named n using (session_id)
    left join unnamed u using (session_id)
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
