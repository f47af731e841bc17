-- Knowledge memories no judge had read for contradictions by the report's date
-- (memlib.judges.reading): a decision, pattern, insight, issue, learning or note of a
-- project or of a person, with no 'judged' event up to then. Until it is read, a memory is
-- in no open contradiction; maintain, a memory server's reader or memlib screen read it.
-- reads: int_memory_as_of, stg_audit_log
create or replace view mart_unread_memories as
with params as (
    select * from memlib_params
),
judged as (
    select distinct a.subject_id as id
    from stg_audit_log a, params p
    where a.action = 'judged' and a."at" <= p.as_of
)
select m.id, m.kind, m.project_id, m.project_name, m.user_id, m.created_at
from int_memory_as_of m
where m.kind in ('decision', 'pattern', 'insight', 'issue', 'learning', 'manual')
  and (m.project_id is not null or m.user_id is not null)
  and m.id not in (select id from judged)
