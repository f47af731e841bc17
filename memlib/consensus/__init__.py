"""Many agents, one memory (seed 001): fragments the agents report, clustered by meaning into
clusters, and consensus units that state what the agents agree on and keep every
disagreement with its evidence under a retention contract. It owns its records (records),
the clustering (clustering), conflict detection (conflicts), units (units) and their tables
in the store (store); it imports the store and the models."""

from memlib.deferred import lazy_attributes

# What `from memlib.consensus import X` gives, imported when first asked for: a write's repeat
# check (consensus.duplicates) loads none of the clustering, the conflicts or the tables.
_LAZY = {"Consensus": "memlib.consensus.store",
         **{name: "memlib.consensus.records" for name in (
             "Cluster", "ClusterMemoryUnit", "Disagreement", "Fragment", "RetentionContract", "Side",
             "SlotConstraint")}}

__all__ = ["Cluster", "ClusterMemoryUnit", "Consensus", "Disagreement", "Fragment", "RetentionContract",
           "Side", "SlotConstraint"]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
