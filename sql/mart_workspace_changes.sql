-- Changes to workspace memories per day up to the report date, by hand (a person's edits of
-- the files, which a sync carried into the store: adds and edits, deletions, conflicts the
-- files won) or by agents (memories saved and appended to the files, and updates through
-- the API, the CLI or the agent tools). One row per day, who and action.
-- reads: stg_audit_log
create or replace view mart_workspace_changes as
with params as (
    select * from memlib_params
),
events as (
    select a.* from stg_audit_log a, params p
    where a."at" <= p.as_of
),
workspace_ids as (
    select distinct subject_id as id from events
    where action in ('workspace_sync', 'workspace_delete', 'workspace_append', 'workspace_conflict')
),
changes as (
    select
        cast(e."at" as date) as day,
        case when e.action in ('workspace_sync', 'workspace_delete') then 'hand'
             when e.action = 'workspace_conflict' then 'conflict'
             else 'agent' end as changed_by,
        e.action, e.event_id
    from events e
    join workspace_ids w on w.id = e.subject_id
    where e.action in ('workspace_sync', 'workspace_delete', 'workspace_append', 'workspace_conflict', 'update')
)
select day, changed_by, action, count(*) as n_changes
from changes
group by all
order by day, changed_by, action
