"""The `rules` judge: the English statement reader of memlib.consensus.conflicts. A newer
memory contradicts an older one with another number or date ("value"), a negation
("negation") or another named choice ("choice"); one that reports the change ("moved to",
"as of March") updates it. What it cannot catch is in conflicts' docstring."""

from __future__ import annotations

from typing import Any

from memlib.consensus import conflicts
from memlib.errors import InvalidInput
from memlib.judges import Option


class RulesJudge:
    spec = "rules"

    def settings(self) -> dict[str, Any]:
        return {}

    def read(self, items: list[tuple[str, list[Option]]]) -> list[list[tuple[Option, str]]]:
        return [self._one(text, options) for text, options in items]

    @staticmethod
    def find_many(groups: list[tuple[list[str], list[float]]], lexicon=None) -> list[list[conflicts.Found]]:
        """A Consensus cluster read whole, with the lexicon its clustering learned."""
        return conflicts.find_many(groups, lexicon)

    @staticmethod
    def _one(text: str, options: list[Option]) -> list[tuple[Option, str]]:
        return [(o, kind) for o in options if (kind := conflicts.between(o.text, text, o.cosine))
                and (kind == "update" or not _outdated(o, options, text))]


def _outdated(old: Option, options: list[Option], text: str) -> bool:
    """Whether a newer option updates `old` and `text` confirms that option (states what it
    states, conflicts.confirms): the newer supersedes, so what `text` says against `old` is
    what the update said, not a contradiction ("started 02:31 UTC" after "moved the ETL to
    02:30 UTC", against "the ETL kicks off at 01:00 UTC"). The two options' own cosine is not
    at hand: both are close to `text`, and `between` takes them at CLOSE."""
    return any(o.created_at > old.created_at and o.cosine >= conflicts.CLOSE and conflicts.confirms(o.text, text)
               and conflicts.between(old.text, o.text, conflicts.CLOSE) == "update" for o in options)


def make(argument: str, **settings: Any) -> RulesJudge:
    if argument or settings:
        raise InvalidInput("the judge 'rules' takes no model or settings")
    return RulesJudge()
