-- Every fragment agents reported (memlib/consensus, seed 001), without its embedding. `arrival`
-- is the order memlib received it in (fragments of one time are ordered by it; null for one
-- stored before arrivals were recorded).
-- reads: nothing
create or replace view stg_fragments as
with source as (
    select * from raw_fragments
)
select
    fragment_id, content, source_agent, "timestamp" as reported_at, topic_candidates,
    arrival, confidence, tool_fingerprint, coalesce(citation_count, 0) as citation_count, trace_pointer,
    try_cast(metadata as json) as metadata
from source
