"""Pairs of an older and a newer memory, written by hand to say whether the newer reports a change.

Written on 2026-11-29 (nineteenth session) before it was first run, in the voices of the
hand-written topics (chat lines, status reports, tickets, notes) and on subjects of their
own. Each pair is (older, newer, what the newer is to the older):

- "update": the newer says the thing changed (it supersedes the older, no conflict);
- "conflict": the newer states otherwise and says nothing changed (a contradiction of any kind);
- None: neither, though the newer uses a word of change (a plan, a proposal, a change said
  never made, a failure that happened again, a change of something else).

Every third pair (the third, sixth, ...) is the check: read only for its figure.

    .venv/bin/python bench/judgement/changes.py [--check] [--misses]

prints, per kind of pair, how `consensus.conflicts.between` reads them at the pair's cosine
(the store's model): an update recorded, a contradiction flagged, or nothing.
"""

from __future__ import annotations

PAIRS: list[tuple[str, str, str | None]] = [
    # said changed, in many words
    ("Marketing pushes are capped at three a week per user.",
     "product raised the weekly marketing push cap to 5 for the holidays", "update"),
    ("The team standup is at 9:30.", "standup got pushed back to 10:15 starting Monday", "update"),
    ("Invoices are generated with wkhtmltopdf.", "we've since swapped wkhtmltopdf out for Gotenberg in the invoice service", "update"),
    ("The search cluster has 3 data nodes.", "added two data nodes to the search cluster last night, 5 now", "update"),
    ("Build artifacts are kept for 90 days.", "Artifact retention was cut to 30 days to save storage.", "update"),
    ("The staging database runs on a db.r6g.large.", "staging db was downsized to db.t4g.medium this week", "update"),
    ("The API gateway is Kong.", "Kong is gone, the gateway is Envoy now", "update"),
    ("Our Slack workspace is on the Pro plan.", "Finance upgraded Slack to Business+ in October.", "update"),
    ("The nightly backup runs at 01:00 UTC.", "Effective 1 December the nightly backup runs at 03:00 UTC.", "update"),
    ("Password reset links expire after 24 hours.", "reset links now expire after 1 hour (security review finding)", "update"),
    ("The office is open until 8pm.", "From next week the office closes at 6pm.", "update"),
    ("Support is staffed on weekends.", "We stopped weekend support coverage at the end of the quarter.", "update"),
    ("Dependabot opens our dependency PRs.", "Renovate replaced Dependabot for dependency updates across all repos.", "update"),
    ("There is no rate limit on the internal search API.", "turned on a rate limit for internal search: 50 req/s per client", "update"),
    ("The checkout service runs 4 replicas.", "checkout replicas doubled for Black Friday", "update"),
    ("Sprints are two weeks long.", "We moved to one-week sprints after the retro.", "update"),
    ("Logs go to Papertrail.", "migrated log shipping off Papertrail onto Better Stack", "update"),
    ("The coffee machine on floor 3 is broken.", "Coffee machine on 3 got fixed this morning.", "update"),
    ("Design reviews happen on Thursdays.", "Design reviews are on Wednesdays these days.", "update"),
    ("The mobile app supports Android 8 and newer.", "min Android version bumped to 10 in the 6.0 release", "update"),
    ("Guest Wi-Fi has no password.", "IT put a password on the guest Wi-Fi after the audit; it's on the reception card.", "update"),
    ("Customer exports are emailed as CSV.", "Exports switched from CSV to Parquet last release.", "update"),
    ("The free plan includes 3 projects.", "free plan was reduced to 1 project as of the pricing change", "update"),
    ("Error alerts page the on-call through Opsgenie.", "We retired Opsgenie in September; alerts page through incident.io.", "update"),
    ("The data team uses Airflow 1.10.", "Airflow upgraded to 2.9 across the data platform.", "update"),
    ("Our Terraform state is in S3.", "moved tf state from the S3 bucket into Terraform Cloud workspaces", "update"),
    ("The load balancer timeout is 60 seconds.", "idle timeout on the LB increased to 120s to fix the long export requests", "update"),
    ("Interns don't get production access.", "Interns get read-only production access since the new policy.", "update"),
    # states otherwise and says nothing changed
    ("Marketing pushes are capped at three a week per user.", "the marketing push cap is 5 per week, it's in the config", "conflict"),
    ("The team standup is at 9:30.", "standup is at 10:15, always has been", "conflict"),
    ("Invoices are generated with wkhtmltopdf.", "the invoice service renders PDFs with Gotenberg", "conflict"),
    ("The search cluster has 3 data nodes.", "search cluster: 5 data nodes, green", "conflict"),
    ("Build artifacts are kept for 90 days.", "Build artifacts are deleted after 30 days.", "conflict"),
    ("The API gateway is Kong.", "our API gateway is Envoy, Kong was only ever evaluated", "conflict"),
    ("Support is staffed on weekends.", "Nobody staffs support on weekends.", "conflict"),
    ("Dependabot opens our dependency PRs.", "renovate bot: 14 open dependency PRs across 9 repos", "conflict"),
    ("There is no rate limit on the internal search API.", "internal search API is rate limited to 50 req/s per client", "conflict"),
    ("Sprints are two weeks long.", "Our sprints are one week long.", "conflict"),
    ("Design reviews happen on Thursdays.", "Design review is every Wednesday at 2pm.", "conflict"),
    ("Guest Wi-Fi has no password.", "The guest Wi-Fi password is on the reception card.", "conflict"),
    # a word of change, and no change of what the older says
    ("The API gateway is Kong.", "we should move the gateway to Envoy next year", None),
    ("Logs go to Papertrail.", "we're evaluating Better Stack as a replacement for Papertrail", None),
    ("The checkout service runs 4 replicas.", "checkout still runs 4 replicas, nobody changed it for Black Friday", None),
    ("The nightly backup runs at 01:00 UTC.", "the nightly backup failed again at 01:00 UTC, disk full", None),
    ("Sprints are two weeks long.", "There was a proposal to move to one-week sprints; we voted to keep two.", None),
    ("Our Terraform state is in S3.", "tf state was never moved to Terraform Cloud, it's still in S3", None),
    ("The office is open until 8pm.", "The office moved to the fourth floor last month.", None),
    ("Error alerts page the on-call through Opsgenie.", "Opsgenie changed its pricing in October, we stay on the same plan.", None),
    ("The data team uses Airflow 1.10.", "Airflow was restarted after the scheduler hung.", None),
    ("Customer exports are emailed as CSV.", "CSV exports now include a header row.", None),
]


