"""Retention policies: small, versioned, validated TOML or YAML documents.

A policy is loaded by name (a file of `memlib/policies/`, or of the policy_dir setting,
$MEMLIB_POLICY_DIR, which wins) or by path. It says what `memlib retention` may drop and the retention report shows:

    name = "default"
    version = 3                 # bump on every change; runs record name, version and digest
    drop_expired = true         # drop memories past their TTL
    min_decay_score = 0.05      # drop memories whose decay score (sql/decay_score.sql) is below
    min_confidence = 0          # drop memories whose confidence is below
    grace_days = 14             # keep anything created or recalled this recently
    keep_iterations = 10        # a project's latest iterations keep their detail; summaries stay
    protected_kinds = ["project", "decision"]
    protected_tags = ["keep"]

    [ttl_days]                  # maximum age by kind or level ("level:2"); the earlier of this
    conversation = 90           # and a memory's own TTL

    [half_life_days]            # decay half-life: a kind's entry, else its level's, else default
    default = 60
    "level:2" = 30

    [projects."<project id>"]   # a project's override of any setting above
    min_decay_score = 0.2

Never dropped, whatever the policy: `manual_promote_flag`, TTL -1, protected kinds and tags,
anything created or recalled within the grace window.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memlib.clock import MAX_DAYS
from memlib.errors import InvalidInput
from memlib.models import Float, Int, Kind

PACKAGED = resources.files("memlib") / "policies"  # shipped inside the package
KINDS = tuple(k.value for k in Kind)
LEVEL_KEY = re.compile(r"level:[012]")
DEFAULT_HALF_LIVES: dict[str, float] = {  # days
    "default": 60, "level:0": 365, "level:1": 90, "level:2": 30,
    "decision": 180, "pattern": 365, "summary": 180, "conversation": 14,
}


def _check_keys(mapping: dict[str, Any], what: str, allow_default: bool) -> None:
    for key in mapping:
        if key in KINDS or LEVEL_KEY.fullmatch(key) or (allow_default and key == "default"):
            continue
        raise ValueError(f"{what} key {key!r} is not a kind ({', '.join(KINDS)}), level:0-2"
                         + (" or default" if allow_default else ""))


def check_half_lives(value: dict[str, float], what: str) -> dict[str, float]:
    """Half-lives by kind, "level:N" or "default" (required), each positive; a policy's and
    the decay report's alike. Raises ValueError naming `what`."""
    _check_keys(value, what, allow_default=True)
    for key, days in value.items():
        if not 0 < days <= MAX_DAYS:
            raise ValueError(f"{what} of {key} must be more than 0 and at most {MAX_DAYS} days, not {days}")
    if "default" not in value:
        raise ValueError(f"{what} needs a 'default' entry")
    return value


def rule_key(key: str) -> tuple[str | None, int | None]:
    """A half-life or TTL key as (kind, level): ("insight", None), (None, 2), (None, None)."""
    if key.startswith("level:"):
        return None, int(key.split(":")[1])
    return (None if key == "default" else key), None


