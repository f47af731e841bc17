-- Decay score of every memory under the connection's decay policy (the first policy given;
-- memlib_params.decay_policy), from int_memory_policy: the very numbers retention acts on.
-- reads: decay_score, int_memory_policy
create or replace view mart_decay as
with judged as (
    select * from int_memory_policy
),
params as (
    select decay_policy from memlib_params
)
select
    j.id, j.kind, j.level, j.project_id, j.project_name, j.source, j.created_at,
    j.last_touched_at, j.usage_as_of, j.policy, j.half_life_days, j.idle_days,
    j.effective_half_life_days, j.decay_score, j.confidence, j.manual_promote_flag, j.ttl_days,
    j.as_of
from judged j
join params p on j.policy = p.decay_policy
