"""A deterministic multi-agent corpus for consolidation (issue 15): agents report on topics,
mostly agreeing in different words (paraphrases, numbers and dates written differently), and
some topics get one planted contradiction of three kinds: a different number or date
("value"), the negation of what the others say ("negation"), or a different named choice
("choice"). Every fragment carries its truth, so the conflict detector and the clustering can
be scored (bench/consensus.py). Seeds 1-3 are for development; report on another.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from memlib.sample.text import COMPONENTS, PROJECT_PREFIXES, TECH

AGENTS = ["planner", "coder", "reviewer", "tester", "ops-bot"]
KINDS = ("number", "date", "choice", "flag")  # flag: a negation when contradicted
CONTRADICTION_KIND = {"number": "value", "date": "value", "choice": "choice", "flag": "negation"}

NUMBERS = [("p95 latency", "ms", (40, 900)), ("retry limit", "retries", (2, 12)), ("batch size", "rows", (100, 5000)),
           ("timeout", "seconds", (5, 120)), ("memory limit", "MB", (256, 8192)), ("error budget", "%", (1, 9))]
NUMBER_SAYS = [
    "The {attr} of {subject} is {v} {unit}.",
    "We measured {subject} at {v} {unit} for its {attr}.",
    "{Subject}: {attr} comes to about {v} {unit}.",
    "Current {attr} on {subject} sits at {v} {unit}.",
    "For {subject} the {attr} is set to {v} {unit}.",
]
DATE_SAYS = [
    "{Subject} cuts over to production on {d}.",
    "The production cutover of {subject} is planned for {d}.",
    "{d} is the day {subject} goes live in production.",
    "We scheduled the go-live of {subject} for {d}.",
    "Production launch for {subject}: {d}.",
]
PURPOSES = ["message queue", "primary datastore", "cache layer", "job runner", "metrics backend", "search backend"]
CHOICE_SAYS = [
    "{Subject} uses {x} as its {purpose}.",
    "We went with {x} for the {purpose} of {subject}.",
    "The team picked {x} as {subject}'s {purpose}{rather}.",
    "{x} is the {purpose} behind {subject}.",
    "For its {purpose}, {subject} settled on {x}{rather}.",
]
FEATURES = ["request signing", "response caching", "automatic retries", "circuit breaking", "audit logging",
            "canary deploys", "rate limiting", "payload compression"]
FLAG_SAYS = [
    ("{Feature} is enabled on {subject}.", "{Feature} is not enabled on {subject}."),
    ("{Subject} has {feature} turned on.", "{Subject} does not have {feature} turned on."),
    ("We keep {feature} switched on for {subject}.", "We never switched {feature} on for {subject}."),
    ("{Subject} runs with {feature} active.", "{Subject} runs with {feature} disabled."),
    ("{Feature} is active for {subject} in production.", "{Feature} is inactive for {subject} in production."),
]


@dataclass(frozen=True)
class Report:
    """One generated fragment and its truth."""

    fragment_id: str
    content: str
    agent: str
    timestamp: datetime
    topic: int
    kind: str  # the topic's kind (KINDS)
    value: str  # what it asserts, normalised (the truth, or the planted other value)
    contradicts: bool
    confidence: float


@dataclass(frozen=True)
class Topic:
    index: int
    kind: str
    subject: str
    label: str  # a topic candidate, as an agent would tag it
    truth: str
    other: str | None  # the planted contradiction's value, if any


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _date(d: date, style: int) -> str:
    return [d.isoformat(), f"{d:%B} {d.day}, {d.year}", f"{d.day} {d:%B} {d.year}", f"{d:%b} {d.day} {d.year}"][style % 4]


def _number(v: int, style: int) -> str:
    return f"{v:,}" if style % 2 and v >= 1000 else str(v)


def topics(n: int, seed: int, contradiction_share: float = 0.35) -> list[Topic]:
    rng = random.Random(seed)
    subjects = [f"the {p} {c}" for p in PROJECT_PREFIXES for c in COMPONENTS]
    rng.shuffle(subjects)
    out = []
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        subject = subjects[i % len(subjects)]
        contradicted = rng.random() < contradiction_share
        if kind == "number":
            attr, unit, (low, high) = NUMBERS[(i // len(KINDS)) % len(NUMBERS)]
            truth = rng.randint(low, high)
            other = truth + rng.choice([-1, 1]) * max(1, round(truth * rng.uniform(0.3, 0.8)))
            if other <= 0:
                other = truth * 2
            subject = f"{subject}|{attr}|{unit}"
            out.append(Topic(i, kind, subject, attr, str(truth), str(other) if contradicted else None))
        elif kind == "date":
            day = date(2026, 1, 5) + timedelta(days=rng.randint(0, 300))
            other = day + timedelta(days=rng.choice([-1, 1]) * rng.randint(3, 40))
            out.append(Topic(i, kind, subject, "launch", day.isoformat(), other.isoformat() if contradicted else None))
        elif kind == "choice":
            purpose = PURPOSES[(i // len(KINDS)) % len(PURPOSES)]
            x, y = rng.sample(TECH, 2)
            out.append(Topic(i, kind, f"{subject}|{purpose}", purpose, x, y if contradicted else None))
        else:
            feature = FEATURES[(i // len(KINDS)) % len(FEATURES)]
            out.append(Topic(i, kind, f"{subject}|{feature}", feature, "on", "off" if contradicted else None))
    return out


def _say(topic: Topic, value: str, rng: random.Random, rejected: str | None) -> str:
    parts = topic.subject.split("|")
    subject = parts[0]
    fill = {"subject": subject, "Subject": _cap(subject)}
    if topic.kind == "number":
        fill.update(attr=parts[1], unit=parts[2], v=_number(int(value), rng.randrange(2)))
        return rng.choice(NUMBER_SAYS).format(**fill)
    if topic.kind == "date":
        return rng.choice(DATE_SAYS).format(**fill, d=_date(date.fromisoformat(value), rng.randrange(4)))
    if topic.kind == "choice":
        rather = f" rather than {rejected}" if rejected and rng.random() < 0.5 else ""
        return rng.choice(CHOICE_SAYS).format(**fill, x=value, purpose=parts[1], rather=rather)
    yes, no = rng.choice(FLAG_SAYS)
    fill.update(feature=parts[1], Feature=_cap(parts[1]))
    return (yes if value == "on" else no).format(**fill)


def generate(n_topics: int = 200, seed: int = 1, reports_per_topic: tuple[int, int] = (3, 5),
             start: datetime = datetime(2026, 3, 1, tzinfo=timezone.utc)) -> tuple[list[Topic], list[Report]]:
    """Topics and the agents' reports on them, in time order. A contradicted topic has
    exactly one report asserting `other`, by an agent none of whose other reports on it agree."""
    rng = random.Random(seed * 7919 + 1)
    all_topics = topics(n_topics, seed)
    reports: list[Report] = []
    for topic in all_topics:
        n = rng.randint(*reports_per_topic)
        agents = rng.sample(AGENTS, min(n, len(AGENTS)))
        # a choice topic's rejected alternative: an option the agents name as not taken
        rejected = rng.choice([t for t in TECH if t not in (topic.truth, topic.other)]) if topic.kind == "choice" else None
        liar = rng.randrange(n) if topic.other is not None else -1
        for k, agent in enumerate(agents):
            value = topic.other if k == liar else topic.truth
            when = start + timedelta(minutes=rng.randint(0, 60 * 24 * 30))
            reports.append(Report(f"t{topic.index}-r{k}", _say(topic, value, rng, rejected), agent, when,
                                  topic.index, topic.kind, value, k == liar, round(rng.uniform(0.5, 1.0), 2)))
    reports.sort(key=lambda r: (r.timestamp, r.fragment_id))
    return all_topics, reports
