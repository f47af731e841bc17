"""Pairs of memories written by hand on 2026-11-26 to measure duplicate detection on write:
an existing memory, a new one written later into the same project, and the truth.

- `same`: the new memory says nothing the existing one does not (a re-statement, a copy with
  other case or spacing, a paraphrase by another agent, a translation of units into words);
- `other`: it says something else, often in nearly the same words: another number, a
  negation, another named choice, another scope (staging against production), another
  subject in the same template, or more than the first (a detail the first lacks).

Written in several voices (chat lines, status notes, tickets, commit-message style,
a person's own notes) before any detector was written. Every third pair (by position) is the
check, kept aside: methods are chosen on the rest (`dev`) and the check is run to report.
"""

from __future__ import annotations

# (kind, existing, new, truth, what the pair tests)
PAIRS: list[tuple[str, str, str, str, str]] = [
    ("decision", "Use Postgres 16 for the ledger", "use postgres 16 for the ledger", "same", "case"),
    ("insight", "The nightly export job times out after 30 minutes.",
     "The nightly export job times out after 30 minutes", "same", "final stop"),
    ("learning", "Batch inserts are 10x faster than row-by-row inserts",
     "Batch inserts are  10x faster than row-by-row   inserts ", "same", "spacing"),
    ("issue", "Flaky test: test_settlement_retries fails on CI about once a week",
     "flaky test - test_settlement_retries fails on CI about once a week", "same", "punctuation"),
    ("insight", "Cache TTL is 300 s", "Cache TTL is 60 s", "other", "number"),
    ("decision", "We deploy on Fridays", "We never deploy on Fridays", "other", "negation"),
    ("decision", "The frontend uses React", "The frontend uses Vue", "other", "choice"),
    ("insight", "Staging database has 2 replicas", "Production database has 2 replicas", "other", "scope"),
    ("learning", "The payments service retries 3 times before giving up",
     "Payments retry three times and then give up", "same", "paraphrase, number in words"),
    ("insight", "Login page takes about 4 seconds to load on mobile",
     "On mobile the login page needs roughly 4 s to load", "same", "paraphrase, unit"),
    ("issue", "Search returns duplicate results when a filter is applied",
     "Search returns no results when a filter is applied", "other", "different symptom"),
    ("decision", "API responses are paginated with cursors, not offsets",
     "We paginate API responses with cursors rather than offsets", "same", "paraphrase"),
    ("insight", "The invoice PDF renderer leaks memory under load",
     "The invoice PDF renderer leaks memory under load", "same", "identical"),
    ("learning", "Redis eviction policy should be allkeys-lru for the session cache",
     "Redis eviction policy should be allkeys-lru for the rate limiter", "other", "another subject"),
    ("insight", "Build time on CI went up to 14 minutes after the monorepo merge",
     "CI builds now take 14 min since we merged the monorepo", "same", "chat paraphrase"),
    ("decision", "Store timestamps in UTC", "Store timestamps in UTC and show them in the user's time zone",
     "other", "more than the first"),
    ("insight", "Users drop off at the shipping step of checkout",
     "Most users abandon checkout at the shipping step", "same", "paraphrase"),
    ("issue", "Webhook deliveries to Stripe fail with 401 since the key rotation",
     "Webhook deliveries to Stripe fail with 403 since the key rotation", "other", "number (status code)"),
    ("learning", "Always run migrations before deploying the API", "Run the migrations before you deploy the API, always",
     "same", "reordered"),
    ("decision", "Feature flags live in LaunchDarkly", "Feature flags live in Unleash", "other", "choice"),
    ("insight", "The search index rebuild takes 2 hours", "The search index rebuild takes 2 hours on staging",
     "other", "scoped"),
    ("learning", "Don't mock the database in integration tests", "Do not mock the database in integration tests",
     "same", "contraction"),
    ("insight", "Error rate rose to 2% after release 4.2", "Error rate rose to 2% after release 4.3", "other",
     "version"),
    ("manual", "Ada prefers short status updates in the morning", "ada prefers short status updates in the morning!",
     "same", "case and mark"),
    ("issue", "Dark mode colours are wrong on the settings page",
     "The settings page shows the wrong colours in dark mode", "same", "reordered ticket"),
    ("decision", "Logs are kept for 30 days", "Logs are kept for 90 days", "other", "number"),
    ("insight", "Queue consumers are the bottleneck, not the database",
     "The bottleneck is the queue consumers rather than the DB", "same", "paraphrase, abbreviation"),
    ("learning", "Pin the Node version in CI to avoid surprise upgrades",
     "Pin the Python version in CI to avoid surprise upgrades", "other", "another subject"),
    ("insight", "The mobile app crashes on Android 12 when the camera opens",
     "The mobile app does not crash on Android 12 when the camera opens", "other", "negation"),
    ("decision", "Deployments go through Argo CD", "We deploy with Argo CD", "same", "short paraphrase"),
    ("issue", "Password reset emails arrive 10 minutes late",
     "Password reset emails are delayed by about ten minutes", "same", "number in words"),
    ("insight", "Memory usage of the worker grows by 50 MB per hour",
     "Memory usage of the worker grows by 50 MB per day", "other", "unit of time"),
    ("learning", "Use idempotency keys on every payment write",
     "Every payment write must carry an idempotency key", "same", "paraphrase"),
    ("decision", "The team meets on Mondays at 10:00", "The team meets on Tuesdays at 10:00", "other", "day"),
    ("insight", "Customers in Germany pay by invoice more than by card",
     "Customers in France pay by invoice more than by card", "other", "another place"),
    ("manual", "Call the vendor before renewing the contract in March",
     "Call the vendor before renewing the contract in March.", "same", "final stop"),
    ("issue", "The export button is missing for read-only users",
     "Read-only users cannot see the export button", "same", "ticket paraphrase"),
    ("insight", "p95 latency of the search API is 180 ms", "p99 latency of the search API is 180 ms", "other",
     "another quantity"),
    ("learning", "Schema changes need a backfill plan before review",
     "Before review, every schema change needs a plan for the backfill", "same", "reordered"),
    ("decision", "Images are stored in S3", "Images are stored in S3 with a 1 year lifecycle rule", "other",
     "more than the first"),
    ("insight", "The onboarding email has a 40% open rate", "Onboarding email open rate: 40%", "same", "terse note"),
    ("issue", "Timeouts when uploading files larger than 100 MB",
     "Uploads over 100 MB time out", "same", "terse ticket"),
    ("insight", "Support tickets doubled after the pricing change",
     "Support tickets halved after the pricing change", "other", "opposite change"),
    ("learning", "Read replicas lag by up to 5 seconds under write load",
     "Under heavy writes the read replicas can be 5 s behind", "same", "paraphrase, unit"),
    ("decision", "The mobile team owns the push notification service",
     "The platform team owns the push notification service", "other", "another owner"),
    ("insight", "Most churned customers never set up a second project",
     "Most churned customers never set up a second project", "same", "identical"),
    ("issue", "The CSV import rejects files with a BOM", "The CSV import accepts files with a BOM", "other",
     "opposite"),
    ("learning", "Keep feature branches shorter than two days",
     "Feature branches should live less than 2 days", "same", "number in words"),
]


def split(name: str) -> list[tuple[str, str, str, str, str]]:
    """'dev' (two of every three pairs), 'check' (every third) or 'all'."""
    if name == "all":
        return list(PAIRS)
    return [p for i, p in enumerate(PAIRS) if (i % 3 == 2) == (name == "check")]
