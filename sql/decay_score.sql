-- The one definition of the decay score, in (0, 1]: it halves every effective half-life a
-- memory sits unused, and use stretches the half-life by 1 + ln(1 + usage).
-- reads: nothing
create or replace macro decay_score(idle_days, half_life_days, usage) as
    power(0.5, greatest(idle_days, 0) / (half_life_days * (1 + ln(1 + usage))))
