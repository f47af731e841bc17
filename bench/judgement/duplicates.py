"""Pairs of memories written by hand on 2026-11-26 to measure duplicate detection on write:
an existing memory, a new one written later into the same project, and the truth.

- `same`: the new memory says nothing the existing one does not (a re-statement, a copy with
  other case or spacing, a paraphrase by another agent, a translation of units into words);
- `other`: it says something else, often in nearly the same words: another number, a
  negation, another named choice, another scope (staging against production), another
  subject in the same template, or more than the first (a detail the first lacks).

Written in several voices (chat lines, status notes, tickets, commit-message style,
a person's own notes) before any detector was written; the pairs are sets/duplicates.jsonl
(sets/README.md). Every third pair is the check (its row says so), kept aside: methods are
chosen on the rest (`dev`) and the check is run to report.
"""

from __future__ import annotations

import json
from pathlib import Path

# (kind, existing, new, truth, what the pair tests), as sets/duplicates.jsonl holds them
ROWS = [json.loads(line) for line in (Path(__file__).parent / "sets" / "duplicates.jsonl").read_text(encoding="utf-8").splitlines()]
PAIRS: list[tuple[str, str, str, str, str]] = [(r["kind"], r["existing"], r["new"], r["truth"], r["tests"]) for r in ROWS]


def split(name: str) -> list[tuple[str, str, str, str, str]]:
    """'dev' (two of every three pairs), 'check' (every third) or 'all'."""
    return [p for p, row in zip(PAIRS, ROWS) if name in ("all", row["split"])]