def main() -> None:
    import argparse
    import collections
    import sys
    import tempfile
    from datetime import datetime, timedelta, timezone
    from pathlib import Path

    from memlib import Insight, MemoryStore, Project
    from memlib.clock import Clock

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="the check pairs (every third) instead of the others")
    parser.add_argument("--misses", action="store_true", help="print each pair read otherwise than written")
    args = parser.parse_args()
    chosen = [pair for n, pair in enumerate(PAIRS) if (n % 3 == 2) == args.check]
    t0 = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
    read = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(str(Path(tmp) / "store"), clock=Clock(t0))
        for n, (older, newer, truth) in enumerate(chosen):
            project = Project(name=f"pair {n}")
            store.add([project])
            ids = []
            for k, text in enumerate((older, newer)):
                store.clock.set(t0 + timedelta(days=n, minutes=k))
                ids += store.add([Insight(project_id=project.id, content=text, agent="agent")], duplicates="link")
            actions = {event["action"] for event in store.audit.events("action IN ('contradiction', 'update')")
                       if event["subject_id"] in ids}
            got = "update" if "update" in actions else "conflict" if "contradiction" in actions else None
            read[truth, got] += 1
            if args.misses and got != truth:
                print(f"{truth} read as {got}: {older!r} -> {newer!r}", file=sys.stderr)
    print(f"### changes said between two memories ({'check' if args.check else 'development'} pairs: {len(chosen)})\n")
    print("| written as | pairs | recorded as an update | flagged as a contradiction | neither |")
    print("|---|---|---|---|---|")
    for truth in ("update", "conflict", None):
        row = [read[truth, got] for got in ("update", "conflict", None)]
        print(f"| {truth or 'neither'} | {sum(row)} | " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
