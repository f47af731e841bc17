"""Many agents, one memory (seed 001): fragments the agents report, clustered by meaning into
clusters, and consensus units that state what the agents agree on and keep every
disagreement with its evidence under a retention contract. It owns its records (records),
the clustering (clustering), conflict detection (conflicts), units (units) and their tables
in the store (store); it imports the store and the models."""

from memlib.consensus.records import (
    Cluster,
    ClusterMemoryUnit,
    Disagreement,
    Fragment,
    RetentionContract,
    Side,
    SlotConstraint,
)
from memlib.consensus.store import Consensus

__all__ = ["Cluster", "ClusterMemoryUnit", "Consensus", "Disagreement", "Fragment", "RetentionContract",
           "Side", "SlotConstraint"]
