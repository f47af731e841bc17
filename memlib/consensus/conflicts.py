"""Conflicts inside a cluster, found without a language model (seed 001's disagreements).

Each fragment's statement is read as people write it (consensus/statements.py), and every
two fragments of a cluster are compared, older against newer (a cluster keeps its fragments
in time order):
- values ("value"): quantities of one kind (units made one: "5 min" is 300 s, "12k" 12,000),
  or dates, none of which agree (an approximate one within a tenth); a count compares with a
  count of what the other speaks of ("retry up to 5 times", "max retries 3"); a value one
  denies that the other states ("not five minutes");
- named choices ("choice"): each says it uses a name the other never mentions (after "uses",
  "on", "with", "via", "picked" ..., or before "is the"), or one says "not X" / "X was
  retired" / "moved from X" / "never moved to X" where the other uses X, or one uses another
  name and gives up, in any case, the one the other uses ("the sentry DSN is dead", "no
  gradle files"); a plain word says a name only when it is most of its letters ("postgres"
  says PostgreSQL, "mail" does not say Mailchimp); or one name in two versions (React 18,
  React 19; a version in use agrees with a lowest one that will do when it is that or later);
- denial ("negation"): one denies ("not", "n't", "never", "disabled", "off" ...) what the
  other says: the denying clause's words are the other's, and the two share enough words,
  or, against a rule said of every one of a kind ("All S3 buckets ...", "Staging never ..."),
  the other is said of one of that kind (a counterexample, however long it runs) or counts
  a share of that kind short of the whole ("212/230 repos" against "every repo"); a denial
  is of another thing when the names in its own clause meet none the other mentions (who
  found it, "Security Hub flagged it", does not count).
A name a bot line or a chat message says in lower case ("postmark: 4,112 delivered") is in
use there when another fragment of the cluster uses it, or, when the line opens with it
("rabbitmq vhost orders: 14 queues", "unleash-proxy: ..."), when any fragment of the store
writes it as a name (the lexicon's names). Not compared: two fragments scoped
apart (staging and production, Android and iOS; "prod" is production, and "all mobile" is
not apart from iOS: statements.apart); in a value, a part against the whole ("alone",
"mostly"), a goal or a limit against a measurement ("goal", "under 200 ms"; a rule of one
amount, "retention must be 14 days", is compared as a value), a rule of one scope against a
statement that names none ("the enterprise SLA is 1 hour": an exception, not the rule), two
quantities qualified apart ("p95" and "p99"); two statements said of two things of one
kind, whose subjects share their head and each has a word the other never uses ("Python
code ... Black" and "frontend code ... Prettier": consensus/subjects.py). An update is no conflict: a newer fragment
that reports a change ("moved to", "switched from", "now", "as of March", "since")
supersedes what it changes, and the older fragment is compared with nothing; a newer
fragment that contradicts the change is a conflict. With the clustering's lexicon, two
fragments each naming a thing the other does not are about different things. Each kind's
conflicting pairs are split into two sides (the fragment in most conflicts, and who agrees
with it, against the rest); the heavier is A. Conflicting pairs that share no fragment with
the split (two things of one cluster each in dispute) are a disagreement of their own. A
pair left with both fragments on one side (three values, each against the others) is not
split again: on the hand-written topics those were mostly false alarms (bench/README.md).

Measured on hand-written fragments (bench/judgement, bench/README.md): what it still cannot
catch is a denial or a choice said in other words than the claim it denies ("rollout 10%"
against "not enabled"; "FileVault enabled" against "not encrypted"; "MacBook" against
"ThinkPads, the MacBooks are for staff"), a choice whose name is in no choice position
and in none elsewhere in the cluster ("queries hit Algolia", "typesense-autocomplete: 3
nodes", unless some fragment of the store writes it as a name), antonyms ("faster"
against "slower"), an exception against the rule it
excepts when only one side names its scope ("1 hour for P1 tickets" against "within 4 hours"),
sarcasm, and what clustering put apart. It still flags statements scoped by subjects of two
heads ("the backend reports to Sentry" against "the iOS app reports its crashes to
Crashlytics"): a subject of another head may be a member of the other's kind ("engineers
get MacBooks" against "new hires in the platform team get ThinkPads"), which only a reader
of meaning tells apart.

`conflict_risk` (Cluster.conflict_risk, read by sql/stg_clusters.sql) is defined here once:
the confidence-weighted share of a cluster's fragments that sit on a B side, doubled and
capped at 1: 0 when all agree, 1 when the cluster splits in halves.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from datetime import date

from memlib.consensus import statements, subjects
from memlib.consensus.patterns import rule
from memlib.consensus.statements import MONTHS, STOP_WORDS

NEGATIONS = {"not", "no", "never", "without", "disabled", "inactive", "off", "none", "neither", "nor"}
CHOICE_CUES = ("uses", "use", "using", "went with", "go with", "picked", "pick", "chose", "chosen", "choose",
               "settled on", "adopted", "adopt", "switched to", "migrated to", "relies on", "runs on",
               "standardised on", "standardized on", "is built on", "moved to")
REJECT_CUES = ("rather than", "instead of", "over", "not", "replacing")
UNITS = {  # unit -> (dimension, factor to the dimension's base)
    "ms": ("time", 1.0), "millisecond": ("time", 1.0), "milliseconds": ("time", 1.0),
    "s": ("time", 1000.0), "sec": ("time", 1000.0), "second": ("time", 1000.0), "seconds": ("time", 1000.0),
    "min": ("time", 60_000.0), "minute": ("time", 60_000.0), "minutes": ("time", 60_000.0),
    "h": ("time", 3_600_000.0), "hour": ("time", 3_600_000.0), "hours": ("time", 3_600_000.0),
    "kb": ("bytes", 1 / 1024), "mb": ("bytes", 1.0), "gb": ("bytes", 1024.0), "tb": ("bytes", 1024.0 ** 2),
    "%": ("percent", 1.0), "percent": ("percent", 1.0),
}
# ... and, for claims, the words a report uses around any value ("the current team sits at ...")
STOP = STOP_WORDS | {"set", "sits", "comes", "current", "right", "now", "s", "'s", "day", "team"}

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATES = [
    (rule("claim iso date", r"\b(\d{4})-(\d{2})-(\d{2})\b",
        reads=("Release calendar: mobile 4.0 goes out 2026-03-21.",),
        skips=("Mobile app 4.0 ships to the stores on March 14.",)), lambda m: (int(m[1]), int(m[2]), int(m[3]))),
    (rule("claim month day year", rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I,
        reads=("ships March 3rd, 2027",), skips=("ships March 2027",)),
     lambda m: (int(m[3]), statements.month(m[1]), int(m[2]))),
    (rule("claim day month year", rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\.?,?\s+(\d{{4}})\b", re.I,
        reads=("payroll batch scheduled: 25 Nov 2026",), skips=("Salaries are paid on the 25th of each month.",)),
     lambda m: (int(m[3]), statements.month(m[2]), int(m[1]))),
]
_NUMBER = rule("number", r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w,]\d)\s*(%|[A-Za-z]+)?",
        reads=("Cache TTL is 60 s",), skips=("The frontend uses Vue",))
_TOKEN = rule("claim token", r"[A-Za-z][\w.+#-]*[\w+#]|[A-Za-z]|\d[\w.,]*",
        reads=("Cache TTL is 60 s",), skips=("--",))
_SENTENCE = rule("sentence", r"(?<=[.!?])\s+",
        reads=("holiday party on the 12th right? I booked my train home for the 13th",),
        skips=("The team holiday party is on Friday 12 December.",))


def _cued(name: str, cues, **examples) -> re.Pattern:
    """The rule `name`: the word after any of `cues` (a zero-width match at each place, so
    cues may overlap)."""
    alternatives = "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))
    return rule(name, rf"(?=(?:^| )(?:{alternatives}) ([\w.+#-]+))", **examples)


_CHOOSE = _cued("the name chosen", CHOICE_CUES, reads=("the frontend uses vue", "we went with kafka"),
                skips=("the frontend is slow",))
_REJECT = _cued("the name passed over", REJECT_CUES, reads=("kafka rather than rabbitmq", "postgres over mysql"),
                skips=("kafka for the events",))
_IS_THE = rule("a name is the", r"[\w.+#-]+ (is the|is our|serves as|powers|is what) ",
        reads=("Fifteen Zendesk seats is what the contract says.",), skips=("We pay for 15 Zendesk agent seats.",))


@dataclass(frozen=True)
class Claims:
    """What one fragment asserts."""

    values: dict[str, frozenset] = field(default_factory=dict)  # "date" or a dimension/unit -> values
    chosen: frozenset = frozenset()
    capitalised: frozenset = frozenset()  # its capitalised words (names, or "TTL", or a sentence's first)
    negative: bool = False
    words: frozenset = frozenset()  # its other content words


def _dates(text: str) -> tuple[set[date], str]:
    found = set()
    for pattern, parts in _DATES:
        for match in pattern.finditer(text):
            try:
                found.add(date(*parts(match)))
            except ValueError:
                continue
        text = pattern.sub(" ", text)
    return found, text


@functools.lru_cache(maxsize=1 << 16)  # a fragment is read when clustered and again for its cluster's risk
def claims(text: str) -> Claims:
    dates, rest = _dates(text)
    values: dict[str, set] = {}
    if dates:
        values["date"] = set(dates)
    for match in _NUMBER.finditer(rest):
        number = float(match[1].replace(",", "") + (f".{match[2]}" if match[2] else ""))
        unit = (match[3] or "").lower()
        if unit in UNITS:
            dimension, factor = UNITS[unit]
            values.setdefault(dimension, set()).add(round(number * factor, 6))
        else:  # a count of something: its noun is its unit ("12 retries", "500 rows")
            values.setdefault(f"count:{unit.rstrip('s')}", set()).add(number)
    chosen, rejected, capitalised = set(), set(), set()
    for sentence in _SENTENCE.split(rest):
        tokens = _TOKEN.findall(sentence)
        lowered = " ".join(tokens).lower()
        for token in tokens:  # a capitalised word is a name if some fragment of the cluster chose it
            if token != token.lower() and token.lower() not in MONTHS:
                capitalised.add(token)
        if tokens and _IS_THE.match(lowered):
            chosen.add(tokens[0])  # "Redis is the cache behind ..."
        for m in _CHOOSE.finditer(lowered):
            name = _original(tokens, m[1])
            if name and name.lower() not in STOP and name.lower() not in NEGATIONS:
                chosen.add(name)
        for m in _REJECT.finditer(lowered):
            name = _original(tokens, m[1])
            if name:
                rejected.add(name)
    words = _TOKEN.findall(rest.lower())
    negative = not NEGATIONS.isdisjoint(words) or any(w.endswith("n't") for w in words)
    content = {w for w in words if w not in STOP and w not in NEGATIONS and not w[0].isdigit()}
    return Claims({k: frozenset(v) for k, v in values.items()}, frozenset(chosen - rejected),
                  frozenset(capitalised - chosen - rejected), negative, frozenset(content - {c.lower() for c in chosen}))


def _original(tokens: list[str], lowered: str) -> str | None:
    return next((t for t in tokens if t.lower() == lowered), None)


@dataclass
class Found:
    """A disagreement as found: its kind, what it is about, and the fragments of each side."""

    kind: str
    point: str
    a: list[int]
    b: list[int]


def find(texts: list[str], weights: list[float], lexicon=None) -> list[Found]:
    """The disagreements among one cluster's fragments (indexes into `texts`, oldest first:
    a cluster keeps its fragments in time order). Two fragments are compared when they talk
    about the same thing (with the clustering's lexicon, neither names a thing the other does
    not) and neither is out of date: a fragment older than a newer one that reports a change
    in the same thing ("moved to", "now", "as of March") is superseded, not contradicted.
    Each kind's conflicting pairs are split into two sides: the side with more weight is A.
    A text reported again word for word is one statement, as of its latest report, with the
    weight of all its reports: comparing pairs of texts, not of reports, keeps a topic
    reported thousands of times from costing millions of comparisons."""
    return find_many([(texts, weights)], lexicon)[0]


def find_many(clusters: list[tuple[list[str], list[float]]], lexicon=None) -> list[list[Found]]:
    """`find` for each of several clusters' (texts, weights), the subjects of all of them
    read in one batch (subjects.py: a third of the time of one at a time)."""
    said = [said_once(texts, weights) for texts, weights in clusters]
    compared = [_pairs(texts, lexicon) for _, texts, _ in said]
    subjects.read_all(read[x] for read, stated in compared for i, j in stated if not read[j].change for x in (i, j))
    return [expand(_split(read, stated, weights)) for (expand, _, weights), (read, stated) in zip(said, compared)]


def said_once(texts: list[str], weights: list[float]):
    """Each text once, as of its latest report, with the weight of all its reports, and how
    to give what is found of them as indexes into `texts`."""
    reports: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        reports.setdefault(text, []).append(i)
    if len(reports) == len(texts):
        return (lambda found: found), texts, weights
    said = sorted(reports, key=lambda text: reports[text][-1])
    every = lambda side: sorted(i for k in side for i in reports[said[k]])  # noqa: E731
    return ((lambda found: [Found(f.kind, f.point, every(f.a), every(f.b)) for f in found]), said,
            [sum(weights[i] for i in reports[text]) for text in said])


def _pairs(texts: list[str], lexicon) -> tuple[list[statements.Statement], dict[tuple[int, int], str]]:
    """The statements of `texts` and the pairs that state something differently (before
    their subjects are read)."""
    read = _named_in_the_cluster([statements.read(t) for t in texts], lexicon)
    n = len(texts)
    stated: dict[tuple[int, int], str] = {}
    superseded = {i for j in range(n) if read[j].change for i in range(j)
                  if _about_the_same(read[i], read[j], lexicon) and contradiction(read[i], read[j], True, True)}
    for j in range(n):
        for i in range(j):
            if i in superseded or j in superseded and not read[j].change:
                continue
            if not _about_the_same(read[i], read[j], lexicon):
                continue
            kind = _stated(read[i], read[j])
            if kind is not None:
                stated[(i, j)] = kind
    return read, stated


def _split(read: list[statements.Statement], stated: dict[tuple[int, int], str], weights: list[float]) -> list[Found]:
    edges: dict[str, list[tuple[int, int]]] = {"value": [], "choice": [], "negation": []}
    for (i, j), kind in stated.items():
        if _said_of_one_thing(read[i], read[j]):
            edges[kind].append((i, j))
    return sides_found(edges, weights)


POINTS = {"value": "the value", "choice": "the choice", "negation": "whether it holds",
          "contradiction": "what holds"}  # what a disagreement of each kind is about


def sides_found(edges: dict[str, list[tuple[int, int]]], weights: list[float]) -> list[Found]:
    """Disagreements from the conflicting pairs of each kind (indexes into `weights`): each
    kind's pairs split into two sides (`_sides`), a group the split never reached a
    disagreement of its own."""
    out = []
    for kind, pairs in edges.items():
        while pairs:
            a, b = _sides(pairs, weights)
            out.append(Found(kind, POINTS[kind], a, b))
            placed = set(a) | set(b)
            pairs = [(i, j) for i, j in pairs if i not in placed and j not in placed]
    return out


def _named_in_the_cluster(read: list[statements.Statement], lexicon=None) -> list[statements.Statement]:
    """A fragment that names nothing in use and denies nothing, but says in lower case a name
    another fragment of the cluster uses, uses it: bot lines and chat do not capitalise
    ("postmark: 4,112 delivered" beside "Transactional email goes out via Postmark"). Where
    it capitalises the name, the reader saw it and found it in no choice position. Else, one
    that opens in lower case with a name some fragment of the store writes as a name (the
    lexicon's), or with such a name and a hyphen, uses that name: a tool's bot line opens
    with the tool ("rabbitmq vhost orders: 14 queues", "unleash-proxy: 2 replicas healthy"),
    and what only heads a line ("config rule", "daemonset") nobody writes as a name."""
    named = {statements.singular(n): n for r in read for n in r.names}
    known = lexicon.names if lexicon is not None else {}
    out = []
    for r in read:
        said = set()
        if not r.names and not r.negated:
            said = {named[w] for w in r.words if w in named and named[w] not in r.mentioned}
            if not said and (opening := _OPENS_LOWER.match(r.text)):
                said = {known[w] for w in (opening[1], opening[1].split("-")[0]) if w in known}
        out.append(replace(r, names=frozenset(said)) if said else r)
    return out


_OPENS_LOWER = rule("opens lower", r"^\s*([a-z][\w-]*)",
        reads=("alb idle_timeout=60s",),
        skips=("The load balancer drops idle connections after a minute.",))  # the word a line opens with, in lower case


def _about_the_same(a: statements.Statement, b: statements.Statement, lexicon) -> bool:
    """Same-thing: not two differently scoped or named things (staging against production,
    Berlin against Munich), and with a lexicon, no naming word on each side the other lacks."""
    if statements.apart(a.scopes, b.scopes):
        return False
    if lexicon is not None and lexicon.distinct(a.words, b.words):
        return False
    return True


def contradiction(a: statements.Statement, b: statements.Statement, ignore_change: bool = False,
                  strict: bool = False) -> str | None:
    """The kind of contradiction between an older statement `a` and a newer `b` ("value",
    "choice", "negation"), or None; a newer one that reports a change supersedes. With
    `ignore_change`: do they differ at all (a change statement names the old choice beside
    the new one, so `strict` compares only the names each says are in use). Statements said
    of two things of one kind ("Python code", "frontend code": subjects.py) never conflict."""
    kind = _stated(a, b, ignore_change, strict)
    return kind if kind is None or _said_of_one_thing(a, b) else None


def _said_of_one_thing(a: statements.Statement, b: statements.Statement) -> bool:
    """Not said of two things of one kind (subjects.py). A change is taken to change what it
    differs from whatever its subject ("the team sync is on Tuesdays", "weekly sync is
    Wednesdays now"), as before subjects were read."""
    return b.change or not subjects.different(a, b)


def _stated(a: statements.Statement, b: statements.Statement, ignore_change: bool = False,
            strict: bool = False) -> str | None:
    """What `a` and `b` state differently (`contradiction` without their subjects)."""
    if b.change and not ignore_change:
        return None
    if _values_differ(a, b):
        return "value"
    if _choices_differ(a, b, strict):
        return "choice"
    if _comparable(a, b):
        return None  # both give quantities of one kind, and they agree: what either denies is something else
    if not a.negated and not b.negated and (_short_of_all(a, b) or _short_of_all(b, a)):
        return "negation"  # "Every repo has secret scanning" against "secret scanning on 212/230 repos"
    if a.negated != b.negated:
        denier, other = (a, b) if a.negated else (b, a)
        if _leaves_room(other, denier):
            return None  # "enabled on 212/230 repos" and "the infra-legacy repo has none" agree
        if denier.denied_names and other.mentioned and not _names_meet(
                denier.denied_names | denier.spells(other.mentioned), other.mentioned | other.spells(denier.mentioned)):
            return None
        spelled = b.spells(a.acronyms) | a.spells(b.acronyms)  # "SSO" and "single sign-on"
        shared = (a.stems & b.stems) | spelled
        said = other.stems | other.spells(denier.acronyms)
        if denier.denies & said and len(shared) >= 2 and (len(shared) / len(a.stems | b.stems) >= NEGATION_OVERLAP
                                                           or _of_all(a, b) or _of_all(b, a)):
            return "negation"  # what one denies, the other says
    return None


_UNIVERSAL = rule("universal", r"\b(?:(?P<noun>all|every|each|any)\s+(?P<what>(?:[\w'-]+\s+){0,2}[\w'-]+)|"
                        r"everyone|everybody|(?<!has )(?<!have )(?<!had )(?<!'ve )(?:always|never)|nobody|no one|"
                        r"required|enforced|mandatory)\b",  # "mfa=required": of every login
                        re.I,
        reads=("We never deploy on Fridays",),
        skips=("We deploy on Fridays",))  # "has never touched Vault" tells what was, no rule


# a rule said of a kind by its bare plural: "Contractors don't get VPN", "Interns can't deploy"
_GENERIC = rule("generic", r"^\W*([A-Z][a-z]+s)\s+(?:do not|don't|can't|cannot|can not|are not|aren't|won't|may not|"
                      r"must not|mustn't|never|do never)\b",
        reads=("Employees don't track hours.",), skips=("Contractors log their hours in Harvest.",))


def _of_all(rule: statements.Statement, other: statements.Statement) -> bool:
    """`rule` says something of every one of a kind ("All S3 buckets are encrypted", "Staging
    never gets customer data", "MFA is required", "Contractors don't get VPN": a bare plural
    is the kind) and `other` is said of one of that kind: it shares a word of what "all" or
    "every" is said of ("the legacy exports bucket"), or the plural's word ("the new
    contractor"). A counterexample denies such a rule however little else the two share."""
    generic = _GENERIC.match(rule.text)
    if generic is not None:  # "Contractors don't get VPN": said of every contractor
        return statements.stem(statements.singular(generic[1].lower())) in other.stems
    found = _UNIVERSAL.search(rule.text)
    if found is None:
        return False
    if not found["noun"]:
        return True
    return bool({statements.stem(w.lower()) for w in found["what"].split()} & other.stems)


# a share short of the whole: "212/230 repos", "38 of 40 laptops", "9 out of 12 services"
_SHARE = rule("share", r"(?<![\d/.,])(\d[\d,]*)\s*(?:/|of|out of)\s*(\d[\d,]*)\s+(?P<noun>[a-z][\w-]*)", re.I,
        reads=("daemonset vector-agent: 42/42 ready",),
        skips=("Logs are shipped with Fluent Bit running as a DaemonSet.",))


@functools.lru_cache(maxsize=1 << 16)  # read for every pair a text is compared in
def _short_shares(text: str) -> frozenset[str]:
    """The stems of the nouns `text` counts a share short of the whole of ("212/230 repos":
    repo; "40 of 40 laptops": none)."""
    return frozenset(statements.stem(statements.singular(m["noun"].lower())) for m in _SHARE.finditer(text)
                     if float(m[1].replace(",", "")) < float(m[2].replace(",", "")))


def _short_of_all(rule: statements.Statement, other: statements.Statement) -> bool:
    """`rule` says something of every one of a kind and `other` counts fewer of that kind
    than there are ("Every repo has secret scanning turned on" against "secret scanning
    enabled on 212/230 repos"): a share short of the whole, of the noun the rule is said of,
    with another word of what it says."""
    return bool(_short_shares(other.text) & rule.stems) and _of_all(rule, other) and len(rule.stems & other.stems) >= 2


def _leaves_room(count: statements.Statement, denial: statements.Statement) -> bool:
    """`count` counts a share short of the whole of what `denial` denies of one, not of all
    ("secret scanning enabled on 212/230 repos" and "the infra-legacy repo has no secret
    scanning"): the share leaves room for the one that lacks it."""
    return bool(_short_shares(count.text) & denial.stems) and _UNIVERSAL.search(denial.text) is None \
        and not _of_all(denial, count)


MOST_LETTERS = 0.6  # share of a name's letters a plain word must be to say it ("postgres", not "mail")
NEGATION_OVERLAP = 0.2  # share of their content words two statements must have to deny one another
CLOSE = 0.5  # cosine two memories need before what they state is compared (chosen on the dev topics)
NAMED_CLOSE = 0.25  # cosine a change needs to update an older memory that names what it names (dev topics)


def between(old: str, new: str, cosine: float) -> str | None:
    """How a newer memory of a project disagrees with an older one: "value", "choice" or
    "negation" (`contradiction`), "update" when the newer reports the change ("moved to",
    "as of March": it supersedes), or None. Memories come in no cluster: two are compared
    when their embeddings are close (cosine >= CLOSE) and they are not scoped apart
    (staging, production). Measured on the hand-written topics by
    bench/judgement/contradict.py (a gate on shared subject words as well lost recall on the
    dev topics at every setting tried, and is not used).

    A change updates an older plain statement of the same thing whether or not the reader
    tells what differs ("Staging API is on 4 replicas since Tuesday" updates "the api in
    staging has two pods"; "Jobs are on SQS these days" updates "workers consume from the
    rabbitmq exchange"): at CLOSE, or at NAMED_CLOSE when the change names a thing the older
    one names ("the switch from bcrypt to argon2id"). Two changes that agree are one report
    twice, not an update: an older change is updated only by a newer one that differs from it;
    nor is a change whose every quantity the older memory gives already (`_repeats`)."""
    if cosine < NAMED_CLOSE:
        return None
    b = statements.read(new)
    if cosine < CLOSE and not b.change:
        return None
    a = statements.read(old)
    if not _about_the_same(a, b, None):
        return None
    kind = contradiction(a, b, ignore_change=True) if cosine >= CLOSE else None
    if kind is not None:
        return "update" if b.change else kind
    if b.change and not a.change and not _repeats(a, b) and (
            cosine >= CLOSE or _names_meet(b.mentioned | b.rejected, a.mentioned | a.names)):
        return "update"
    return None


def confirms(said: str, new: str) -> bool:
    """Whether `new` states what `said` states: an amount of one kind that agrees, or a name
    both use, and nothing either states differently ("started 02:31 UTC" confirms "moved the
    ETL to 02:30 UTC"; a statement that says nothing of it confirms nothing)."""
    a, b = statements.read(said), statements.read(new)
    shared = any(q.agrees(p) for q in a.quantities for p in b.quantities) or _names_meet(a.names, b.names)
    return shared and _stated(a, b, ignore_change=True) is None


def _repeats(a: statements.Statement, b: statements.Statement) -> bool:
    """Every quantity `b` gives, `a` gives already ("rollout 10% since Monday" after "enabled
    for 10%"): a change that says what was said changes nothing of it."""
    return bool(b.quantities or b.days) and b.days <= a.days and all(
        any(q.agrees(p) for p in a.quantities) for q in b.quantities)


def _counts(a: statements.Statement, b: statements.Statement, dimension: str) -> list[str]:
    """The dimensions of `b` a count of `a` compares with: its own, or a count whose noun the
    other statement uses ("retry up to 5 times" and "max retries 3": both count retries)."""
    if not dimension.startswith("count:"):
        return [dimension] if any(q.dimension == dimension for q in b.quantities) else []
    noun = dimension.removeprefix("count:")
    return [q.dimension for q in b.quantities if q.dimension == dimension or (
        q.dimension.startswith("count:") and (noun in b.words or q.dimension.removeprefix("count:") in a.words))]


def _comparable(a: statements.Statement, b: statements.Statement) -> bool:
    return any(_counts(a, b, q.dimension) for q in a.quantities)


def _values_differ(a: statements.Statement, b: statements.Statement) -> bool:
    if a.part or b.part:
        return False  # a part against the whole
    if statements.apart(a.value_scopes, b.value_scopes):
        return False  # "on Android ... 99.2%" against "iOS ... 99.7%, Android lags behind"
    if _exception(a, b) or _exception(b, a):
        return False  # "the enterprise SLA is 1 hour" against "our first-response SLA is four hours"
    if a.qualifiers and b.qualifiers and not a.qualifiers & b.qualifiers:
        return False  # p95 against p99: two quantities
    if a.target != b.target:  # a rule against what was seen: beyond its bound, or not the one amount it must be
        rule = a if a.target else b
        if _breaks(a, b) or _breaks(b, a):
            return True
        if rule.goal or any(q.bound for q in rule.quantities) or not (
                _EXACT_RULE.search(rule.text) or statements.timeout(rule.text)):
            return False  # else one amount it must be ("retention must be 14 days", a timeout): compared as a value
    if any(q.agrees(d) for q in a.quantities for d in b.denied) or \
            any(q.agrees(d) for q in b.quantities for d in a.denied):
        return True
    for dimension in {q.dimension for q in a.quantities}:
        kinds = set(_counts(a, b, dimension))
        if not kinds:
            continue
        mine = [q.amount for q in a.quantities if q.dimension == dimension]
        theirs = [q for q in b.quantities if q.dimension in kinds]
        if not any(statements.Quantity(q.dimension, x, any(p.approximate for p in a.quantities)).agrees(q)
                   for x in mine for q in theirs):
            return True
    if any(_same_day(x, y) for x in a.dates for y in b.denied_dates) or \
            any(_same_day(x, y) for x in b.dates for y in a.denied_dates):
        return True  # one gives the date the other says it is not
    if a.dates and b.dates and not any(_same_day(x, y) for x in a.dates for y in b.dates):
        return True
    return bool(a.days and b.days and not a.days & b.days)  # "on Tuesdays" against "Thu 10:00"


def _exception(rule: statements.Statement, other: statements.Statement) -> bool:
    """`rule` is a rule of a scope ("the SLA in the enterprise contract says 1 hour", "Contractor
    logins must use at least 16 characters") and `other` names none: the rule is an exception for
    its scope and says nothing of the general case. (A rule that names no scope holds in every
    one: a scoped case may break it.)"""
    return rule.target and bool(rule.value_scopes) and not other.value_scopes


# a rule of one amount: "retention must be 14 days" (a bound, a goal or a condition is none)
_EXACT_RULE = rule("exact rule", r"\b(?:must|needs? to|has to|have to)\s+be\s+(?:\$|€|~)?\d", re.I,
        reads=("logs older than two weeks are already gone when I search, retention must be 14 days",),
        skips=("Application logs are kept for 30 days.",))


def _breaks(rule: statements.Statement, seen: statements.Statement) -> bool:
    """`seen`, no rule itself, gives an amount beyond a bound `rule` states as what holds ("p95
    under 200 ms" against "p95 is 320 ms", "at least 12 characters" against "accepts an
    8-character password"). A goal may be missed without anyone being wrong ("Goal for the
    quarter: 99.5%" against "99.2% this week"), and `seen` agrees when any amount it gives of
    the bound's kind lies within it ("p95 latency 182ms (24h)": the 24 hours are its window;
    its own unit first, then a count `_counts` takes for it). A limit `seen` gives is compared
    as a limit ("take up to 45 days" against "within 30 days": `Quantity.breaks`)."""
    if not rule.target or rule.goal or seen.target:
        return False
    for bound in (q for q in rule.quantities if q.bound):
        kinds = set(_counts(rule, seen, bound.dimension))
        amounts = [q for q in seen.quantities if q.dimension == bound.dimension] or [
            q for q in seen.quantities if q.dimension in kinds]  # "8-character password, made one": the characters
        if amounts and all(q.breaks(bound) for q in amounts):
            return True
    return False


def _same_day(x: tuple, y: tuple) -> bool:
    return all(p is None or q is None or p == q for p, q in zip(x, y))


def _names_meet(a: frozenset, b: frozenset) -> bool:
    """Some name of one is a name of the other ("Postgres" and "PostgreSQL" are one)."""
    return any(x == y or (min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x))) for x in a for y in b)


