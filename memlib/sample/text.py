"""Phrase banks for the sample corpus: software-agent work in many words, not one template."""

PROJECT_NAMES = [
    ("payments-gateway", "Card and wallet payments for the storefront, PCI scope, Go and Postgres"),
    ("mobile-checkout", "React Native checkout flow for iOS and Android with offline carts"),
    ("search-indexer", "Incremental product search indexing from the catalog change stream"),
    ("auth-service", "OAuth2 and session management for every internal and public client"),
    ("data-pipeline", "Nightly and streaming ETL from the OLTP databases into the lakehouse"),
    ("feature-store", "Online and offline features for the ranking and fraud models"),
    ("billing-portal", "Self-service invoices, plan changes and dunning for business customers"),
    ("infra-platform", "Terraform modules, Kubernetes clusters and the deployment pipeline"),
    ("docs-site", "Developer documentation site with versioned API references"),
    ("notification-hub", "Email, push and SMS fan-out with per-user preferences and quiet hours"),
    ("inventory-api", "Stock levels and reservations across warehouses, strongly consistent"),
    ("analytics-dashboard", "Product analytics dashboards for growth and finance teams"),
]
PROJECT_PREFIXES = ["ledger", "catalog", "routing", "pricing", "fraud", "identity", "media",
                    "support", "shipping", "loyalty", "partner", "compliance", "telemetry"]
PROJECT_SUFFIXES = ["service", "api", "worker", "portal", "pipeline", "gateway", "sync", "engine"]

COMPONENTS = [
    "ledger writer", "retry queue", "webhook handler", "session cache", "rate limiter",
    "schema migration", "CI pipeline", "feature flag service", "GraphQL resolver", "Kafka consumer",
    "S3 uploader", "token refresher", "search indexer", "payment reconciler", "checkout form",
    "Terraform module", "connection pool", "gRPC client", "cron scheduler", "PDF renderer",
    "image resizer", "audit trail", "email templating", "price calculator", "tax engine",
    "login page", "password reset flow", "OpenAPI spec", "load balancer config", "health checks",
    "metrics exporter", "log shipper", "backfill job", "dead letter queue", "currency converter",
    "address validator", "cart service", "recommendation widget", "admin console", "CSV importer",
]
TECH = [
    "Postgres", "Redis", "Kafka", "DuckDB", "React", "TypeScript", "Go", "Rust", "Python",
    "Terraform", "Kubernetes", "gRPC", "OpenTelemetry", "S3", "SQS", "Celery", "FastAPI",
    "Django", "pytest", "Playwright", "Prometheus", "Grafana", "Elasticsearch", "SQLite",
    "GitHub Actions", "Docker", "nginx", "Envoy", "Vault", "Snowflake",
]
PROBLEMS = [
    "intermittent timeouts", "a race condition on concurrent writes", "memory growth under load",
    "flaky integration tests", "N+1 queries", "stale cache entries", "clock skew between nodes",
    "duplicate webhook deliveries", "slow cold starts", "a deadlock during migration",
    "unbounded retries", "silent data truncation", "timezone bugs around midnight",
    "connection pool exhaustion", "out-of-order events", "a leaking file descriptor",
    "inconsistent rounding of amounts", "a missing index on a hot query", "CORS failures",
    "expired TLS certificates", "hot partitions", "oversized payloads",
]
CONDITIONS = [
    "traffic doubles during the evening peak", "a deploy rolls pods one by one",
    "the upstream API returns 429", "two workers pick the same job", "the cache is cold",
    "the batch exceeds ten thousand rows", "the user switches networks mid-request",
    "the database fails over", "daylight saving time starts", "the queue backs up",
]
TOOLS = ["py-spy", "pprof", "EXPLAIN ANALYZE", "the flame graph", "k6", "Locust", "strace",
         "the slow query log", "Jaeger traces", "heaptrack"]
METRICS = ["p95 latency", "error rate", "throughput", "memory footprint", "build time",
           "cold start time", "CPU usage", "queue depth", "test runtime", "bundle size"]
FIELDS = ["customer_id", "created_at", "order_id", "tenant_id", "status", "email", "sku",
          "idempotency_key", "updated_at", "region"]
TAGS = ["backend", "frontend", "db", "perf", "security", "testing", "infra", "api", "ux", "ci",
        "observability", "data", "mobile", "reliability", "cost"]
SOURCES = [("agent", 55), ("manual", 12), ("import", 10), ("summarizer", 10), ("user", 13)]
AGENTS = ["coder", "planner", "reviewer", "tester", "researcher", "ops-bot"]
PATTERN_NAMES = [
    "Idempotent consumer", "Transactional outbox", "Circuit breaker", "Retry with jitter",
    "Strangler fig migration", "Read-through cache", "Saga with compensations", "Bulkhead",
    "Feature-flagged rollout", "Expand and contract schema change", "Contract test",
    "Golden file test", "Backpressure via bounded queue", "Sharded counter", "Blue-green deploy",
]

