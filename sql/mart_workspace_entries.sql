-- Memories of the markdown workspace (memlib/workspace) as of the report date: entries read
-- from its files (their metadata names the file) and memories agents saved that were
-- appended to its files (a workspace_append event names the file), with their recalls.
-- reads: int_memory_as_of, mart_usage_by_memory, stg_audit_log
create or replace view mart_workspace_entries as
with params as (
    select * from memlib_params
),
memories as (
    select * from int_memory_as_of
),
usage as (
    select * from mart_usage_by_memory
),
appended as (
    select a.subject_id as id, min(a.details->>'file') as source_file
    from stg_audit_log a, params p
    where a.action = 'workspace_append' and a."at" <= p.as_of
    group by a.subject_id
),
entries as (
    select
        m.id, m.kind, m.project_name, m.created_at, m.text,
        coalesce(try_cast(m.metadata as json)->>'source_file', ap.source_file) as source_file,
        case when m.source = 'workspace' then 'file' else 'agent' end as written_by
    from memories m
    left join appended ap on ap.id = m.id
    where m.kind != 'project'
      and (m.source = 'workspace' or ap.id is not null)
)
select
    e.id, e.kind, e.project_name, e.source_file, e.written_by, e.created_at,
    cast(e.created_at as date) as created_on, u.n_recalls, u.last_recalled_at, u.is_never_recalled, e.text
from entries e
join usage u on u.id = e.id
