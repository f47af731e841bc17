"""Duplicates caught on write (issue 42): a new memory that says what a memory of the same
project already says.

Only what a memory states can be said twice: decisions, patterns, insights, issues,
learnings and a person's notes (`KINDS`). Conversation turns, summaries and the task tree are
events and structure: "Thanks!" said twice is two turns.

Two memories of one project are

- **exact** duplicates when their normalised texts are equal (Unicode NFKC, case folded,
  every run of what is not a letter or digit one space: "Use Postgres 16." and "use
  postgres 16" are one);
- **near** duplicates when they mean the same: the cosine of their embeddings is at least
  `NEAR_COSINE`, and nothing a reader could tell apart by the words alone is stated
  differently (`same_claims`): the same numbers, the same negations ("not", "never", "no"),
  the same scopes (staging, production), no name on one side the other never says, and not
  one word swapped for another in otherwise equal words ("rejects"/"accepts",
  "per hour"/"per day": embeddings put such pairs closest of all).

These are the write's checks: word lists and one comparison each, certain enough to merge or
link on. Whether a memory contradicts or updates another is read after the write, by the
store's judge (memlib.judges). Measured on hand-written pairs: `bench/judgement/dedupe.py`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterator, Literal

import numpy as np

from memlib.consensus.patterns import rule
from memlib.consensus.statements import STOP_WORDS, WORD_NUMBERS

KINDS = ("decision", "pattern", "insight", "issue", "learning", "manual")
NEAR_COSINE = 0.9  # chosen on the dev pairs (bench/judgement/duplicates.py); see the README
CANDIDATES = 10  # nearest memories of the project each new one is compared with
SMALL = 16  # a batch with more new memories of one kind and project reads that group's rows once
BLOCK = 1024  # new memories whose cosines to a project's stored ones are one matrix product
# A project's new memories in one batch, up to this many, are also compared with the CANDIDATES
# nearest of those before them in it (n * n cosines: about a second at this many); more, and
# they are compared with one another by their normalised text only
WITHIN = 8192
_NOT_WORD = rule("not a word", r"[\W_]+",
        reads=("Cache TTL is 60 s",), skips=("cache",))
_CONTRACTIONS = rule("a contraction", r"\b(do|does|did|is|are|was|were|has|have|had|ca|wo|should|could|would)n[’']t\b", re.I,
        reads=("Employees don't track hours.",), skips=("Contractors log their hours in Harvest.",))
_NUMBER = rule("a number in a repeat", r"\d+(?:,\d{3})*(?:\.\d+)?",
        reads=("Cache TTL is 60 s",), skips=("The frontend uses Vue",))
PREFIX = 5  # words compared by their first letters ("deploying" and "deploy" are one)
_WORD = rule("a word in a repeat", r"[\w][\w.+#-]*[\w+#]|\w",
        reads=("Cache TTL is 60 s",), skips=("--",))
NEGATIONS = {w: "not" for w in ("not", "no", "never", "without", "none", "nothing", "neither", "nor", "cannot",
                                "disabled", "off")}
SCOPES = {"staging": "staging", "stage": "staging", "production": "production", "prod": "production",
          "dev": "dev", "development": "dev", "qa": "qa", "sandbox": "sandbox", "preview": "preview",
          "ios": "ios", "android": "android", "web": "web", "mobile": "mobile", "desktop": "desktop"}


@dataclass(frozen=True)
class Match:
    """The new memory (its position in the batch) duplicates `of` (a stored memory's id)."""

    position: int
    of: str
    kind: Literal["exact", "near"]
    cosine: float
    project_id: str  # of both (the screen compares within a project)


@functools.lru_cache(maxsize=1 << 16)  # a new memory's is compared with each candidate's
def normalised(text: str) -> str:
    """What two texts must share to be exact duplicates."""
    return _NOT_WORD.sub(" ", _expanded(unicodedata.normalize("NFKC", text)).casefold()).strip()


def _expanded(text: str) -> str:
    """"don't" as "do not", "can't" as "can not": one negation however it is written."""
    return _CONTRACTIONS.sub(lambda m: {"ca": "can", "wo": "will"}.get(m.group(1).lower(), m.group(1)) + " not",
                             text)


def _stems(words) -> set[str]:
    return {w[:PREFIX] for w in words}


def same_claims(old: str, new: str) -> bool:
    """Nothing `old` and `new` state is told apart by their words (see the module docstring)."""
    a, b = normalised(old).split(), normalised(new).split()
    if _marked(a, NEGATIONS) != _marked(b, NEGATIONS) or _marked(a, SCOPES) != _marked(b, SCOPES):
        return False
    if sorted(_numbers(old)) != sorted(_numbers(new)):
        return False
    said_a, said_b = f" {' '.join(a)} ", f" {' '.join(b)} "
    if any(f" {n} " not in said_b for n in _names(old)) and any(f" {n} " not in said_a for n in _names(new)):
        return False  # each names something the other never says
    words_a = _stems(w for w in a if w not in STOP_WORDS and w not in NEGATIONS)
    words_b = _stems(w for w in b if w not in STOP_WORDS and w not in NEGATIONS)
    only_a, only_b, shared = words_a - words_b, words_b - words_a, words_a & words_b
    if len(only_a) == 1 and len(only_b) == 1 and len(shared) >= 2:
        return False  # one word swapped for another in otherwise equal words
    return True


def _marked(words: list[str], marks: dict[str, str]) -> set[str]:
    """Which of `marks` (a word -> what it marks) `words` hold."""
    return {marks[w] for w in words if w in marks}


def _names(text: str) -> set[str]:
    """The words `text` writes as a name: capitalised past its first word, or mixing letters
    with digits or dots ("Postgres", "argon2id", "db.t4g.medium"), normalised."""
    words = _WORD.findall(text)
    return {normalised(w) for n, w in enumerate(words)
            if (n and w[:1].isupper() and not w.isupper() or len(w) > 1 and w.isupper())
            or (any(c.isdigit() for c in w) and any(c.isalpha() for c in w))} - {""}


def same_fact(one: str, other: str) -> bool:
    """Two statements of one topic (a cluster's) that state numbers, the same ones, and
    nothing told apart by their words (`same_claims`): one fact said twice in other words
    ("The checkout cache TTL is 300 seconds", "Checkout cache entries expire after 300
    seconds"), which a consensus unit's summary says once."""
    return bool(_numbers(one)) and same_claims(one, other)


def _numbers(text: str) -> list[float]:
    """The numbers `text` states, in digits or in words ("three", "ten")."""
    found = [float(n.replace(",", "")) for n in _NUMBER.findall(text)]
    return found + [float(WORD_NUMBERS[w]) for w in normalised(text).split()
                    if w in WORD_NUMBERS and w not in ("a", "an")]  # an article is no count


def judge(old: str, new: str, cosine: float) -> Literal["exact", "near"] | None:
    """Whether `new` duplicates `old`, given the cosine of their embeddings."""
    if normalised(old) == normalised(new):
        return "exact"
    if cosine >= NEAR_COSINE and same_claims(old, new):
        return "near"
    return None


def best(text: str, options: list[tuple[str, float, str, Any]]) -> tuple[str, str, float] | None:
    """Of (id, cosine, text, created_at) options, the one `text` duplicates: an exact one
    first, else the nearest near one, the oldest of equals (the one the others repeat), as
    (id, kind, cosine)."""
    found = [(kind == "exact", round(score, 4), created, memory_id, kind, score)
             for memory_id, score, other, created in options if (kind := judge(other, text, score))]
    if not found:
        return None
    chosen = min(found, key=lambda f: (not f[0], -f[1], f[2]))
    return chosen[3], chosen[4], chosen[5]


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def nearest_earlier(vectors: np.ndarray, members: list[int], floor: float = NEAR_COSINE
                    ) -> dict[int, list[tuple[int, float]]]:
    """For each of `members` (rows of `vectors`, in batch order), the CANDIDATES members
    before it nearest it of those at least `floor` close (nothing further can be a near
    repeat; an exact one is found by its text, MemoryStore._repeats_within): {member:
    [(earlier member, cosine)], nearest first, the earliest of equals}, a BLOCK of members at
    a time."""
    unit = np.ascontiguousarray(unit_rows(vectors[members]), dtype=np.float32)
    out: dict[int, list[tuple[int, float]]] = {}
    for start in range(1, len(members), BLOCK):
        end = min(start + BLOCK, len(members))
        cosines = unit[start:end] @ unit[:end].T
        rows, cols = np.nonzero(cosines >= floor)
        before = cols < rows + start  # itself and after it are not before it
        rows, cols = rows[before], cols[before]
        found: dict[int, list[tuple[float, int]]] = {}
        for r, c, cosine in zip(rows.tolist(), cols.tolist(), cosines[rows, cols].tolist()):
            found.setdefault(r, []).append((cosine, c))
        for r, near in found.items():
            near.sort(key=lambda f: (-f[0], f[1]))
            out[members[start + r]] = [(members[c], cosine) for cosine, c in near[:CANDIDATES]]
    return out


def nearest(vectors: np.ndarray, members: list[int], stored: np.ndarray
            ) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
    """The CANDIDATES rows of `stored` (unit rows) nearest each of `members` (rows of
    `vectors`), a BLOCK of members at a time: (the block, the cosines best first, the rows)."""
    k = min(CANDIDATES, len(stored))
    matrix = np.ascontiguousarray(stored, dtype=np.float32)
    for start in range(0, len(members), BLOCK):
        block = members[start:start + BLOCK]
        if k == 0:
            yield block, np.zeros((len(block), 0), np.float32), np.zeros((len(block), 0), np.int64)
            continue
        cosines = np.ascontiguousarray(unit_rows(vectors[block]), dtype=np.float32) @ matrix.T
        rows = np.argpartition(-cosines, k - 1, axis=1)[:, :k] if k < len(stored) else \
            np.tile(np.arange(len(stored)), (len(block), 1))
        best = np.take_along_axis(cosines, rows, axis=1)
        order = np.argsort(-best, axis=1, kind="stable")
        yield block, np.take_along_axis(best, order, axis=1), np.take_along_axis(rows, order, axis=1)