ROOT_TASK = [
    "Migrate the {component} to {tech}",
    "Cut the {metric} of the {component} in half",
    "Harden the {component} against {problem}",
    "Add tracing and dashboards for the {component}",
    "Replace {tech} with {tech2} in the {component}",
    "Ship a redesigned {component} behind a feature flag",
    "Investigate {problem} reported in the {component}",
    "Make the {component} multi-tenant",
]
SUB_TASK = [
    "Write unit tests for the {component} covering {problem}",
    "Profile the {component} with {tool} and record the hot paths",
    "Add an index on {field} used by the {component}",
    "Document how the {component} behaves when {condition}",
    "Refactor the {component} so {tech} calls go through one client",
    "Reproduce {problem} locally with a failing test",
    "Wire the {component} metrics into {tech}",
    "Review the pull request that changes the {component} retry logic",
    "Backfill {field} for existing rows before enabling the {component}",
    "Add a load test with {tool} for the {component}",
]
DECISION_TITLE = ["Adopt {tech} for the {component}", "Keep {tech} in the {component} for now",
                  "Move {component} state out of {tech}", "Standardise on {tech} for {metric} work"]
DECISION_CONTEXT = [
    "The {component} suffers from {problem} when {condition}.",
    "Our {metric} budget is exceeded by the {component} and {tech} is already in the stack.",
    "Two teams maintain separate copies of the {component}.",
]
DECISION_BODY = [
    "We will run the {component} on {tech} and retire the old path after two releases.",
    "We accept {tech} for the {component}, with a fallback to {tech2} behind a flag.",
    "The {component} keeps its interface; only its storage moves to {tech}.",
]
CONSEQUENCES = [
    "On-call needs a runbook for {tech}; {metric} should improve measurably.",
    "Migration work for {field} is required and old clients must be upgraded.",
    "We take on operational cost for {tech} but remove {problem}.",
]
INSIGHT = [
    "The {component} spends most of its time in serialisation, not in {tech}.",
    "{problem} in the {component} only appears when {condition}.",
    "Most {metric} regressions trace back to the {component}.",
    "Caching {field} lookups would remove most calls the {component} makes to {tech}.",
    "The {component} retries hide {problem}; the error rate looks fine but latency does not.",
]
ISSUE = [
    "The {component} shows {problem} when {condition}.",
    "CI fails about one run in twenty on the {component} tests because of {problem}.",
    "Customers report {problem} in the {component} since the {tech} upgrade.",
    "The {component} drops events with a null {field}.",
]
LEARNING = [
    "{tech} needs explicit timeouts; the defaults let the {component} hang when {condition}.",
    "Running {tool} before optimising the {component} saved a day of guessing.",
    "Feature flags made rolling back the {component} painless.",
    "Batching writes to {tech} fixed {problem} without new hardware.",
    "Tests that mock {tech} missed {problem}; the contract tests caught it.",
]
CONVERSATION = [
    "user: can you check why the {component} is slow? assistant: {tool} shows {problem}.",
    "user: is it safe to deploy the {component} today? assistant: yes, once the {tech} migration finishes.",
    "user: what changed in the {component}? assistant: it now uses {tech} and batches on {field}.",
    "user: please add a test for {problem}. assistant: added one that reproduces it when {condition}.",
    "user: why did the build fail? assistant: the {component} tests hit {problem}.",
]
SUMMARY = [
    "Iteration {iteration}: the {component} moved to {tech}; {problem} is fixed; {metric} improved.",
    "Iteration {iteration} summary: tests for the {component} added, {tool} profile attached, "
    "follow-up on {field}.",
    "Session summary: discussed {problem} in the {component} and agreed to try {tech}.",
]
MANUAL = [
    "Note from the team lead: the {component} owner is on leave; route questions about {tech} to platform.",
    "Reminder: never run the {component} backfill during the evening peak.",
    "Runbook link for the {component}: restart order is {tech} first, then the workers.",
]
USAGE_EXAMPLES = [
    "Wrap every call from the {component} to {tech}.",
    "Use it when {condition}.",
    "Apply before enabling the {component} in production.",
]
CODE = [
    "for attempt in range(5):\n    try:\n        return client.call()\n    except Timeout:\n        sleep(2 ** attempt + random())",
    "with db.transaction():\n    db.insert(order)\n    db.insert(outbox_event(order))",
    "if seen.contains(msg.key):\n    return\nhandle(msg)\nseen.add(msg.key)",
]
QUERIES = [
    "why is the {component} slow", "{problem} in {component}", "how do we use {tech}",
    "decisions about {component}", "{component} {tech} migration", "tests for {component}",
    "what did we learn about {tech}", "{metric} of the {component}",
]
DETAILS = [
    "Seen in {env} after release {release}.", "Tracked as {ticket}.",
    "Raised by {person} in the {weekday} sync.", "Affects roughly {pct}% of requests.",
    "{person} owns the follow-up.", "First noticed in {env} on a {weekday}.",
    "Linked to {ticket} and {ticket2}.", "Confirmed by {person} with {tool}.",
]
ENVS = ["staging", "production", "eu-west", "us-east", "the canary", "the load-test cluster"]
PEOPLE = ["Priya", "Marcus", "Lena", "Tomás", "Aiko", "Sam", "Noor", "Jonas", "Ife", "Chen"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
TICKET_PREFIXES = ["PAY", "OPS", "WEB", "DATA", "SEC", "INFRA", "MOB"]