def _choices_differ(a: statements.Statement, b: statements.Statement, strict: bool = False) -> bool:
    if (a.rejected and _names_meet(a.rejected, (b.names | b.mentioned) - b.rejected)) or \
            (b.rejected and _names_meet(b.rejected, (a.names | a.mentioned) - a.rejected)):
        return True  # one says "not X" (or X was retired) where the other uses X
    if _drops(a, b) or _drops(b, a):
        return True
    if a.outside or b.outside:
        return False  # one sets what it names apart from the thing the other's name is for
    if a.names and b.names and not _seen(a.names, b, strict) and not _seen(b.names, a, strict):
        return True  # two names for one role: each uses one the other never mentions
    return _versions_differ(a, b)


def _seen(names: frozenset, other: statements.Statement, strict: bool) -> bool:
    """`other` says one of `names`: as a name ("Postgres", "PostgreSQL"), or, unless `strict`,
    as a word of most of its letters ("postgres" for "PostgreSQL", not "mail" for "Mailchimp")."""
    if _names_meet(names, other.names if strict else other.names | other.mentioned):
        return True
    return not strict and any(min(len(x), len(w)) / max(len(x), len(w)) >= MOST_LETTERS and _names_meet({x}, {w})
                              for x in names for w in other.words)


def _drops(a: statements.Statement, b: statements.Statement) -> bool:
    """`b` uses another name than `a` and denies or retires, in any case, the one `a` uses:
    "we send backend errors to Rollbar, the sentry DSN in .env is dead" against "reported to
    Sentry"; "builds with Maven, no gradle files" against "build with Gradle"."""
    return bool(a.names and b.names) and not _names_meet(a.names, b.names) and _names_meet(a.names, b.dropped)


