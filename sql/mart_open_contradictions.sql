-- Contradictions the write screen flagged and still open at the report's date (issue 42):
-- a pair neither resolved since (a 'resolve' event naming it) nor broken up (both memories
-- are still in the store as of then). Both sides' texts, which is newer, and how well each
-- is supported: 1 + the writers who repeated it up to then ('corroborate' events).
-- reads: int_memory_as_of, stg_audit_log
create or replace view mart_open_contradictions as
with params as (
    select * from memlib_params
),
events as (
    select a.* from stg_audit_log a, params p where a."at" <= p.as_of
),
flagged as (
    select subject_id as newer, details->>'with' as older, details->>'kind' as kind, max("at") as flagged_at
    from events
    where action = 'contradiction' and subject_id = (details->>'newer')
    group by all
),
resolved as (
    select subject_id, details->>'with' as other, max("at") as resolved_at
    from events where action = 'resolve'
    group by all
),
support as (
    select subject_id as id, 1 + count(*) as support from events where action = 'corroborate' group by all
),
memories as (
    select id, project_id, project_name, text, created_at from int_memory_as_of
)
select
    f.kind, n.project_id, n.project_name, f.flagged_at,
    o.id as older_id, o.text as older_text, coalesce(so.support, 1) as older_support,
    n.id as newer_id, n.text as newer_text, coalesce(sn.support, 1) as newer_support
from flagged f
join memories n on n.id = f.newer
join memories o on o.id = f.older
left join resolved r on r.subject_id = f.newer and r.other = f.older and r.resolved_at >= f.flagged_at
left join support sn on sn.id = f.newer
left join support so on so.id = f.older
where r.subject_id is null
