"""The participant a question names: "What did Caroline paint?" names Caroline. In a
conversation, what a person did or thinks is mostly in their own turns (on LoCoMo's
conversations 0-4, 78% of the evidence of a question naming one speaker is that speaker's),
so those turns are likelier to hold the answer."""

from __future__ import annotations

import re
from collections.abc import Iterable


def named_speaker(text: str, speakers: Iterable[str | None]) -> str | None:
    """The one speaker of `speakers` whose first name is a whole word of `text` (case as
    written: a name is capitalised), or None when no speaker or more than one is named."""
    named = {speaker for speaker in speakers if speaker and speaker.split()
             and re.search(rf"(?<!\w){re.escape(speaker.split()[0])}(?!\w)", text)}
    return named.pop() if len(named) == 1 else None
