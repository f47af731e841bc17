-- The one definition of effective confidence, in [0, 100]: the confidence a memory was given,
-- weighted by how much its source is trusted, raised when it is recalled and by more agents
-- (each doubling of recalls or agents adds about 3.5%), and fading with age toward half of
-- itself (half of the way after a year):
--   confidence * source_weight * (1 + 0.05 ln(1 + recalls) + 0.05 ln(1 + agents))
--              * (0.5 + 0.5 * 0.5^(age_days / 365)), capped at 100.
-- reads: nothing
create or replace macro effective_confidence(confidence, source_weight, n_recalls, n_agents, age_days) as
    least(100.0, confidence * source_weight
                 * (1 + 0.05 * ln(1 + n_recalls) + 0.05 * ln(1 + n_agents))
                 * (0.5 + 0.5 * power(0.5, greatest(age_days, 0) / 365.0)))
