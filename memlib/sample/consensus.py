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

from memlib.interface import StoreInterface
from memlib.sample.text import COMPONENTS, PROJECT_PREFIXES, PROJECT_SUFFIXES, TECH

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


def _plan(n: int, rng: random.Random) -> list[tuple[str, str, int]]:
    """(kind, subject, attribute index) of each topic, no two alike. Up to one topic per
    subject of a project's component (520), the kinds in turn; beyond, every (subject,
    attribute) of the components of each project's services (4,160 subjects, 87,360 topics)
    in a shuffled order."""
    subjects = [f"the {p} {c}" for p in PROJECT_PREFIXES for c in COMPONENTS]
    rng.shuffle(subjects)
    if n <= len(subjects):
        return [(KINDS[i % len(KINDS)], subjects[i], i // len(KINDS)) for i in range(n)]
    wide = random.Random(rng.random())
    attributes = {"number": len(NUMBERS), "date": 1, "choice": len(PURPOSES), "flag": len(FEATURES)}
    plan = [(kind, f"the {p} {s} {c}", a) for p in PROJECT_PREFIXES for s in PROJECT_SUFFIXES for c in COMPONENTS
            for kind, count in attributes.items() for a in range(count)]
    if n > len(plan):
        raise ValueError(f"the generator has {len(plan):,} distinct topics, not {n:,}")
    wide.shuffle(plan)
    return plan[:n]


def topics(n: int, seed: int, contradiction_share: float = 0.35) -> list[Topic]:
    rng = random.Random(seed)
    out = []
    for i, (kind, subject, a) in enumerate(_plan(n, rng)):
        contradicted = rng.random() < contradiction_share
        if kind == "number":
            attr, unit, (low, high) = NUMBERS[a % len(NUMBERS)]
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
            purpose = PURPOSES[a % len(PURPOSES)]
            x, y = rng.sample(TECH, 2)
            out.append(Topic(i, kind, f"{subject}|{purpose}", purpose, x, y if contradicted else None))
        else:
            feature = FEATURES[a % len(FEATURES)]
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


SLOT = {"number": "measure", "date": "schedule", "choice": "choice", "flag": "setting"}  # a topic kind's slot
SAMPLE_TOPICS = 60


def build_consensus_sample(store: StoreInterface, n_topics: int = SAMPLE_TOPICS, seed: int = 7,
                           anchor: datetime | None = None) -> dict[str, int]:
    """The multi-agent part of the sample store: the agents' fragments on `n_topics` topics
    over the 30 days before `anchor`, clustered, and each cluster of two or more
    consolidated under its slot's retention contract (a topic's kind is its slot: the unit
    must keep a measure, a schedule, a choice or a setting). For the consensus report."""
    from memlib.consensus import Consensus

    anchor = anchor or datetime.now(timezone.utc)
    all_topics, reports = generate(n_topics, seed, start=anchor - timedelta(days=30))
    consensus = Consensus(store)
    pointer = consensus.register_input(f"sample agents' tool runs, seed {seed}", source="sample")
    topic_of = {t.index: t for t in all_topics}
    placed = consensus.add([{
        "fragment_id": f"sample-{r.fragment_id}", "content": r.content, "source_agent": r.agent,
        "timestamp": r.timestamp, "confidence": r.confidence, "trace_pointer": pointer,
        "topic_candidates": [topic_of[r.topic].label], "metadata": {"slot": SLOT[r.kind]},
        "citation_count": (r.topic + len(r.fragment_id)) % 3} for r in reports], actor="sample")
    for kind, slot in SLOT.items():
        consensus.save_contract({"contract_id": slot, "version": "1", "length_budget": 240, "max_rounds": 3,
                                 "source_weights": {"reviewer": 1.5},
                                 "slots": {slot: {"min_items": 1, "min_coverage_ratio": 0.5}}}, actor="sample")
    kind_of = {f"sample-{r.fragment_id}": r.kind for r in reports}
    members: dict[str, list[str]] = {}
    for fragment_id, cluster_id, _ in placed:
        members.setdefault(cluster_id, []).append(fragment_id)
    units = 0
    for cluster_id, ids in sorted(members.items()):
        if len(ids) >= 2:
            kinds = [kind_of[f] for f in ids]
            consensus.consolidate(cluster_id, SLOT[max(sorted(set(kinds)), key=kinds.count)], actor="sample")
            units += 1
    return {"fragments": len(reports), "clusters": len(members), "consensus_units": units}
