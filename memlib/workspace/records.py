"""The typed records of SPIRIT.md, OWNER.md and TOOLS.md (seed 003): the assistant's persona,
its owner's profile and its tools, read from the sections of those files in Chinese or
English. A file a person wrote wrong is named in one line, with its section."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memlib.errors import InvalidInput, invalid
from memlib.workspace.markdown import FIELDS, Document, _trim
from memlib.models import Int

_ITEM = re.compile(r"^[ \t]*[-*+][ \t]+(?:\[(?P<check>[ xX])\][ \t]+)?(?P<text>.*\S)[ \t]*$")
_TOOL = re.compile(r"^(?:`(?P<quoted>[^`]+)`|(?P<name>[\w.-]+))(?:\((?P<args>[^)]*)\))?[ \t]*(?:[:：][ \t]*(?P<desc>.*))?$")


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    file_path: str
    last_modified: datetime


class SpiritConfig(Record):
    """Who the assistant is."""

    role: str = Field(min_length=1)
    personality: str = Field(min_length=1)
    values: list[str]
    behavior_rules: list[str]

    def lines(self) -> list[str]:
        out = [f"Role: {self.role}", f"Personality: {'; '.join(self.personality.splitlines())}"]
        if self.values:
            out.append(f"Values: {'; '.join(self.values)}")
        if self.behavior_rules:
            out.append(f"Rules: {'; '.join(self.behavior_rules)}")
        return out


class OwnerProfile(Record):
    """Whom the assistant works for."""

    name: str = Field(min_length=1, max_length=100)
    age: Int | None = Field(default=None, ge=0, le=150)
    occupation: str | None = Field(default=None, max_length=200)
    interests: list[str] = Field(default_factory=list)
    goals: list[str] = Field(default_factory=list)
    preferences: dict[str, Any] = Field(default_factory=dict)

    def lines(self) -> list[str]:
        about = ", ".join(p for p in (self.name, f"{self.age}" if self.age is not None else "",
                                      self.occupation or "") if p)
        out = [f"Owner: {about}"]
        if self.interests:
            out.append(f"Interests: {'; '.join(self.interests)}")
        if self.goals:
            out.append(f"Goals: {'; '.join(self.goals)}")
        if self.preferences:
            out.append("Preferences: " + "; ".join(k if v is True else f"{k}: {v}"
                                                   for k, v in self.preferences.items()))
        return out


class ToolDefinition(Record):
    """A tool the assistant may use: `- name(arg, ...): description` under a group heading;
    `- [ ] name: ...` is a disabled one."""

    name: str = Field(min_length=1, max_length=100)
    description: str = Field(min_length=1)
    parameters: dict[str, Any]
    enabled: bool = True
    group: str = ""

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not re.fullmatch(r"[\w.-]+", value):
            raise ValueError("must be letters, digits, '_', '.' or '-'")
        return value


def items(lines: list[str]) -> list[str]:
    """The bullet items of a section's lines (an item's indented lines join it)."""
    out: list[str] = []
    for line in lines:
        match = _ITEM.match(line.rstrip("\r\n"))
        if match and not line[:1].isspace():
            out.append(match.group("text"))
        elif out and line[:1].isspace() and line.strip():
            out[-1] += " " + line.strip()
    return out


def _pairs(texts: list[str]) -> dict[str, str | bool]:
    """`- key: value` items as {key: value}; an item without a colon is {item: True}."""
    out: dict[str, str | bool] = {}
    for text in texts:
        parts = re.split(r"[:：]", text, maxsplit=1)
        out[parts[0].strip()] = parts[1].strip() if len(parts) == 2 else True
    return out


def _build(model, what: str, data: dict):
    try:
        return model(**data)
    except ValidationError as exc:
        raise invalid(what, exc) from None


def spirit(doc: Document, path: str, modified: datetime) -> SpiritConfig:
    s = doc.sections
    for key, name in (("role", "角色定位 / Role"), ("personality", "性格特征 / Personality")):
        if not _trim(s.get(key, [])):
            raise InvalidInput(f"{path}: the section '{name}' is missing or empty")
    personality = items(s["personality"]) or [_trim(s["personality"])]
    return _build(SpiritConfig, path, {
        "role": _trim(s["role"]), "personality": "\n".join(personality),
        "values": items(s.get("values", [])), "behavior_rules": items(s.get("behavior_rules", [])),
        "file_path": path, "last_modified": modified})


def owner(doc: Document, path: str, modified: datetime) -> OwnerProfile:
    s = doc.sections
    basic = {k.casefold(): v for k, v in _pairs(items(s.get("basic", []))).items()}
    data: dict[str, Any] = {"file_path": path, "last_modified": modified,
                            "interests": items(s.get("interests", [])), "goals": items(s.get("goals", [])),
                            "preferences": _pairs(items(s.get("preferences", [])))}
    for field, names in FIELDS.items():
        value = next((basic[n] for n in names if n in basic), None)
        if isinstance(value, str) and value:  # "- 年龄:" with nothing after it: not given
            data[field] = value
    if "name" not in data:
        raise InvalidInput(f"{path}: the basic information has no name (- 姓名: ... / - Name: ...)")
    if "age" in data:
        if not str(data["age"]).strip().isdigit():
            raise InvalidInput(f"{path}: age {data['age']!r} is not a whole number")
        data["age"] = int(data["age"])
    return _build(OwnerProfile, path, data)


def tools(doc: Document, path: str, modified: datetime) -> list[ToolDefinition]:
    """Every tool of TOOLS.md: one per bullet under a `##` group heading."""
    out: list[ToolDefinition] = []
    lines = doc.lines
    groups = [(i, text) for i, level, text in doc.heads if level == 2]
    for n, (start, group) in enumerate(groups):
        end = groups[n + 1][0] if n + 1 < len(groups) else len(lines)
        for line in lines[start + 1:end]:
            match = _ITEM.match(line.rstrip("\r\n"))
            if not match or line[:1].isspace():
                continue
            tool = _TOOL.match(match.group("text"))
            if not tool:
                raise InvalidInput(f"{path}: {match.group('text')!r} is not '- name: description'")
            name = tool.group("quoted") or tool.group("name")
            args = [a.strip() for a in (tool.group("args") or "").split(",") if a.strip()]
            out.append(_build(ToolDefinition, f"{path}: tool {name!r}", {
                "name": name, "description": (tool.group("desc") or "").strip() or name,
                "parameters": {"type": "object", "properties": {a: {"type": "string"} for a in args},
                               "required": args},
                "enabled": match.group("check") in (None, "x", "X"), "group": group,
                "file_path": path, "last_modified": modified}))
    names = [t.name for t in out]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice:
        raise InvalidInput(f"{path}: the tool {twice!r} is defined twice")
    return out
