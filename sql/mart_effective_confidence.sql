-- Effective confidence of every memory (see effective_confidence.sql) from the signals it is
-- derived from: recalls up to the as-of date, distinct agents that recalled it, its age, and
-- its source's weight (memlib_source_weight; a source it does not list weighs its default).
-- reads: days_between, effective_confidence, int_memory_as_of, int_recall_events_as_of
create or replace view mart_effective_confidence as
with memories as (
    select * from int_memory_as_of
),
events as (
    select memory_id, count(distinct agent) as n_agents
    from int_recall_events_as_of
    group by memory_id
),
weights as (
    select source, weight from memlib_source_weight
)
select
    m.id, m.kind, m.project_id, m.project_name, m.source, m.confidence, m.usage_as_of as n_recalls,
    coalesce(e.n_agents, 0) as n_agents,
    days_between(m.created_at, m.as_of) as age_days,
    coalesce(w.weight, d.weight) as source_weight,
    effective_confidence(m.confidence, coalesce(w.weight, d.weight), m.usage_as_of,
                         coalesce(e.n_agents, 0),
                         days_between(m.created_at, m.as_of)) as effective_confidence
from memories m
left join events e on e.memory_id = m.id
left join weights w on w.source = m.source
cross join (select weight from weights where source is null) d
