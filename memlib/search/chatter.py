"""A message that says nothing of its own: "ok", "lol thanks", "when", "WHAT", "👍".

In real chats about one message in ten is like that (bench/chats: 46 of 388). Its vector is
made of almost nothing: the speaker's name, a question word, and the turn it replies to when it
has one (store/batch.py: fill_context). So "Maya: when" is close to every "When did Maya ...?"
and to whatever it replies to, and a top ten fills with "when" and "aww" in front of the
message that answers. It cannot answer anything, so search ranks it after every candidate that
says something (search.said_last). LoCoMo's turns are written out in full: 13 of its 2,760
turns in conversations 0-4 say nothing by this test.

Words of their own are any number, any word in a script other than Latin (a Chinese turn is
never empty), and any Latin word of three letters or more that is neither a function word
nor a chat interjection below.
"""

from __future__ import annotations

import re

from memlib.models import unspoken

# English function words of three letters or more: pronouns, determiners, auxiliaries and
# modals, prepositions, conjunctions, question words and the adverbs that carry no topic
FUNCTION_WORDS = frozenset("""
all and any are but can could did does doing done for from had has have her hers herself
him himself his how its itself may might must myself nor not our ours ourselves she should
that the their theirs them themselves then there these they this those was were what when
where which who whom whose why will with would you your yours yourself yourselves
about above after again against among around because been before being below between both
during each either else ever every few into just more most much off once only other over own
same some such than too under until very while also still here now yet out get got let
one ones something anything nothing everything someone anyone everyone thing
""".split())
# what people send in a chat to react rather than to say something
INTERJECTIONS = frozenset("""
lol lmao rofl haha hahaha hehe omg wow aww ugh hmm hmmm meh yay yeah yep yup yes nope okay
sure thanks thank thx cheers great nice cool good fine awesome damn welcome hey hello bye
please sorry oops wait really same
""".split())
_WORD = re.compile(r"\w+")
_LATIN = re.compile(r"[A-Za-z]+")


def said_nothing(words: str, speaker: str | None = None) -> bool:
    """True when `words` (a turn's own words; a leading "Speaker:" naming `speaker` is not
    counted) hold no word of their own (module docstring)."""
    for token in _WORD.findall(unspoken(speaker, words.strip())):
        if token.isdigit() or not _LATIN.fullmatch(token.replace("_", "")):
            return False  # a number, or a word of another script
        word = token.lower()
        if len(word) >= 3 and word not in FUNCTION_WORDS and word not in INTERJECTIONS:
            return False
    return True
