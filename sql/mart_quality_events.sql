-- What kept memory right in the report's window (issue 42), one row per audit event: the
-- write screen's findings (a repeat merged: corroborate; linked: duplicate; a contradiction
-- flagged, counted once per pair on its newer memory; an update), a pair resolved, a memory
-- corrected, forgotten or quarantined (once each, and not when the run was undone by the
-- report's date), a held memory accepted or rejected in review. With who
-- did it and the project of the memory it names (and its name): the one the event records, else the
-- memory's as of the report's date (null when neither says). With a user_id, the events of that
-- person's memories still in the store.
-- reads: stg_audit_log, stg_memories
create or replace view mart_quality_events as
with params as (
    select * from memlib_params
),
events as (
    select a.*, a.details->>'project_id' as recorded_project
    from stg_audit_log a, params p
    where a."at" <= p.as_of and a."at" > p.as_of - to_days(p.window_days)
      and a.action in ('corroborate', 'duplicate', 'contradiction', 'update', 'resolve', 'correct', 'forget',
                       'quarantine', 'review_accepted', 'review_rejected')
      -- a contradiction is recorded on both memories: its newer one's event stands for the pair
      and (a.action <> 'contradiction' or a.subject_id = (a.details->>'newer'))
      -- so is a correction: the corrected memory's event stands for it
      and (a.action <> 'correct' or a.subject_id = (a.details->>'from'))
),
undone as (
    -- runs undone by the report's date: a correction put back (uncorrect), a forget or a
    -- quarantine whose retention run was undone; what they did no longer holds
    select distinct u.run_id
    from stg_audit_log u, params p
    where u.action in ('uncorrect', 'retention_undo') and u.run_id is not null and u."at" <= p.as_of
),
memories as (
    select id, project_id, user_id from stg_memories
),
projects as (
    select id as project_id, name as project_name from stg_memories where kind = 'project'
)
select
    e.event_id, e.action, e.actor, e."at", e.subject_id,
    coalesce(e.recorded_project, m.project_id) as project_id,
    p.project_name,
    e.details->>'kind' as finding
from events e
left join memories m on m.id = e.subject_id
left join projects p on p.project_id = coalesce(e.recorded_project, m.project_id)
where (e.action not in ('correct', 'forget', 'quarantine') or e.run_id is null
       or e.run_id not in (select run_id from undone))
  and ((select project_id from params) is null
       or coalesce(e.recorded_project, m.project_id) = (select project_id from params))
  -- one person's: events of memories that are theirs (a removed memory's events name no person)
  and ((select user_id from params) is null or m.user_id = (select user_id from params))
