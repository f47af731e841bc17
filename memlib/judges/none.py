"""The `none` judge: reads nothing, so nothing is ever flagged (duplicates are still caught
on write). For a store whose memories are not statements, or whose owner reads them elsewhere."""

from __future__ import annotations

from typing import Any

from memlib.errors import InvalidInput


class NoJudge:
    spec = "none"

    def settings(self) -> dict[str, Any]:
        return {}

    def read(self, items):
        return [[] for _ in items]

    def find_many(self, groups, lexicon=None):
        return [[] for _ in groups]


def make(argument: str, **settings: Any) -> NoJudge:
    if argument or settings:
        raise InvalidInput("the judge 'none' takes no model or settings")
    return NoJudge()
