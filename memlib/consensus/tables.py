"""The consensus tables' layout (seed 001's fragments, clusters, cluster memory units and
retention contracts, and the inputs trace pointers name), and the ones the analytics views
read (`SOURCES`)."""

from __future__ import annotations

import pyarrow as pa

from memlib.interface import TableSource

FRAGMENTS, CLUSTERS, INPUTS = "fragments", "clusters", "consensus_inputs"
UNITS, CONTRACTS = "cluster_memory_units", "retention_contracts"
TS = pa.timestamp("us", tz="UTC")


def fragment_schema(dims: int) -> pa.Schema:
    return pa.schema([
        pa.field("fragment_id", pa.string(), nullable=False), ("content", pa.string()),
        ("source_agent", pa.string()), ("timestamp", TS), ("topic_candidates", pa.list_(pa.string())),
        ("confidence", pa.float64()), ("tool_fingerprint", pa.string()), ("citation_count", pa.int64()),
        ("trace_pointer", pa.string()), ("metadata", pa.string()),
        ("words", pa.list_(pa.string())),       # what clustering read of it (consensus/clustering.py
        ("value_keys", pa.list_(pa.string())),  # features), kept so its lexicon is replayed, not re-parsed
        ("arrival", pa.int64()),  # the order memlib received it in (Fragment.arrival)
        ("embedding", pa.list_(pa.float32(), dims))])


def cluster_schema(dims: int) -> pa.Schema:
    return pa.schema([
        pa.field("cluster_id", pa.string(), nullable=False), ("fragment_ids", pa.list_(pa.string())),
        ("topic_distribution", pa.string()), ("conflict_risk", pa.float64()), ("last_updated", TS),
        ("n_fragments", pa.int64()),
        ("topic_weights", pa.string()),        # raw topic weights and the sum of the fragments' unit
        ("vector_sum", pa.list_(pa.float64())),  # vectors: written for stores and views made before, no longer read
        ("centroid", pa.list_(pa.float32(), dims))])


UNIT_SCHEMA = pa.schema([pa.field("cluster_id", pa.string(), nullable=False), ("built_at", TS),
                         ("contract_id", pa.string()), ("contract_version", pa.string()), ("status", pa.string()),
                         ("n_disagreements", pa.int64()), ("unit", pa.string())])  # the unit as JSON
CONTRACT_SCHEMA = pa.schema([pa.field("contract_id", pa.string(), nullable=False), ("version", pa.string()),
                             ("saved_at", TS), ("contract", pa.string())])
INPUT_SCHEMA = pa.schema([pa.field("pointer", pa.string(), nullable=False), ("registered_at", TS),
                          ("source", pa.string())])


SCHEMAS = {FRAGMENTS: fragment_schema, CLUSTERS: cluster_schema, INPUTS: lambda dims: INPUT_SCHEMA,
           UNITS: lambda dims: UNIT_SCHEMA, CONTRACTS: lambda dims: CONTRACT_SCHEMA}  # name -> dims -> layout
SOURCES = tuple(TableSource(view, name, SCHEMAS[name]) for view, name in (
    ("raw_fragments", FRAGMENTS), ("raw_clusters", CLUSTERS), ("raw_cluster_units", UNITS),
    ("raw_contracts", CONTRACTS)))
