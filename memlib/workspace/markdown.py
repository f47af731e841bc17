"""The workspace's markdown, read and written without losing a byte (seed 003).

A file is kept as its lines. Parsing finds the entries in them (a span of lines each) and the
sections the typed records read; everything else is never interpreted and comes back as it
was. Changing a file replaces, removes or inserts the lines of one entry, so an unchanged
file renders byte-identical and parse -> render -> parse is stable (tests/test_workspace_fuzz.py).

Entries:
- a heading `### [YYYY-MM-DD] [HH:MM] - <kind>[: <title>]` and the lines under it up to the
  next heading of level 1 to 3, in any file that holds entries (daily logs, MEMORY.md);
- a daily log's summary section (`## 摘要` / `## Summary`), one summary entry;
- in MEMORY.md, a top-level bullet (`- ...` and its indented lines) outside any entry.
Headings inside fenced code blocks are text. Kind labels and section names are read in
Chinese and English (LABELS, SECTIONS).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import date, time

from memlib.models import Kind

# Kind labels in entry headings: the first of each is how memlib writes it in that language.
LABELS: dict[Kind, dict[str, tuple[str, ...]]] = {
    Kind.CONVERSATION: {"zh": ("对话", "会话"), "en": ("conversation", "chat")},
    Kind.DECISION: {"zh": ("决策", "决定"), "en": ("decision",)},
    Kind.SUMMARY: {"zh": ("摘要", "总结"), "en": ("summary",)},
    Kind.MANUAL: {"zh": ("手记", "笔记", "备注"), "en": ("manual", "note")},
    Kind.INSIGHT: {"zh": ("洞察",), "en": ("insight",)},
    Kind.ISSUE: {"zh": ("问题",), "en": ("issue",)},
    Kind.LEARNING: {"zh": ("经验",), "en": ("learning",)},
    Kind.PATTERN: {"zh": ("模式",), "en": ("pattern",)},
}
KIND_OF_LABEL = {label.casefold(): kind for kind, langs in LABELS.items()
                 for labels in langs.values() for label in labels}
ENTRY_KINDS = frozenset(LABELS)

# Section names, Chinese first: (key, zh, en...).
SECTIONS: dict[str, tuple[str, ...]] = {
    "summary": ("摘要", "summary"),
    "entries": ("记录条目", "entries", "log"),
    "role": ("角色定位", "role"),
    "personality": ("性格特征", "personality"),
    "values": ("价值观", "values"),
    "behavior_rules": ("行为准则", "behavior rules", "behaviour rules", "rules"),
    "basic": ("基本信息", "basic info", "basic information", "about"),
    "interests": ("兴趣爱好", "interests"),
    "goals": ("当前目标", "goals", "current goals"),
    "preferences": ("偏好设置", "preferences"),
}
FIELDS: dict[str, tuple[str, ...]] = {  # OWNER.md's basic information
    "name": ("姓名", "name"), "age": ("年龄", "age"), "occupation": ("职业", "occupation"),
}
TITLES = {  # the first heading memlib writes in a new file
    "daily": {"zh": "{date} 日志", "en": "{date} Log"},
    "MEMORY.md": {"zh": "长期记忆", "en": "Long-term Memory"},
}

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")  # "## C#" keeps its '#'; "## a ##" does not
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_ENTRY = re.compile(
    r"^(?:(?P<date>\d{4}-\d{2}-\d{2})[ \t]+)?(?:(?P<time>\d{1,2}:\d{2})[ \t]*)?"
    r"(?:[-–—][ \t]*)?(?P<label>[^\s:：]+)(?:[ \t]*[:：][ \t]*(?P<title>.*))?$")
_BULLET = re.compile(r"^[-*+][ \t]+(.*)$")
_CJK = re.compile(r"[\u3400-\u9fff]")


def section_key(name: str) -> str | None:
    """The section a heading names, in either language, or None."""
    folded = " ".join(name.split()).casefold()
    return next((key for key, names in SECTIONS.items() if folded in names), None)


def label(kind: Kind, language: str) -> str:
    return LABELS[kind][language][0]


@dataclass(frozen=True)
class Entry:
    """One entry of a file: lines [start, end) of it (its trailing blank lines included)."""

    kind: Kind
    body: str
    title: str | None
    day: date | None
    at: time | None
    section: str  # the `##` heading it sits under ('' above any)
    form: str  # heading, summary or bullet
    start: int
    end: int
    key: str = ""  # its identity in the file (see Document)

    @property
    def fields(self) -> tuple:
        """What a person can change: compared to tell an edit."""
        return (self.kind.value, self.title or "", self.body,
                self.day.isoformat() if self.day else "", self.at.strftime("%H:%M") if self.at else "")


@dataclass
class Document:
    """A markdown file as its lines, with the entries and sections found in them."""

    lines: list[str]
    entries: list[Entry] = field(default_factory=list)
    sections: dict[str, list[str]] = field(default_factory=dict)  # section key -> its body lines
    heads: list[tuple[int, int, str]] = field(default_factory=list)  # (line, level, text) outside code
    open_fence: str | None = None  # the fence of a code block the file leaves open at its end

    def render(self) -> str:
        return "".join(self.lines)

    @property
    def language(self) -> str | None:
        """zh if a heading is written in Chinese, en if there are headings, else None."""
        if any(_CJK.search(text) for _, _, text in self.heads):
            return "zh"
        return "en" if self.heads else None


def _date(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _time(text: str | None) -> time | None:
    if not text:
        return None
    hours, minutes = map(int, text.split(":"))
    return time(hours, minutes) if hours < 24 and minutes < 60 else None


def normal(body: str) -> str:
    """A text as an entry's body holds it: without blank lines before or after it."""
    return _trim(body.split("\n"))


