-- materialize: table
-- Decay score of every memory (see decay_score.sql) from the days since it was last used, or
-- created if never used. Half-lives come from memlib_half_life: a kind's row wins over its
-- level's row, which wins over the default row (kind and level both null).
create or replace view mart_decay as
with memories as (
    select * from int_memory_as_of
),
half_lives as (
    select kind, level, half_life_days from memlib_half_life
),
resolved as (
    select
        m.*,
        coalesce(
            (select h.half_life_days from half_lives h where h.kind = m.kind),
            (select h.half_life_days from half_lives h where h.kind is null and h.level = m.level),
            (select h.half_life_days from half_lives h where h.kind is null and h.level is null)
        ) as half_life_days,
        coalesce(m.last_used_as_of, m.created_at) as last_touched_at
    from memories m
)
select
    id, kind, level, project_id, source, created_at, last_touched_at, usage_as_of,
    half_life_days,
    (epoch_us(as_of) - epoch_us(last_touched_at)) / 86400e6 as idle_days,
    half_life_days * (1 + ln(1 + usage_as_of)) as effective_half_life_days,
    decay_score((epoch_us(as_of) - epoch_us(last_touched_at)) / 86400e6, half_life_days,
                usage_as_of) as decay_score,
    confidence, manual_promote_flag, ttl_days, as_of
from resolved