def _versions_differ(a: statements.Statement, b: statements.Statement) -> bool:
    """One name in versions that do not agree ("React 18" against "React 19"; "v1.29.4"
    against "1.27", two numbers without a name): a version agrees with one that begins
    with it ("1.29" and "1.29.4", "iOS 16" and "iOS 16.7"), and a version in use with a
    lowest one that will do when it is that or later ("running iOS 16.7" and "requires iOS
    15"; two lowest ones must agree)."""
    for name in {n for n, _ in a.versions} & {n for n, _ in b.versions}:
        mine, theirs = [v for n, v in a.versions if n == name], [v for n, v in b.versions if n == name]
        if any(x[:len(y)] == y or y[:len(x)] == x for x in mine for y in theirs):
            continue
        if a.at_least != b.at_least:
            lowest, used = (mine, theirs) if a.at_least else (theirs, mine)
            if any(u >= low for u in used for low in lowest):
                continue
        return True
    return False


def _sides(pairs: list[tuple[int, int]], weights: list[float]) -> tuple[list[int], list[int]]:
    """Two sides from conflicting pairs: the fragment in most conflicts and whoever agrees
    with it on one side, those it conflicts with on the other; the heavier side is A."""
    degree: dict[int, int] = {}
    for i, j in pairs:
        degree[i] = degree.get(i, 0) + 1
        degree[j] = degree.get(j, 0) + 1
    seed = min(degree, key=lambda i: (-degree[i], i))
    one, other = {seed}, set()
    changed = True
    while changed:
        changed = False
        for i, j in pairs:
            for x, y in ((i, j), (j, i)):
                if x in one and y not in other and y not in one:
                    other.add(y)
                    changed = True
                elif x in other and y not in one and y not in other:
                    one.add(y)
                    changed = True
    a, b = sorted(one), sorted(other)
    if (sum(weights[i] for i in b), -min(b)) > (sum(weights[i] for i in a), -min(a)):
        a, b = b, a
    return a, b


def conflict_risk(found: list[Found], weights: list[float]) -> float:
    """See the module docstring: 2 x the weighted share of fragments on a B side, at most 1."""
    total = sum(weights)
    if not found or not total:
        return 0.0
    minority = {i for f in found for i in f.b}
    return min(1.0, 2 * sum(weights[i] for i in minority) / total)