def _trim(lines: list[str]) -> str:
    """Lines as one text: outer blank lines dropped, line ends as \\n, trailing spaces kept."""
    text = [line.rstrip("\r\n") for line in lines]
    while text and not text[0].strip():
        text.pop(0)
    while text and not text[-1].strip():
        text.pop()
    return "\n".join(text)


# A body line the parser would take for structure is written with a backslash before it (as
# markdown escapes it), and read back without: headings outside the body's own code blocks,
# fence lines when the body leaves a code block open, and lines that already start so.
_ESCAPED = re.compile(r"^\\+(#{1,6}(?:[ \t]|$)|[ ]{0,3}(?:`{3,}|~{3,}))")


def closes(line: str, fence: str) -> bool:
    """Whether `line` ends the code block `fence` opened: the same character, at least as many,
    and nothing else on the line (the one rule for the parser and for `escape`)."""
    bare = line.rstrip("\r\n")
    match = _FENCE.match(bare)
    return bool(match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
                and not bare.strip().lstrip(fence[0]))


def escape(body: str) -> str:
    lines = body.split("\n")
    fence, opened = None, None
    for line in lines:  # does the body leave a code block open?
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and closes(line, fence):
            fence = None
    opened, fence, out = fence is not None, None, []
    for line in lines:
        match = _FENCE.match(line)
        if _ESCAPED.match(line) or (match and opened):
            out.append("\\" + line)
        elif fence is not None:
            if closes(line, fence):
                fence = None
            out.append(line)
        elif match:
            fence = match.group(1)
            out.append(line)
        else:
            out.append("\\" + line if _HEADING.match(line) else line)
    return "\n".join(out)


def unescape(body: str) -> str:
    return "\n".join(line[1:] if _ESCAPED.match(line) else line for line in body.split("\n"))


def _body(lines: list[str]) -> str:
    return unescape(_trim(lines))


def norm(text: str) -> str:
    """How keys compare: NFC, whitespace collapsed, case folded."""
    return " ".join(unicodedata.normalize("NFC", text).split()).casefold()


