"""What a question asks for: a time ("When did ...", "What year ..."), a number ("How many
...", "How long ..."), a place ("Where ...", "Which city ..."). A memory whose own words hold a
thing of that kind is likelier to answer it: a turn that answers "when" says when. This is the
expected answer type that question-answering systems have matched since TREC's QA track; here
with patterns over English words, no model.

On LoCoMo's conversations 0-4, 50-86% of the evidence of a "When ..." question names a time
in its own words, against 8-14% of all turns; for "How many/much/long ..." 38-82% hold a
number (6-11% of all turns)."""

from __future__ import annotations

import re

from memlib.search.dates import MONTHS

_OPENS = r"(?:^\s*|[.;:?!]\s*)"  # a question word opening a sentence or clause, not "... when she left"
_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_UNITS = r"morning|afternoon|evening|night|day|week|weekend|month|year|summer|winter|spring|fall|autumn"
_NUMBERS = (r"\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred"
            r"|dozen|a\s+couple|a\s+few|several|once|twice")

# kind: (what asks for it, what holds it)
KINDS: dict[str, tuple[re.Pattern, re.Pattern]] = {
    # a date, a weekday, a month ("May" capitalised: "may" is mostly the verb), a day of the month
    # ("the 26th"), a time of day ("2pm", "07:00", "noon"), or a time relative to when the words
    # were written ("yesterday", "last week", "two days ago", "this morning")
    "time": (re.compile(rf"{_OPENS}when\b|\b(?:what|which)\s+(?:year|month|week|day|date|time)\b"
                        r"|\bhow\s+long\s+ago\b", re.IGNORECASE),
             re.compile(rf"\b(?:yesterday|today|tonight|tomorrow|recently|ago|noon|midnight"
                        rf"|(?:last|next|this|past)\s+(?:{_UNITS}|{_WEEKDAYS})|the\s+other\s+day|{_WEEKDAYS}"
                        rf"|{'|'.join(m for m in MONTHS if m != 'may')}|(?-i:May)|(?:19|20)\d\d"
                        r"|\d{1,2}(?:st|nd|rd|th)|\d{1,2}(?::\d\d)?\s*[ap]\.?m\.?|\d{1,2}:\d\d|\d{1,2}/\d{1,2})\b",
                        re.IGNORECASE)),
    # a number in words, or in digits wherever they open a word ("45", "£180", "40k", "3h20";
    # not "v2" or "S3", which name things)
    "number": (re.compile(r"\bhow\s+(?:many|much|often|long|old)\b", re.IGNORECASE),
               re.compile(rf"\b(?:{_NUMBERS})\b|\b\d", re.IGNORECASE)),
    # a capitalised name after a word that places something ("in Chicago", "went to Paris")
    "place": (re.compile(rf"{_OPENS}where\b|\b(?:what|which)\s+(?:city|country|state|place|town|restaurant"
                         r"|park|beach)\b", re.IGNORECASE),
              re.compile(r"\b(?:in|at|to|from|near|visit(?:ed|ing)?)\s+(?:the\s+)?"
                         rf"(?!(?:{'|'.join(MONTHS)}|{_WEEKDAYS})\b)(?-i:[A-Z][a-z]+)", re.IGNORECASE)),
}


def asked_for(question: str) -> tuple[str, ...]:
    """The kinds of thing the question asks for (none for most questions)."""
    return tuple(kind for kind, (asks, _) in KINDS.items() if asks.search(question))


def holds(text: str, kinds: tuple[str, ...]) -> bool:
    """Whether the text holds a thing of one of these kinds."""
    return any(KINDS[kind][1].search(text) for kind in kinds)
