"""Settings: everything memlib takes from outside its arguments, resolved once at the edge.

Each setting comes from its flag (a CLI option, or a keyword of `MemoryStore.open`), else its
environment variable, else memlib's config file, else its default. The edges (the CLI, `open()`,
the MCP server, a report's kernel) call `Settings.resolve` once and pass the frozen result
down; below them nothing reads the environment (tests/test_layout.py checks it). The config
file is $MEMLIB_CONFIG, else $XDG_CONFIG_HOME/memlib/config.toml (~/.config/...):

    [settings]
    store = "s3://team-bucket/memlib"
    device = "cpu"
    vector_cache_mb = 2048

    [storage_options]          # Lance's keys, for a store on object storage (store/storage.py)
    aws_endpoint = "https://minio.internal:9000"

    [control_plane]
    path = "/srv/memlib/control-plane.db"

    [duckdb]                   # DuckDB settings for the reports' connection
    memory_limit = "4GB"

A value that is not one names where it came from in one line: `$MEMLIB_VECTOR_CACHE_MB must
be ...`, `memlib config PATH: [settings] device must be ...`, or the flag's name.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping, NamedTuple

from memlib.errors import InvalidInput

DEFAULT_STORE = os.path.join("data", "store")
VECTOR_CACHE_MODES = ("auto", "on", "off")
DEFAULT_VECTOR_CACHE_MB = 4096
DEVICE = re.compile(r"^(cpu|cuda(:\d+)?|mps)$")
NO_PAIRS: Mapping[str, str] = MappingProxyType({})


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{where} must be text, not {value!r}")
    return value


def _device(value: Any, where: str) -> str:
    """cpu, cuda[:N] or mps by its spelling (whether this machine has it is checked when a
    model is loaded: embeddings.checked_device)."""
    if not isinstance(value, str) or not DEVICE.match(value):
        raise InvalidInput(f"{where} must be cpu, cuda, cuda:N or mps, not {value!r}")
    return value


def _switch(value: Any, where: str) -> bool:
    spelled = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in spelled:
        return spelled[value.strip().lower()]
    raise InvalidInput(f"{where} must be 1 or 0 (true or false), not {value!r}")


def _vector_cache(value: Any, where: str) -> str:
    if value not in VECTOR_CACHE_MODES:
        raise InvalidInput(f"{where} must be one of {', '.join(VECTOR_CACHE_MODES)}, not {value!r}")
    return value


def _megabytes(value: Any, where: str) -> int:
    text = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    if not text.isdigit() or int(text) <= 0:
        raise InvalidInput(f"{where} must be a whole number of megabytes above 0, not {value!r}")
    return int(text)


def _seconds(value: Any, where: str) -> float:
    try:
        seconds = float(value) if not isinstance(value, bool) else -1.0
    except (TypeError, ValueError):
        seconds = -1.0
    if not seconds >= 0:
        raise InvalidInput(f"{where} must be 0 or more seconds, not {value!r}")
    return seconds


class Source(NamedTuple):
    """Where a setting may come from besides its flag, and how its value is checked."""

    env: str
    section: str  # of the config file
    key: str
    parse: Callable[[Any, str], Any]


SOURCES: dict[str, Source] = {
    "store": Source("MEMLIB_STORE", "settings", "store", _text),
    "workspace": Source("MEMLIB_WORKSPACE", "settings", "workspace", _text),
    "device": Source("MEMLIB_DEVICE", "settings", "device", _device),
    "onnx": Source("MEMLIB_ONNX", "settings", "onnx", _switch),
    "vector_cache": Source("MEMLIB_VECTOR_CACHE", "settings", "vector_cache", _vector_cache),
    "vector_cache_mb": Source("MEMLIB_VECTOR_CACHE_MB", "settings", "vector_cache_mb", _megabytes),
    "max_staleness": Source("MEMLIB_MAX_STALENESS", "settings", "max_staleness", _seconds),
    "actor": Source("MEMLIB_ACTOR", "settings", "actor", _text),
    "control_plane": Source("MEMLIB_CONTROL_PLANE", "control_plane", "path", _text),
    "policy_dir": Source("MEMLIB_POLICY_DIR", "settings", "policy_dir", _text),
    "server": Source("MEMLIB_SERVER", "settings", "server", _text),
    "token": Source("MEMLIB_TOKEN", "settings", "token", _text),
}


@dataclass(frozen=True)
class Settings:
    """What memlib runs with. The defaults are those of a machine with no environment and no
    config file; `resolve` is how an edge reads the real ones."""

    store: str = DEFAULT_STORE  # the LanceDB URI of the store
    workspace: str | None = None  # a markdown workspace saves go to
    device: str = "cpu"  # where the embedding model runs
    onnx: bool = True  # small batches through ONNX Runtime when it is installed
    vector_cache: str = "auto"  # search/cache_slot.py: when the vectors are held in memory
    vector_cache_mb: int = DEFAULT_VECTOR_CACHE_MB  # ... and up to how much they may take
    max_staleness: float = 1.0  # seconds a handle may read a version older than another's commit
    actor: str | None = None  # who acts in the audit log (None: the user running memlib)
    control_plane: str | None = None  # the control plane's file for a store on object storage
    policy_dir: str | None = None  # retention policies of one's own, besides the packaged ones
    server: str | None = None  # a memory server's URL (memlib serve): the CLI works through it
    token: str | None = field(default=None, repr=False)  # its bearer token (never printed)
    cache_dir: str = field(default_factory=lambda: str(Path.home() / ".cache" / "memlib"))
    storage_options: Mapping[str, str] = field(default_factory=lambda: NO_PAIRS)  # the config's [storage_options]
    duckdb: Mapping[str, str] = field(default_factory=lambda: NO_PAIRS)  # the config's [duckdb]
    aws_endpoint: str | None = None  # $AWS_ENDPOINT_URL_S3 or $AWS_ENDPOINT_URL, which Lance reads itself
    config_file: str | None = None  # the config file these came from, for messages

    @classmethod
    def resolve(cls, environ: Mapping[str, str] | None = None, **flags: Any) -> "Settings":
        """The settings in force: each flag given (not None), else its environment variable,
        else the config file, else the default. One line naming the source of a bad value."""
        env = os.environ if environ is None else environ
        given = _flags(flags)
        path, data = _config(env)
        section = _table(data, path, "settings")
        stray = set(section) - {s.key for s in SOURCES.values() if s.section == "settings"}
        if stray:
            raise InvalidInput(f"memlib config {path}: [settings] has no setting {sorted(stray)[0]!r} "
                               f"(known: {', '.join(k for k, s in SOURCES.items() if s.section == 'settings')})")
        values: dict[str, Any] = {}
        for name, source in SOURCES.items():
            configured = _table(data, path, source.section).get(source.key)
            if name in given:
                values[name] = given[name]
            elif env.get(source.env):
                values[name] = source.parse(env[source.env], f"${source.env}")
            elif configured is not None:
                values[name] = source.parse(configured, f"memlib config {path}: [{source.section}] {source.key}")
        return cls(**values, cache_dir=str(Path(env.get("XDG_CACHE_HOME") or _home(env) / ".cache") / "memlib"),
                   storage_options=_pairs(data, path, "storage_options"), duckdb=_pairs(data, path, "duckdb"),
                   aws_endpoint=env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL") or None,
                   config_file=str(path) if data else None)

    def given(self, **flags: Any) -> "Settings":
        """These settings with the flags given (not None) in force: an argument of a function
        that was handed settings already, checked as its flag would be."""
        chosen = _flags(flags)
        return replace(self, **chosen) if chosen else self

    @classmethod
    def at_edge(cls, settings: "Settings | None", **flags: Any) -> "Settings":
        """What a function that may be an edge runs with: the `settings` its caller resolved,
        with its own arguments as flags; or, without them, resolved here (it is the edge)."""
        return settings.given(**flags) if settings is not None else cls.resolve(**flags)


def _flags(flags: dict[str, Any]) -> dict[str, Any]:
    """The flags given (not None), each checked, a bad one named as its flag; an unknown name
    is a programming error."""
    unknown = set(flags) - set(SOURCES)
    if unknown:
        raise TypeError(f"no setting named {', '.join(sorted(unknown))}")
    return {n: SOURCES[n].parse(v, n.replace("_", " ")) for n, v in flags.items() if v is not None}


def _home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("HOME") or Path.home())


def config_path(environ: Mapping[str, str]) -> Path:
    explicit = environ.get("MEMLIB_CONFIG")
    if explicit:
        return Path(explicit)
    base = environ.get("XDG_CONFIG_HOME") or str(_home(environ) / ".config")
    return Path(base) / "memlib" / "config.toml"


def _config(environ: Mapping[str, str]) -> tuple[Path, dict]:
    """memlib's config file and what it holds ({} without one)."""
    path = config_path(environ)
    if not path.is_file():
        if environ.get("MEMLIB_CONFIG"):
            raise InvalidInput(f"MEMLIB_CONFIG names {path}, which is not a file")
        return path, {}
    try:
        return path, tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(f"memlib config {path}: {exc}") from None


def _table(data: dict, path: Path, name: str) -> dict:
    section = data.get(name, {})
    if not isinstance(section, dict):
        raise InvalidInput(f"memlib config {path}: [{name}] must be a table of settings")
    return section


def _pairs(data: dict, path: Path, name: str) -> Mapping[str, str]:
    """A section of key = value pairs, values as text (booleans as true/false)."""
    section = _table(data, path, name)
    if any(isinstance(v, (dict, list)) for v in section.values()):
        raise InvalidInput(f"memlib config {path}: [{name}] must hold key = value pairs")
    return MappingProxyType({str(k): str(v).lower() if isinstance(v, bool) else str(v)
                             for k, v in section.items()})