def parse(text: str, entries: str = "none") -> Document:
    """`entries`: which entries the file holds: "none" (SPIRIT, OWNER, TOOLS), "daily" (a
    daily log: headings and its summary) or "memory" (MEMORY.md: headings and bullets)."""
    lines = text.splitlines(keepends=True)
    doc = Document(lines)
    heads: list[tuple[int, int, str]] = []  # (line, level, text) outside fences
    fenced = [False] * len(lines)
    fence = None
    for i, line in enumerate(lines):
        bare = line.rstrip("\r\n")
        opened = _FENCE.match(bare)
        if fence is not None:
            fenced[i] = True
            if closes(bare, fence):
                fence = None
            continue
        if opened:
            fence, fenced[i] = opened.group(1), True
            continue
        heading = _HEADING.match(bare)
        if heading:
            heads.append((i, len(heading.group(1)), heading.group(2)))
    doc.heads, doc.open_fence = heads, fence

    section, found = "", []
    for n, (i, level, name) in enumerate(heads):
        if level <= 2:
            section = name if level == 2 else ""
        end3 = next((j for j, lv, _ in heads[n + 1:] if lv <= 3), len(lines))
        if level == 2:
            key = section_key(name)
            end2 = next((j for j, lv, _ in heads[n + 1:] if lv <= 2), len(lines))
            if key and key not in doc.sections:
                doc.sections[key] = lines[i + 1:end2]
            if entries == "daily" and key == "summary":
                body = _body(lines[i + 1:end3])
                if body:
                    found.append(Entry(Kind.SUMMARY, body, None, None, None, section, "summary", i, end3))
        if level == 3 and entries != "none":
            entry = _heading_entry(name, lines, i, end3, section)
            if entry:
                found.append(entry)
    if entries == "memory":
        found.extend(_bullets(lines, heads, fenced, found))
    found.sort(key=lambda e: e.start)
    doc.entries = _keyed(found)
    return doc


def _heading_entry(name: str, lines: list[str], start: int, end: int, section: str) -> Entry | None:
    match = _ENTRY.match(name)
    kind = match and KIND_OF_LABEL.get(match.group("label").casefold())
    if not kind:
        return None
    day, at = _date(match.group("date")), _time(match.group("time"))
    if (match.group("date") and day is None) or (match.group("time") and at is None):
        return None  # "### 25:99 - decision" is a heading, not an entry
    title = (match.group("title") or "").strip() or None
    return Entry(kind, _body(lines[start + 1:end]), title, day, at, section, "heading", start, end)


def _bullets(lines: list[str], heads, fenced: list[bool], taken: list[Entry]) -> list[Entry]:
    """MEMORY.md's top-level bullets outside entries: a manual entry each."""
    inside = [False] * len(lines)
    for entry in taken:
        inside[entry.start:entry.end] = [True] * (entry.end - entry.start)
    section_at = [""] * len(lines)
    for n, (i, level, name) in enumerate(heads):
        if level <= 2:
            end = next((j for j, lv, _ in heads[n + 1:] if lv <= 2), len(lines))
            section_at[i:end] = [name if level == 2 else ""] * (end - i)
    out, i = [], 0
    while i < len(lines):
        bullet = None if inside[i] or fenced[i] else _BULLET.match(lines[i].rstrip("\r\n"))
        if not bullet or not bullet.group(1).strip():
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not inside[end] and not fenced[end] and lines[end][:1] in (" ", "\t") \
                and lines[end].strip():
            end += 1
        body = unescape("\n".join([bullet.group(1).rstrip()] + [line.strip() for line in lines[i + 1:end]]))
        out.append(Entry(Kind.MANUAL, body, None, None, None, section_at[i], "bullet", i, end))
        i = end
    return out


