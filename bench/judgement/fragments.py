"""Hand-written fragments for judging clustering and contradiction detection on real writing.

Written by hand on 2026-11-25, before any detector or clustering change was tuned on them,
in the voices agents and people write in: short chat lines, status reports, tickets, notes,
commit-style one-liners. Six agents, 40 topics of 4 to 6 fragments; some topics are near
others (the same system, another property) so that purity is tested, not only completeness.

Every topic says what in it is a contradiction (two fragments that cannot both be true now),
what is an update (a newer fragment that says the thing changed, "moved to", "now", "as of":
it supersedes the older one, never a conflict), and
which pairs are hard negatives (different quantities of different things, statements scoped
to different places, paraphrases that agree): a detector must not flag those.

Labels were corrected once, after the old detector's first run and before the new one was
written, where a newer fragment said "now", "since", "bumped" or "these days" but had been
labelled a contradiction (five topics), and where a newer fragment contradicts a change
(CI duration). Corrected a second time on 2026-11-26, after the write-time detector's dev
false alarms showed a pair no label named: every topic's pairs (check topics too) were read
again against the one rule, and a fragment that states what one side of a labelled
contradiction states is now labelled against the other side as well (seven pairs: checkout
cache TTL, admin console SSO, search latency, metrics stack, image resizing, session timeout,
and the mobile release date of the check topics). No detector or constant was changed on it.

`split`: "dev" topics may be looked at while a method is built; "check" topics (every third)
are kept aside and read only to report a figure once a method is decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Topic:
    name: str
    fragments: tuple[tuple[str, str], ...]  # (agent, text), in the order they were reported
    contradictions: tuple[tuple[int, int, str], ...] = ()  # (i, j, kind): number, negation, choice
    updates: tuple[tuple[int, int], ...] = ()  # (older, newer): newer supersedes, no conflict
    negatives: tuple[tuple[int, int, str], ...] = ()  # (i, j, why): must never be flagged
    split: str = field(default="dev")


TOPICS: list[Topic] = [
    Topic("checkout cache TTL", (
        ("coder", "The price cache in checkout keeps entries for 300 seconds."),
        ("ops-bot", "checkout price cache TTL = 5 min (from config/cache.yaml)"),
        ("reviewer", "Heads up: prices in the checkout cache expire after 60s, not five minutes like the doc says."),
        ("tester", "Confirmed the checkout cache holds a price for five minutes before refetching."),
        ("planner", "Checkout: cached prices live 300 s; fine for now."),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (3, 2, "number"), (4, 2, "number")),
        negatives=((0, 1, "paraphrase: 300 seconds = 5 min"), (0, 3, "paraphrase"))),
    Topic("checkout cache size", (
        ("ops-bot", "Checkout price cache is capped at 2 GB of memory."),
        ("coder", "we sized the checkout cache to 2GB, eviction is LRU"),
        ("tester", "Load test: checkout cache hit ratio 94% at peak."),
        ("reviewer", "The checkout cache's memory cap (2 GB) looks generous for the hit ratio we see."),
    ), negatives=((0, 2, "different quantities: cap vs hit ratio"), (1, 2, "different quantities"))),
    Topic("payments database", (
        ("planner", "Decision: the ledger service stores its entries in PostgreSQL 16."),
        ("coder", "ledger writes go to postgres (the ledger_entries table), reads too"),
        ("ops-bot", "Backups for the ledger Postgres run nightly at 02:00 UTC."),
        ("reviewer", "Why is the ledger on MongoDB? I thought we agreed on Postgres for anything with money."),
        ("tester", "Ledger integration tests spin up a Postgres container."),
    ), contradictions=((0, 3, "choice"), (1, 3, "choice")), split="check"),
    Topic("ledger retries", (
        ("coder", "Ledger writes retry up to 5 times with exponential backoff."),
        ("reviewer", "Retries on ledger writes must carry an idempotency key, otherwise we double-post."),
        ("tester", "Saw 5 retry attempts in the ledger logs before it gave up, as configured."),
        ("ops-bot", "ledger: max retries 3 (see alert runbook)"),
        ("planner", "Keep the ledger retry policy as is: five attempts, backoff doubling from 100 ms."),
    ), contradictions=((0, 3, "number"), (2, 3, "number"), (4, 3, "number")),
        negatives=((0, 1, "one says how many, the other a rule"),)),
    Topic("admin console SSO", (
        ("ops-bot", "SSO is enabled for the admin console since the 2.3 release."),
        ("coder", "admin console login goes through Okta SSO now"),
        ("tester", "Logged into the admin console with SSO, works."),
        ("reviewer", "The admin console still doesn't have SSO; people log in with passwords."),
        ("planner", "Admin console: single sign-on is live for all staff."),
    ), contradictions=((0, 3, "negation"), (1, 3, "negation"), (2, 3, "negation"), (4, 3, "negation"))),
    Topic("admin console audit log", (
        ("reviewer", "Every admin console action is written to the audit log with the user id."),
        ("coder", "audit log for admin actions goes to the audit_events table"),
        ("ops-bot", "Audit log retention for admin actions is 400 days."),
        ("planner", "Compliance wants admin audit events kept for at least a year; 400 days covers it."),
    ), negatives=((2, 3, "agree: 400 days is at least a year"),)),
    Topic("release date of the mobile app", (
        ("planner", "Mobile app 4.0 ships to the stores on March 14."),
        ("coder", "we're targeting 14 March for the 4.0 store release"),
        ("tester", "Regression pass for 4.0 starts March 3, release March 14."),
        ("ops-bot", "Release calendar: mobile 4.0 goes out 2026-03-21."),
        ("reviewer", "4.0 on the 14th of March is tight but doable."),
    ), contradictions=((0, 3, "number"), (1, 3, "number"), (2, 3, "number"), (4, 3, "number")),
        negatives=((2, 0, "a different date of a different event: regression start"),), split="check"),
    Topic("mobile crash rate", (
        ("tester", "Crash-free sessions on Android are at 99.2% this week."),
        ("ops-bot", "android crash-free rate 99.2% (7d)"),
        ("coder", "iOS crash-free sessions are 99.7%, Android lags behind."),
        ("planner", "Goal for the quarter: 99.5% crash-free on both platforms."),
    ), negatives=((0, 2, "scoped: Android vs iOS"), (0, 3, "a goal, not a measurement"),
                  (2, 3, "a goal, not a measurement"))),
    Topic("search backend", (
        ("planner", "Product search runs on Elasticsearch 8."),
        ("coder", "search indexer pushes documents into the Elasticsearch cluster every minute"),
        ("ops-bot", "We moved product search from Elasticsearch to OpenSearch last sprint."),
        ("reviewer", "Product search is on OpenSearch now, so the licence worry is gone."),
        ("tester", "Search relevance tests run against the OpenSearch staging cluster."),
    ), updates=((0, 2), (1, 2), (0, 3), (1, 3))),
    Topic("search latency", (
        ("ops-bot", "Search p95 latency is 180 ms after the index rebuild."),
        ("tester", "Measured product search at 180ms p95 in the load test."),
        ("coder", "search p99 is still around 450 ms because of the facet queries"),
        ("reviewer", "Search p95 is 320 ms, the rebuild didn't help at all."),
        ("planner", "Search is fast enough: p95 under 200 ms."),
    ), contradictions=((0, 3, "number"), (1, 3, "number"), (4, 3, "number")),
        negatives=((0, 2, "different quantities: p95 vs p99"), (1, 2, "different quantities"))),
    Topic("on-call rotation", (
        ("planner", "On-call rotates every two weeks."),
        ("ops-bot", "oncall schedule: 14-day shifts, handover on Mondays"),
        ("reviewer", "As of March the on-call rotation is weekly."),
        ("coder", "since the switch to weekly on-call I'm on every fifth week"),
    ), updates=((0, 2), (1, 2), (0, 3), (1, 3)), split="check"),
    Topic("staging cluster size", (
        ("ops-bot", "Staging runs 2 replicas of the API."),
        ("ops-bot", "Production runs 6 replicas of the API behind the load balancer."),
        ("coder", "the api in staging has two pods, enough for smoke tests"),
        ("tester", "Prod API has 6 replicas; staging only 2, so load tests go against prod-like perf env."),
        ("reviewer", "Staging API is on 4 replicas since Tuesday, someone bumped it for the demo."),
    ), updates=((0, 4), (2, 4)),
        negatives=((0, 1, "scoped: staging vs production"), (2, 1, "scoped"), (3, 0, "agree"))),
    Topic("feature flag for new onboarding", (
        ("planner", "The new onboarding flow is behind the flag onboarding_v2, off for everyone."),
        ("coder", "onboarding_v2 flag is on for internal users only"),
        ("tester", "onboarding_v2 is enabled for 10% of new signups."),
        ("ops-bot", "Flag onboarding_v2: rollout 10% of signups since Monday."),
        ("reviewer", "onboarding v2 is not enabled for anyone yet, right? I still see the old flow."),
    ), contradictions=((2, 4, "negation"), (3, 4, "negation")),
        updates=((0, 3), (1, 3))),
    Topic("email provider", (
        ("planner", "Transactional email goes through SendGrid."),
        ("coder", "switched transactional mail to Postmark, SendGrid is only used for newsletters now"),
        ("ops-bot", "Postmark is the provider for receipts and password resets."),
        ("tester", "Password reset emails arrive via Postmark in staging."),
        ("reviewer", "Newsletters still go out through SendGrid."),
    ), updates=((0, 1), (0, 2)),
        negatives=((2, 4, "scoped: transactional vs newsletters"), (1, 4, "agree"))),
    Topic("API rate limit", (
        ("ops-bot", "Public API rate limit: 100 requests per minute per key."),
        ("coder", "rate limiter allows 100 req/min per API key, burst of 20"),
        ("reviewer", "The API limit is 1000 requests a minute per key, the docs are wrong."),
        ("tester", "Got a 429 after the 101st request in a minute, limit works."),
        ("planner", "Enterprise keys get 1000 requests per minute."),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (3, 2, "number")),
        negatives=((0, 4, "scoped: enterprise keys"), (1, 4, "scoped")), split="check"),
    Topic("login failures", (
        ("tester", "BUG-4411: users with a plus sign in their email cannot log in."),
        ("coder", "Fixed the login bug for emails containing '+', the validator was too strict."),
        ("reviewer", "Plus-addressed emails can log in again after the validator fix."),
        ("ops-bot", "login error rate dropped to 0.1% after the email validator deploy"),
    ), updates=((0, 1), (0, 2))),
    Topic("data warehouse", (
        ("planner", "Analytics data lands in BigQuery every night."),
        ("coder", "the nightly export writes parquet to GCS and loads it into BigQuery"),
        ("reviewer", "The warehouse is Snowflake, not BigQuery; we migrated in January."),
        ("ops-bot", "BigQuery load job for analytics finished in 14 minutes last night."),
    ), contradictions=((3, 2, "choice"),), updates=((0, 2), (1, 2))),
    Topic("warehouse load time", (
        ("ops-bot", "Nightly warehouse load takes about 14 minutes."),
        ("tester", "The nightly load took 41 minutes on Sunday because of the backfill."),
        ("planner", "Warehouse load must finish before 06:00 UTC."),
        ("coder", "typical nightly load ~15 min, we have lots of headroom before 6am"),
    ), negatives=((0, 1, "a typical run vs one scoped day"), (0, 3, "paraphrase: about 14 ~ 15"),
                  (0, 2, "a deadline, not a duration")), split="check"),
    Topic("dependency upgrade of the web frontend", (
        ("coder", "Frontend is on React 18."),
        ("reviewer", "We upgraded the web frontend to React 19 last week."),
        ("tester", "Smoke tests pass on the React 19 build."),
        ("planner", "Frontend stays on React 18 until the design system supports 19."),
    ), contradictions=((1, 3, "choice"),), updates=((0, 1),)),
    Topic("frontend bundle size", (
        ("coder", "Main JS bundle is 412 KB gzipped."),
        ("reviewer", "bundle went from 412 KB to 290 KB after dropping moment.js"),
        ("tester", "Lighthouse score on the home page is 91."),
        ("ops-bot", "main.js is 290 KB gzipped as of today's build"),
    ), updates=((0, 1), (0, 3)), negatives=((1, 2, "different quantities"),)),
    Topic("backup policy", (
        ("ops-bot", "Database backups are kept for 30 days."),
        ("planner", "We keep 30 days of database backups, plus monthly snapshots for a year."),
        ("reviewer", "DB backups are retained for 7 days only, I checked the bucket lifecycle rule."),
        ("coder", "backup retention: 30d"),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (3, 2, "number")),
        negatives=((0, 1, "agree, the second adds a scoped extra"),), split="check"),
    Topic("encryption at rest", (
        ("ops-bot", "All production volumes are encrypted at rest with KMS keys."),
        ("reviewer", "The analytics bucket is not encrypted at rest, that's a finding for the audit."),
        ("coder", "prod disks use KMS encryption, enabled by default in the terraform module"),
        ("tester", "Verified encryption at rest on the production database volume."),
    ), negatives=((0, 1, "scoped: volumes vs the analytics bucket"), (2, 1, "scoped"))),
    Topic("queue technology", (
        ("planner", "Background jobs use RabbitMQ."),
        ("coder", "job workers consume from the rabbitmq 'jobs' exchange"),
        ("ops-bot", "RabbitMQ cluster for jobs has 3 nodes."),
        ("reviewer", "Jobs are on SQS these days, RabbitMQ was decommissioned in the summer."),
        ("tester", "Job retries are visible in the RabbitMQ management UI."),
    ), contradictions=((4, 3, "choice"),), updates=((0, 3), (1, 3))),
    Topic("job queue depth", (
        ("ops-bot", "Job queue depth peaks around 12,000 messages at 09:00."),
        ("tester", "saw ~12k jobs waiting at the morning peak"),
        ("coder", "Workers drain the morning backlog in about 20 minutes."),
        ("planner", "Alert when the job queue stays above 50,000 for 10 minutes."),
    ), negatives=((0, 3, "a threshold, not a measurement"), (0, 2, "different quantities"),
                  (0, 1, "paraphrase: 12,000 ~ 12k")), split="check"),
    Topic("password hashing", (
        ("reviewer", "Passwords are hashed with bcrypt, cost 12."),
        ("coder", "we use argon2id for password hashing since the auth rewrite"),
        ("ops-bot", "Auth service CPU went up after the switch from bcrypt to argon2id."),
        ("tester", "Login takes ~250 ms, mostly the argon2id hash."),
    ), updates=((0, 1), (0, 2))),
    Topic("customer support hours", (
        ("planner", "Support is staffed 8:00-20:00 CET on weekdays."),
        ("ops-bot", "support hours: weekdays 08-20 CET, no weekend coverage"),
        ("reviewer", "Support doesn't work weekends, tickets pile up until Monday."),
        ("coder", "there's weekend support now, Anna's team covers Saturdays"),
    ), updates=((1, 3), (2, 3))),
    Topic("support ticket volume", (
        ("ops-bot", "Support received 1,240 tickets last week."),
        ("planner", "Ticket volume is up 18% week over week."),
        ("tester", "Most tickets last week were about password resets (about 400)."),
        ("reviewer", "We got roughly 1240 tickets last week, a record."),
    ), negatives=((0, 2, "a part vs the whole"), (0, 1, "different quantities")), split="check"),
    Topic("log retention", (
        ("ops-bot", "Application logs are kept for 14 days in Loki."),
        ("coder", "logs older than two weeks are dropped by the Loki compactor"),
        ("reviewer", "Loki keeps our logs for 90 days, that's why the bill is high."),
        ("planner", "Log retention of 14 days is enough for debugging."),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (3, 2, "number")),
        negatives=((0, 1, "paraphrase: 14 days = two weeks"),)),
    Topic("metrics stack", (
        ("ops-bot", "Metrics are scraped by Prometheus and kept 15 days."),
        ("coder", "long-term metrics go to Thanos, Prometheus itself keeps 15d"),
        ("planner", "We use Datadog for metrics."),
        ("tester", "Dashboards for the load test are in Grafana on top of Prometheus."),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice"), (3, 2, "choice"))),
    Topic("CI pipeline duration", (
        ("coder", "The main CI pipeline takes 24 minutes."),
        ("tester", "CI on main: 24 min on average this week"),
        ("ops-bot", "CI got down to 11 minutes after we cached the docker layers."),
        ("reviewer", "CI takes 24 minutes, which is why people batch their PRs."),
    ), contradictions=((2, 3, "number"),), updates=((0, 2), (1, 2)), split="check"),
    Topic("CI runner platform", (
        ("ops-bot", "CI runs on GitHub Actions with self-hosted runners."),
        ("coder", "our pipelines are GitHub Actions workflows, the runners are our own VMs"),
        ("planner", "CI is on GitLab CI."),
        ("tester", "The flaky test shows up only on the self-hosted GitHub runners."),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice"), (3, 2, "choice"))),
    Topic("GDPR deletion", (
        ("reviewer", "User deletion requests are processed within 30 days."),
        ("planner", "GDPR erasure: we commit to 30 days, we usually do it in 3."),
        ("coder", "the deletion job runs daily and removes accounts flagged for erasure"),
        ("ops-bot", "Deletion requests are not processed automatically; someone runs the script by hand."),
    ), contradictions=((2, 3, "negation"),),
        negatives=((0, 1, "a commitment vs a typical time, both stated"),)),
    Topic("office network", (
        ("ops-bot", "Guest Wi-Fi in the Berlin office is isolated from the corporate VLAN."),
        ("reviewer", "berlin guest wifi can reach the printers, so it is not isolated"),
        ("planner", "The Munich office has no guest network at all."),
        ("tester", "From guest Wi-Fi in Berlin I could not reach any internal host."),
    ), contradictions=((0, 1, "negation"), (3, 1, "negation")),
        negatives=((0, 2, "scoped: Berlin vs Munich"),), split="check"),
    Topic("image resizing service", (
        ("coder", "Image resizing runs in a Lambda function written in Go."),
        ("ops-bot", "resizer lambda p95 is 340 ms for a 4 MP image"),
        ("reviewer", "The image resizer is a Node.js service on ECS, not a Lambda."),
        ("planner", "Thumbnails are produced by the Go resizer Lambda."),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice"), (3, 2, "choice"))),
    Topic("image storage", (
        ("ops-bot", "Uploaded images are stored in S3 with a CDN in front."),
        ("coder", "images go to the s3 bucket media-prod, served via CloudFront"),
        ("tester", "Original uploads are kept; resized variants expire after 180 days."),
        ("planner", "We keep originals forever and cached variants for half a year."),
    ), negatives=((2, 3, "paraphrase: 180 days = half a year"),)),
    Topic("weekly sync meeting", (
        ("planner", "The team sync is on Tuesdays at 10:00."),
        ("coder", "sync moved to Wednesday 10am from this week on"),
        ("reviewer", "Weekly sync is Wednesdays now."),
        ("tester", "I'll miss Tuesday's sync, dentist."),
    ), updates=((0, 1), (0, 2)), split="check"),
    Topic("intern onboarding laptops", (
        ("ops-bot", "New interns get a 14-inch MacBook Pro with 16 GB RAM."),
        ("planner", "Intern laptops: MacBook Pro 14, 16GB."),
        ("reviewer", "Interns receive Lenovo ThinkPads, the MacBooks are for full-time staff."),
        ("tester", "The intern laptop image includes Docker Desktop."),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice"))),
    Topic("session timeout", (
        ("coder", "Web sessions expire after 30 minutes of inactivity."),
        ("reviewer", "session idle timeout is 30 min, absolute timeout 12 h"),
        ("tester", "I stayed logged in for 2 hours without doing anything, so the idle timeout is not 30 minutes."),
        ("ops-bot", "Idle session timeout set to 30m in the gateway config."),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (3, 2, "number")),
        negatives=((1, 0, "agree; the absolute timeout is another quantity"),)),
    Topic("translation coverage", (
        ("planner", "The app is translated into 12 languages."),
        ("coder", "we ship 12 locales, Polish was added last"),
        ("reviewer", "Japanese translation is missing for the settings page."),
        ("tester", "Checked all 12 language packs load without errors."),
    ), negatives=((0, 2, "scoped: one page of one language"),), split="check"),
    Topic("cost of the cloud account", (
        ("ops-bot", "The AWS bill for October was $48,200."),
        ("planner", "Cloud spend in October: about 48k dollars, 6% over budget."),
        ("reviewer", "The October AWS invoice says $61,000, not 48k."),
        ("coder", "EC2 alone was ~31k in October"),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 3, "a part vs the whole"), (0, 1, "paraphrase: $48,200 ~ about 48k"))),
]


# Written by hand on 2026-11-26, after average-linkage clustering was chosen and before it was
# run on them: 16 topics in other domains and voices, some near each other and near topics
# above (the checkout API, search, the release calendar). Measured once, never tuned on:
# `run.py --split fresh`.
FRESH: list[Topic] = [
    Topic("minimum iOS version", (
        ("planner", "From the 5.0 release the app supports iOS 16 and later."),
        ("coder", "bumped deployment target to iOS 16, dropping 15"),
        ("tester", "Tested the login flow on an iPhone 8 running iOS 16.7, fine."),
        ("reviewer", "Why does the App Store listing still say it requires iOS 15?"),
        ("coder", "we still support iOS 14 on the enterprise build"),
    ), contradictions=((0, 3, "number"), (1, 3, "number")),
        negatives=((0, 4, "scoped: the enterprise build"), (1, 4, "scoped"))),
    Topic("Kubernetes version in production", (
        ("ops-bot", "prod cluster control plane: v1.29.4"),
        ("coder", "Production runs Kubernetes 1.29, staging is already on 1.30."),
        ("reviewer", "The prod EKS cluster is on 1.27 per the console, the wiki is wrong."),
        ("ops-bot", "node group ng-prod-a upgraded to 1.29 AMI"),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((1, 0, "agree; staging's version is scoped"), (0, 3, "paraphrase"))),
    Topic("password length policy", (
        ("planner", "Passwords must be at least 12 characters."),
        ("coder", "min password length enforced in the signup form: 12"),
        ("tester", "signup accepted a 10-character password, so the minimum is 10 not 12"),
        ("reviewer", "Admin accounts need 16 characters minimum."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 3, "scoped: admin accounts"), (1, 3, "scoped"))),
    Topic("nightly ETL start time", (
        ("ops-bot", "The nightly ETL job kicks off at 01:00 UTC."),
        ("planner", "ETL runs every night starting 1am UTC, done by 3."),
        ("coder", "moved the nightly ETL to 02:30 UTC so it stops colliding with backups"),
        ("tester", "ETL log shows today's run started 02:31 UTC."),
    ), updates=((0, 2), (1, 2)),
        negatives=((2, 3, "agree: 02:30 vs 02:31 is the start jitter"),)),
    Topic("CDN provider", (
        ("planner", "Static assets are served through Cloudflare."),
        ("ops-bot", "cdn: cloudflare, cache hit ratio 97% last 24h"),
        ("coder", "We moved the CDN from Fastly to Cloudflare in August."),
        ("reviewer", "Assets still come from Fastly, I checked the response headers."),
    ), contradictions=((0, 3, "choice"), (1, 3, "choice"), (2, 3, "choice"))),
    Topic("support first-response SLA", (
        ("planner", "Support answers every ticket within 4 business hours."),
        ("reviewer", "Our SLA for first response is four hours on business days."),
        ("ops-bot", "median first response this week: 2h 10m"),
        ("coder", "the SLA in the enterprise contract says 1 hour for P1 tickets"),
        ("tester", "The first-response SLA is 24 hours, per the help center page."),
    ), contradictions=((0, 4, "number"), (1, 4, "number")),
        negatives=((0, 2, "different quantities: target vs measured median"), (0, 3, "scoped: P1 enterprise"),
                   (1, 3, "scoped"))),
    Topic("dark mode launch", (
        ("planner", "Dark mode ships to everyone on 3 February."),
        ("coder", "dark mode GA date: Feb 3"),
        ("tester", "Dark mode is behind a flag for staff only until March."),
        ("planner", "Dark mode launch slipped to 17 February because of the contrast bugs."),
    ), updates=((0, 3), (1, 3)), negatives=((0, 2, "scoped: staff flag"),)),
    Topic("checkout API error budget", (
        ("planner", "The checkout API has a 99.9% availability SLO."),
        ("ops-bot", "checkout-api error budget remaining this month: 41%"),
        ("reviewer", "Checkout's SLO is 99.95%, not 99.9; it was raised in the Q3 review."),
        ("coder", "availability target for checkout API = three nines"),
    ), contradictions=((2, 3, "number"),), updates=((0, 2),),
        negatives=((0, 1, "different quantities: SLO vs budget left"),)),
    Topic("database connection pool", (
        ("coder", "The orders service opens at most 50 database connections per pod."),
        ("ops-bot", "orders-svc pool max=50, in use p95=31"),
        ("reviewer", "orders service pool is 20 connections per pod, see values.yaml"),
        ("tester", "Under load the orders pods hit the 50 connection ceiling after 8 minutes."),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (3, 2, "number")),
        negatives=((0, 1, "paraphrase; p95 in use is another quantity"),)),
    Topic("code review approvals", (
        ("planner", "Every pull request needs two approvals before merge."),
        ("coder", "branch protection: 2 required reviews on main"),
        ("reviewer", "Docs-only PRs can merge with one approval."),
        ("tester", "Merging needs just one approval, I merged mine yesterday with one."),
    ), contradictions=((0, 3, "number"), (1, 3, "number")),
        negatives=((0, 2, "scoped: docs-only"), (1, 2, "scoped"))),
    Topic("laptop disk encryption", (
        ("ops-bot", "All company laptops have FileVault or BitLocker enabled."),
        ("planner", "Full-disk encryption is mandatory on every laptop."),
        ("reviewer", "Three of the design team's laptops are not encrypted, found in the audit."),
        ("coder", "disk encryption is on for my machine, checked in settings"),
    ), contradictions=((0, 2, "negation"),), negatives=((1, 2, "a rule vs a breach"),)),
    Topic("analytics sampling rate", (
        ("coder", "Client analytics events are sampled at 10%."),
        ("ops-bot", "events ingested yesterday: 4.1M (10% sample)"),
        ("planner", "We keep every analytics event, no sampling."),
        ("reviewer", "Errors are never sampled; only page views are."),
    ), contradictions=((0, 2, "negation"), (1, 2, "negation"), (3, 2, "negation")),
        negatives=((0, 3, "scoped: page views vs errors"),)),
    Topic("PDF invoice library", (
        ("coder", "Invoices are rendered to PDF with WeasyPrint."),
        ("reviewer", "the invoice PDFs come out of WeasyPrint, fonts embedded"),
        ("planner", "We chose wkhtmltopdf for invoice PDFs."),
        ("tester", "Invoice PDF for order 18211 renders the logo blurry."),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice"))),
    Topic("holiday code freeze", (
        ("planner", "Code freeze runs from 18 December to 2 January."),
        ("ops-bot", "freeze window: Dec 18 - Jan 2, prod deploys blocked"),
        ("coder", "The holiday freeze starts on 20 December this year."),
        ("reviewer", "Hotfixes are allowed during the freeze with an incident ticket."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 3, "scoped: hotfixes"),)),
    Topic("search index rebuild", (
        ("ops-bot", "The product search index is rebuilt every 6 hours."),
        ("coder", "full reindex of products runs 4x a day, deltas every minute"),
        ("reviewer", "Product search gets a full rebuild once a day at midnight."),
        ("tester", "A renamed product showed up in search within a minute."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: every 6 hours = 4x a day"), (1, 3, "agree: deltas every minute"),
                   (0, 3, "different quantities"))),
    Topic("VPN for contractors", (
        ("planner", "Contractors get VPN access only through the separate contractor gateway."),
        ("ops-bot", "contractor VPN gateway: 14 active sessions"),
        ("reviewer", "Contractors don't get VPN at all, they use the bastion host."),
        ("coder", "gave the new contractor access via the contractor VPN gateway"),
    ), contradictions=((0, 2, "negation"), (1, 2, "negation"), (3, 2, "negation"))),
]


# Written by hand on 2026-11-26, before this day's detector and clustering changes, and
# committed before its first run: a second check, after FRESH had been used once and so had
# become something a method could be fitted to. Other domains again (warehouse, facilities,
# ML serving, privacy, CI, billing ownership), the same labelling rule.
UNSEEN: list[Topic] = [
    Topic("warehouse pick rate", (
        ("ops-bot", "wh-2 pickers averaged 118 lines/hour on the day shift"),
        ("planner", "Warehouse 2 pick rate is about 120 lines an hour on days."),
        ("reviewer", "Day shift in WH2 picks 85 lines per hour, I pulled the scanner data myself."),
        ("tester", "Night crew at warehouse 2 runs at 70 lines an hour."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: about 120 = 118"), (0, 3, "scoped: night crew"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("Lisbon office move", (
        ("planner", "The Lisbon office moves to the new building on 14 April."),
        ("coder", "heads up: office move is april 14, pack your desks the friday before"),
        ("ops-bot", "facilities ticket FAC-311: Lisbon move date changed to 28 April"),
        ("reviewer", "Lisbon office move happens on 21 April according to the landlord's letter."),
    ), contradictions=((2, 3, "number"),), updates=((0, 2), (1, 2)),
        negatives=((0, 1, "paraphrase"),)),
    Topic("fraud model serving", (
        ("coder", "The fraud model is served with TorchServe behind the risk API."),
        ("ops-bot", "risk-api -> torchserve:8080 /predictions/fraud_v7"),
        ("planner", "Fraud scoring runs on Triton Inference Server, same as the recommender."),
        ("reviewer", "fraud model p99 latency is 38 ms at the serving layer"),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice")),
        negatives=((0, 1, "paraphrase"), (0, 3, "different quantities"))),
    Topic("new onboarding flow", (
        ("planner", "The new onboarding flow is live for all new signups."),
        ("ops-bot", "flag onboarding_v3: enabled (100%)"),
        ("tester", "Signed up with a fresh account today and got the old onboarding, the new flow isn't live."),
        ("coder", "onboarding v3 is off in the EU region until the consent copy is approved"),
    ), contradictions=((0, 2, "negation"), (1, 2, "negation")),
        negatives=((0, 3, "scoped: EU region"), (1, 3, "scoped"))),
    Topic("database backup retention", (
        ("ops-bot", "db snapshots retained 35 days"),
        ("planner", "We keep database backups for five weeks."),
        ("reviewer", "Backups only go back 14 days, I tried restoring from last month and it wasn't there."),
        ("coder", "object storage access logs are kept for 90 days"),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: 35 days = five weeks"), (0, 3, "different quantities"),
                   (1, 3, "different quantities"))),
    Topic("on-call rotation length", (
        ("planner", "On-call shifts last one week, handover Monday 10:00."),
        ("coder", "I'm on call this week, Mon to Mon as usual"),
        ("ops-bot", "pagerduty schedule platform-primary: rotation changed from weekly to every 2 weeks"),
        ("reviewer", "Platform on-call rotates every two weeks now, started in October."),
    ), updates=((0, 2), (1, 2)), negatives=((2, 3, "paraphrase"),)),
    Topic("monorepo CI provider", (
        ("coder", "our pipelines run on GitHub Actions"),
        ("planner", "CI for the monorepo is GitHub Actions; self-hosted runners for the GPU jobs."),
        ("reviewer", "The monorepo builds in Buildkite, GitHub Actions was only tried for a month."),
        ("tester", "CI took 14 minutes on my last PR"),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice")),
        negatives=((0, 1, "paraphrase"),)),
    Topic("public API rate limit", (
        ("coder", "Public API is rate limited at 100 requests per minute per key."),
        ("ops-bot", "api-gw limit: 100 rpm/key, burst 20"),
        ("tester", "hit the rate limit after 60 requests in a minute with one key"),
        ("planner", "Partners on the enterprise plan get 1,000 requests per minute."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase"), (0, 3, "scoped: enterprise plan"), (1, 3, "scoped"))),
    Topic("dedicated databases for enterprise", (
        ("planner", "Every enterprise customer gets its own dedicated database."),
        ("reviewer", "Enterprise customers share the multi-tenant cluster; there are no dedicated databases yet."),
        ("coder", "enterprise tenants each have a dedicated Postgres instance, see terraform/tenants"),
    ), contradictions=((0, 1, "negation"), (2, 1, "negation")),
        negatives=((0, 2, "paraphrase"),)),
    Topic("Android crash reporting", (
        ("coder", "Crashes from the Android app land in Sentry."),
        ("ops-bot", "android crash-free sessions 99.2% (Sentry)"),
        ("planner", "We report Android crashes to Firebase Crashlytics, not Sentry."),
        ("reviewer", "iOS crashes go to Sentry."),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice")),
        negatives=((2, 3, "scoped: iOS"),)),
    Topic("web release cadence", (
        ("planner", "We ship the web app every Tuesday and Thursday."),
        ("tester", "regression suite runs before each Tuesday and Thursday web release"),
        ("reviewer", "Web releases go out once a week, on Wednesdays."),
        ("coder", "Mobile releases are every two weeks."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase"), (0, 3, "scoped: mobile"), (2, 3, "scoped"))),
    Topic("analytics warehouse", (
        ("planner", "Analytics lives in Redshift."),
        ("coder", "dbt models target redshift, schema analytics_prod"),
        ("ops-bot", "Migration complete: analytics warehouse switched from Redshift to Snowflake on 2 March."),
        ("reviewer", "finance dashboards read from Snowflake now"),
    ), updates=((0, 2), (1, 2)), negatives=((2, 3, "paraphrase"), (0, 1, "paraphrase"))),
    Topic("account deletion deadline", (
        ("planner", "Account deletion requests are completed within 30 days."),
        ("reviewer", "Deletion requests have to be done in 72 hours per our DPA."),
        ("ops-bot", "deletion queue: 17 pending, oldest 6 days"),
        ("coder", "the purge job hard-deletes a closed account's rows after a month"),
    ), contradictions=((0, 1, "number"), (3, 1, "number")),
        negatives=((0, 2, "different quantities: deadline vs queue age"), (1, 2, "different quantities"),
                   (0, 3, "paraphrase: 30 days = a month"))),
    Topic("real data in staging", (
        ("planner", "Staging never holds real customer data; it is seeded with fixtures."),
        ("tester", "staging seeds come from fixtures/seed.sql"),
        ("reviewer", "Found real customer emails in the staging database today."),
    ), contradictions=((0, 2, "negation"),), negatives=((0, 1, "paraphrase"),)),
    Topic("load balancer idle timeout", (
        ("ops-bot", "alb idle_timeout=60s"),
        ("coder", "The load balancer drops idle connections after a minute."),
        ("reviewer", "We raised the ALB idle timeout to 120 seconds for the websocket clients."),
        ("tester", "websocket clients get disconnected by the load balancer after 60 seconds idle"),
    ), contradictions=((2, 3, "number"),), updates=((0, 2), (1, 2)),
        negatives=((0, 1, "paraphrase: 60s = a minute"),)),
    Topic("billing service ownership", (
        ("planner", "The billing service is owned by the Payments team."),
        ("ops-bot", "CODEOWNERS billing/ -> @acme/payments"),
        ("reviewer", "Billing moved to the Revenue squad in the reorg."),
        ("tester", "Billing bugs go to the Payments team's board, they own it."),
    ), contradictions=((2, 3, "choice"),), updates=((0, 2), (1, 2)),
        negatives=((0, 1, "paraphrase"),)),
    Topic("company password manager", (
        ("ops-bot", "SCIM sync to 1Password: 212 users"),
        ("planner", "The company password manager is 1Password."),
        ("reviewer", "Shared credentials belong in Bitwarden, that's the company vault."),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice"))),
    Topic("production deploy approval", (
        ("planner", "Production deploys need a second engineer's approval."),
        ("coder", "flag-only changes can go to prod without approval"),
        ("reviewer", "Prod deploys don't require any approval, the pipeline just goes."),
    ), contradictions=((0, 2, "negation"),), negatives=((0, 1, "scoped: flag-only changes"),)),
    Topic("2FA for admin accounts", (
        ("planner", "Two-factor authentication is required for every admin account."),
        ("ops-bot", "admin accounts without 2FA: 0"),
        ("tester", "I created an admin user and it never asked me to set up 2FA."),
        ("coder", "service accounts are exempt from 2FA"),
    ), contradictions=((0, 2, "negation"), (1, 2, "negation")),
        negatives=((0, 3, "scoped: service accounts"),)),
]


# Written by hand on 2026-11-27, after this day's reader changes (81a4b64) and committed before
# its first run: a third check, since UNSEEN has now been run and read. Other subjects again
# (notifications, retention, hiring, budgets, mail, GPUs, translation, laptops, incidents,
# SDKs, DNS, logging, queues, encryption, reviews, payroll, sprints, search, offices, VPN,
# staging data), the same labelling rule. Some of its misses are known kinds (a limit against
# a measurement, a date said in words, times of day): they are written as people write.
LATER: list[Topic] = [
    Topic("mobile push provider", (
        ("coder", "Push notifications on iOS go out through APNs directly from the notifier service."),
        ("planner", "We send all mobile push via OneSignal."),
        ("ops-bot", "notifier: apns client pool=4, sent 18,204 in last hour"),
        ("reviewer", "Android pushes use Firebase Cloud Messaging."),
    ), contradictions=((0, 1, "choice"), (2, 1, "choice"), (1, 3, "choice")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: iOS and Android"), (2, 3, "scoped"))),
    Topic("support chat retention", (
        ("planner", "Support chat transcripts are kept for 12 months, then deleted."),
        ("ops-bot", "retention policy chat_transcripts: 365d"),
        ("reviewer", "Chat transcripts are kept for 90 days per the DPA we signed."),
        ("coder", "call recordings are retained 30 days"),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: 12 months = 365d"), (0, 3, "different quantities"),
                   (1, 3, "different quantities"), (2, 3, "different quantities"))),
    Topic("backend take-home exercise", (
        ("planner", "Backend candidates do a take-home exercise after the screening call."),
        ("reviewer", "We dropped take-homes for backend roles in September; it's a live pairing session now."),
        ("tester", "Frontend candidates still get the take-home."),
        ("ops-bot", "greenhouse stage 'Take-home (backend)': 0 candidates, archived"),
        ("planner", "Backend hiring has no take-home; we pair live for 90 minutes."),
    ), updates=((0, 1),),
        negatives=((1, 2, "scoped: frontend"), (1, 3, "paraphrase"), (1, 4, "paraphrase"), (3, 4, "paraphrase"),
                   (2, 4, "scoped"))),
    Topic("AWS budget", (
        ("planner", "Our monthly AWS budget is $80k."),
        ("ops-bot", "cost explorer: AWS month-to-date $61,240 (forecast $84,900)"),
        ("reviewer", "Finance set the AWS budget at $60k a month this quarter."),
        ("coder", "GCP spend is about $9k a month."),
    ), contradictions=((0, 2, "number"),),
        negatives=((0, 1, "threshold: a budget against the spend"), (1, 2, "threshold"),
                   (0, 3, "different quantities"), (2, 3, "different quantities"))),
    Topic("email provider", (
        ("coder", "Transactional email goes out via Postmark."),
        ("ops-bot", "postmark: 4,112 delivered, 3 bounced (24h)"),
        ("planner", "We use SendGrid for both marketing and transactional mail."),
        ("reviewer", "Marketing newsletters are sent from Mailchimp."),
    ), contradictions=((0, 2, "choice"), (1, 2, "choice"), (2, 3, "choice")),
        negatives=((0, 1, "paraphrase"), (0, 3, "scoped: transactional and marketing"), (1, 3, "scoped"))),
    Topic("GPU cap per research team", (
        ("planner", "Each research team can reserve up to 8 A100s at a time."),
        ("ops-bot", "quota research-nlp: a100=8 used=6"),
        ("reviewer", "The per-team GPU cap was raised to 12 A100s last week."),
        ("tester", "Inference teams get 4 A100s each."),
    ), updates=((0, 2), (1, 2)),
        negatives=((0, 1, "paraphrase"), (0, 3, "scoped: inference teams"), (2, 3, "scoped"))),
    Topic("help center languages", (
        ("planner", "The help center is translated into 6 languages."),
        ("ops-bot", "crowdin project help-center: 6 target languages, 98% translated"),
        ("reviewer", "Help center articles exist in 9 languages now that Japanese, Korean and Thai shipped."),
        ("tester", "The mobile app supports 11 languages."),
    ), updates=((0, 2), (1, 2)),
        negatives=((0, 1, "paraphrase"), (0, 3, "different quantities"), (1, 3, "different quantities"),
                   (2, 3, "different quantities"))),
    Topic("laptop refresh cycle", (
        ("planner", "Engineering laptops are replaced every three years."),
        ("reviewer", "IT policy says laptops get refreshed every 4 years, not 3."),
        ("ops-bot", "asset report: 38 laptops older than 36 months"),
        ("coder", "My laptop is three years old and IT just sent a replacement."),
    ), contradictions=((0, 1, "number"), (1, 3, "number")),
        negatives=((0, 2, "different quantities"), (1, 2, "different quantities"), (0, 3, "agree"))),
    Topic("SEV1 definition", (
        ("planner", "A SEV1 is any outage of checkout longer than 5 minutes."),
        ("reviewer", "checkout down for 10 minutes is only a SEV2 per the runbook; SEV1 starts at 30 minutes."),
        ("coder", "SEV1 pages the whole on-call chain; SEV2 only pages primary."),
    ), contradictions=((0, 1, "number"),)),
    Topic("Python SDK minimum version", (
        ("coder", "The Python SDK supports Python 3.9 and later."),
        ("ops-bot", "sdk-python setup.cfg: python_requires >=3.10"),
        ("tester", "Ran the SDK test suite on Python 3.12, all green."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "a version in use above the lowest"), (1, 2, "a version in use above the lowest"))),
    Topic("DNS hosting", (
        ("planner", "Our DNS is hosted on Route 53."),
        ("coder", "added the TXT record for the domain verification in Cloudflare DNS"),
        ("ops-bot", "dns zone example.com: 212 records (route53)"),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")), negatives=((0, 2, "paraphrase"),)),
    Topic("production log level", (
        ("coder", "Prod services log at INFO."),
        ("ops-bot", "LOG_LEVEL=DEBUG on payments-api (prod)"),
        ("reviewer", "Staging runs at DEBUG so we can trace the test traffic."),
    ), contradictions=((0, 1, "choice"),), negatives=((0, 2, "scoped: staging"), (1, 2, "scoped"))),
    Topic("background job queue", (
        ("coder", "Background jobs run on Sidekiq with Redis."),
        ("planner", "All async work goes through our RabbitMQ cluster."),
        ("ops-bot", "sidekiq: 3 processes, 25 threads, queue default latency 0.4s"),
        ("tester", "the image thumbnailer is a Lambda triggered from S3 events, not a queue job"),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: the thumbnailer"))),
    Topic("S3 encryption at rest", (
        ("planner", "All S3 buckets are encrypted at rest with KMS."),
        ("reviewer", "The legacy exports bucket has no default encryption, Security Hub flagged it."),
        ("ops-bot", "config rule s3-bucket-server-side-encryption-enabled: 41 compliant, 1 noncompliant"),
        ("coder", "new buckets get SSE-KMS from the terraform module by default"),
    ), contradictions=((0, 1, "negation"), (0, 2, "negation")),
        negatives=((0, 3, "paraphrase"), (1, 3, "scoped: new buckets"), (1, 2, "agree"))),
    Topic("code review turnaround", (
        ("planner", "Reviews should be picked up within one business day."),
        ("ops-bot", "median time to first review last week: 5.2 hours"),
        ("reviewer", "Our review SLA is 4 hours, not a day."),
    ), contradictions=((0, 2, "number"),),
        negatives=((0, 1, "threshold: a target against a measurement"), (1, 2, "threshold"))),
    Topic("payroll date", (
        ("planner", "Salaries are paid on the 25th of each month."),
        ("reviewer", "Payroll runs on the last working day of the month."),
        ("ops-bot", "payroll batch scheduled: 25 Nov 2026"),
        ("tester", "Contractor invoices are paid on the 10th."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "different quantities"), (2, 3, "different quantities"))),
    Topic("sprint length", (
        ("planner", "Sprints are two weeks long."),
        ("coder", "sprint 41 runs 3 Nov - 14 Nov"),
        ("reviewer", "We switched to one-week sprints in October."),
        ("tester", "Sprint 44 is 17 Nov to 28 Nov, two weeks like always."),
    ), contradictions=((2, 3, "number"),), updates=((0, 2), (1, 2)), negatives=((0, 1, "paraphrase"),)),
    Topic("search ranking model", (
        ("coder", "Search ranking uses a learning-to-rank model in OpenSearch."),
        ("reviewer", "There's no ML in search ranking, it's plain BM25 with a recency boost."),
        ("ops-bot", "opensearch ltr plugin: model search_ltr_v3 active"),
        ("planner", "Autocomplete suggestions are rule-based, no ML."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: autocomplete"), (2, 3, "scoped"))),
    Topic("Berlin office access hours", (
        ("planner", "Badges open the Berlin office from 7:00 to 22:00."),
        ("tester", "badge worked at 23:30 last night at the Berlin office"),
        ("reviewer", "The Berlin office is accessible 24/7 with a badge."),
        ("coder", "Munich office badge hours are 8:00 to 20:00."),
    ), contradictions=((0, 1, "number"), (0, 2, "number")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: Munich"), (2, 3, "scoped"))),
    Topic("MFA on the VPN", (
        ("planner", "VPN logins require MFA."),
        ("coder", "connected to the VPN with just my password, no MFA prompt"),
        ("ops-bot", "vpn auth policy: mfa=required, exceptions: 3 service accounts"),
        ("reviewer", "Service accounts on the VPN skip MFA by design."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")),
        negatives=((0, 3, "scoped: service accounts"), (2, 3, "agree"))),
    Topic("customer data in staging", (
        ("planner", "Staging never gets production customer data."),
        ("reviewer", "The staging DB was restored from a prod snapshot on Monday, so it has real customer records right now."),
        ("coder", "staging is seeded from anonymised fixtures"),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")), negatives=((0, 2, "paraphrase"),)),
]


# Written by hand on 2026-11-27, after LATER had been run and read, and committed before its
# first run and before any change it is to check: a fourth check. Other subjects again (feature
# flags, rate limits, registries, passwords, backups, on-call, front ends, data residency,
# deploys, SLOs, office pets, postmortems, uploads, code freeze, coverage, chat retention,
# staging, regions, Kubernetes, expenses, secret scanning, latency, meetings, CI, guest Wi-Fi),
# the same labelling rule. Several chosen names are lower case ("us-west-2", "buildkite"), and
# some fragments say "since" as a reason, not as a change: they are written as people write.
ASIDE: list[Topic] = [
    Topic("feature flag service", (
        ("coder", "Feature flags are served by LaunchDarkly; the SDK key lives in Vault."),
        ("ops-bot", "unleash-server: 214 toggles, 3 stale (>90d)"),
        ("planner", "We evaluate feature flags with our in-house Unleash instance."),
        ("reviewer", "Mobile apps read their flags from Firebase Remote Config, not the web flag service."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "paraphrase"), (0, 3, "scoped: mobile apps"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("public API rate limit", (
        ("planner", "Public API clients are limited to 1,000 requests per minute."),
        ("ops-bot", "gateway rate_limit public_api: 600/min burst 50"),
        ("coder", "the public API throttles at 1000 rpm per key, see gateway.yaml"),
        ("reviewer", "Internal services bypass the gateway rate limit entirely."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: internal services"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("container registry", (
        ("coder", "Images are pushed to Docker Hub under the acme org."),
        ("ops-bot", "ecr repo acme/api: 1,204 images, lifecycle policy keep 50"),
        ("planner", "We moved our images off Docker Hub to ECR after the pull limits hit CI."),
        ("tester", "Base images still come from Docker Hub's official library."),
    ), contradictions=((0, 1, "choice"),), updates=((0, 2),),
        negatives=((1, 2, "paraphrase"), (2, 3, "scoped: base images"), (1, 3, "scoped"))),
    Topic("password minimum length", (
        ("planner", "Passwords must be at least 12 characters."),
        ("reviewer", "signup still accepts an 8-character password, I just made one"),
        ("ops-bot", "auth-config: password.min_length=12"),
        ("coder", "Admin accounts need 16 characters minimum."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: admin accounts"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("warehouse backups", (
        ("planner", "The analytics warehouse is backed up every night."),
        ("ops-bot", "backup job warehouse-nightly: last success 19 days ago, disabled since 8 Nov"),
        ("reviewer", "Nobody backs up the warehouse; it can be rebuilt from the lake, so we skipped it."),
        ("coder", "The orders DB gets hourly snapshots."),
    ), contradictions=((0, 1, "negation"), (0, 2, "negation")),
        negatives=((1, 2, "agree"), (0, 3, "different things"), (2, 3, "different things"))),
    Topic("on-call rotation", (
        ("planner", "On-call shifts are one week, handed over Monday at 10:00."),
        ("coder", "I'm on call for the next 14 days straight, rotation is biweekly."),
        ("ops-bot", "pagerduty schedule platform-primary: rotation 7d, handoff Mon 10:00"),
        ("reviewer", "Secondary on-call rotates every two weeks."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: secondary"), (2, 3, "scoped"), (1, 3, "scoped"))),
    Topic("dashboard framework", (
        ("coder", "The dashboard is written in React with TypeScript."),
        ("reviewer", "dashboard repo is Vue 3 + Pinia, no React anywhere"),
        ("ops-bot", "dashboard build: vite 5, 312 modules, react-dom 18.3"),
        ("planner", "The marketing site is built with Astro."),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: the marketing site"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("EU data residency", (
        ("planner", "EU customer data never leaves the Frankfurt region."),
        ("reviewer", "Our EU customers' support tickets are stored in Zendesk's US data center."),
        ("ops-bot", "eu-tenant buckets: 100% in eu-central-1"),
        ("coder", "US customer data is in us-east-1 only."),
    ), contradictions=((0, 1, "negation"),),
        negatives=((0, 2, "agree"), (1, 2, "different things"), (0, 3, "scoped: US customers"), (2, 3, "scoped"))),
    Topic("monolith deploy cadence", (
        ("planner", "We deploy the monolith twice a week, Tuesdays and Thursdays."),
        ("ops-bot", "monolith deploys last 30d: 9"),
        ("coder", "Since the pipeline rewrite the monolith ships on every merge to main."),
        ("reviewer", "The mobile apps release every two weeks."),
    ), updates=((0, 2),),
        negatives=((0, 1, "agree"), (0, 3, "scoped: mobile apps"), (2, 3, "scoped"))),
    Topic("checkout availability SLO", (
        ("planner", "Checkout's availability SLO is 99.9% over 30 days."),
        ("reviewer", "checkout SLO is 99.95, not three nines; the doc is old"),
        ("ops-bot", "slo checkout-availability: target 99.9%, window 30d, budget remaining 41%"),
        ("coder", "Search has a 99.5% availability target."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: search"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("dogs in the Lisbon office", (
        ("planner", "Dogs are welcome in the Lisbon office on Fridays."),
        ("tester", "Building management says no pets in the Lisbon office, ever."),
        ("reviewer", "Brought Miso to the Lisbon office last Friday, no one minded."),
        ("coder", "The Porto office doesn't allow dogs."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: Porto"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("postmortem deadline", (
        ("planner", "Postmortems are due within 5 business days of a SEV1."),
        ("reviewer", "The postmortem for a SEV1 has to be published within 48 hours."),
        ("coder", "SEV2 postmortems are optional."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "scoped: SEV2"), (1, 2, "scoped"))),
    Topic("user upload storage", (
        ("coder", "User uploads are stored in S3, bucket acme-uploads-prod."),
        ("planner", "Uploads go to Google Cloud Storage since we host the media pipeline on GCP."),
        ("ops-bot", "s3 acme-uploads-prod: 8.2 TB, 41M objects"),
        ("tester", "Uploads over 5 GB fail with a 413 from the API."),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")),
        negatives=((0, 2, "paraphrase"), (0, 3, "different quantities"), (2, 3, "different quantities"))),
    Topic("holiday code freeze", (
        ("planner", "Code freeze for the holiday season starts December 15."),
        ("ops-bot", "change calendar: freeze window 2026-12-18 to 2027-01-04"),
        ("reviewer", "Reminder: freeze begins on the 15th of December, no prod deploys after that."),
        ("coder", "Hotfixes are still allowed during the freeze with a VP sign-off."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: hotfixes"), (2, 3, "scoped"))),
    Topic("coverage gate", (
        ("coder", "CI fails a PR if line coverage drops below 80%."),
        ("ops-bot", "codecov project target: 70%, threshold 1%"),
        ("planner", "We lowered the coverage gate to 70% in October; 80 was blocking refactors."),
        ("reviewer", "Branch coverage is about 62% on the core package."),
    ), contradictions=((0, 1, "number"),), updates=((0, 2),),
        negatives=((1, 2, "paraphrase"), (0, 3, "different quantities: a gate and a measurement"),
                   (1, 3, "different quantities"), (2, 3, "different quantities"))),
    Topic("Slack retention", (
        ("planner", "Slack messages are retained for 2 years."),
        ("ops-bot", "slack org retention: messages 90 days, files 90 days"),
        ("reviewer", "DMs are deleted after 30 days in Slack, channels keep everything for two years."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")), negatives=((0, 2, "agree: channels two years"),)),
    Topic("staging health", (
        ("ops-bot", "staging-eu: all 14 services healthy"),
        ("tester", "Staging has been down since this morning, the auth service won't start."),
        ("planner", "Staging is shut down on weekends to save money."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: weekends"), (1, 2, "scoped"))),
    Topic("primary database region", (
        ("planner", "The primary Postgres cluster runs in us-east-1."),
        ("coder", "failover drill done: primary is now in us-west-2, replicas in us-east-1"),
        ("ops-bot", "rds acme-main writer: us-west-2a"),
        ("reviewer", "Our primary database lives in Virginia (us-east-1)."),
    ), contradictions=((1, 3, "choice"), (2, 3, "choice")), updates=((0, 1),),
        negatives=((1, 2, "paraphrase"), (0, 3, "paraphrase"))),
    Topic("production Kubernetes version", (
        ("ops-bot", "eks cluster prod-1: version 1.29"),
        ("coder", "prod is on Kubernetes 1.27, we're two minors behind"),
        ("planner", "Upgrade prod to 1.30 by end of Q1."),
        ("reviewer", "The staging cluster already runs 1.30."),
    ), contradictions=((0, 1, "number"),),
        negatives=((0, 2, "goal"), (1, 2, "goal"), (0, 3, "scoped: staging"), (1, 3, "scoped"))),
    Topic("expense approval limit", (
        ("planner", "Managers can approve expenses up to $5,000 without finance."),
        ("reviewer", "Anything over $2,500 needs a finance sign-off, managers can't approve it alone."),
        ("tester", "My manager approved a $4,200 conference trip last month with no finance step."),
        ("coder", "Travel booked through Navan is pre-approved up to $1,000."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: Navan travel"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("secret scanning", (
        ("planner", "Every repo has secret scanning turned on."),
        ("ops-bot", "github advanced security: secret scanning enabled on 212/230 repos"),
        ("coder", "the infra-legacy repo has no secret scanning, I checked settings"),
        ("reviewer", "Push protection for secrets is only on for the public repos."),
    ), contradictions=((0, 1, "negation"), (0, 2, "negation")),
        negatives=((1, 2, "agree"), (0, 3, "different things: push protection"), (1, 3, "different things"),
                   (2, 3, "different things"))),
    Topic("public API latency", (
        ("ops-bot", "public api p95 latency 182ms (24h)"),
        ("planner", "The public API answers in under 200 ms at p95."),
        ("reviewer", "p95 of the public API is closer to 450 ms since the search endpoint joined it."),
    ), updates=((0, 2), (1, 2)), negatives=((0, 1, "threshold: agree"),)),
    Topic("design review meeting", (
        ("planner", "Design review is every Wednesday at 15:00 CET."),
        ("coder", "design review moved to Thursdays at 11"),
        ("reviewer", "The architecture review board meets monthly, on the first Monday."),
    ), updates=((0, 1),), negatives=((0, 2, "different things"), (1, 2, "different things"))),
    Topic("CI provider", (
        ("coder", "CI runs on GitHub Actions for every repo."),
        ("ops-bot", "buildkite agents online: 18, queue default wait 12s"),
        ("reviewer", "The Android app builds on Bitrise, not in our main CI."),
        ("planner", "We pay CircleCI for the monorepo pipelines."),
    ), contradictions=((0, 1, "choice"), (0, 3, "choice"), (1, 3, "choice")),
        negatives=((0, 2, "scoped: the Android app"), (1, 2, "scoped"), (2, 3, "scoped"))),
    Topic("guest Wi-Fi isolation", (
        ("planner", "The guest Wi-Fi is isolated from the corporate network."),
        ("tester", "From the guest Wi-Fi I could reach the printer admin page on the corp VLAN."),
        ("ops-bot", "fw rule guest->corp: deny all (hits 1,204 today)"),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")), negatives=((0, 2, "agree"),)),
]


# Written by hand on 2026-11-27, after ASIDE had been run and read (it checked the reader change
# of 0549d67), and committed before its first run and before any change it is to check: a fifth
# check. Other subjects again (autocomplete, invoices, TLS, CDN, standups, log shipping, upload
# limits, weekend deploys, warehouses, leave, printing, tracing, Redis, support languages,
# laptops, VPN, migrations, ETL, GPUs, mail sign-in), the same labelling rule.
NOVEL: list[Topic] = [
    Topic("autocomplete backend", (
        ("coder", "Autocomplete queries hit Algolia directly from the browser."),
        ("ops-bot", "typesense-autocomplete: 3 nodes, 2.1M docs, p99 18ms"),
        ("planner", "We replaced Algolia with a self-hosted Typesense cluster in August."),
        ("tester", "Product search (not autocomplete) still runs on Elasticsearch."),
    ), contradictions=((0, 1, "choice"),), updates=((0, 2),),
        negatives=((1, 2, "paraphrase"), (2, 3, "scoped: product search"), (1, 3, "scoped"))),
    Topic("invoice payment terms", (
        ("planner", "Customer invoices are due 30 days after issue."),
        ("ops-bot", "billing config: payment_terms=net45"),
        ("reviewer", "Invoices are net 30, I checked the template finance sends."),
        ("coder", "Enterprise invoices get net 60 terms."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: enterprise"), (2, 3, "scoped"), (1, 3, "scoped"))),
    Topic("TLS to the production database", (
        ("planner", "All connections to the production database use TLS."),
        ("tester", "psql to the prod replica worked with sslmode=disable, so TLS isn't enforced there."),
        ("ops-bot", "pg prod-main: ssl=on, require_ssl=true"),
        ("coder", "Local dev databases run without TLS."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: local dev"), (2, 3, "scoped"), (1, 3, "scoped"))),
    Topic("image CDN cache TTL", (
        ("coder", "Product images are cached at the CDN for 7 days."),
        ("ops-bot", "cdn rule /img/*: ttl 86400"),
        ("reviewer", "Image cache TTL at the edge is one week, confirmed in the Fastly UI."),
        ("planner", "HTML pages are cached for 60 seconds."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "different things"), (2, 3, "different things"),
                   (1, 3, "different things"))),
    Topic("platform standup time", (
        ("planner", "Platform standup is at 9:30 every weekday."),
        ("coder", "standup moved to 10:15 so the Lisbon folks can join"),
        ("reviewer", "Data team standup is at 9:00."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: data team"), (1, 2, "scoped"))),
    Topic("log shipping agent", (
        ("coder", "Logs are shipped with Fluent Bit running as a DaemonSet."),
        ("reviewer", "We ship container logs with Vector, Fluent Bit was removed last year."),
        ("ops-bot", "daemonset vector-agent: 42/42 ready"),
        ("tester", "the Windows build agents still ship logs through the Datadog agent"),
    ), contradictions=((0, 2, "choice"),), updates=((0, 1),),
        negatives=((1, 2, "paraphrase"), (0, 3, "scoped: Windows build agents"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("attachment size limit", (
        ("planner", "Attachments can be up to 25 MB."),
        ("tester", "Uploading a 12 MB PDF fails with 'file too large', limit seems to be 10 MB."),
        ("ops-bot", "nginx client_max_body_size 25m"),
        ("coder", "Profile pictures are capped at 2 MB."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: profile pictures"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("weekend deploys", (
        ("planner", "There are no production deploys on weekends."),
        ("ops-bot", "deploys to prod, last 7d: Sat 3, Sun 1"),
        ("coder", "pushed a hotfix to prod on Saturday, pipeline didn't complain"),
        ("reviewer", "Staging deploys run on weekends too."),
    ), contradictions=((0, 1, "negation"), (0, 2, "negation")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: staging"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("analytics warehouse", (
        ("planner", "The analytics warehouse is Snowflake."),
        ("coder", "dbt models compile against BigQuery, project acme-analytics"),
        ("ops-bot", "snowflake credits used this month: 1,840"),
        ("reviewer", "Finance reports still come from the old Redshift cluster."),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: finance reports"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("parental leave", (
        ("planner", "Parental leave is 16 weeks fully paid."),
        ("reviewer", "HR handbook says 12 weeks of paid parental leave."),
        ("tester", "I took four months of parental leave last year, all paid."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")), negatives=((0, 2, "agree: four months"),)),
    Topic("print quota", (
        ("planner", "Each employee can print 200 pages a month."),
        ("ops-bot", "papercut quota default: 100 pages/month"),
        ("tester", "Marketing has no print quota."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "scoped: marketing"), (1, 2, "scoped"))),
    Topic("trace sampling", (
        ("coder", "Sentry traces are sampled at 20% in production."),
        ("ops-bot", "sentry traces_sample_rate=0.05 (prod)"),
        ("reviewer", "Staging sends 100% of traces to Sentry."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "scoped: staging"), (1, 2, "scoped"))),
    Topic("session Redis eviction", (
        ("coder", "The session Redis uses allkeys-lru eviction."),
        ("ops-bot", "redis-sessions maxmemory-policy: noeviction"),
        ("reviewer", "Sessions Redis must never evict keys, it's set to noeviction on purpose."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")), negatives=((1, 2, "paraphrase"),)),
    Topic("support languages", (
        ("planner", "Support answers tickets in English and German."),
        ("reviewer", "Since we hired in Madrid, support also handles Spanish tickets."),
        ("ops-bot", "zendesk languages enabled: en, de, es"),
    ), updates=((0, 1),), negatives=((1, 2, "paraphrase"),)),
    Topic("engineering laptops", (
        ("planner", "Engineers get MacBooks by default."),
        ("coder", "new hires in the platform team get ThinkPads with Ubuntu"),
        ("ops-bot", "jamf enrolled devices: 312 (engineering 188)"),
    ), contradictions=((0, 1, "choice"),), negatives=((0, 2, "paraphrase"),)),
    Topic("VPN split tunneling", (
        ("planner", "The corporate VPN routes all traffic through the office, no split tunneling."),
        ("tester", "With VPN on, my Zoom traffic goes straight out, so split tunneling is on."),
        ("ops-bot", "vpn profile corp-default: split_tunnel=true (zoom, teams)"),
    ), contradictions=((0, 1, "negation"), (0, 2, "negation")), negatives=((1, 2, "agree"),)),
    Topic("schema migration tool", (
        ("coder", "Schema migrations are written with Alembic."),
        ("reviewer", "we run Flyway for migrations, the SQL files are under db/migration"),
        ("ops-bot", "deploy step 'alembic upgrade head' finished in 14s"),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")), negatives=((0, 2, "paraphrase"),)),
    Topic("nightly ETL start", (
        ("planner", "The nightly ETL starts at 01:00 UTC."),
        ("ops-bot", "airflow dag nightly_etl schedule: 0 3 * * *"),
        ("reviewer", "ETL kicks off at 1 AM UTC, it finishes around 4."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")), negatives=((0, 2, "paraphrase"),)),
    Topic("inference GPUs", (
        ("planner", "Production inference runs on L4 GPUs."),
        ("ops-bot", "inference-pool nodes: 6x g5.xlarge (A10G)"),
        ("coder", "The batch embedding jobs use spot T4s."),
    ), contradictions=((0, 1, "choice"),), negatives=((0, 2, "scoped: batch jobs"), (1, 2, "scoped"))),
    Topic("Workspace sign-in", (
        ("planner", "Every Google Workspace account has 2-step verification enforced."),
        ("reviewer", "The shared support@ mailbox signs in with just a password."),
        ("ops-bot", "workspace 2sv enforcement: ON for all OUs"),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")), negatives=((0, 2, "agree"),)),
]


# Written by hand on 2026-11-27, after NOVEL had been run and read, and committed before its
# first run and before any change it is to check: a sixth check. Other subjects again (feature
# flags, passwords, on-call, staging, support, secrets, rate limits, backups, orchestration,
# error tracking, app versions, reviews, the admin panel, email, releases, Node, residency,
# payment retries, CI, cron, deletion, DNS, encryption, MFA, the internal API), the same
# labelling rule. Two topics (the staging database's engine and its size) are near each other.
SPARE: list[Topic] = [
    Topic("feature flag service", (
        ("planner", "Feature flags are managed in LaunchDarkly."),
        ("coder", "flag lookups go through our Unleash proxy, see flags/client.ts"),
        ("ops-bot", "unleash-proxy: 2 replicas healthy, 14k evals/min"),
        ("tester", "Mobile experiments use Firebase Remote Config, not the web flag tool."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: mobile"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("password minimum length", (
        ("planner", "Passwords must be at least 12 characters."),
        ("tester", "signup accepted an 8-char password, so the minimum is 8 right now"),
        ("reviewer", "Auth policy: min length 12, no composition rules, checked against the breach list."),
        ("coder", "Admin accounts require 16 characters."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: admin accounts"), (2, 3, "scoped"), (1, 3, "scoped"))),
    Topic("on-call rotation length", (
        ("planner", "On-call shifts are one week long, Monday to Monday."),
        ("reviewer", "Since October on-call rotates every two weeks, people asked for fewer handovers."),
        ("coder", "The database team keeps its own rotation of three days."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: the database team"), (1, 2, "scoped"))),
    Topic("staging database engine", (
        ("coder", "Staging runs on MySQL 8 like production."),
        ("ops-bot", "rds staging-db engine=aurora-postgresql 15.4"),
        ("tester", "Ran the migration suite against staging Postgres, all green."),
        ("planner", "Production stays on MySQL 8 until the Q3 migration."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "agree"), (1, 3, "scoped: production"), (2, 3, "scoped"))),
    Topic("staging database size", (
        ("ops-bot", "staging-db storage: 480 GB used of 1 TB"),
        ("coder", "The staging DB is a nightly copy of prod with PII scrubbed, about half a terabyte."),
        ("reviewer", "Staging restore from snapshot takes about 40 minutes."),
    ), negatives=((0, 1, "paraphrase: 480 GB is about half a terabyte"), (0, 2, "different quantities"),
                  (1, 2, "different quantities"))),
    Topic("premium support first response", (
        ("planner", "Premium support tickets get a first response within 1 hour."),
        ("support", "our premium SLA says first reply in 4 business hours, I just reread the contract"),
        ("reviewer", "Free-tier tickets are answered within 3 business days."),
        ("ops-bot", "zendesk sla policy 'Premium': first_reply_time 60m"),
    ), contradictions=((0, 1, "number"), (1, 3, "number")),
        negatives=((0, 3, "paraphrase"), (0, 2, "scoped: free tier"), (1, 2, "scoped"), (2, 3, "scoped"))),
    Topic("secrets in git", (
        ("planner", "No secrets are stored in the git repository."),
        ("reviewer", "found AWS keys committed in infra/terraform.tfvars last week"),
        ("coder", "Secrets live in Vault and are injected at deploy time."),
        ("tester", "The test fixtures repo does contain dummy keys, those are fake by design."),
    ), contradictions=((0, 1, "negation"),),
        negatives=((0, 2, "agree"), (0, 3, "scoped: test fixtures, fake keys"), (1, 3, "scoped"))),
    Topic("public API rate limit", (
        ("coder", "Public API is rate limited to 100 requests per minute per key."),
        ("ops-bot", "kong plugin rate-limiting: minute=600, policy=redis"),
        ("support", "Customer hit 429s at around 100 rpm, matches the documented limit."),
        ("planner", "Internal services are not rate limited."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: internal services"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("database backup retention", (
        ("planner", "Database backups are kept for 30 days."),
        ("ops-bot", "backup policy pg-prod: retention 35d, pitr enabled"),
        ("reviewer", "Backups are retained for a month, per the compliance doc."),
        ("coder", "Log archives in S3 are kept for a year."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase: a month"), (0, 3, "different things"), (1, 3, "different things"),
                   (2, 3, "different things"))),
    Topic("container orchestration", (
        ("planner", "All services run on Kubernetes (EKS)."),
        ("coder", "the billing worker is deployed on ECS Fargate, task def billing-worker:42"),
        ("ops-bot", "eks prod: 38 deployments, 212 pods running"),
        ("reviewer", "Batch jobs run on AWS Batch, outside the cluster."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "agree"), (0, 3, "scoped: batch jobs"), (1, 3, "different things"))),
    Topic("error tracking", (
        ("coder", "Exceptions are reported to Sentry."),
        ("planner", "As of this sprint we send errors to Honeybadger, Sentry is being shut off."),
        ("tester", "honeybadger shows 12 new errors since the deploy"),
    ), updates=((0, 1),), negatives=((1, 2, "agree"),)),
    Topic("iOS minimum version", (
        ("planner", "The iOS app supports iOS 15 and later."),
        ("tester", "install on an iPhone running iOS 15.7 fails, App Store says it needs iOS 16"),
        ("coder", "Android minSdkVersion is 26."),
        ("reviewer", "Deployment target in the Xcode project is 15.0."),
    ), contradictions=((0, 1, "number"), (1, 3, "number")),
        negatives=((0, 3, "paraphrase"), (0, 2, "scoped: Android"), (1, 2, "scoped"), (2, 3, "scoped"))),
    Topic("pull request approvals", (
        ("planner", "Every pull request needs two approvals before merge."),
        ("coder", "merged my PR with a single approval, branch protection only asks for 1"),
        ("reviewer", "Changes under /payments need an extra approval from the payments team."),
        ("ops-bot", "github branch protection main: required_approving_review_count=2"),
    ), contradictions=((0, 1, "number"), (1, 3, "number")),
        negatives=((0, 3, "agree"), (0, 2, "scoped: /payments"), (1, 2, "scoped"), (2, 3, "scoped"))),
    Topic("admin panel behind VPN", (
        ("planner", "The admin panel is only reachable over the VPN."),
        ("tester", "opened admin.acme.io from my phone on LTE without VPN and got the login page"),
        ("ops-bot", "waf rule admin-allowlist: source 10.8.0.0/16 only, action=block others"),
        ("coder", "The public status page doesn't need VPN."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: status page"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("transactional email provider", (
        ("coder", "Transactional email goes through SendGrid."),
        ("ops-bot", "ses send stats 24h: 18,204 sent, bounce 0.4%"),
        ("reviewer", "password reset mails come from Amazon SES, I checked the headers"),
        ("planner", "Marketing newsletters are sent from Mailchimp."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: marketing"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("web release cadence", (
        ("planner", "We release the web app every two weeks."),
        ("coder", "we ship web to prod daily now, the release train is gone"),
        ("reviewer", "Mobile releases go out monthly because of store review."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: mobile"), (1, 2, "scoped"))),
    Topic("Node version", (
        ("coder", "Services build on Node 20."),
        ("ops-bot", "ci image node:18.19-alpine used by 14 pipelines"),
        ("reviewer", ".nvmrc says 20.11, matches the Dockerfile"),
        ("tester", "The legacy admin app is stuck on Node 14."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: legacy admin app"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("EU data residency", (
        ("planner", "EU customer data never leaves the eu-west-1 region."),
        ("reviewer", "EU user analytics events are replicated to us-east-1 for the BI team"),
        ("coder", "US customer data is stored in us-east-1."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: US data"),)),
    Topic("failed payment retries", (
        ("coder", "Failed card payments are retried 3 times over 5 days."),
        ("support", "customer says they were charged after 4 retry attempts, dunning emails confirm four tries"),
        ("ops-bot", "stripe smart retries: enabled, max 4 attempts in 7 days"),
        ("planner", "Failed invoices go to collections after 30 days."),
    ), contradictions=((0, 1, "number"), (0, 2, "number")),
        negatives=((1, 2, "agree"), (0, 3, "different things"), (1, 3, "different things"),
                   (2, 3, "different things"))),
    Topic("CI system", (
        ("planner", "CI runs on GitHub Actions."),
        ("coder", "pipeline failed on the Jenkins agent again, build #8812"),
        ("ops-bot", "jenkins queue: 3 waiting, 5 executors busy"),
        ("reviewer", "The docs site is built by Netlify, not by CI."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: the docs site"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("scheduled job timezone", (
        ("coder", "Scheduled jobs run in UTC."),
        ("tester", "the nightly report job fired at 02:00 Berlin time, so cron uses local time on that box"),
        ("ops-bot", "cronjob nightly-report: schedule '0 1 * * *', timeZone: Etc/UTC"),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")), negatives=((0, 2, "agree"),)),
    Topic("account deletion deadline", (
        ("planner", "Account deletion requests are completed within 30 days."),
        ("support", "deletions take up to 45 days because the warehouse purge is monthly"),
        ("coder", "Deletion of a user's uploaded files runs within 24 hours of the request."),
    ), contradictions=((0, 1, "number"),),
        negatives=((0, 2, "scoped: uploaded files"), (1, 2, "scoped"))),
    Topic("DNS hosting", (
        ("ops-bot", "route53 hosted zones: 23, queries 41M/day"),
        ("planner", "DNS for acme.io is hosted at Cloudflare."),
        ("coder", "Changed the TTL for api.acme.io in Cloudflare to 300."),
        ("reviewer", "Internal zones (*.corp) resolve through our own CoreDNS."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (1, 3, "scoped: internal zones"), (0, 3, "scoped"), (2, 3, "scoped"))),
    Topic("S3 encryption at rest", (
        ("planner", "All S3 buckets are encrypted at rest."),
        ("ops-bot", "s3 audit: bucket acme-exports-legacy default_encryption=none"),
        ("reviewer", "SSE-KMS is on for every bucket I checked in the prod account."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "agree"),)),
    Topic("contractor MFA", (
        ("planner", "Contractors are required to use MFA."),
        ("tester", "created a contractor account in Okta and it never prompted me to enroll MFA"),
        ("reviewer", "Employees must use a hardware key; contractors can use an authenticator app."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")), negatives=((0, 2, "agree"),)),
    Topic("internal API exposure", (
        ("coder", "The internal API isn't exposed to the internet."),
        ("ops-bot", "shodan alert: internal-api.acme.io:443 reachable, 200 on /health"),
        ("reviewer", "Only the public gateway has an internet-facing load balancer."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")), negatives=((0, 2, "agree"),)),
]


# Written by hand on 2026-11-27, after SPARE had been run once (the check of attaching and of
# ad91170's reader), and committed before its first run and before any change it is to check:
# a seventh check. Other subjects again (SSO, queues, pools, timeouts, push, PDFs, Python,
# Terraform state, certificates, uptime checks, status pages, incidents, vacation, hiring,
# formatting, API versions, log levels, image quality, events, dashboards, registrars, GPUs),
# the same labelling rule.
LAST: list[Topic] = [
    Topic("single sign-on provider", (
        ("planner", "Employees sign in to internal tools through Okta."),
        ("ops-bot", "azure ad enterprise apps: 64 configured, 3 with expiring certs"),
        ("coder", "Grafana login goes via Entra ID (Azure AD) SSO."),
        ("reviewer", "Customers sign in with Auth0, separate from employee SSO."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: customers"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("job queue", (
        ("coder", "Background jobs are queued in Sidekiq on Redis."),
        ("planner", "We moved background jobs from Sidekiq to GoodJob in September, no more Redis for jobs."),
        ("ops-bot", "good_job: 1,203 jobs performed last hour, 0 retried"),
    ), updates=((0, 1),), negatives=((1, 2, "agree"),)),
    Topic("database connection pool", (
        ("coder", "Each API pod opens a pool of 20 connections to Postgres."),
        ("ops-bot", "pgbouncer api pool: default_pool_size=50"),
        ("reviewer", "API pool size is twenty per pod, confirmed in database.yml."),
        ("tester", "The reporting worker uses a separate pool of 5."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: reporting worker"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("load balancer idle timeout", (
        ("planner", "The load balancer drops idle connections after 60 seconds."),
        ("tester", "kept a websocket idle for 5 minutes behind the LB and it stayed open"),
        ("ops-bot", "alb main-public idle_timeout.timeout_seconds=60"),
    ), contradictions=((0, 1, "number"), (1, 2, "number")), negatives=((0, 2, "agree"),)),
    Topic("mobile push provider", (
        ("coder", "Push notifications are sent through OneSignal."),
        ("ops-bot", "fcm send: 92,114 messages today, 0.3% invalid tokens"),
        ("reviewer", "Our app servers call Firebase Cloud Messaging directly for Android pushes."),
        ("planner", "In-app messages are handled by Braze."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "different things: in-app messages"), (1, 3, "different things"),
                   (2, 3, "different things"))),
    Topic("PDF generation", (
        ("coder", "Invoices are rendered to PDF with WeasyPrint."),
        ("reviewer", "invoice PDFs come out of headless Chrome via Puppeteer, I traced the job"),
        ("tester", "Contracts use a different renderer, DocuSign generates those."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "scoped: contracts"), (1, 2, "scoped"))),
    Topic("Python version", (
        ("planner", "All backend services run on Python 3.12."),
        ("ops-bot", "base image python:3.10-slim used by 9 services"),
        ("coder", "pyproject says requires-python >= 3.12 for the API."),
        ("tester", "The data science notebooks still run 3.9."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: data science notebooks"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("Terraform state backend", (
        ("coder", "Terraform state is stored in an S3 bucket with DynamoDB locking."),
        ("reviewer", "state lives in Terraform Cloud workspaces, the S3 bucket is empty"),
        ("ops-bot", "tfc workspaces: 31, last run infra-prod 12 min ago"),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")), negatives=((1, 2, "agree"),)),
    Topic("TLS certificates", (
        ("planner", "Public certificates are issued by Let's Encrypt and renewed automatically."),
        ("tester", "The cert on api.acme.io is a DigiCert one, valid until next March."),
        ("ops-bot", "cert-manager: 47 certificates ready, issuer letsencrypt-prod"),
        ("coder", "Internal services use certificates from our own Vault PKI."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "agree"), (0, 3, "scoped: internal services"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("uptime check interval", (
        ("planner", "External uptime checks hit the API every minute."),
        ("ops-bot", "pingdom check api-health: interval 5m, 3 locations"),
        ("reviewer", "Our uptime monitor pings the API once a minute from three regions."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")), negatives=((0, 2, "paraphrase"),)),
    Topic("status page", (
        ("support", "Customers are told about outages on our Statuspage page."),
        ("coder", "status.acme.io is an Instatus page now, we dropped Atlassian Statuspage to save money."),
        ("ops-bot", "instatus incidents this quarter: 4"),
    ), updates=((0, 1),), negatives=((1, 2, "agree"),)),
    Topic("SEV1 response time", (
        ("planner", "A SEV1 incident gets an incident commander within 15 minutes."),
        ("reviewer", "Last SEV1 took 40 minutes before anyone took command, and that's within our 60-minute target."),
        ("ops-bot", "incident.io policy sev1: ack within 15m, escalate after 10m"),
        ("coder", "SEV3 tickets are looked at the next business day."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: SEV3"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("vacation days", (
        ("planner", "Full-time employees get 25 vacation days a year."),
        ("support", "the handbook I got in onboarding says 28 days of annual leave"),
        ("reviewer", "Annual leave is 25 days plus public holidays, HR confirmed."),
        ("coder", "Interns get 2 days per month worked."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: interns"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("interview loop length", (
        ("planner", "The engineering interview loop is four interviews on one day."),
        ("reviewer", "Since January the loop is three interviews, we cut the second coding round."),
        ("tester", "Manager candidates have an extra interview with a director."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: manager candidates"), (1, 2, "scoped"))),
    Topic("code formatter", (
        ("coder", "Python code is formatted with Black."),
        ("reviewer", "the repo's pre-commit runs ruff format, Black isn't installed anywhere"),
        ("ops-bot", "ci job lint: ruff format --check passed (412 files)"),
        ("planner", "Frontend code is formatted with Prettier."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: frontend"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("API versioning", (
        ("planner", "Deprecated API versions are supported for 12 months after the successor ships."),
        ("support", "customer says v1 was shut off 6 months after v2 launched"),
        ("reviewer", "The deprecation policy promises a year of overlap between versions."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")), negatives=((0, 2, "paraphrase"),)),
    Topic("production log level", (
        ("planner", "Production services log at INFO."),
        ("tester", "prod API logs are full of DEBUG lines since Tuesday's deploy"),
        ("ops-bot", "env LOG_LEVEL=info for 22 of 22 prod deployments"),
        ("coder", "Staging runs at DEBUG so we can trace requests."),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: staging"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("image compression", (
        ("coder", "Uploaded photos are re-encoded as JPEG at quality 80."),
        ("ops-bot", "imgproxy config: quality=90, format=webp"),
        ("reviewer", "Thumbnails are saved at quality 60 to keep them small."),
    ), contradictions=((0, 1, "number"),),
        negatives=((0, 2, "scoped: thumbnails"), (1, 2, "scoped"))),
    Topic("analytics event pipeline", (
        ("planner", "Product analytics events go through Segment."),
        ("coder", "events are sent straight to RudderStack from the SDK"),
        ("ops-bot", "rudderstack: 3.2M events yesterday, 0.01% failed"),
        ("reviewer", "Server-side billing events are written to Kafka, not the analytics pipeline."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: billing events"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("churn dashboard refresh", (
        ("planner", "The churn dashboard refreshes every hour."),
        ("tester", "the churn numbers on the dashboard only change once a day, around 6 am"),
        ("ops-bot", "looker pdt churn_daily: trigger every 24h"),
    ), contradictions=((0, 1, "number"), (0, 2, "number")), negatives=((1, 2, "agree"),)),
    Topic("domain registrar", (
        ("planner", "Our domains are registered with Gandi."),
        ("reviewer", "acme.io renews through Namecheap, the invoice came to my inbox"),
        ("coder", "Gandi holds acme.com and acme.de, I transferred them last year."),
    ), contradictions=((0, 1, "choice"),), negatives=((0, 2, "agree"), (1, 2, "scoped: other domains"))),
    Topic("GPU quota", (
        ("planner", "The ML team has a quota of 16 GPUs in the shared cluster."),
        ("ops-bot", "resourcequota ml-team: requests.nvidia.com/gpu 8"),
        ("reviewer", "ML can use sixteen GPUs, that was the agreement with platform."),
        ("coder", "The research team has 4 GPUs of its own."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase"), (0, 3, "scoped: research team"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("encrypted backups", (
        ("planner", "Every database backup is encrypted before it leaves the host."),
        ("tester", "I opened last night's backup file from the bucket with plain pg_restore, no key needed"),
        ("ops-bot", "backup job pg-prod: gpg encrypt step ok, uploaded 41 GB"),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")), negatives=((0, 2, "agree"),)),
    Topic("staging public access", (
        ("coder", "Staging is not reachable from the internet."),
        ("tester", "loaded staging.acme.io on my phone over 5G without any VPN"),
        ("ops-bot", "sg staging-web: inbound 0.0.0.0/0 on 443"),
        ("planner", "Production is public, of course."),
    ), contradictions=((0, 1, "negation"), (0, 2, "negation")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: production"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("code owners review", (
        ("planner", "Changes to the billing service always need a review from a code owner."),
        ("coder", "merged a billing change this morning without any code owner approving it"),
        ("reviewer", "CODEOWNERS covers /billing and branch protection requires code owner review."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")), negatives=((0, 2, "agree"),)),
    Topic("feature freeze", (
        ("planner", "There are no feature merges during the release freeze."),
        ("reviewer", "two feature PRs were merged into main during last week's freeze"),
        ("coder", "Bug fixes can be merged during the freeze with a release manager's OK."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: bug fixes"), (1, 2, "scoped"))),
]


# Written by hand on 2026-11-27 (seventh session), after the choice false alarms of the read
# sets were looked at and before any rule for them was written; committed before its first
# run. Choices said with other subjects than their rivals' (a true contradiction whose two
# sides open differently, a scoped one whose sides open alike) are most of it.
EIGHTH: list[Topic] = [
    Topic("session store", (
        ("coder", "The API keeps user sessions in Redis."),
        ("reviewer", "Sessions are stored in Memcached, the Redis cluster is only for rate limits."),
        ("ops-bot", "memcached sessions-01: curr_items 48,211, hit ratio 97%"),
        ("tester", "The admin panel stores its sessions in signed cookies, nothing server side."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: the admin panel"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("error tracking", (
        ("planner", "Exceptions from the backend are reported to Sentry."),
        ("coder", "we send backend errors to Rollbar, the sentry DSN in .env is dead"),
        ("reviewer", "The iOS app reports its crashes to Crashlytics."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "scoped: the iOS app"), (1, 2, "scoped"))),
    Topic("search engine", (
        ("planner", "Product search runs on Elasticsearch 8."),
        ("coder", "Search is served by OpenSearch since the license change, we never ran Elastic 8"),
        ("ops-bot", "opensearch domain products-search: 3 data nodes, green"),
        ("tester", "Help center search is Algolia, hosted."),
    ), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 3, "scoped: help center"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("infrastructure as code", (
        ("planner", "All cloud resources are defined in Terraform."),
        ("coder", "the network stack is CDK, written in TypeScript, applied from CI"),
        ("reviewer", "We write our infrastructure in Pulumi now, Terraform is gone from the repo."),
    ), contradictions=((0, 1, "choice"),), updates=((0, 2),), negatives=((1, 2, "other: scoped vs newer"),)),
    Topic("object storage", (
        ("ops-bot", "bucket acme-uploads (S3, eu-west-1): 2.1 TB, 8.4M objects"),
        ("coder", "User uploads land in Google Cloud Storage."),
        ("reviewer", "Uploads go to S3; GCS only holds the BigQuery exports."),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")),
        negatives=((0, 2, "agree"),)),
    Topic("mobile framework", (
        ("planner", "Both mobile apps are written in React Native."),
        ("coder", "The Android app is native Kotlin, only iOS uses React Native."),
        ("tester", "The watch app is SwiftUI."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "scoped: the watch app"), (1, 2, "scoped"))),
    Topic("message broker", (
        ("coder", "Order events are published to Kafka."),
        ("ops-bot", "rabbitmq vhost orders: 14 queues, 0 unacked"),
        ("reviewer", "Orders talk to the warehouse over RabbitMQ, there is no Kafka in this system."),
        ("planner", "Clickstream events go to Kinesis."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: clickstream"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("password hashing", (
        ("planner", "Passwords are hashed with bcrypt, cost 12."),
        ("reviewer", "we hash passwords with argon2id, bcrypt was replaced in 2024"),
        ("coder", "API tokens are hashed with SHA-256 before they are stored."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: API tokens"), (1, 2, "scoped"))),
    Topic("frontend test runner", (
        ("coder", "Frontend unit tests run with Jest."),
        ("tester", "the web app's tests are on Vitest, jest.config.js was deleted"),
        ("reviewer", "End-to-end tests use Playwright."),
        ("ops-bot", "ci job web-unit: vitest run, 1,812 passed"),
    ), contradictions=((0, 1, "choice"), (0, 3, "choice")),
        negatives=((1, 3, "agree"), (0, 2, "scoped: end-to-end tests"), (1, 2, "scoped"), (2, 3, "scoped"))),
    Topic("DNS provider", (
        ("ops-bot", "route53 hosted zone acme.io: 212 records"),
        ("planner", "acme.io's DNS is hosted at Cloudflare."),
        ("coder", "Internal service names resolve through CoreDNS in the cluster."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "scoped: internal names"), (1, 2, "scoped"))),
    Topic("API rate limit", (
        ("planner", "The public API allows 100 requests per minute per key."),
        ("ops-bot", "kong plugin rate-limiting public-api: minute=600"),
        ("tester", "hammered the public API with one key, got 429s after exactly 100 calls in a minute"),
        ("coder", "Partner keys get 1,000 requests a minute."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: partner keys"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("log retention", (
        ("planner", "Application logs are kept for 30 days."),
        ("ops-bot", "loki retention_period: 720h"),
        ("reviewer", "logs older than two weeks are already gone when I search, retention must be 14 days"),
        ("coder", "Audit logs are kept for seven years."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: 720h = 30 days"), (0, 3, "scoped: audit logs"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("release cadence", (
        ("planner", "The web app ships to production every Tuesday and Thursday."),
        ("coder", "mobile releases go out every two weeks through the stores"),
        ("reviewer", "Web deploys happen daily now, the Tuesday/Thursday train was dropped."),
    ), updates=((0, 2),), negatives=((0, 1, "scoped: mobile"), (1, 2, "scoped"))),
    Topic("two-factor authentication", (
        ("planner", "Two-factor authentication is required for every staff account."),
        ("tester", "created a staff account today and logged in with just a password, no 2FA prompt"),
        ("ops-bot", "okta policy staff-mfa: enforced, 212 of 212 users enrolled"),
        ("coder", "Customer accounts have optional 2FA."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: customer accounts"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("database read replicas", (
        ("planner", "The reporting queries never touch the primary; they go to a read replica."),
        ("reviewer", "the monthly revenue report runs straight on the primary, I saw it in pg_stat_activity"),
        ("coder", "Checkout reads and writes the primary, on purpose."),
    ), contradictions=((0, 1, "negation"),),
        negatives=((0, 2, "scoped: checkout"), (1, 2, "scoped"))),
    Topic("container orchestration", (
        ("planner", "Every service runs on Kubernetes (EKS)."),
        ("ops-bot", "ecs cluster legacy-batch: 6 services, 14 tasks running"),
        ("coder", "The nightly batch jobs still run on ECS, they were never moved to EKS."),
        ("reviewer", "Lambda handles the image thumbnails."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: thumbnails"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("secrets manager", (
        ("coder", "Service secrets are read from Vault at startup."),
        ("reviewer", "our services pull their secrets from AWS Secrets Manager, there's no Vault anywhere"),
        ("ops-bot", "secretsmanager: 318 secrets, 12 rotated today"),
        ("planner", "Developers keep their personal tokens in 1Password."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: personal tokens"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("build tool", (
        ("coder", "The Java services build with Gradle."),
        ("reviewer", "payments-core still builds with Maven, a pom.xml and no gradle files"),
        ("planner", "The Go services build with plain go build, no Bazel."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "scoped: the Go services"), (1, 2, "scoped"))),
]

# NINTH: written on 2026-11-28 after EIGHTH's run and before any rule for what EIGHTH showed
# (tools named in lower case, statements scoped by subjects of two heads, a class against one
# of its members); committed before its first run. Outside infrastructure too: an assistant's
# memory of a person, a team's plans, a household. Kept aside as the next check.
NINTH: list[Topic] = [
    Topic("package manager", (
        ("coder", "the monorepo uses pnpm workspaces"),
        ("reviewer", "Dependencies are installed with yarn, pnpm was tried and reverted last sprint."),
        ("ops-bot", "ci step install: yarn install --immutable, 41s"),
        ("tester", "The docs site has its own package-lock.json and installs with npm."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: the docs site"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("python formatter", (
        ("planner", "Python code is formatted with black."),
        ("coder", "we switched formatting to ruff format in march, black is no longer installed"),
        ("reviewer", "Notebooks are not auto-formatted at all."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: notebooks"), (1, 2, "scoped"))),
    Topic("user's coffee order", (
        ("assistant", "Priya takes her coffee as an oat flat white."),
        ("assistant", "Priya said she's off dairy and oat milk both, she drinks black americanos now"),
        ("assistant", "Priya's partner Sam likes a cortado."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: Sam"), (1, 2, "scoped"))),
    Topic("dentist appointment", (
        ("assistant", "Dentist appointment on 14 March at 9:30."),
        ("assistant", "The dentist is on the 14th at 10:30, they moved it by an hour? no, the confirmation email says 10:30 all along"),
        ("assistant", "Reminder set for the dentist, the day before."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "other: a reminder"), (1, 2, "other"))),
    Topic("team offsite", (
        ("planner", "The offsite is in Lisbon, 12 to 14 June."),
        ("coder", "offsite is porto this year, lisbon was last year"),
        ("planner", "Flights for the offsite are booked by each person and expensed."),
        ("reviewer", "Budget per person for the offsite: 900 EUR."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "other: flights"), (1, 2, "other"), (0, 3, "other: budget"), (2, 3, "other"))),
    Topic("on-call rotation", (
        ("planner", "On-call shifts are one week long."),
        ("ops-bot", "pagerduty schedule platform-primary: rotation length 7 days, 6 members"),
        ("reviewer", "shifts are two weeks since the team shrank, the schedule page is out of date"),
        ("coder", "The data team's on-call is business hours only."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: one week = 7 days"), (0, 3, "scoped: the data team"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("feature flag service", (
        ("coder", "Feature flags are served by LaunchDarkly."),
        ("reviewer", "flags come from unleash, self-hosted, the launchdarkly contract ended"),
        ("ops-bot", "unleash-api: 212 toggles, 3 stale"),
    ), updates=((0, 1),), negatives=((1, 2, "agree"),)),
    Topic("staging database size", (
        ("ops-bot", "rds staging-main: db.t3.large, 200 GB gp3"),
        ("coder", "Staging's database has 500 GB of storage."),
        ("tester", "The production database has 2 TB allocated."),
    ), contradictions=((0, 1, "number"),),
        negatives=((0, 2, "scoped: production"), (1, 2, "scoped"))),
    Topic("code review rule", (
        ("planner", "Every pull request needs two approvals before merge."),
        ("coder", "docs-only PRs merge with one approval, the bot allows it"),
        ("reviewer", "PRs to main need 2 approvals; branch protection enforces it."),
        ("tester", "merged a PR to main today with no approvals at all, the protection is off"),
    ), contradictions=((0, 3, "negation"), (2, 3, "negation")),
        negatives=((0, 2, "agree"), (1, 2, "scoped: docs-only PRs"))),
    Topic("kid's swimming lessons", (
        ("assistant", "Noor's swimming lessons are Saturdays at 10."),
        ("assistant", "Swimming moved to Sundays at 11 from next month, the pool changed its timetable"),
        ("assistant", "Leo's football practice is on Saturdays at 10 too."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: Leo"), (1, 2, "scoped"))),
    Topic("API authentication", (
        ("planner", "The public API authenticates with OAuth 2 client credentials."),
        ("coder", "public api still takes static api keys in the X-Api-Key header, oauth never shipped"),
        ("reviewer", "Internal services authenticate to each other with mTLS."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "scoped: internal services"), (1, 2, "scoped"))),
    Topic("backup encryption", (
        ("planner", "Backups are encrypted at rest."),
        ("reviewer", "the nightly pg_dump files in the backup bucket are plain text, no encryption"),
        ("ops-bot", "s3 bucket acme-backups: default encryption SSE-KMS enabled"),
        ("coder", "Laptop backups are encrypted by FileVault."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: laptops"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("weekly grocery budget", (
        ("assistant", "The household grocery budget is 150 a week."),
        ("assistant", "Groceries are budgeted at 200 per week since January."),
        ("assistant", "Eating out has its own budget, 60 a week."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: eating out"), (1, 2, "scoped"))),
    Topic("error budget", (
        ("planner", "The checkout SLO is 99.9% availability over 30 days."),
        ("ops-bot", "slo checkout-availability: target 99.95%, window 28d, budget remaining 61%"),
        ("reviewer", "The search SLO is 99.5%."),
    ), contradictions=((0, 1, "number"),),
        negatives=((0, 2, "scoped: search"), (1, 2, "scoped"))),
    Topic("editor of choice", (
        ("assistant", "Marco writes code in neovim."),
        ("assistant", "Marco uses VS Code for everything, he gave up on vim last year"),
        ("assistant", "Marco's designer colleague works in Figma."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: the designer"), (1, 2, "scoped"))),
    Topic("queue for emails", (
        ("coder", "Outgoing emails are queued in sidekiq."),
        ("reviewer", "email jobs go through celery now, we moved off sidekiq with the python rewrite"),
        ("tester", "Push notifications are sent straight from the API, no queue."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: push notifications"), (1, 2, "scoped"))),
    Topic("vacation days", (
        ("planner", "Everyone gets 25 vacation days a year."),
        ("coder", "contractors don't get paid vacation at all"),
        ("reviewer", "Employees get 28 days of annual leave, HR raised it in January."),
    ), updates=((0, 2),), negatives=((1, 2, "scoped: contractors"),)),  # 0-1: "everyone" against an exception
]

# TENTH: written on 2026-11-28 (fourteenth session) after the bound rule was built on the read
# sets and before it was run on anything new; committed before its first run. Voices as before
# (chat lines, bot output, decisions, an assistant's notes on a household); breaches of a stated
# limit are among its contradictions as they come in real writing, not more. Kept aside as the
# next check.
TENTH: list[Topic] = [
    Topic("build cache retention", (
        ("coder", "Remote build cache entries are evicted after 14 days."),
        ("ops-bot", "bazel-remote: max_age=336h, size 1.8 TB"),
        ("reviewer", "the build cache only keeps a week of artifacts, my Tuesday build missed everything from the 2nd"),
        ("planner", "The test-results cache keeps 90 days for flaky-test stats."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: 336h = 14 days"), (0, 3, "scoped: the test-results cache"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("status page provider", (
        ("planner", "Our public status page is hosted on Statuspage by Atlassian."),
        ("coder", "status.acme.io is served by Instatus, we left Atlassian's Statuspage when the price went up"),
        ("ops-bot", "instatus: 4 components, 0 incidents open"),
        ("tester", "The internal status dashboard is a Grafana board."),
    ), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 3, "scoped: the internal dashboard"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("public API rate limit", (
        ("planner", "The public API allows at most 100 requests per minute per key."),
        ("tester", "hammered the public API with one key: 240 requests in a minute, not a single 429"),
        ("ops-bot", "kong plugin rate-limiting (public-api): minute=100, policy=redis"),
        ("reviewer", "Partner keys get 1,000 requests a minute, that's in their contract."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: partner keys"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("grocery delivery day", (
        ("assistant", "The grocery delivery from Ocado comes on Thursdays between 7 and 9 pm."),
        ("assistant", "Ocado slot is Friday mornings now, Sam changed it so someone is home"),
        ("assistant", "The veg box from Riverford arrives every other Tuesday."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: the veg box"), (1, 2, "scoped"))),
    Topic("API design review", (
        ("planner", "Every new public endpoint goes through an API design review."),
        ("reviewer", "the /v2/exports endpoint shipped without any design review, nobody was asked"),
        ("coder", "Internal admin endpoints don't need a design review."),
    ), contradictions=((0, 1, "negation"),),
        negatives=((0, 2, "scoped: internal admin endpoints"), (1, 2, "scoped"))),
    Topic("Loki log retention", (
        ("ops-bot", "loki retention_period: 744h"),
        ("coder", "Application logs stay in Loki for 31 days."),
        ("reviewer", "Loki only has 7 days of logs, I couldn't find last month's incident at all"),
        ("planner", "Audit logs go to S3 Glacier and are kept 7 years."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: 744h = 31 days"), (0, 3, "scoped: audit logs"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("paging tool", (
        ("planner", "Pages go out through PagerDuty."),
        ("ops-bot", "opsgenie: 3 alerts open, escalation policy platform-primary"),
        ("reviewer", "We page through Opsgenie, PagerDuty was never rolled out to platform."),
        ("tester", "Customer support escalations come through Zendesk, not the paging tool."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: support escalations"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("upload size limit", (
        ("planner", "Users can upload files of up to 50 MB."),
        ("tester", "a 35 MB video upload failed with 'file too large', the limit seems to be 20 MB"),
        ("ops-bot", "nginx upload limit client_max_body_size=50m"),
        ("coder", "Avatar images are capped at 2 MB."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: avatars"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("sprint demo day", (
        ("planner", "Sprint demos are on Thursday afternoons."),
        ("planner", "Moved sprint demos to Friday at 11, Thursdays clash with the board call."),
        ("coder", "The design crit is on Thursday afternoons."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: the design crit"), (1, 2, "scoped"))),
    Topic("staging auto-shutdown", (
        ("ops-bot", "Staging environments shut down automatically at 8 pm on weekdays."),
        ("coder", "staging was still up at 11 pm last night, nothing shut it down"),
        ("planner", "Production is never shut down on a schedule."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: production"), (1, 2, "scoped"))),
    Topic("engineers' laptops", (
        ("planner", "Engineers get a MacBook Pro on their first day."),
        ("reviewer", "new backend engineers are issued Dell XPS laptops with Ubuntu, Macs are for design"),
        ("tester", "Sales gets Chromebooks."),
    ), contradictions=((0, 1, "choice"),), negatives=((0, 2, "scoped: sales"), (1, 2, "scoped"))),
    Topic("dentist appointment", (
        ("assistant", "Ana's dentist check-up is on 14 March at 9:30."),
        ("assistant", "Dentist called: Ana's check-up is 21 March, not the 14th."),
        ("assistant", "Leo's orthodontist appointment is on 3 April."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "scoped: Leo"), (1, 2, "scoped"))),
    Topic("CDN for static assets", (
        ("coder", "Static assets are served through CloudFront."),
        ("ops-bot", "fastly service static-assets: 98.7% hit ratio, 2.3 TB egress (7d)"),
        ("reviewer", "static assets moved from CloudFront to Fastly in the spring, the CloudFront distribution is only "
                     "a fallback"),
    ), contradictions=((0, 1, "choice"),), updates=((0, 2),), negatives=((1, 2, "agree"),)),
    Topic("coverage gate", (
        ("planner", "PRs can't merge if coverage is below 75%."),
        ("ops-bot", "codecov.yml: project target 75%, patch target 60%"),
        ("coder", "merged a PR today that dropped coverage to 71%, the check stayed green"),
        ("reviewer", "Overall coverage is 81% on main."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "agree"), (0, 3, "threshold: a gate and a measurement within it"), (1, 3, "threshold"),
                   (2, 3, "different quantities"))),
    Topic("platform sync length", (
        ("planner", "The weekly platform sync is 30 minutes."),
        ("coder", "platform sync runs an hour every week, it's blocked in my calendar 10-11"),
        ("tester", "the sync is half an hour, we rarely use all of it"),
        ("reviewer", "The monthly all-hands is an hour."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase: half an hour = 30 minutes"), (0, 3, "scoped: the all-hands"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("secrets manager", (
        ("planner", "Application secrets live in HashiCorp Vault."),
        ("coder", "payments-api reads its DB password from AWS Secrets Manager, it has never touched Vault"),
        ("ops-bot", "vault: 1,412 secrets, 38 policies, sealed=false"),
        ("reviewer", "CI secrets are GitHub Actions secrets."),
    ), contradictions=((0, 1, "choice"),),
        negatives=((0, 2, "agree"), (1, 2, "other: one service apart from the store"), (0, 3, "scoped: CI secrets"),
                   (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("invoice reminders", (
        ("planner", "Customers get a reminder email 3 days before an invoice is due."),
        ("tester", "no reminder went out for invoice INV-2231, it just went overdue"),
        ("coder", "Overdue invoices get a second reminder 7 days after the due date."),
    ), contradictions=((0, 1, "negation"),),
        negatives=((0, 2, "different quantities: before and after the due date"), (1, 2, "other"))),
    Topic("thermostat", (
        ("assistant", "The thermostat is set to 21 degrees during the day."),
        ("assistant", "Lowered the daytime thermostat to 19 degrees to save on gas."),
        ("assistant", "At night the heating drops to 16 degrees."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: night"), (1, 2, "scoped"))),
    Topic("GitHub two-factor", (
        ("planner", "Two-factor authentication is required for everyone in the GitHub org."),
        ("ops-bot", "github org acme: 2fa_requirement_enabled=false, 3 members without 2FA"),
        ("reviewer", "the bot account deploy-bot has no 2FA, it uses a fine-grained token"),
    ), contradictions=((0, 1, "negation"), (0, 2, "negation")), negatives=((1, 2, "agree"),)),
    Topic("event loader", (
        ("coder", "Raw events are loaded into the warehouse by Fivetran."),
        ("reviewer", "we load raw events with Airbyte, the Fivetran trial ended before we signed"),
        ("ops-bot", "airbyte connection events->snowflake: last sync 14 min ago, 2.1M rows"),
        ("planner", "Salesforce data comes in through a nightly CSV export."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: Salesforce data"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("office on public holidays", (
        ("planner", "The Lisbon office is closed on public holidays."),
        ("tester", "was in the Lisbon office on the 25 April holiday, doors open and lights on, a few of us worked"),
        ("assistant", "The Porto office opens on public holidays for the support team."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: Porto"), (1, 2, "scoped"))),
]

# ELEVENTH: written on 2026-11-28 (fifteenth session) before any rule of this session was built;
# committed before its first run. Voices as before (chat lines, bot output, tickets, decisions, an
# assistant's notes on a person and a household), on subjects no earlier set has; contradictions
# of every kind as they come in real writing, updates said with a change word. Kept aside as the
# next check.
ELEVENTH: list[Topic] = [
    Topic("sessions Redis memory", (
        ("coder", "The sessions Redis has maxmemory set to 4 GB."),
        ("ops-bot", "redis-sessions: maxmemory 4gb, used_memory 3.1gb, evicted_keys 0"),
        ("reviewer", "sessions redis maxmemory is 8 GB, run CONFIG GET maxmemory if you don't believe me"),
        ("tester", "The rate-limit Redis is limited to 512 MB."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "agree"), (0, 3, "scoped: the rate-limit Redis"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("design tool", (
        ("planner", "Product designs are made in Figma."),
        ("reviewer", "the design team works in Sketch, Figma is only used for handoff to engineers"),
        ("ops-bot", "sketch workspace acme-design: 48 documents edited this week"),
        ("tester", "Marketing makes its social images in Canva."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: marketing"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("staging database snapshots", (
        ("ops-bot", "Staging is refreshed from an anonymised production snapshot every Sunday night."),
        ("coder", "staging refresh moved to Wednesdays, Sunday runs kept colliding with the backup window"),
        ("reviewer", "The demo environment is never refreshed, it keeps its seed data."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: the demo environment"), (1, 2, "scoped"))),
    Topic("session cookie flags", (
        ("planner", "Session cookies are set with Secure and HttpOnly."),
        ("tester", "the session cookie is readable from document.cookie in the console, so it is not HttpOnly"),
        ("coder", "The CSRF token cookie is readable by JavaScript on purpose."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: the CSRF cookie"), (1, 2, "scoped"))),
    Topic("Gran's medication", (
        ("assistant", "Gran takes 5 mg of amlodipine every morning."),
        ("assistant", "Gran's GP raised her amlodipine to 10 mg at the last review."),
        ("assistant", "Gran takes her vitamin D with lunch."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: vitamin D"), (1, 2, "scoped"))),
    Topic("iOS release cadence", (
        ("planner", "The iOS app is released every two weeks."),
        ("ops-bot", "app store connect: last 5 releases 7, 7, 6, 7, 8 days apart"),
        ("reviewer", "we ship iOS weekly, I've never seen a two-week cycle here"),
        ("coder", "Android goes out on the same train as iOS."),
    ), contradictions=((0, 1, "number"), (0, 2, "number")),
        negatives=((1, 2, "agree"), (0, 3, "other: a second platform"), (1, 3, "other"), (2, 3, "other"))),
    Topic("issue tracker", (
        ("planner", "Bugs are tracked in Jira."),
        ("coder", "bugs live in Linear, Jira is only used by support for escalations"),
        ("ops-bot", "linear team PLAT: 38 open issues, 6 urgent"),
        ("tester", "Security findings are tracked in a private GitHub repo."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: security findings"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("password reset link expiry", (
        ("planner", "Password reset links expire after 1 hour."),
        ("tester", "used a reset link from yesterday evening this morning and it still worked"),
        ("coder", "RESET_TOKEN_TTL = 3600"),
        ("reviewer", "Email verification links are valid for 7 days."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "paraphrase: 3600 s = 1 hour"), (0, 3, "scoped: verification links"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("weekly newsletter send time", (
        ("planner", "The customer newsletter goes out on Tuesdays at 10:00 CET."),
        ("ops-bot", "mailchimp campaign weekly-digest: scheduled Thu 10:00 CET"),
        ("reviewer", "The newsletter is sent on Tuesday mornings."),
        ("coder", "Product update emails go out on the first of each month."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: product update emails"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("payment provider timeout", (
        ("coder", "Calls to Stripe time out after 10 seconds."),
        ("ops-bot", "payments-api env STRIPE_TIMEOUT_MS=10000"),
        ("reviewer", "our stripe client waits 80 seconds before giving up, the trace shows a call hanging for 80s"),
        ("tester", "Calls to the tax service time out after 3 seconds."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: 10000 ms = 10 seconds"), (0, 3, "scoped: the tax service"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("release sign-off", (
        ("planner", "Every production release needs a sign-off from QA."),
        ("reviewer", "release 4.12 went to prod on Friday without anyone from QA looking at it"),
        ("coder", "Hotfixes skip the QA sign-off."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: hotfixes"), (1, 2, "other"))),
    Topic("team chat", (
        ("planner", "The team chats in Slack."),
        ("coder", "we moved team chat from Slack to Microsoft Teams in September"),
        ("ops-bot", "teams org acme: 14 channels, 61 members active today"),
        ("tester", "Customers reach us through Intercom chat."),
    ), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 3, "scoped: customers"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("parking at the office", (
        ("assistant", "Parking at the Leeds office is free for staff."),
        ("assistant", "Jo paid 12 pounds for parking at the Leeds office today, staff parking is not free anymore "
                      "since the lease changed"),
        ("assistant", "Bike parking is in the basement."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: bikes"), (1, 2, "scoped"))),
    Topic("contractor time tracking", (
        ("planner", "Contractors log their hours in Harvest."),
        ("reviewer", "contractor hours go into Toggl, finance exports them from there every month"),
        ("coder", "Employees don't track hours."),
    ), contradictions=((0, 1, "choice"),), negatives=((0, 2, "scoped: employees"), (1, 2, "scoped"))),
    Topic("car insurance", (
        ("assistant", "The car insurance includes breakdown cover."),
        ("assistant", "Called the insurer after the car broke down: the policy has no breakdown cover, that's an add-on "
                      "we never bought."),
        ("assistant", "The home insurance covers accidental damage."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: home insurance"), (1, 2, "scoped"))),
    Topic("orders database version", (
        ("ops-bot", "rds orders-db: engine postgres 15.6, db.r6g.xlarge"),
        ("coder", "The orders database is still on Postgres 13, nobody has scheduled the upgrade."),
        ("planner", "The analytics replica runs Postgres 16."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "scoped: the analytics replica"), (1, 2, "scoped"))),
    Topic("dog's feeding", (
        ("assistant", "Biscuit gets 200 g of dry food twice a day."),
        ("assistant", "Biscuit is down to 150 g twice a day now, the vet said he'd put on weight."),
        ("assistant", "Biscuit has his flea treatment on the first of the month."),
    ), updates=((0, 1),), negatives=((0, 2, "other: a treatment"), (1, 2, "other"))),
    Topic("laptop screen lock", (
        ("planner", "Screen lock is enforced on every company laptop."),
        ("reviewer", "the MDM profile on the new M3 MacBooks has no screen lock policy, mine never locks"),
        ("ops-bot", "jamf policy screen-lock: 184/184 devices compliant"),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")), negatives=((0, 2, "agree"),)),
    Topic("on-call compensation", (
        ("planner", "On-call engineers get 150 euros per week on call."),
        ("reviewer", "on-call pay is 200 euros a week, HR confirmed it in the handbook"),
        ("tester", "A page outside office hours also earns a day off in lieu."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "other"), (1, 2, "other"))),
    Topic("sales CRM", (
        ("planner", "Sales keeps its pipeline in HubSpot."),
        ("coder", "the sales pipeline is in Salesforce, HubSpot is for marketing only"),
        ("ops-bot", "salesforce: 1,204 open opportunities, 77 closing this month"),
        ("reviewer", "Marketing emails are sent from HubSpot."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: marketing emails"), (1, 3, "agree"), (2, 3, "scoped"))),
]

# TWELFTH: written on 2026-11-29 (sixteenth session) at its start, before any rule of this
# session was built; committed before its first run. Voices as before (chat lines, bot output,
# tickets, decisions, an assistant's notes on a person and a household), on subjects no earlier
# set has; contradictions of every kind as they come in real writing, updates said with a change
# word or only by a newer date. Kept aside as this session's check.
TWELFTH: list[Topic] = [
    Topic("Kafka orders topic partitions", (
        ("planner", "The orders topic in Kafka has 12 partitions."),
        ("ops-bot", "kafka-topics --describe orders: PartitionCount: 24, ReplicationFactor: 3"),
        ("coder", "orders topic is 12 partitions, we size consumers to match"),
        ("reviewer", "The payments topic only has 6 partitions."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: the payments topic"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("video calls", (
        ("planner", "External calls with customers happen on Zoom."),
        ("reviewer", "we don't use Zoom for customer calls anymore, the licence lapsed in May and everything is on "
                     "Google Meet since"),
        ("tester", "Internal 1:1s are on Google Meet."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: internal 1:1s"), (1, 2, "agree"))),
    Topic("dependency update bot", (
        ("planner", "Dependency bumps are opened by Dependabot."),
        ("coder", "Renovate opens our dependency PRs, Dependabot was switched off for the monorepo"),
        ("ops-bot", "renovate[bot] opened 9 pull requests in acme/monorepo this week"),
        ("reviewer", "Docker base images are bumped by hand."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: base images"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("webhook retries", (
        ("coder", "Failed webhooks are retried 5 times with exponential backoff."),
        ("tester", "a webhook to our test endpoint that kept returning 500 was retried 3 times and then dropped"),
        ("ops-bot", "webhooks-worker config: max_attempts=5 backoff=exponential"),
        ("reviewer", "Webhook payloads are signed with HMAC-SHA256."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "other: signing"), (1, 3, "other"), (2, 3, "other"))),
    Topic("CDN purge on deploy", (
        ("planner", "The CDN cache is purged on every frontend deploy."),
        ("tester", "after this morning's deploy the CDN still served the old main.js, nothing was purged"),
        ("coder", "API responses are never cached at the CDN."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: API responses"), (1, 2, "scoped"))),
    Topic("mortgage", (
        ("assistant", "The mortgage is on a fixed rate of 3.9% until March 2027."),
        ("assistant", "Sam said the mortgage rate is 4.6%, fixed until 2027."),
        ("assistant", "The mortgage payment leaves the joint account on the 3rd."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "other: the payment date"), (1, 2, "other"))),
    Topic("API page size", (
        ("planner", "List endpoints return 50 items per page by default."),
        ("reviewer", "GET /v2/invoices gives me 20 results per page unless I pass limit"),
        ("coder", "The maximum page size is 200."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "different quantities: default vs maximum"),
                                                       (1, 2, "different quantities"))),
    Topic("translation platform", (
        ("planner", "App strings are translated in Lokalise."),
        ("coder", "we moved the app strings from Lokalise to Crowdin last quarter, cheaper per seat"),
        ("ops-bot", "crowdin project acme-app: 11 languages, 96% translated"),
        ("tester", "Marketing pages are translated by an agency."),
    ), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 3, "scoped: marketing pages"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("meeting notes", (
        ("planner", "Meeting notes are kept in Confluence."),
        ("reviewer", "meeting notes are in Notion, nobody has opened Confluence in a year"),
        ("tester", "Architecture decisions are recorded as ADRs in the repo."),
    ), contradictions=((0, 1, "choice"),), negatives=((0, 2, "scoped: architecture decisions"), (1, 2, "scoped"))),
    Topic("SSH to production", (
        ("planner", "Nobody has SSH access to the production hosts."),
        ("coder", "I ssh'd into prod-web-3 yesterday to tail the nginx logs"),
        ("ops-bot", "bastion audit: 0 ssh sessions to prod in the last 30 days"),
        ("reviewer", "Staging hosts accept SSH from the office network."),
    ), contradictions=((0, 1, "negation"), (1, 2, "negation")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: staging"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("access token lifetime", (
        ("coder", "Access tokens expire after 15 minutes, refresh tokens after 30 days."),
        ("ops-bot", "auth-service env ACCESS_TOKEN_TTL=900 REFRESH_TOKEN_TTL=2592000"),
        ("tester", "my access token was still accepted an hour and a half after login, no refresh in between"),
        ("reviewer", "Access tokens are valid for 60 minutes."),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (0, 3, "number"), (1, 3, "number")),
        negatives=((0, 1, "paraphrase: 900 s = 15 minutes"),)),
    Topic("book club", (
        ("assistant", "Priya's book club meets on the first Thursday of the month."),
        ("assistant", "Priya's book club has switched to the last Sunday of the month."),
        ("assistant", "Priya's running club meets on Saturday mornings."),
    ), updates=((0, 1),), negatives=((0, 2, "scoped: the running club"), (1, 2, "scoped"))),
    Topic("refund window", (
        ("planner", "Customers can ask for a refund within 30 days of purchase."),
        ("reviewer", "support refused a refund on day 20, our terms say 14 days"),
        ("coder", "Refunds are paid back to the original card."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "other: how refunds are paid"), (1, 2, "other"))),
    Topic("build artifacts", (
        ("planner", "Build artifacts are published to Artifactory."),
        ("coder", "as of October build artifacts go to GitHub Packages, the Artifactory licence is not renewed"),
        ("ops-bot", "github packages acme: 312 versions published this month"),
        ("reviewer", "Container images live in ECR."),
    ), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 3, "scoped: container images"), (1, 3, "scoped"), (2, 3, "scoped"))),
    Topic("IP addresses in analytics", (
        ("planner", "Analytics events never store a user's IP address."),
        ("reviewer", "the events table has a client_ip column and it holds full IPv4 addresses"),
        ("coder", "IP addresses are kept in the access logs for 7 days."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: access logs"), (1, 2, "scoped"))),
    Topic("team lunch budget", (
        ("planner", "Team lunches are covered up to 25 euros per person."),
        ("reviewer", "the team lunch limit is 40 euros a head, finance said so in the spring"),
        ("tester", "Client dinners need a manager's approval."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "other"), (1, 2, "other"))),
    Topic("database vacuum", (
        ("ops-bot", "A manual VACUUM ANALYZE runs on the reporting database every night at 03:00."),
        ("coder", "nightly vacuum on the reporting db is gone, we rely on autovacuum since the upgrade"),
        ("reviewer", "Autovacuum is tuned more aggressively on the orders table."),
    ), updates=((0, 1),), negatives=((0, 2, "other"), (1, 2, "agree"))),
    Topic("load test before launch", (
        ("planner", "Every public launch is load tested first."),
        ("reviewer", "the referral page launched on Monday and nobody ran a load test against it"),
        ("coder", "Internal tools are not load tested."),
    ), contradictions=((0, 1, "negation"),), negatives=((0, 2, "scoped: internal tools"), (1, 2, "other"))),
    Topic("plant watering", (
        ("assistant", "The fern in the living room gets watered every Wednesday."),
        ("assistant", "Watered the living room fern on Saturday, Alex says it's every Saturday, not Wednesday."),
        ("assistant", "The cactus only needs water once a month."),
    ), contradictions=((0, 1, "number"),), negatives=((0, 2, "scoped: the cactus"), (1, 2, "scoped"))),
    Topic("status of the mobile SDK", (
        ("planner", "The mobile SDK is written in Kotlin Multiplatform."),
        ("coder", "the mobile SDK is two codebases, Swift for iOS and Kotlin for Android, there's no shared module"),
        ("reviewer", "The web SDK is TypeScript."),
    ), contradictions=((0, 1, "choice"),), negatives=((0, 2, "scoped: the web SDK"), (1, 2, "scoped"))),
]

# THIRTEENTH: written on 2026-11-29 (seventeenth session) at its start, before any rule of this
# session was built; committed before its first run. Topics of five fragments each, as the
# held-out set has about five, from the same six voices, on subjects no earlier set has. Kept
# aside as this session's check.
THIRTEENTH: list[Topic] = [
    Topic("mobile product analytics", (
        ("planner", "Product analytics on mobile go to Amplitude."),
        ("coder", "the iOS app still ships the Mixpanel SDK, Amplitude was never wired in"),
        ("ops-bot", "amplitude: 1.2M events ingested from ios-app yesterday"),
        ("tester", "Web analytics are in Plausible."),
        ("reviewer", "We send product events to Amplitude from both apps; the Android team confirmed it last week."),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice"), (1, 4, "choice")),
        negatives=((0, 2, "agree"), (0, 4, "agree"), (2, 4, "agree"), (0, 3, "scoped: web analytics"),
                   (1, 3, "scoped"), (4, 3, "scoped"))),
    Topic("nightly orders dump", (
        ("ops-bot", "pg_dump of the orders db starts 01:30 UTC nightly (cron 30 1 * * *)"),
        ("planner", "The orders database is dumped every night at half past one UTC."),
        ("tester", "Restored yesterday's orders dump into staging in 40 minutes."),
        ("coder", "the nightly orders dump kicks off at 04:00 now, we moved it after the batch jobs"),
        ("reviewer", "Orders dumps are kept for 14 days in the backups bucket."),
    ), updates=((0, 3), (1, 3)),
        negatives=((0, 1, "paraphrase: 01:30 = half past one"), (0, 2, "different quantities: start vs restore time"),
                   (3, 4, "different quantities: start vs retention"), (1, 4, "different quantities"))),
    Topic("hotfix review", (
        ("planner", "Hotfixes always go through a pull request with one review."),
        ("coder", "pushed the hotfix for the tax rounding straight to main last night, no PR"),
        ("reviewer", "Every change to main needs a reviewed PR, hotfixes included."),
        ("ops-bot", "branch protection acme/shop main: require_pull_request=true required_approvals=1"),
        ("tester", "Hotfix builds skip the full e2e suite and run the smoke tests only."),
    ), contradictions=((0, 1, "negation"), (2, 1, "negation"), (3, 1, "negation")),
        negatives=((0, 2, "agree"), (0, 3, "agree"), (2, 3, "agree"), (0, 4, "other: which tests run"),
                   (2, 4, "other"))),
    Topic("Leeds warehouse shifts", (
        ("planner", "The morning shift at the Leeds warehouse starts at 6:00."),
        ("tester", "Leeds morning shift clocks in at 7am, I got there at 6 and the doors were shut"),
        ("ops-bot", "rota leeds-wh: early 06:00-14:00, late 14:00-22:00"),
        ("reviewer", "The Leeds late shift finishes at 10 pm."),
        ("planner", "Shifts at the Leeds warehouse are eight hours long."),
    ), contradictions=((0, 1, "number"), (1, 2, "number")),
        negatives=((0, 2, "agree"), (0, 3, "different quantities: the late shift's end"), (2, 3, "agree"),
                   (1, 3, "different quantities"), (2, 4, "agree"), (0, 4, "different quantities: length"))),
    Topic("customer NPS survey", (
        ("planner", "The NPS survey goes out to customers every quarter."),
        ("ops-bot", "delighted: survey 'customer NPS' sent to 4,210 contacts, response rate 18%"),
        ("tester", "Our last NPS score was 41."),
        ("reviewer", "we send the NPS survey twice a year now, quarterly was too much for the small accounts"),
        ("coder", "NPS responses are posted to the #nps channel in Slack."),
    ), updates=((0, 3),),
        negatives=((1, 2, "different quantities: response rate vs score"), (0, 2, "different quantities"),
                   (0, 4, "other"), (3, 4, "other"))),
    Topic("Android minimum version", (
        ("planner", "The Android app supports Android 8 and newer."),
        ("coder", "minSdkVersion is 26 in the app's build.gradle"),
        ("tester", "installed the Android app on an Android 7 phone from the Play Store and it runs fine"),
        ("ops-bot", "play console: 2.1% of active installs are on Android 8 or 9"),
        ("reviewer", "As of the 5.0 release the Android app needs Android 10 or newer."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")), updates=((0, 4), (1, 4)),
        negatives=((0, 1, "paraphrase: API 26 is Android 8"), (0, 3, "different quantities: share of installs"),
                   (3, 4, "different quantities"))),
    Topic("platform team retro", (
        ("planner", "The platform team holds a retro every two weeks, at the end of each sprint."),
        ("coder", "Retro notes go into the platform team's Notion page."),
        ("tester", "Platform's retro is once a month, on the last Friday."),
        ("ops-bot", "calendar: 'Platform retro' recurs every 2 weeks on Thursday 15:00"),
        ("reviewer", "The payments team skips its retros in December."),
    ), contradictions=((0, 2, "number"), (2, 3, "number")),
        negatives=((0, 3, "agree"), (0, 1, "other"), (0, 4, "scoped: the payments team"), (2, 4, "scoped"),
                   (3, 4, "scoped"))),
    Topic("home broadband", (
        ("assistant", "Home broadband is with Virgin Media, the contract ends in August."),
        ("assistant", "The router's admin password is in the family 1Password vault."),
        ("assistant", "Chris switched the home broadband to Hyperoptic in September."),
        ("assistant", "Hyperoptic support says the home line is 500 Mbps."),
        ("assistant", "Chris's office gets its internet from BT."),
    ), updates=((0, 2),),
        negatives=((2, 3, "agree"), (0, 4, "scoped: Chris's office"), (2, 4, "scoped"), (3, 4, "scoped"),
                   (0, 1, "other"))),
    Topic("applicant data retention", (
        ("planner", "Unsuccessful applicants' CVs are deleted after 6 months."),
        ("reviewer", "Greenhouse still has CVs of applicants we rejected in 2023, nothing has ever been deleted"),
        ("coder", "Candidate data is deleted 180 days after the application closes."),
        ("ops-bot", "greenhouse retention policy: rejected candidates purged after 12 months"),
        ("tester", "Hired candidates' files move to the HR system."),
    ), contradictions=((0, 1, "negation"), (2, 1, "negation"), (3, 1, "negation"), (0, 3, "number"),
                       (2, 3, "number")),
        negatives=((0, 2, "paraphrase: 6 months = 180 days"), (0, 4, "scoped: hired candidates"),
                   (2, 4, "scoped"), (3, 4, "scoped"))),
    Topic("public API gateway", (
        ("planner", "Public traffic enters through Kong."),
        ("coder", "we're on AWS API Gateway for the public endpoints, Kong was the plan but it never shipped"),
        ("ops-bot", "kong-proxy: 3/3 pods ready, 1.4k req/s"),
        ("reviewer", "Internal services call each other directly, without a gateway."),
        ("tester", "The gateway adds about 8 ms to each public request."),
    ), contradictions=((0, 1, "choice"), (1, 2, "choice")),
        negatives=((0, 2, "agree"), (0, 3, "scoped: internal services"), (1, 3, "scoped"), (2, 3, "scoped"),
                   (0, 4, "other: latency"))),
    Topic("standing desk allowance", (
        ("planner", "Each employee can expense a standing desk up to 400 pounds."),
        ("reviewer", "my standing desk claim for 350 got rejected, they said the limit is 300"),
        ("tester", "Monitors are covered up to 250 pounds."),
        ("ops-bot", "expense policy 'home office': standing desk max 400 GBP"),
        ("coder", "Standing desk claims need an itemised receipt."),
    ), contradictions=((0, 1, "number"), (1, 3, "number")),
        negatives=((0, 3, "agree"), (0, 2, "different quantities: monitors"), (2, 3, "different quantities"),
                   (1, 2, "different quantities"), (0, 4, "other"))),
    Topic("preview environments", (
        ("planner", "Every pull request gets its own preview environment."),
        ("coder", "preview envs are only built for PRs labelled 'preview', the rest don't get one"),
        ("ops-bot", "vercel: 37 preview deployments created today"),
        ("reviewer", "Preview environments are torn down when the PR closes."),
        ("tester", "Previews run on seeded fake data, never on production data."),
    ), contradictions=((0, 1, "negation"),),
        negatives=((0, 3, "other: teardown"), (0, 4, "other: data"), (1, 3, "other"), (1, 4, "other"),
                   (3, 4, "other"))),
    Topic("dog walker", (
        ("assistant", "The dog walker, Tom, comes Monday to Friday at noon."),
        ("assistant", "Tom charges 15 pounds a walk."),
        ("assistant", "Tom the dog walker now comes at 1pm because of a new client."),
        ("assistant", "Biscuit had her booster jab on 3 November."),
        ("assistant", "Jess said the dog walker comes at 11."),
    ), contradictions=((0, 4, "number"), (2, 4, "number")), updates=((0, 2),),
        negatives=((0, 1, "different quantities: price"), (1, 2, "different quantities"), (0, 3, "other"))),
    Topic("service log format", (
        ("planner", "Every service logs JSON to stdout."),
        ("coder", "the billing service logs plain text lines, it was never moved to JSON"),
        ("ops-bot", "fluent-bit: json parser matched 98% of records in the last hour"),
        ("reviewer", "The payments service logs in logfmt."),
        ("tester", "Log lines must never contain card numbers."),
    ), contradictions=((0, 1, "choice"), (0, 3, "choice")),
        negatives=((1, 3, "scoped: two services"), (0, 4, "other"), (1, 4, "other"), (3, 4, "other"))),
]

# FOURTEENTH: written on 2026-11-29 (eighteenth session) at its start, before any rule of this
# session was built; committed before its first run. Topics of five fragments each, from the
# same voices, on subjects no earlier set has. Kept aside as this session's check.
FOURTEENTH: list[Topic] = [
    Topic("US sales tax engine", (
        ("planner", "Sales tax on US orders is calculated by Avalara."),
        ("coder", "US sales tax is computed with Stripe Tax in the checkout service, Avalara was only ever trialled"),
        ("ops-bot", "stripe-tax: 18,240 calculations for US orders in November"),
        ("reviewer", "EU VAT on orders is handled by our own rates table."),
        ("tester", "Checked three US orders: the tax line matched Stripe Tax's calculation to the cent."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice"), (0, 4, "choice")),
        negatives=((1, 2, "agree"), (1, 4, "agree"), (2, 4, "agree"), (0, 3, "scoped: EU VAT"),
                   (1, 3, "scoped"))),
    Topic("orders database failover", (
        ("planner", "A failover of the orders database completes in under 30 seconds."),
        ("ops-bot", "rds failover orders-prod: 2m14s from detection to writer available (game day 12 Nov)"),
        ("reviewer", "Failover on the orders database took about two minutes in the last game day."),
        ("coder", "The app reconnects to the new primary within 5 seconds of the DNS switch."),
        ("tester", "Failover drills on the orders database run every quarter."),
    ), contradictions=((0, 1, "number"), (0, 2, "number")),
        negatives=((1, 2, "paraphrase: 2m14s is about two minutes"), (0, 3, "different quantities: reconnect"),
                   (1, 3, "different quantities"), (2, 3, "different quantities"), (0, 4, "other: drills"))),
    Topic("interns' production access", (
        ("planner", "Interns never get write access to production databases."),
        ("coder", "gave Priya (intern) write on the prod orders db so she can run the backfill, revoke friday"),
        ("ops-bot", "access review: interns have read-only access to production replicas"),
        ("reviewer", "Interns can read production replicas but cannot write anywhere in prod."),
        ("tester", "Interns get a staging account with full write access on their first day."),
    ), contradictions=((0, 1, "negation"), (3, 1, "negation")),
        negatives=((0, 2, "agree"), (0, 3, "agree"), (2, 3, "agree"), (0, 4, "scoped: staging"),
                   (3, 4, "scoped: staging"))),
    Topic("SMS login codes", (
        ("planner", "Login codes by SMS are sent through Twilio."),
        ("ops-bot", "messagebird: 31,902 sms delivered (otp) this week, 99.1% success"),
        ("coder", "we moved OTP SMS from Twilio to MessageBird in October, cheaper in the EU"),
        ("tester", "Marketing texts still go out via Twilio."),
        ("reviewer", "SMS login codes are sent with Vonage."),
    ), contradictions=((4, 1, "choice"), (4, 2, "choice")), updates=((0, 1), (0, 2)),
        negatives=((1, 2, "agree"), (0, 3, "scoped: marketing texts"), (2, 3, "scoped"), (1, 3, "scoped"),
                   (4, 3, "scoped"))),
    Topic("Bristol freezer room", (
        ("planner", "The Bristol freezer room is kept at minus 20 °C."),
        ("ops-bot", "sensor bristol-freezer-2: -18.4C avg over 24h, alarm at -15C"),
        ("tester", "Freezer room in Bristol reads -25 on the wall display every morning"),
        ("reviewer", "The alarm on the Bristol freezer goes off at minus 15 degrees."),
        ("coder", "The chiller in the Bristol freezer room is serviced every six months."),
    ), contradictions=((0, 2, "number"),),
        negatives=((1, 3, "paraphrase: -15C = minus 15 degrees"), (0, 3, "different quantities: setpoint vs alarm"),
                   (2, 3, "different quantities"), (0, 4, "other: servicing"), (3, 4, "other"))),
    Topic("flight to Porto", (
        ("assistant", "Your flight to Porto leaves Gatwick on Friday 12 December at 07:40."),
        ("assistant", "The Porto hotel is booked for three nights from 12 December."),
        ("assistant", "Reminder: the Porto flight departs at 09:40 on the 12th, check-in closes 40 minutes before."),
        ("assistant", "Your return flight from Porto is on 15 December at 18:05."),
        ("assistant", "You asked me to book a taxi to Gatwick for 5am on the day of the Porto flight."),
    ), contradictions=((0, 2, "number"),),
        negatives=((0, 1, "agree: same date"), (0, 3, "different quantities: return flight"),
                   (2, 3, "different quantities"), (0, 4, "different quantities: taxi time"),
                   (2, 4, "different quantities"), (1, 3, "different quantities"))),
    Topic("pipeline scheduler", (
        ("planner", "All data pipelines, ingestion included, are scheduled in Airflow."),
        ("coder", "the new ingestion jobs run on Dagster, we never put them in Airflow"),
        ("ops-bot", "dagster-daemon: 46 runs succeeded, 2 failed (ingest_*) in the last 24h"),
        ("reviewer", "dbt models run from an Airflow DAG at 03:00."),
        ("tester", "Airflow's web UI is only reachable over the VPN."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "agree"), (1, 3, "scoped: dbt models"), (2, 3, "scoped"),
                   (3, 4, "other"))),
    Topic("GPL in the mobile apps", (
        ("planner", "GPL-licensed packages are not allowed in the mobile apps."),
        ("coder", "added a GPL-3.0 library for barcode scanning to the Android app, legal said it's fine"),
        ("ops-bot", "license-check: android-app 412 dependencies scanned, 3 flagged for review"),
        ("reviewer", "GPL code is allowed in internal tools that we never distribute."),
        ("tester", "The mobile apps may ship GPL libraries once legal signs off."),
    ), contradictions=((0, 1, "negation"), (0, 4, "negation")),
        negatives=((0, 3, "scoped: internal tools"), (1, 4, "agree"), (0, 2, "other"), (3, 4, "scoped"))),
    Topic("Zendesk seats", (
        ("planner", "We pay for 15 Zendesk agent seats."),
        ("ops-bot", "zendesk billing: 20 agent seats, 17 assigned"),
        ("reviewer", "Fifteen Zendesk seats is what the contract says."),
        ("tester", "Support answered 1,340 tickets last week."),
        ("coder", "The Zendesk API token rotates every 90 days."),
    ), contradictions=((0, 1, "number"), (2, 1, "number")),
        negatives=((0, 2, "paraphrase: 15 = fifteen"), (1, 3, "different quantities: tickets"),
                   (0, 3, "different quantities"), (0, 4, "different quantities: token rotation"),
                   (1, 4, "different quantities"))),
    Topic("GraphQL gateway", (
        ("planner", "The public GraphQL API is served by Apollo Router."),
        ("coder", "switched the graphql gateway from Apollo Router to GraphQL Mesh last sprint"),
        ("ops-bot", "graphql-mesh: p95 180ms over 1.2k rpm"),
        ("reviewer", "Our GraphQL gateway runs on Apollo Router 1.40."),
        ("tester", "The GraphQL schema is checked for breaking changes in CI."),
    ), contradictions=((3, 1, "choice"), (3, 2, "choice")), updates=((0, 1), (0, 2)),
        negatives=((1, 2, "agree"), (0, 3, "agree"), (0, 4, "other"), (1, 4, "other"))),
    Topic("Miso's vet visit", (
        ("assistant", "Miso's vaccination at the vet is on Tuesday 9 December at 4:30pm."),
        ("assistant", "The vet is Greenside Vets on Mill Road."),
        ("assistant", "Miso's jab is at 4:30 on Thursday the 11th, the vet's text said Thursday."),
        ("assistant", "Miso doesn't need to fast before the vaccination."),
        ("assistant", "The vet said Miso has to fast for 12 hours before her jab."),
    ), contradictions=((0, 2, "number"), (3, 4, "negation")),
        negatives=((0, 1, "other"), (1, 2, "other"), (0, 3, "other"), (0, 4, "different quantities: fasting hours"))),
    Topic("audit log archive", (
        ("planner", "Audit logs older than a year are archived to S3 Glacier Deep Archive."),
        ("ops-bot", "s3 lifecycle audit-logs: transition DEEP_ARCHIVE after 365 days, expire after 2555 days"),
        ("coder", "audit logs go to Glacier Deep Archive after 180 days, not a year"),
        ("reviewer", "Archived audit logs are kept for seven years."),
        ("tester", "Restoring a day of archived audit logs took 11 hours."),
    ), contradictions=((0, 2, "number"), (1, 2, "number")),
        negatives=((0, 1, "paraphrase: a year = 365 days"), (1, 3, "paraphrase: 2555 days = seven years"),
                   (0, 3, "different quantities: retention"), (2, 3, "different quantities"),
                   (3, 4, "different quantities: restore time"))),
    Topic("field app offline mode", (
        ("planner", "The field-service app works offline and syncs when the signal returns."),
        ("tester", "field app shows a blank screen with no signal, offline mode doesn't work in 3.2"),
        ("coder", "Offline sync in the field-service app uses a local SQLite queue."),
        ("reviewer", "The field-service app has no offline support; technicians need 4G."),
        ("ops-bot", "field-app: 2,311 offline syncs replayed yesterday"),
    ), contradictions=((0, 1, "negation"), (0, 3, "negation"), (2, 3, "negation")),
        negatives=((0, 2, "agree"), (1, 3, "agree"))),
    Topic("office kitchen cleaning", (
        ("planner", "The office kitchen is deep-cleaned twice a week."),
        ("reviewer", "Since the new cleaning contract in November the kitchen is deep-cleaned every weekday."),
        ("coder", "kitchen gets deep cleaned three times a week afaik"),
        ("tester", "The fridge in the office kitchen is cleared out every Friday at 4pm."),
        ("ops-bot", "facilities: cleaning contract CleanCo, 5 visits/week, from 3 Nov"),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (2, 4, "number")), updates=((0, 1), (0, 4)),
        negatives=((1, 4, "agree: every weekday = 5 visits a week"), (0, 3, "other: the fridge"),
                   (3, 4, "other"))),
]

# FIFTEENTH: written on 2026-11-29 (eighteenth session) after the rules that session had built
# by then (at 7eb4b05; two came later) and committed before its first run: the session's own
# check on text written after its rules. Topics of five fragments each, subjects no earlier set has.
FIFTEENTH: list[Topic] = [
    Topic("feature store", (
        ("planner", "ML features for the ranking models are served from Feast."),
        ("coder", "the ranking service reads its features from Tecton, we never deployed Feast"),
        ("ops-bot", "tecton: 14 feature views materialized, online store p99 9ms"),
        ("reviewer", "Fraud model features are computed in Flink, outside the feature store."),
        ("tester", "Feature values for ranking lag the source tables by about five minutes."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 3, "scoped: fraud model"), (1, 3, "scoped"), (0, 4, "other: lag"),
                   (1, 4, "other"))),
    Topic("iOS app download size", (
        ("planner", "The iOS app download is 48 MB."),
        ("ops-bot", "app store connect: ios 7.2.0 download size 61.3 MB (iPhone 15)"),
        ("tester", "The iOS app takes about 60 MB to download on my phone."),
        ("coder", "The Android app bundle is 32 MB after we moved images to the CDN."),
        ("reviewer", "The iOS app must stay under 200 MB so it downloads over cellular."),
    ), contradictions=((0, 1, "number"), (0, 2, "number")),
        negatives=((1, 2, "paraphrase: 61.3 MB is about 60 MB"), (0, 3, "scoped: Android"), (1, 3, "scoped"),
                   (0, 4, "threshold: within the limit"), (1, 4, "threshold"), (2, 4, "threshold"))),
    Topic("vendor bill approvals", (
        ("planner", "Vendor bills are approved in Coupa."),
        ("ops-bot", "ramp: 212 bills approved this month, 9 pending"),
        ("coder", "finance moved bill approvals from Coupa to Ramp in September"),
        ("reviewer", "Vendor bills over 10,000 euros also need the CFO's approval."),
        ("tester", "Approved a vendor bill in Coupa yesterday, it went through fine."),
    ), contradictions=((1, 4, "choice"), (2, 4, "choice")), updates=((0, 1), (0, 2)),
        negatives=((1, 2, "agree"), (0, 4, "agree"), (0, 3, "other: who approves large bills"),
                   (2, 3, "other"))),
    Topic("ranking model retraining", (
        ("planner", "The search ranking model is retrained every week."),
        ("ops-bot", "airflow dag retrain_ranker: schedule @daily, last run success"),
        ("coder", "we retrain the ranker once a month, weekly retrains never beat the old model"),
        ("reviewer", "Each retrain of the ranking model takes about three hours on one GPU."),
        ("tester", "The ranking model was last retrained on 2 November."),
    ), contradictions=((0, 1, "number"), (0, 2, "number"), (1, 2, "number")),
        negatives=((0, 3, "different quantities: duration"), (2, 3, "different quantities"),
                   (1, 3, "different quantities"))),
    Topic("school pickup", (
        ("assistant", "Lily's school finishes at 3:15 on weekdays."),
        ("assistant", "On Wednesdays school finishes early, at 1:30."),
        ("assistant", "Grandad picks Lily up on Tuesdays and Thursdays."),
        ("assistant", "Lily's school day ends at 3:30, the new timetable started this term."),
        ("assistant", "Grandad can't do pickups on Thursdays any more, he has physio."),
    ), contradictions=(), updates=((0, 3), (2, 4)),
        negatives=((0, 1, "scoped: Wednesdays"), (1, 3, "scoped"), (0, 2, "other: who picks up"),
                   (3, 2, "other"))),
    Topic("gym membership", (
        ("assistant", "Your gym membership at PureGym costs 24.99 pounds a month."),
        ("assistant", "The gym membership renews on the 1st of each month."),
        ("assistant", "PureGym charged you 29.99 this month, the price went up in October."),
        ("assistant", "Your gym membership is 19.99 a month on the student rate."),
        ("assistant", "You go to the gym on Mondays and Thursdays."),
    ), contradictions=((0, 3, "number"), (2, 3, "number")), updates=((0, 2),),
        negatives=((0, 1, "different quantities: renewal day"), (2, 1, "different quantities"),
                   (0, 4, "other"))),
    Topic("WAF in front of the API", (
        ("planner", "The public API sits behind Cloudflare's WAF."),
        ("ops-bot", "aws wafv2 web-acl api-prod: 3 rule groups, 1.2M requests blocked (7d)"),
        ("coder", "api.acme.io is proxied by Cloudflare, the WAF managed rules are on"),
        ("reviewer", "The public API has no WAF in front of it, requests hit the load balancer directly."),
        ("tester", "The marketing site is behind Cloudflare with the free plan."),
    ), contradictions=((0, 1, "choice"), (2, 1, "choice"), (0, 3, "negation"), (2, 3, "negation"),
                       (1, 3, "negation")),
        negatives=((0, 2, "agree"), (0, 4, "scoped: marketing site"), (2, 4, "scoped"))),
    Topic("minimum TLS version", (
        ("planner", "Our load balancers accept TLS 1.2 and newer."),
        ("ops-bot", "alb api-prod listener 443: ssl policy ELBSecurityPolicy-TLS13-1-2-2021-06"),
        ("tester", "Connected to the API with TLS 1.0 from an old Java client, handshake succeeded."),
        ("reviewer", "TLS 1.0 and 1.1 are disabled on every public endpoint."),
        ("coder", "Internal gRPC between services uses mTLS with certificates from our own CA."),
    ), contradictions=((0, 2, "number"), (3, 2, "negation")),
        negatives=((0, 3, "agree"), (0, 4, "scoped: internal gRPC"), (3, 4, "scoped"))),
    Topic("orders created_at index", (
        ("planner", "The orders table has an index on created_at."),
        ("coder", "there's no index on orders.created_at, the nightly report does a seq scan"),
        ("ops-bot", "pg orders: indexes orders_pkey, orders_customer_id_idx, orders_created_at_idx"),
        ("reviewer", "Queries on orders by date use the created_at index."),
        ("tester", "The nightly orders report takes 14 minutes."),
    ), contradictions=((0, 1, "negation"), (3, 1, "negation")),
        negatives=((0, 3, "agree"), (0, 4, "other"), (1, 4, "other: the report's time"))),
    Topic("release notes", (
        ("planner", "Release notes are published on GitHub Releases."),
        ("coder", "we write the release notes in Notion and link them from the changelog page"),
        ("reviewer", "Customer-facing release notes go out through Intercom."),
        ("ops-bot", "github releases acme/web: v4.12.0 published 2 days ago, 0 assets"),
        ("tester", "Internal release notes for QA live in Confluence."),
    ), contradictions=((0, 1, "choice"), (1, 3, "choice")),
        negatives=((0, 3, "agree"), (0, 2, "scoped: customer-facing"), (1, 2, "scoped"), (0, 4, "scoped: QA"),
                   (1, 4, "scoped"), (2, 4, "scoped"))),
    Topic("office EV chargers", (
        ("planner", "The office car park has six EV chargers."),
        ("tester", "Counted the chargers this morning: there are eight, two were added last week."),
        ("ops-bot", "chargepoint site hq: 6 ports, 4 in use"),
        ("reviewer", "Each EV charger delivers 7 kW."),
        ("coder", "Charging at the office is free for staff until March."),
    ), contradictions=((2, 1, "number"),), updates=((0, 1),),
        negatives=((0, 2, "paraphrase: six = 6"), (0, 3, "different quantities: power"),
                   (1, 3, "different quantities"), (0, 4, "other"))),
    Topic("API deprecation window", (
        ("planner", "Deprecated public API versions keep working for 12 months after the notice."),
        ("reviewer", "We give customers six months between a deprecation notice and the shutdown."),
        ("coder", "v1 of the API was announced deprecated in January and shuts down next January"),
        ("tester", "Deprecation notices go out by email and on the status page."),
        ("ops-bot", "api v1 traffic: 3.1% of requests (30d)"),
    ), contradictions=((0, 1, "number"),),
        negatives=((0, 2, "agree: a year"), (0, 3, "other"), (1, 3, "other"), (0, 4, "different quantities"))),
    Topic("load tests against production", (
        ("planner", "Load tests never run against production."),
        ("tester", "ran the k6 soak test against prod last night at 2am, p95 held at 210ms"),
        ("reviewer", "Load tests run against the perf environment, a copy of production sized at half."),
        ("ops-bot", "k6 cloud: test 'checkout-soak' target https://api.acme.io (prod), 45 min"),
        ("coder", "Staging gets a smoke load test on every deploy."),
    ), contradictions=((0, 1, "negation"), (0, 3, "negation"), (2, 1, "negation")),
        negatives=((0, 2, "agree"), (0, 4, "scoped: staging"), (2, 4, "scoped"))),
    Topic("icon library", (
        ("planner", "The web app's icons come from Heroicons."),
        ("coder", "we swapped Heroicons for Lucide in the web app last month, the bundle is smaller"),
        ("reviewer", "The mobile apps use SF Symbols on iOS and Material Symbols on Android."),
        ("tester", "Saw Heroicons' outline icons in the web app's settings page today."),
        ("ops-bot", "web bundle: lucide-react 0.460, 38 icons imported"),
    ), contradictions=((1, 3, "choice"), (3, 4, "choice")), updates=((0, 1),),
        negatives=((1, 4, "agree"), (0, 3, "agree"), (0, 2, "scoped: mobile"), (1, 2, "scoped"))),
]

# SIXTEENTH: written on 2026-11-29 (nineteenth session) at its start, before any rule of that
# session, on 0adf61f, and committed before its first run. Topics of five fragments each,
# subjects no earlier set has.
SIXTEENTH: list[Topic] = [
    Topic("node autoscaler", (
        ("planner", "Worker nodes in the production cluster are scaled by Cluster Autoscaler."),
        ("coder", "prod nodes come up through Karpenter now, we replaced cluster-autoscaler in August"),
        ("ops-bot", "karpenter: 3 nodepools, 41 nodes, 2 provisioned in the last hour"),
        ("reviewer", "Cluster Autoscaler still manages the staging cluster's nodes."),
        ("tester", "Scaled checkout to 40 replicas in prod and Cluster Autoscaler added two nodes within a minute."),
    ), contradictions=((1, 4, "choice"), (2, 4, "choice")), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 2, "superseded by 1"), (0, 3, "scoped: staging"), (1, 3, "scoped"),
                   (2, 3, "scoped"))),
    Topic("free trial length", (
        ("planner", "New accounts get a 14-day free trial."),
        ("coder", "trial_days = 30 in billing/config.py, marketing asked for longer trials"),
        ("reviewer", "The free trial is two weeks, and a card isn't required to start it."),
        ("ops-bot", "stripe checkout: trial signups require a payment method (collect card upfront: on)"),
        ("tester", "Enterprise trials run for 45 days and sales sets them up by hand."),
    ), contradictions=((0, 1, "number"), (2, 1, "number"), (2, 3, "negation")),
        negatives=((0, 2, "paraphrase: two weeks = 14 days"), (0, 4, "scoped: enterprise"), (1, 4, "scoped"),
                   (2, 4, "scoped"), (0, 3, "other"), (1, 3, "other"))),
    Topic("meeting room capacity", (
        ("planner", "The Atlas meeting room seats 8."),
        ("tester", "We fit twelve people in Atlas for the planning session, all seated."),
        ("ops-bot", "rooms: Atlas cap 8, Borealis cap 16, Cove cap 4 (booking system)"),
        ("reviewer", "Atlas has a screen and a camera; Cove has neither."),
        ("coder", "Borealis seats 14, not 16, two chairs went to the kitchen"),
    ), contradictions=((0, 1, "number"), (2, 1, "number"), (2, 4, "number")),
        negatives=((0, 2, "agree"), (0, 4, "scoped: another room"), (1, 4, "scoped"), (0, 3, "other"),
                   (1, 3, "other"))),
    Topic("cookie consent banner", (
        ("planner", "The website shows a cookie consent banner to visitors from the EU."),
        ("coder", "there's no cookie banner on the site, legal said first-party analytics doesn't need one"),
        ("tester", "Opened the site through a Berlin VPN exit: the consent banner came up and I rejected all."),
        ("reviewer", "Analytics cookies are only set after the visitor accepts."),
        ("ops-bot", "onetrust: banner impressions 48,211 (7d), accept rate 61%"),
    ), contradictions=((0, 1, "negation"), (2, 1, "negation"), (4, 1, "negation")),
        negatives=((0, 2, "agree"), (0, 4, "agree"), (2, 4, "agree"), (0, 3, "other"), (1, 3, "other"))),
    Topic("engineering wiki", (
        ("planner", "The engineering wiki runs on Outline."),
        ("coder", "wiki is GitBook, synced from the docs/ folder in the monorepo"),
        ("ops-bot", "outline: 1,204 docs, 87 active editors (30d)"),
        ("reviewer", "Runbooks for on-call live in the ops repo, not the wiki."),
        ("tester", "Searched Outline for the release checklist, found it in seconds."),
    ), contradictions=((0, 1, "choice"), (2, 1, "choice"), (4, 1, "choice")),
        negatives=((0, 2, "agree"), (0, 4, "agree"), (2, 4, "agree"), (0, 3, "scoped: runbooks"),
                   (1, 3, "scoped"))),
    Topic("orders database connection limit", (
        ("planner", "The orders primary database allows 200 connections at most."),
        ("coder", "bumped max_connections on orders-primary from 200 to 500 last sprint, pgbouncer pools at 40"),
        ("ops-bot", "pg orders-primary: max_connections=500, in use 212"),
        ("reviewer", "The read replica of orders is limited to 100 connections."),
        ("tester", "Hit 'too many connections' on orders-primary at 201 clients in yesterday's load test."),
    ), contradictions=((1, 4, "number"), (2, 4, "number")), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 2, "superseded by 1"), (0, 3, "scoped: replica"), (1, 3, "scoped"),
                   (2, 3, "scoped"), (0, 4, "agree: 200"))),
    Topic("refund approval limit", (
        ("planner", "Support agents can approve refunds up to 50 euros on their own."),
        ("reviewer", "Refunds above 50 euros need a team lead's sign-off."),
        ("coder", "the refund endpoint lets agents approve up to 100 EUR without escalation"),
        ("ops-bot", "zendesk macro refund_small: agent-approved limit €50"),
        ("tester", "Team leads can approve refunds up to 500 euros; anything bigger goes to finance."),
    ), contradictions=((0, 2, "number"), (1, 2, "number"), (3, 2, "number")),
        negatives=((0, 1, "agree"), (0, 3, "agree"), (0, 4, "scoped: team leads"), (2, 4, "scoped"),
                   (3, 4, "scoped"), (1, 4, "agree"))),
    Topic("customer data key rotation", (
        ("planner", "KMS keys for customer data are rotated every 90 days."),
        ("ops-bot", "aws kms alias/customer-data: automatic rotation enabled, period 365 days"),
        ("reviewer", "Customer data keys have never been rotated, the rotation ticket is still open."),
        ("coder", "TLS certificates on the edge renew every 60 days through cert-manager"),
        ("tester", "Checked the key policy: alias/customer-data rotates yearly, last rotation in March."),
    ), contradictions=((0, 1, "number"), (0, 4, "number"), (1, 2, "negation"), (4, 2, "negation"),
                       (0, 2, "negation")),
        negatives=((1, 4, "paraphrase: 365 days = yearly"), (0, 3, "other: certificates"),
                   (1, 3, "different quantities"), (4, 3, "different quantities"))),
    Topic("piano lessons", (
        ("assistant", "Noah's piano lesson is on Tuesdays at 5pm."),
        ("assistant", "The piano teacher moved Noah's lesson to Thursdays at 4:30 from next week."),
        ("assistant", "Noah's piano lessons cost 30 pounds for half an hour."),
        ("assistant", "Noah practises piano for 20 minutes every evening."),
        ("assistant", "Noah's piano lesson is 45 minutes long."),
    ), contradictions=((2, 4, "number"),), updates=((0, 1),),
        negatives=((2, 3, "different quantities: practice"), (3, 4, "different quantities"),
                   (0, 2, "other"), (1, 2, "other"), (1, 4, "other"))),
    Topic("marketing push cap", (
        ("planner", "A user gets at most three marketing push notifications a week."),
        ("coder", "MAX_MARKETING_PUSH_PER_WEEK = 5, product raised it for the holiday campaign"),
        ("ops-bot", "braze: marketing pushes sent 1.9M (7d), 2.4 per active user on average"),
        ("reviewer", "Transactional pushes such as order updates have no weekly cap."),
        ("tester", "My test user got six marketing pushes this week, more than the cap allows."),
    ), contradictions=((1, 4, "number"),), updates=((0, 1),),
        negatives=((0, 2, "threshold: an average within the cap"), (1, 2, "threshold"), (0, 4, "superseded by 1"),
                   (0, 3, "scoped: transactional"), (1, 3, "scoped"))),
    Topic("experimentation platform", (
        ("planner", "A/B tests on the web app run on Statsig."),
        ("coder", "experiments are wired through GrowthBook, self-hosted on the analytics cluster"),
        ("ops-bot", "statsig: 12 experiments running, 3 with significant results"),
        ("reviewer", "Mobile experiments use Firebase A/B Testing."),
        ("tester", "the checkout button experiment in GrowthBook still shows no winner after two weeks"),
    ), contradictions=((0, 1, "choice"), (2, 1, "choice"), (0, 4, "choice"), (2, 4, "choice")),
        negatives=((0, 2, "agree"), (1, 4, "agree"), (0, 3, "scoped: mobile"), (1, 3, "scoped"),
                   (2, 3, "scoped"), (4, 3, "scoped"))),
    Topic("car MOT", (
        ("assistant", "Your car's MOT is due on 14 March."),
        ("assistant", "The garage says the MOT is due on 4 March, not the 14th."),
        ("assistant", "Road tax for the Golf is 190 pounds a year, paid by direct debit."),
        ("assistant", "The Golf's next service is due at 60,000 miles."),
        ("assistant", "The MOT is booked for 3 March at 9am at Kwik Fit."),
    ), contradictions=((0, 1, "number"),),
        negatives=((0, 4, "different quantities: booking, not due date"), (1, 4, "different quantities"),
                   (0, 2, "other"), (0, 3, "other"), (2, 3, "other"))),
    Topic("payments readiness probe", (
        ("reviewer", "The payments service has no readiness probe, pods get traffic before the DB pool is up."),
        ("coder", "added a readiness probe to payments in PR 4412, it checks /ready which waits for the pool"),
        ("ops-bot", "k8s deploy payments (prod): readinessProbe httpGet /ready period 10s"),
        ("planner", "Payments has no readiness probe in the staging cluster yet."),
        ("tester", "payments in prod has no readiness probe, only a liveness one, I checked the manifest"),
    ), contradictions=((1, 4, "negation"), (2, 4, "negation")), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 2, "superseded by 1"), (1, 3, "scoped: staging"), (2, 3, "scoped"),
                   (0, 4, "agree"), (3, 4, "agree"))),
    Topic("flaky tests", (
        ("ops-bot", "ci: flaky test rate 4.2% of runs (30d), top offender checkout_e2e"),
        ("planner", "Flaky tests fail under 1% of CI runs."),
        ("reviewer", "About one in twenty-five CI runs hits a flaky test, mostly checkout_e2e."),
        ("coder", "quarantined checkout_e2e yesterday, and we retry a failed test twice before failing the build"),
        ("tester", "The unit suite has 3,412 tests and takes 6 minutes."),
    ), contradictions=((0, 1, "number"), (2, 1, "number")),
        negatives=((0, 2, "paraphrase: one in 25 is about 4.2%"), (0, 4, "different quantities"),
                   (1, 4, "different quantities"), (0, 3, "other"), (1, 3, "other"))),
]

# SEVENTEENTH: written on 2026-11-29 (nineteenth session) after that session's rules (a verb
# of change, a cron schedule, a bot line that opens with a name the store knows; at 7d112b7)
# and committed before its first run: the session's check on text written after its rules.
# Topics of five fragments each, subjects no earlier set has.
SEVENTEENTH: list[Topic] = [
    Topic("warehouse label printers", (
        ("planner", "Shipping labels at the Leeds warehouse print on Zebra ZD421 printers."),
        ("ops-bot", "printnode: 6 printers online at leeds-wh, all Brother QL-1110NWB"),
        ("tester", "Printed 40 labels on the Zebra at packing station 2, no jams."),
        ("coder", "the label service renders ZPL, so it only works with Zebra printers"),
        ("reviewer", "Returns labels at the Leeds warehouse are printed on plain A4 by the office printer."),
    ), contradictions=((0, 1, "choice"), (2, 1, "choice"), (3, 1, "choice")),
        negatives=((0, 2, "agree"), (0, 3, "agree"), (2, 3, "agree"), (0, 4, "scoped: returns labels"),
                   (1, 4, "scoped"))),
    Topic("events topic retention", (
        ("planner", "The user-events Kafka topic keeps messages for 7 days."),
        ("ops-bot", "kafka topic user-events: retention.ms=259200000, partitions=24"),
        ("coder", "we cut user-events retention to 3 days last month, the brokers were running out of disk"),
        ("reviewer", "The audit-events topic keeps messages for 90 days for compliance."),
        ("tester", "Replayed user-events from 5 days ago into the staging consumer without a problem."),
    ), contradictions=((1, 4, "number"), (2, 4, "number")), updates=((0, 2),),
        negatives=((0, 1, "superseded by 2"), (1, 2, "agree: 259200000 ms = 3 days"), (0, 3, "scoped: audit-events"),
                   (2, 3, "scoped"), (1, 3, "scoped"), (0, 4, "agree"))),
    Topic("API pagination", (
        ("planner", "List endpoints in the public API use cursor-based pagination."),
        ("coder", "GET /v2/orders takes ?page= and ?per_page=, offset pagination like the rest of the API"),
        ("reviewer", "The admin API still uses offset pagination; only the public API moved to cursors."),
        ("tester", "Paged through /v2/customers with the next_cursor field, 12 pages, no duplicates."),
        ("ops-bot", "api lint: 41 list endpoints, 41 with cursor pagination"),
    ), contradictions=((0, 1, "choice"), (3, 1, "choice"), (4, 1, "choice")),
        negatives=((0, 3, "agree"), (0, 4, "agree"), (3, 4, "agree"), (0, 2, "scoped: admin API"),
                   (1, 2, "scoped"))),
    Topic("bedtime", (
        ("assistant", "Ava goes to bed at 7:30 on school nights."),
        ("assistant", "Ava's bedtime is 9pm on Fridays and Saturdays."),
        ("assistant", "Since the clocks went back, Ava's school-night bedtime is 7pm."),
        ("assistant", "Ava reads for twenty minutes before lights out."),
        ("assistant", "Ava has been going to bed at 8 on school nights all term."),
    ), contradictions=((2, 4, "number"),), updates=((0, 2),),
        negatives=((0, 1, "scoped: weekends"), (2, 1, "scoped"), (4, 1, "scoped"), (0, 3, "different quantities"),
                   (0, 4, "superseded by 2"))),
    Topic("design system primitives", (
        ("planner", "Our design system's components are built on Radix UI primitives."),
        ("coder", "the dialog and popover in the design system wrap Headless UI, not Radix"),
        ("ops-bot", "ui-kit package.json: @radix-ui/react-dialog 1.1.2, @radix-ui/react-popover 1.1.2"),
        ("reviewer", "Charts in the design system are drawn with Recharts."),
        ("tester", "Keyboard focus in the design system's dialog behaves like Radix documents it."),
    ), contradictions=((0, 1, "choice"), (2, 1, "choice"), (4, 1, "choice")),
        negatives=((0, 2, "agree"), (0, 4, "agree"), (2, 4, "agree"), (0, 3, "other: charts"), (1, 3, "other"))),
    Topic("phone support", (
        ("planner", "We don't offer phone support; customers reach us by chat or email."),
        ("tester", "Called the support number on the pricing page and got a person within two minutes."),
        ("reviewer", "Enterprise customers have a named account manager they can phone."),
        ("ops-bot", "aircall: 312 inbound calls this week, avg wait 1m48s"),
        ("coder", "Chat support is staffed from 8am to 8pm CET on weekdays."),
    ), contradictions=((0, 1, "negation"), (0, 3, "negation")),
        negatives=((1, 3, "agree"), (0, 2, "scoped: enterprise"), (0, 4, "other"), (1, 4, "other"))),
    Topic("anniversary dinner", (
        ("assistant", "Your anniversary dinner is booked at Dishoom for Saturday at 7pm."),
        ("assistant", "Dishoom moved your booking to 8pm, they had no table at 7."),
        ("assistant", "The anniversary is on 14 June, your ninth."),
        ("assistant", "You paid a 20 pound deposit for the Dishoom table."),
        ("assistant", "Your anniversary dinner is at Hawksmoor on Saturday, booked for two."),
    ), contradictions=((1, 4, "choice"), (3, 4, "choice")), updates=((0, 1),),
        negatives=((0, 2, "different quantities: the date"), (1, 3, "agree"), (0, 3, "agree"),
                   (0, 4, "superseded by 1"))),
    Topic("load balancer health checks", (
        ("planner", "The load balancer checks each API instance's /healthz every 10 seconds."),
        ("ops-bot", "alb target group api-prod: health check /ready, interval 30s, threshold 3"),
        ("coder", "api pods expose /healthz for liveness and /ready for the load balancer"),
        ("reviewer", "An instance is taken out after three failed health checks in a row."),
        ("tester", "Killed an api pod and the load balancer stopped sending it traffic after about 90 seconds."),
    ), contradictions=((0, 1, "number"), (0, 2, "choice"), (0, 4, "number")),
        negatives=((1, 2, "agree"), (1, 3, "agree"), (1, 4, "agree: 3 x 30s"), (0, 3, "different quantities"))),
    Topic("container image builds", (
        ("planner", "CI builds container images with Kaniko."),
        ("coder", "we switched image builds from Kaniko to BuildKit in October, layer caching is much better"),
        ("ops-bot", "buildkitd: 3 builders, cache hit 81% (24h)"),
        ("reviewer", "Base images are rebuilt every Monday night with the security patches."),
        ("tester", "The Kaniko build of the api image took 11 minutes today, no cache hits at all."),
    ), contradictions=((1, 4, "choice"), (2, 4, "choice")), updates=((0, 1),),
        negatives=((1, 2, "agree"), (0, 2, "superseded by 1"), (0, 3, "other"), (1, 3, "other"))),
    Topic("file descriptor limit", (
        ("planner", "API servers run with a file descriptor limit of 65,536."),
        ("ops-bot", "node api-7: ulimit -n 1024"),
        ("coder", "raised nofile to 1048576 in the systemd unit for the API servers after the outage"),
        ("reviewer", "The database hosts have their own limit of 200,000 open files."),
        ("tester", "Got 'too many open files' on api-3 at about 1,000 connections this morning."),
    ), contradictions=((0, 1, "number"), (2, 1, "number"), (2, 4, "number")), updates=((0, 2),),
        negatives=((1, 4, "agree"), (0, 3, "scoped: database hosts"), (2, 3, "scoped"), (1, 3, "scoped"),
                   (0, 4, "superseded by 2"))),
    Topic("device management", (
        ("planner", "Company Macs are enrolled in Jamf."),
        ("ops-bot", "kandji: 214 devices, 209 compliant, 5 need OS update"),
        ("coder", "My new MacBook asked me to enroll in Kandji on first boot."),
        ("reviewer", "Windows laptops are managed with Intune."),
        ("tester", "Checked the Jamf console this morning, my Mac shows as compliant."),
    ), contradictions=((0, 1, "choice"), (0, 2, "choice"), (4, 1, "choice"), (4, 2, "choice")),
        negatives=((1, 2, "agree"), (0, 4, "agree"), (0, 3, "scoped: Windows"), (1, 3, "scoped"))),
    Topic("holiday party", (
        ("planner", "The team holiday party is on Friday 12 December."),
        ("reviewer", "The holiday party was pushed to Thursday 18 December because the venue double-booked."),
        ("coder", "holiday party on the 12th right? I booked my train home for the 13th"),
        ("ops-bot", "calendar: 'Holiday party' Thu 18 Dec 18:00-23:00, 64 accepted"),
        ("tester", "The holiday party budget is 60 euros a head."),
    ), contradictions=((2, 3, "number"), (1, 2, "number")), updates=((0, 1),),
        negatives=((1, 3, "agree"), (0, 3, "superseded by 1"), (0, 2, "agree"), (0, 4, "other"),
                   (1, 4, "other"))),
    Topic("churn model", (
        ("planner", "The churn model is retrained every month on the last 12 months of data."),
        ("ops-bot", "mlflow churn_model: v14 registered 3 days ago, auc 0.81"),
        ("reviewer", "The churn model has an AUC of about 0.74 on the holdout."),
        ("coder", "the churn model hasn't been retrained since March, the training pipeline is broken"),
        ("tester", "Churn scores in the CRM refresh every night."),
    ), contradictions=((1, 2, "number"), (0, 3, "negation"), (1, 3, "negation")),
        negatives=((0, 1, "agree"), (0, 2, "different quantities"), (0, 4, "different quantities: scoring"),
                   (3, 4, "other"))),
    Topic("CI cache storage", (
        ("planner", "CI build caches are stored in an S3 bucket in eu-west-1."),
        ("coder", "the CI cache lives in GCS, bucket ci-cache-eu, shared with the Cloud Build jobs"),
        ("ops-bot", "s3 bucket ci-cache (eu-west-1): 412 GB, 1.9M objects"),
        ("reviewer", "CI caches older than 14 days are deleted by a lifecycle rule."),
        ("tester", "Restored the node_modules cache from S3 in 40 seconds on the last run."),
    ), contradictions=((0, 1, "choice"), (2, 1, "choice"), (4, 1, "choice")),
        negatives=((0, 2, "agree"), (0, 4, "agree"), (2, 4, "agree"), (0, 3, "other"), (1, 3, "other"))),
]

# The sets written after the first topics, each a split of its own (run.py, offline.py,
# contradict.py: --split NAME), in the order they were written
WRITTEN_LATER = {"unseen": UNSEEN, "later": LATER, "aside": ASIDE, "novel": NOVEL, "spare": SPARE, "last": LAST,
                 "eighth": EIGHTH, "ninth": NINTH, "tenth": TENTH,
                 "eleventh": ELEVENTH, "twelfth": TWELFTH, "thirteenth": THIRTEENTH,
                 "fourteenth": FOURTEENTH, "fifteenth": FIFTEENTH, "sixteenth": SIXTEENTH,
                 "seventeenth": SEVENTEENTH}
