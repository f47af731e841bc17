"""Conflicts inside a cluster, found without a language model (seed 001's disagreements).

Each fragment's claims are read from its words:
- values: numbers with their unit (units of one dimension converted: 2 s is 2,000 ms) and
  dates in the usual English and ISO forms; two fragments that give the same unit or a date
  different values disagree ("value");
- named choices: the names a fragment says were chosen (a name after a choice verb such as
  "uses", "went with", "picked", "settled on", or before "is the"), and any capitalised word
  another fragment of the cluster chose so, less the ones it says were not ("rather than",
  "instead of", "over", "not"); two fragments that each name a choice the other does not
  disagree ("choice");
- polarity: a fragment that negates ("not", "never", "n't", "disabled", "inactive", "off",
  "without") against one that does not, about the same words, disagree ("negation").
Two fragments are compared only when they share enough of their other words (SAME_THING)
and, given the clustering's lexicon, neither names a thing the other does not: they talk
about the same thing. Fragments are grouped by what they claim; the largest group
(by confidence) is side A of each disagreement, each other group a side B.

What it cannot catch: contradictions in words it does not read as values, names or
negation (antonyms beyond its short list, "faster" against "slower", a claim and its
consequence), a choice named in lower case without a choice verb, numbers whose units it
does not know compared across units, sarcasm and hedging ("hardly", "barely"), and
disagreements between fragments that clustering put apart.

`conflict_risk` (Cluster.conflict_risk, read by sql/stg_clusters.sql) is defined here once:
the confidence-weighted share of a cluster's fragments that sit on a B side, doubled and
capped at 1: 0 when all agree, 1 when the cluster splits in halves.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from datetime import date

SAME_THING = 0.2  # Jaccard of two fragments' other content words, at least (tuned on seeds 1-3)
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
MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
# English words that say nothing of a statement's subject (its overlap with another)
STOP_WORDS = frozenset("""a an the of for on in at to is are was were be been its it we our and or as by with this
that has have had about from into over than then there their they them he she you your i me my not no so if but""".split())
# ... and, for claims, the words a report uses around any value ("the current team sits at ...")
STOP = STOP_WORDS | {"set", "sits", "comes", "current", "right", "now", "s", "'s", "day", "team"}

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATES = [
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), lambda m: (int(m[1]), int(m[2]), int(m[3]))),
    (re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I),
     lambda m: (int(m[3]), MONTHS[m[1].lower()], int(m[2]))),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\.?,?\s+(\d{{4}})\b", re.I),
     lambda m: (int(m[3]), MONTHS[m[2].lower()], int(m[1]))),
]
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w,]\d)\s*(%|[A-Za-z]+)?")
_TOKEN = re.compile(r"[A-Za-z][\w.+#-]*[\w+#]|[A-Za-z]|\d[\w.,]*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _cued(cues) -> re.Pattern:
    """The word after any of `cues` (a zero-width match at each place, so cues may overlap)."""
    alternatives = "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))
    return re.compile(rf"(?=(?:^| )(?:{alternatives}) ([\w.+#-]+))")


_CHOOSE, _REJECT = _cued(CHOICE_CUES), _cued(REJECT_CUES)
_IS_THE = re.compile(r"[\w.+#-]+ (is the|is our|serves as|powers|is what) ")


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


def same_thing(a: Claims, b: Claims, lexicon=None) -> bool:
    """Enough shared words, and (with a lexicon, consensus/lexicon.py) no naming word on
    each side that the other lacks."""
    union = a.words | b.words
    if not union or len(a.words & b.words) / len(union) < SAME_THING:
        return False
    return lexicon is None or not lexicon.distinct(a.words, b.words)


@dataclass
class Found:
    """A disagreement as found: its kind, what it is about, and the fragments of each side."""

    kind: str
    point: str
    a: list[int]
    b: list[int]


def _groups(members: list[int], key) -> list[list[int]]:
    groups: dict = {}
    for i in members:
        groups.setdefault(key(i), []).append(i)
    return list(groups.values())


def find(texts: list[str], weights: list[float], lexicon=None) -> list[Found]:
    """The disagreements among one cluster's fragments (indexes into `texts`); with the
    clustering's lexicon, fragments about two different things are not compared."""
    parsed = [claims(t) for t in texts]
    names = frozenset().union(*(c.chosen for c in parsed))
    # a capitalised word is a choice if the cluster names it as one elsewhere
    parsed = [replace(c, chosen=c.chosen | (c.capitalised & names)) for c in parsed]
    out: list[Found] = []

    def split(kind: str, point: str, members: list[int], key) -> None:
        groups = _groups(members, key)
        if len(groups) < 2:
            return
        groups.sort(key=lambda g: (-sum(weights[i] for i in g), min(g)))
        major = groups[0]
        for minor in groups[1:]:
            if any(same_thing(parsed[i], parsed[j], lexicon) for i in major for j in minor):
                out.append(Found(kind, point, major, minor))

    dimensions = sorted({d for c in parsed for d in c.values})
    for dimension in dimensions:
        members = [i for i, c in enumerate(parsed) if dimension in c.values]
        point = "the date" if dimension == "date" else f"the value ({dimension.removeprefix('count:') or 'number'})"
        split("value", point, members, lambda i, d=dimension: parsed[i].values[d])
    named = [i for i, c in enumerate(parsed) if c.chosen]
    if named:
        split("choice", "the choice", named, lambda i: _choice_key(parsed, named, i))
    valued = {i for f in out for i in f.a + f.b}
    plain = [i for i in range(len(parsed)) if i not in valued]
    split("negation", "whether it holds", plain, lambda i: parsed[i].negative)
    return out


def _choice_key(parsed: list[Claims], members: list[int], i: int) -> frozenset:
    """A fragment's choice without the names every fragment of the cluster shares (the
    subject's own names, such as "Kafka consumer"): what sets it apart."""
    common = frozenset.intersection(*(parsed[j].chosen for j in members))
    return parsed[i].chosen - common


def conflict_risk(found: list[Found], weights: list[float]) -> float:
    """See the module docstring: 2 x the weighted share of fragments on a B side, at most 1."""
    total = sum(weights)
    if not found or not total:
        return 0.0
    minority = {i for f in found for i in f.b}
    return min(1.0, 2 * sum(weights[i] for i in minority) / total)
