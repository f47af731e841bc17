"""The `memlib` command through its installed entry point."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

MEMLIB = str(Path(sys.executable).with_name("memlib"))
COMMANDS = ["init", "add", "search", "recall", "get", "delete", "import", "export", "stats",
            "maintain", "sample"]


def run(*args, store=None, ok=True, stdin=None):
    argv = [MEMLIB] + (["--store", str(store)] if store else []) + [str(a) for a in args]
    proc = subprocess.run(argv, capture_output=True, text=True, input=stdin, timeout=300)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def fails(*args, store=None):
    """A user's mistake: one line on stderr, a non-zero exit, no traceback."""
    proc = run(*args, store=store, ok=False)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memlib: error:"), proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def cli_made(tmp_path_factory):
    """A store the CLI made: init, a project, a root task (three processes, once a module)."""
    store = tmp_path_factory.mktemp("cli") / "store"
    run("init", "--embedder", "hash", store=store)
    project = run("add", "--kind", "project", "--name", "shop", "--description", "web shop",
                  store=store).stdout.strip()
    root = run("add", "--kind", "root_task", "--project-id", project, "--objective",
               "Speed up checkout", store=store).stdout.strip()
    return store, project, root


@pytest.fixture
def cli_store(cli_made, tmp_path):
    """A fresh copy of that store for each test."""
    made, project, root = cli_made
    store = tmp_path / "store"
    shutil.copytree(made, store)
    return {"store": store, "project": project, "root": root}


def count(store) -> int:
    return json.loads(run("stats", "--json", store=store).stdout)["memories"]


def test_every_command_has_help():
    """The installed command answers --help; then every command and subcommand of its tree
    does, in this process (a process each took 2 s: the suite's minutes)."""
    import click
    from click.testing import CliRunner

    from memlib.cli import cli

    assert "Usage: memlib" in run("--help").stdout

    def commands(group, path=()):
        for name, command in group.commands.items():
            yield (*path, name)
            if isinstance(command, click.Group):
                yield from commands(command, (*path, name))

    every = list(commands(cli))
    assert set(COMMANDS) <= {c[0] for c in every} and len(every) > 60
    for command in every:
        out = CliRunner().invoke(cli, [*command, "--help"], prog_name="memlib")
        assert out.exit_code == 0 and "Usage: memlib " + " ".join(command) in out.output, (command, out.output)


def test_add_search_get_recall_maintain(cli_store):
    s = cli_store["store"]
    run("add", "--kind", "decision", "--project-id", cli_store["project"], "--root-task-id",
        cli_store["root"], "--title", "Cache prices", "--decision", "Cache prices in Redis",
        "--tag", "perf", "--confidence", "70", "--metadata", '{"pr": 12}', store=s)
    hits = json.loads(run("search", "redis prices", "--json", "--kind", "decision", store=s).stdout)
    assert len(hits) == 1 and hits[0]["memory"]["title"] == "Cache prices"
    assert hits[0]["memory"]["metadata"] == {"pr": 12} and hits[0]["memory"]["confidence"] == 70
    got = json.loads(run("get", hits[0]["memory"]["id"], store=s).stdout)
    assert got["tags"] == ["perf"]
    assert "no matching memories" in run("search", "redis", "--tag", "absent", store=s).stdout
    recalled = json.loads(run("recall", "checkout", "--agent", "coder", "--json", store=s).stdout)
    report = json.loads(run("maintain", store=s).stdout)
    assert report["events_flushed"] == len(recalled) > 0
    top = json.loads(run("get", recalled[0]["memory"]["id"], store=s).stdout)
    assert top["usage_count"] == 1


def test_stats_json(cli_store):
    stats = json.loads(run("stats", "--json", store=cli_store["store"]).stdout)
    assert stats["by_kind"] == {"project": 1, "root_task": 1}
    assert stats["by_level"] == {"0": 1, "1": 1}
    assert "shop" in run("stats", store=cli_store["store"]).stdout


