-- materialize: cache
-- What each agent did, by the tool it used, up to the as-of date: its recalls (memlib's
-- agent tools and context builder name the tool; a plain `recall` has none) and its
-- changes to memories (audit events by actor and action). One row per agent, activity, tool.
-- reads: int_memory_as_of, int_recall_events_as_of, stg_audit_log
create or replace view mart_agent_activity as
with params as (
    select * from memlib_params
),
recalls as (
    select * from int_recall_events_as_of
),
changes as (
    select a.* from stg_audit_log a
    join int_memory_as_of m on m.id = a.subject_id
),
recalled as (
    select
        coalesce(agent, '(none)') as agent, 'recall' as activity, coalesce(tool, 'recall') as tool,
        count(distinct query_id) as n_calls,
        count(*) as n_memories,
        max(recalled_at) as last_at
    from recalls
    group by all
),
changed as (
    select
        coalesce(actor, '(none)') as agent, 'change' as activity, action as tool,
        count(distinct coalesce(cast(version as varchar), event_id)) as n_calls,  -- one commit per call
        count(*) as n_memories,
        max("at") as last_at
    from changes
    group by all
)
select agent, activity, tool, n_calls, n_memories, last_at from recalled
union all
select agent, activity, tool, n_calls, n_memories, last_at from changed
