"""The statement reader's rules as rows: each pattern the reader (statements.py, conflicts.py)
reads text with is registered here with its name, at least one text it must read (the
pattern is found in it) and one it must not. tests/test_reading_rules.py runs every example,
so a pattern changed to read something new keeps reading what it read, or its row says what
changed. Most examples are fragments of the hand-written judgement sets
(bench/judgement/sets); a pattern used on part of a sentence (a clause, the words before a
number) has examples of such parts.

    from memlib.consensus.patterns import RULES
    RULES["negated"].pattern, RULES["negated"].reads, RULES["negated"].skips
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern
    reads: tuple[str, ...]  # texts the pattern is found in
    skips: tuple[str, ...]  # texts it is not found in
    where: str  # the module that reads with it


RULES: dict[str, Rule] = {}


def rule(name: str, pattern: str, flags: int = 0, *, reads: tuple[str, ...], skips: tuple[str, ...]) -> re.Pattern:
    """Compile `pattern` and register it as the row `name`, read by the module that calls:
    a name is one rule, and a rule without a text it reads and one it skips is refused (at
    import, so a missing example fails every test)."""
    if name in RULES:
        raise ValueError(f"reading rule {name!r} is registered twice")
    if not reads or not skips:
        raise ValueError(f"reading rule {name!r} needs a text it reads and a text it skips")
    compiled = re.compile(pattern, flags)
    RULES[name] = Rule(name, compiled, tuple(reads), tuple(skips), sys._getframe(1).f_globals.get("__name__", ""))
    return compiled
