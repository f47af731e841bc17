"""The lifecycle of memories: `retention` (plan, apply, undo, purge, cleanup of old
versions), `curation` (promotion, iterations, flags, confidence) and `maintenance` (fold
usage, compact, index). Policies (memlib.policy) say what retention may remove. It reads
through analytics (a retention plan is the retention report's view) and writes through the
store."""