def _keyed(entries: list[Entry]) -> list[Entry]:
    """Each entry's identity in its file: what names it (its heading, or a bullet's words)
    in its section, and which occurrence of that name it is. Editing an entry's body keeps
    its key; so does adding or removing other entries."""
    seen: dict[str, int] = {}
    out = []
    for e in entries:
        name = e.form if e.form == "summary" else (
            norm(e.body) if e.form == "bullet" else
            norm(f"{e.day or ''} {e.at.strftime('%H:%M') if e.at else ''} {e.kind.value} {e.title or ''}"))
        base = f"{e.form}|{norm(e.section)}|{name}"
        seen[base] = seen.get(base, 0) + 1
        out.append(replace(e, key=f"{base}|{seen[base]}"))
    return out


# ---------------------------------------------------------------------------------------------
# Writing entries back


def entry_text(kind: Kind, body: str, title: str | None, language: str, form: str,
               day: date | None = None, at: time | None = None) -> str:
    """An entry in a file's own format (its trailing blank line included)."""
    body = escape(normal(body))
    if form == "bullet":
        first, *rest = body.split("\n")
        return "".join([f"- {first}\n"] + [f"  {line}\n" for line in rest])
    if form == "summary":
        return f"{body}\n\n"
    when = " ".join(p for p in (day.isoformat() if day else "", at.strftime("%H:%M") if at else "") if p)
    head = f"{when} - {label(kind, language)}" if when else label(kind, language)
    if title:
        head += f": {' '.join(title.split())}"
    if re.search(r"[ \t]#+$", head):
        head += " #"  # a closing sequence, so the title's own '#'s are not taken for one
    return f"### {head}\n{body}\n\n"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _blank_ends(lines: list[str]) -> tuple[list[str], list[str]]:
    """The blank lines leading and trailing `lines` (all of them if every line is blank)."""
    n = len(lines)
    lead = next((i for i, line in enumerate(lines) if line.strip()), n)
    trail = next((i for i in range(n, 0, -1) if lines[i - 1].strip()), 0)
    return lines[:lead], lines[max(trail, lead):]


def replaced(doc: Document, entry: Entry, text: str, entries: str) -> Document:
    """The document with one entry's lines replaced by `text`, keeping the blank lines around
    it as they were (and a summary its heading)."""
    start = entry.start + 1 if entry.form == "summary" else entry.start
    lead, trail = _blank_ends(doc.lines[start:entry.end])
    body = _lines(text.rstrip("\n") + "\n")
    lines = doc.lines[:start] + (lead if entry.form == "summary" else []) + body + trail + doc.lines[entry.end:]
    return parse("".join(lines), entries)


def removed(doc: Document, entry: Entry, entries: str) -> Document:
    """The document without one entry (a summary leaves its heading and an empty section)."""
    start = entry.start + 1 if entry.form == "summary" else entry.start
    filler = ["\n"] if entry.form == "summary" else []
    return parse("".join(doc.lines[:start] + filler + doc.lines[entry.end:]), entries)


def appended(doc: Document, text: str, entries: str, section: str | None = None) -> Document:
    """The document with an entry added at the end of a section (by key, e.g. "entries"), or
    of the file when it has no such section; a blank line is kept before it."""
    lines = list(doc.lines)
    at = len(lines)
    if section and section in doc.sections:
        start = next(i for i, level, text in doc.heads if level == 2 and section_key(text) == section)
        at = next((i for i, level, _ in doc.heads if i > start and level <= 2), len(lines))
        at = _after_content(lines, start, at)
    else:
        at = _after_content(lines, -1, at)
    before = lines[:at]
    if before and not before[-1].endswith(("\n", "\r")):
        before[-1] += "\n"
    if doc.open_fence and at == _after_content(lines, -1, len(lines)):
        before.append(doc.open_fence + "\n")  # closed where markdown closes it, the file's end
    if before and before[-1].strip():
        before.append("\n")
    after = lines[at:]
    add = _lines(text.rstrip("\n") + "\n")
    if after and after[0].strip():
        add.append("\n")
    return parse("".join(before + add + after), entries)


def _after_content(lines: list[str], start: int, end: int) -> int:
    """The line after the last non-blank line of lines (start, end), or start + 1."""
    at = end
    while at > start + 1 and not lines[at - 1].strip():
        at -= 1
    return at
