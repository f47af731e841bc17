"""One Settings: a flag, else the environment, else the config file, else the default; a bad
value named with where it came from; resolved once at the edge and passed down."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput
from memlib.memory_store import MemoryStore
from memlib.settings import DEFAULT_STORE, Settings


def test_a_flag_beats_the_environment_which_beats_the_config_which_beats_the_default(tmp_path):
    config = tmp_path / "memlib.toml"
    config.write_text('[settings]\ndevice = "mps"\nvector_cache_mb = 64\nactor = "from-config"\n'
                      'onnx = false\n[control_plane]\npath = "/srv/cp.db"\n[duckdb]\nthreads = 1\n')
    env = {"MEMLIB_CONFIG": str(config), "MEMLIB_VECTOR_CACHE_MB": "128", "HOME": str(tmp_path)}
    settings = Settings.resolve(env, vector_cache_mb=256)
    assert settings.vector_cache_mb == 256
    assert Settings.resolve(env).vector_cache_mb == 128
    assert (settings.device, settings.actor, settings.onnx, settings.control_plane) == \
        ("mps", "from-config", False, "/srv/cp.db")
    assert dict(settings.duckdb) == {"threads": "1"} and settings.config_file == str(config)
    bare = Settings.resolve({"HOME": str(tmp_path)})
    assert (bare.store, bare.device, bare.vector_cache, bare.max_staleness, bare.config_file) == \
        (DEFAULT_STORE, "cpu", "auto", 1.0, None)
    assert bare.cache_dir == str(tmp_path / ".cache" / "memlib")
    assert Settings.resolve({"HOME": str(tmp_path), "XDG_CACHE_HOME": "/c"}).cache_dir == "/c/memlib"
    assert bare.given(store="elsewhere", actor=None).store == "elsewhere"
    assert bare.given().actor is None


@pytest.mark.parametrize("env, config, message", [
    ({"MEMLIB_VECTOR_CACHE": "sometimes"}, "", "$MEMLIB_VECTOR_CACHE must be one of auto, on, off, not 'sometimes'"),
    ({"MEMLIB_MAX_STALENESS": "-1"}, "", "$MEMLIB_MAX_STALENESS must be 0 or more seconds, not '-1'"),
    ({"MEMLIB_ONNX": "maybe"}, "", "$MEMLIB_ONNX must be 1 or 0"),
    ({}, '[settings]\ndevice = "tpu"\n', "[settings] device must be cpu, cuda, cuda:N or mps, not 'tpu'"),
    ({}, "[settings]\nvector_cache_mb = 0\n", "[settings] vector_cache_mb must be a whole number"),
    ({}, "[settings]\ndevise = 'cpu'\n", "[settings] has no setting 'devise'"),
    ({}, "settings = 3\n", "[settings] must be a table"),
    ({}, "[control_plane]\npath = 3\n", "[control_plane] path must be text"),
    ({}, "[duckdb]\nthreads = [1]\n", "[duckdb] must hold key = value pairs"),
    ({}, "[settings\n", "memlib config"),
])
def test_a_bad_value_names_where_it_came_from(tmp_path, env, config, message):
    path = tmp_path / "memlib.toml"
    path.write_text(config)
    with pytest.raises(InvalidInput) as raised:
        Settings.resolve({**env, "MEMLIB_CONFIG": str(path)})
    assert message in str(raised.value) and "\n" not in str(raised.value)
    if not env:
        assert str(path) in str(raised.value)


def test_a_bad_flag_is_named_as_the_flag_and_an_unknown_one_is_a_programming_error():
    with pytest.raises(InvalidInput, match="^vector cache must be one of"):
        Settings.resolve({}, vector_cache="sometimes")
    with pytest.raises(InvalidInput, match="^max staleness must be 0 or more"):
        Settings().given(max_staleness="soon")
    with pytest.raises(TypeError, match="no setting named colour"):
        Settings.resolve({}, colour="blue")
    with pytest.raises(InvalidInput, match="MEMLIB_CONFIG names"):
        Settings.resolve({"MEMLIB_CONFIG": "/nowhere/memlib.toml"})


def test_a_store_runs_with_the_settings_it_was_handed_not_the_environment_of_later(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLIB_ACTOR", "alice")
    monkeypatch.setenv("MEMLIB_VECTOR_CACHE", "off")
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    assert (store.settings.actor, store.vectors.mode, store.audit.actor) == ("alice", "off", "alice")
    monkeypatch.setenv("MEMLIB_ACTOR", "mallory")  # read once, at the edge: a store keeps what it was given
    from memlib.models import Project

    store.add([Project(name="p")])
    assert [e["actor"] for e in store.audit.events()] == ["alice"]
    handed = Settings.resolve(actor="bob", vector_cache="on")
    other = MemoryStore.open(str(tmp_path / "s"), settings=handed, vector_cache="auto")
    assert (other.audit.actor, other.vectors.mode, other.uri) == ("bob", "auto", str(tmp_path / "s"))


def test_the_cli_resolves_once_and_never_writes_the_environment(tmp_path):
    """--device is checked at the edge and handed down; the command's environment is unchanged
    (a child of the command sees what its parent had)."""
    code = ("import os, sys; from click.testing import CliRunner; from memlib.cli import cli; "
            "before = dict(os.environ); "
            "r = CliRunner().invoke(cli, ['--device', 'cpu', '--store', sys.argv[1], 'stats', '--json']); "
            "print(r.exit_code, before == dict(os.environ), 'MEMLIB_DEVICE' in os.environ)")
    env = {k: v for k, v in os.environ.items() if k != "MEMLIB_DEVICE"}
    store = tmp_path / "s"
    MemoryStore.open(str(store), embedder=HashEmbedder())
    out = subprocess.run([sys.executable, "-c", code, str(store)], capture_output=True, text=True, timeout=120, env=env)
    assert out.stdout.split() == ["0", "True", "False"], out.stderr