def test_export_import_and_bulk_add(cli_store, tmp_path):
    s = cli_store["store"]
    out = tmp_path / "all.jsonl"
    run("export", out, store=s)
    other = tmp_path / "other"
    run("init", "--embedder", "hash", store=other)
    run("import", out, store=other)
    run("import", out, store=other)
    assert count(other) == 2
    bulk = tmp_path / "bulk.jsonl"
    bulk.write_text("\n".join(json.dumps({"kind": "learning", "project_id": cli_store["project"],
                                          "content": f"lesson {i}"}) for i in range(30)))
    assert "added 30" in run("add", "--file", bulk, store=s).stdout
    assert count(s) == 32
    assert run("export", "-", store=s).stdout.count("\n") == 32


def test_delete(cli_store):
    s = cli_store["store"]
    assert "hang off" in fails("delete", cli_store["project"], store=s)
    assert "deleted 2" in run("delete", cli_store["project"], "--cascade", store=s).stdout
    assert count(s) == 0


def test_user_mistakes_are_one_line_and_write_nothing(cli_store, tmp_path):
    s = cli_store["store"]
    before = count(s)
    assert "confidence" in fails("add", "--kind", "project", "--name", "p", "--confidence", "300", store=s)
    assert "project_id" in fails("add", "--kind", "root_task", "--project-id", "nope",
                                 "--objective", "o", store=s)
    assert "kind" in fails("add", "--kind", "thought", "--content", "c", store=s)
    assert "--kind" in fails("add", "--name", "p", store=s)
    assert "metadata" in fails("add", "--kind", "project", "--name", "p", "--metadata", "{x", store=s)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"kind": "project", "name": "ok"}) + "\n{oops\n")
    assert "line 2" in fails("import", bad, store=s)
    assert "line 2" in fails("add", "--file", bad, store=s)
    assert "cannot read" in fails("import", tmp_path / "missing.jsonl", store=s)
    fails("search", "x", "--mode", "semantic", store=s)
    fails("search", "x", "--since", "last tuesday", store=s)
    fails("search", "x", "-k", "0", store=s)
    fails("search", "", store=s)
    fails("get", "0b5c0a38-0000-4000-8000-000000000000", store=s)
    fails("nonsense")
    fails("get", "x", store=tmp_path / "no-store-here")
    fails("sample", "--size", "3", store=tmp_path / "fresh")
    fails("sample", "--size", "50", "--embedder", "hash", store=s)  # not empty
    assert count(s) == before
    assert not (tmp_path / "no-store-here").exists() and not (tmp_path / "fresh").exists()


@pytest.mark.parametrize("name, value", [("MEMLIB_VECTOR_CACHE", "sometimes"),
                                         ("MEMLIB_VECTOR_CACHE_MB", "lots"),
                                         ("MEMLIB_VECTOR_CACHE_MB", "0")])
def test_a_bad_vector_cache_setting_is_one_line(cli_store, monkeypatch, name, value):
    cli_store = cli_store["store"]
    before = json.loads(run("stats", "--json", store=cli_store).stdout)["memories"]
    monkeypatch.setenv(name, value)
    for command in (["search", "shop"], ["add", "--kind", "project", "--name", "x", "--description", "y"]):
        line = fails(*command, store=cli_store)
        assert f"${name}" in line and repr(value) in line
    monkeypatch.delenv(name)
    assert json.loads(run("stats", "--json", store=cli_store).stdout)["memories"] == before


