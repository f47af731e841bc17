-- Decay score against idle days for each configured half-life and a few usage levels:
-- the curves the TTL/decay report draws, from the same macro as mart_decay.
create or replace view mart_decay_curve as
with half_lives as (
    select coalesce(kind, case when level is not null then 'level ' || level end, 'default') as applies_to,
           half_life_days
    from memlib_half_life
),
days as (
    select range as idle_days from range(0, 366, 5)
),
usages as (
    select unnest([0, 5, 50]) as usage
)
select h.applies_to, h.half_life_days, u.usage, d.idle_days,
       decay_score(d.idle_days, h.half_life_days, u.usage) as decay_score
from half_lives h, days d, usages u