class Settings(BaseModel):
    """What a policy sets; a project's override sets any part of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    drop_expired: bool = True
    min_decay_score: Float = Field(default=0.05, ge=0, le=1)
    min_confidence: Int = Field(default=0, ge=0, le=100)
    grace_days: Int = Field(default=14, ge=0, le=MAX_DAYS)
    keep_iterations: Int = Field(default=10, ge=1, le=100_000)
    protected_kinds: tuple[str, ...] = ()
    protected_tags: tuple[str, ...] = ()
    ttl_days: dict[str, Int] = Field(default_factory=dict)
    half_life_days: dict[str, Float] = Field(default_factory=lambda: dict(DEFAULT_HALF_LIVES))

    @field_validator("protected_kinds")
    @classmethod
    def _kinds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for kind in value:
            if kind not in KINDS:
                raise ValueError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
        return value

    @field_validator("ttl_days")
    @classmethod
    def _ttls(cls, value: dict[str, int]) -> dict[str, int]:
        _check_keys(value, "ttl_days", allow_default=False)
        for key, days in value.items():
            if not 1 <= days <= MAX_DAYS:
                raise ValueError(f"ttl_days of {key} must be from 1 to {MAX_DAYS} days, not {days}")
        return value

    @field_validator("half_life_days")
    @classmethod
    def _half_lives(cls, value: dict[str, float]) -> dict[str, float]:
        return check_half_lives(value, "half_life_days")

    @model_validator(mode="after")
    def _consistent(self) -> "Settings":
        both = [k for k in self.protected_kinds if k in self.ttl_days]
        if both:
            raise ValueError(f"kind {both[0]!r} is both protected and dropped (it has a ttl_days)")
        return self


class Policy(Settings):
    """A named, versioned policy with its projects' overrides."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    version: Int = Field(default=1, ge=1)
    description: str = ""
    projects: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _overrides(self) -> "Policy":
        for project_id in self.projects:
            self.for_project(project_id)  # each merged override must itself be valid
        return self

    @property
    def settings(self) -> Settings:
        return Settings(**{name: getattr(self, name) for name in Settings.model_fields})

    def for_project(self, project_id: str | None) -> Settings:
        """The settings in force for one project: its override merged over the policy's."""
        override = self.projects.get(project_id) if project_id else None
        if not override:
            return self.settings
        unknown = set(override) - set(Settings.model_fields)
        if unknown:
            raise ValueError(f"project {project_id}: unknown setting {sorted(unknown)[0]!r}")
        return Settings(**{**self.settings.model_dump(), **override})

    @property
    def digest(self) -> str:
        """A short hash of the whole policy, recorded with every retention run."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def problems(data: Any) -> list[str]:
    """Every problem of a policy document, one line each (empty when it is valid)."""
    if not isinstance(data, dict):
        return ["(policy): must be a table of settings"]
    try:
        Policy.model_validate(data)
    except ValidationError as exc:
        out = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "(policy)"
            message = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                message = "is not a policy setting"
            out.append(f"{field}: {message}")
        return out
    except ValueError as exc:  # raised by a project's override
        return [str(exc)]
    return []


def parse(data: Any, where: str) -> Policy:
    found = problems(data)
    if found:
        more = f" (and {len(found) - 1} more: memlib policy check)" if len(found) > 1 else ""
        raise InvalidInput(f"policy {where}: {found[0]}{more}")
    return Policy.model_validate(data)


def check(spec: str, policy_dir: str | None = None) -> tuple[str, list[str]]:
    """(where, problems) of a policy file or name, without raising for the problems: what
    `memlib policy check` prints, one line each."""
    path = _find(spec, policy_dir)
    return str(path), problems(_read(path))


def _read(path) -> Any:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"policy {path}: cannot be read: {exc}") from None
    try:
        if path.name.endswith((".yaml", ".yml")):
            import yaml

            return yaml.safe_load(text)
        return tomllib.loads(text)
    except Exception as exc:  # a syntax error in the user's file: one line, no traceback
        raise InvalidInput(f"policy {path}: cannot be parsed: {str(exc).splitlines()[0]}") from None


def search_dirs(policy_dir: str | None = None) -> list:
    """Where a policy is looked for by name: the policy_dir setting's folder first."""
    return ([Path(policy_dir)] if policy_dir else []) + [PACKAGED]


def names(policy_dir: str | None = None) -> list[str]:
    found = {p.name.rsplit(".", 1)[0] for d in search_dirs(policy_dir) if d.is_dir()
             for p in d.iterdir() if p.name.endswith(SUFFIXES)}
    return sorted(found)


SUFFIXES = (".toml", ".yaml", ".yml")


def _find(spec: str | Path, policy_dir: str | None):
    """The file a policy name or path means."""
    path = Path(spec)
    if str(spec).endswith(SUFFIXES) or os.sep in str(spec):
        if not path.is_file():
            raise InvalidInput(f"policy file {str(spec)!r} " + ("is a folder" if path.is_dir() else "does not exist"))
        return path
    for directory in search_dirs(policy_dir):
        for suffix in SUFFIXES:
            candidate = directory / f"{spec}{suffix}"
            if candidate.is_file():
                return candidate
    raise InvalidInput(f"no policy named {str(spec)!r} (known: {', '.join(names(policy_dir))}); "
                       f"give a name or a path to a .toml or .yaml file")


def load(spec: str | Path | dict | Policy, policy_dir: str | None = None) -> Policy:
    """A policy from a name (looked for in `policy_dir`, then among memlib's), a path to a
    .toml/.yaml file, or an inline dict."""
    if isinstance(spec, Policy):
        return spec
    if isinstance(spec, dict):
        return parse(spec, repr(spec.get("name", "(inline)")))
    if not isinstance(spec, (str, Path)):
        raise InvalidInput(f"a policy is a name, a path or a table of settings, not {spec!r}")
    path = _find(spec, policy_dir)
    policy = parse(_read(path), str(path))
    named = not (str(spec).endswith(SUFFIXES) or os.sep in str(spec))
    if named and policy.name != spec:
        raise InvalidInput(f"policy {path}: its name is {policy.name!r}, not {spec!r}")
    return policy


def load_all(specs: list, policy_dir: str | None = None) -> tuple[Policy, ...]:
    out = tuple(load(s, policy_dir) for s in specs)
    if not out:
        raise InvalidInput("give at least one policy")
    if len({p.name for p in out}) != len(out):
        raise InvalidInput("policy names must be unique")
    return out