def test_lifecycle_commands_end_to_end(cli_store):
    store, project = cli_store["store"], cli_store["project"]
    insight = run("add", "--kind", "insight", "--project-id", project, "--content", "Cache the cart totals",
                  "--importance", "critical", "--iteration-id", "it1", "--ttl-days", "1",
                  store=store).stdout.strip()
    plan = json.loads(run("retention", "plan", "--as-of", "2099-01-01", "--json", store=store).stdout)
    assert [m["id"] for m in plan["memories"]] == [insight] and plan["policy"] == "default"
    out = run("retention", "apply", "--as-of", "2099-01-01", store=store).stdout
    run_id = out.split()[1].rstrip(":")
    assert "removed 1 memories" in out
    fails("get", insight, store=store)
    assert json.loads(run("retention", "runs", "--json", store=store).stdout)[0]["status"] == "done"
    assert "archived, reclaimable by purge" in run("retention", "runs", store=store).stdout
    assert "restored 1 memories" in run("retention", "undo", run_id, store=store).stdout
    history = json.loads(run("history", insight, "--json", store=store).stdout)
    assert [e["action"] for e in history["events"]] == ["write", "retention_remove", "restore"]
    # ids match exactly: LIKE wildcards, quotes and backslashes name no memory
    for hostile in ("%", "_", insight[:8] + "%", "' OR 1=1 --", "\\", insight.upper()):
        assert "no memory or event" in fails("history", hostile, store=store)
    assert "memories" in run("history", "--as-of", "v1", store=store).stdout
    decision = run("iteration", "finalize", project, "it1", store=store).stdout
    assert "1 critical insights promoted" in decision
    assert "now 70" in run("confidence", insight, "--by", "-30", "--reason", "stale", store=store).stdout
    run("flag", insight, "--set", store=store)
    assert json.loads(run("get", insight, store=store).stdout)["manual_promote_flag"] is True


@pytest.mark.parametrize("args, message", [
    (["retention", "plan", "--policy", "nope"], "no policy named 'nope'"),
    (["retention", "plan", "--policy", "missing.toml"], "does not exist"),
    (["retention", "plan", "--as-of", "someday"], "not an ISO date"),
    (["retention", "undo", "no-such-run"], "no retention run"),
    (["retention", "purge", "no-such-run"], "--yes"),
    (["history", "--as-of", "v999"], "no version 999"),
    (["history", "--as-of", "no-such-tag"], "no version or tag named 'no-such-tag'"),
    (["history", "--export", "x.jsonl"], "--export needs --as-of"),
    (["policy", "check", "nope"], "no policy named 'nope'"),
    (["versions", "cleanup", "--older-than", "30"], "--yes"),
    (["confidence", "6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e09", "--by", "5"], "--reason"),
    (["promote", "6f1c1b1e-8a43-4d5e-9a57-1b2f4c6d8e09"], "no memory"),
])
def test_lifecycle_mistakes_are_one_line(cli_store, args, message):
    assert message in fails(*args, store=cli_store["store"])


def test_policy_check_prints_each_problem_and_exits_1(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nmin_decay = 0.1\n[ttl_days]\ninsight = 99999999\n')
    proc = subprocess.run([MEMLIB, "policy", "check", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(f"{bad}: ") for line in lines)
    assert any("min_decay: is not a policy setting" in line for line in lines)
    assert any("ttl_days of insight must be from 1 to 36500 days" in line for line in lines)
    good = subprocess.run([MEMLIB, "policy", "check", "conservative"], capture_output=True, text=True)
    assert good.returncode == 0 and good.stdout.strip().endswith("conservative.toml: ok")


def test_import_accepts_a_byte_order_mark(cli_store, tmp_path):
    path = tmp_path / "bom.jsonl"
    line = json.dumps({"kind": "insight", "project_id": cli_store["project"], "content": "from an editor"})
    path.write_bytes("\ufeff".encode() + (line + "\n").encode())
    run("import", path, store=cli_store["store"])
    assert "from an editor" in run("search", "editor", store=cli_store["store"]).stdout


def test_a_read_only_store_says_so_and_still_answers_recalls(cli_store):
    import os
    import shutil

    store = cli_store["store"]
    if os.geteuid() == 0:  # root writes through permissions: make the files immutable instead
        if not shutil.which("chattr") or subprocess.run(["chattr", "-R", "+i", str(store)]).returncode:
            pytest.skip("cannot make a store read-only here")
    else:
        subprocess.run(["chmod", "-R", "a-w", str(store)], check=True)
    try:
        line = fails("add", "--kind", "project", "--name", "x", store=store)
        assert "read-only" in line and str(store) in line
        proc = run("recall", "checkout", store=store)
        assert "Speed up checkout" in proc.stdout
        assert proc.stderr.strip().splitlines() == [
            line for line in proc.stderr.strip().splitlines() if line.startswith("memlib: warning: recall not logged")]
        assert proc.stderr.strip()
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-R", "-i", str(store)])
        else:
            subprocess.run(["chmod", "-R", "u+w", str(store)])
    assert run("stats", store=store).returncode == 0


def test_a_store_of_a_newer_schema_is_refused_in_one_line(tmp_path):
    from memlib.embeddings import HashEmbedder
    from memlib.store.store import META_SCHEMA, Store
    from memlib.vocabulary import SCHEMA_VERSION

    newer = tmp_path / "newer"
    Store.open(str(newer), embedder=HashEmbedder(), recorded={META_SCHEMA: str(SCHEMA_VERSION + 1)})
    out = run("stats", store=newer, ok=False)
    assert out.returncode != 0 and out.stderr.strip().splitlines() == [
        f"memlib: error: store {str(newer)!r} has schema version {SCHEMA_VERSION + 1}, newer than this memlib's "
        f"({SCHEMA_VERSION}): upgrade memlib to open it"]


def test_version_and_a_chinese_history_read_as_written(cli_store):
    from importlib.metadata import version

    from memlib.control import ControlPlane
    from memlib.store.store import META_SCHEMA, Store, recorded_meta

    written = recorded_meta(Store.open(str(cli_store["store"]), create=False).table)[META_SCHEMA]
    ControlPlane.open(str(cli_store["store"])).close()
    control = sqlite3.connect(cli_store["store"] / "control-plane.db")
    control_schema = control.execute("select value from meta where key = 'schema_version'").fetchone()[0]
    assert run("--version").stdout.strip() == (f"memlib {version('memlib')} (store schema {written}, "
                                               f"control plane schema {control_schema})")
    memory = run("add", "--kind", "insight", "--project-id", cli_store["project"], "--content", "前端框架用 React",
                 store=cli_store["store"]).stdout.strip()
    from memlib import MemoryStore

    MemoryStore.open(str(cli_store["store"])).update(memory, content="前端框架用 Vue")
    out = run("history", memory, store=cli_store["store"]).stdout
    assert "前端框架用 Vue" in out and "\\u" not in out


def test_update_and_forget_from_the_shell(cli_store):
    store = cli_store["store"]
    memory = run("add", "--kind", "insight", "--project-id", cli_store["project"], "--content", "TTL is 300 s",
                 store=store).stdout.strip()
    changed = json.loads(run("update", memory, "--content", "TTL is 60 s", "--tag", "cache", "--reason",
                             "checked the config", "--actor", "ana", store=store).stdout)
    assert changed["id"] == memory and changed["content"] == "TTL is 60 s" and changed["tags"] == ["cache"]
    assert "checked the config" in run("history", memory, store=store).stdout
    out = run("forget", memory, "--reason", "not true any more", store=store).stdout
    run_id = out.split("(run ")[1].split(")")[0]
    assert out.startswith("forgot 1 memories") and f"memlib retention undo {run_id}" in out
    assert "no memory" in fails("get", memory, store=store)
    run("retention", "undo", run_id, store=store)
    assert json.loads(run("get", memory, store=store).stdout)["content"] == "TTL is 60 s"
    out = run("correct", memory, "--content", "TTL is 90 s", "--reason", "the config changed", store=store).stdout
    new, run_id = out.split()[0], out.rsplit(" ", 1)[1].rstrip(")\n")
    assert json.loads(run("get", new, store=store).stdout)["metadata"]["corrects"] == memory
    assert "no memory" in fails("get", memory, store=store)
    assert f"memory {memory} is back" in run("correct", "--undo", run_id, store=store).stdout
    assert json.loads(run("get", memory, store=store).stdout)["content"] == "TTL is 60 s"
    for args, message in [(("correct", memory, "--content", "x"), "give the memory id and --reason"),
                          (("update", memory, "--content", "x"), "Missing option '--reason'"),
                          (("update", memory, "--reason", "why"), "give at least one field"),
                          (("forget", "nope", "--reason", "x"), "no memory with id 'nope'"),
                          (("forget", cli_store["project"], "--reason", "x"), "hang off these")]:
        assert message in fails(*args, store=store)


def test_paths_that_cannot_be_written_are_one_line_errors(cli_store, tmp_path, capsys):
    """An export into a folder that is not there, onto a folder, a workspace under a file:
    one line naming the path and the reason, exit 1, nothing written (in process: main())."""
    from memlib.cli import main

    (tmp_path / "a-file").write_text("x")
    for args in (["export", str(tmp_path / "missing" / "out.jsonl")], ["export", str(tmp_path)],
                 ["workspace", "init", str(tmp_path / "a-file" / "ws")]):
        with pytest.raises(SystemExit) as exited:
            main(["--store", str(cli_store["store"]), *args])
        err = capsys.readouterr().err
        assert exited.value.code == 1 and err.count("\n") == 1 and "Traceback" not in err, (args, err)
        assert err.startswith("memlib: error: cannot ") and args[-1] in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "store"]


def test_what_a_new_user_met_says_what_is_wrong_and_what_to_do(cli_store):
    """The hostile run's small items, through the installed command: a superseded memory, a
    memory's derived fields, why the vector index was not built, a token for a project that
    is not there, a confidence change past its bounds."""
    from datetime import datetime, timedelta

    store, project = cli_store["store"], cli_store["project"]
    old = run("add", "Cache TTL is 300 s", "--kind", "insight", "--project-id", project, store=store).stdout.strip()
    run("correct", old, "--content", "Cache TTL is 90 s", "--reason", "measured", store=store)
    new = json.loads(run("search", "Cache TTL is 90 s", "--json", "-k", "1", store=store).stdout)[0]["memory"]["id"]
    said = fails("update", old, "--content", "x", "--reason", "r", store=store)
    assert f"memory {old} was superseded by memory {new}" in said and f"memlib update {new}" in said
    got = json.loads(run("get", new, "--json", store=store).stdout)
    assert got == json.loads(run("get", new, store=store).stdout) and got["level"] == 1  # an insight of a project, in no root task
    assert datetime.fromisoformat(got["expires_at"]) == datetime.fromisoformat(got["created_at"]) + timedelta(
        days=got["ttl_days"])
    maintained = json.loads(run("maintain", store=store).stdout)
    assert maintained["vector_index_built"] is False and maintained["vector_index"].startswith("not needed yet: ")
    assert json.loads(run("maintain", "--vector-index", store=store).stdout)["vector_index"] == "built now"
    assert json.loads(run("maintain", "--vector-index", store=store).stdout)["vector_index"].startswith("built before")
    assert "'nosuch' is not a project of this store" in fails("serve", "tokens", "create", "coder", "--project",
                                                             "nosuch", store=store)
    assert "must be a whole number from -100 to 100, not -500" in fails("confidence", new, "--by", "-500",
                                                                       "--reason", "r", store=store)
    assert run("confidence", new, "--by", "-60", "--reason", "doubtful", store=store).stdout.strip() == \
        f"confidence of {new} is now 40"
    assert run("confidence", new, "--by", "-60", "--reason", "doubtful", store=store).stdout.strip() == \
        f"confidence of {new} is now 0: lowered by 40 of the 60 asked (0 is the floor)"
