"""A person's scope (issue 42): memories belong to a user across projects; search, the write
screen and the reports take it."""

from __future__ import annotations

import pytest

from memlib import Insight, MemoryStore, Project, Scope, analytics
from memlib.embeddings import HashEmbedder
from tests.test_cli import fails, run


@pytest.fixture
def people(tmp_path):
    store = MemoryStore.open(str(tmp_path / "s"), embedder=HashEmbedder())
    shop, home = Project(name="shop"), Project(name="home")
    memories = [Insight(project_id=shop.id, content="Prefers short status updates", user_id="ada"),
                Insight(project_id=home.id, content="Drinks americano, no sugar", user_id="ada"),
                Insight(project_id=shop.id, content="Prefers short status updates", user_id="bob"),  # another person's
                Insight(project_id=shop.id, content="The checkout cache is warm by nine")]
    store.add([shop, home, *memories])
    return store, shop, home, memories, tmp_path / "s"


def test_search_takes_a_person_across_projects_from_memory_and_from_lance(people):
    store, shop, home, memories, _ = people
    ada = {m.id for m in memories if m.user_id == "ada"}
    cold = {h.id for h in store.search("status updates americano", k=10, scope=Scope(user_id="ada"))}
    store.warm()
    warm = {h.id for h in store.search("status updates americano", k=10, scope=Scope(user_id="ada"))}
    assert cold == warm == ada
    assert {h.id for h in store.search("status", k=10, scope=Scope(user_id="ada", project_id=shop.id))} == {memories[0].id}
    assert not store.audit.events("action IN ('corroborate', 'duplicate')")  # two people, one sentence: two memories


def test_the_shell_and_the_reports_take_a_person(people):
    store, shop, home, memories, path = people
    (made,) = run("add", "--kind", "insight", "--project-id", home.id, "--content", "Walks the dog at seven",
                  "--user-id", "ada", store=path).stdout.split()
    out = run("search", "dog americano status", "--user-id", "ada", "--json", store=path).stdout
    assert made in out and memories[2].id not in out and memories[3].id not in out
    con = analytics.connect(str(path), user_id="ada")
    ids = {r[0] for r in con.execute("select id from int_memory_as_of").fetchall()}
    store.refresh()
    assert ids == {m.id for m in memories if m.user_id == "ada"} | {made}
    assert "no memory of user 'nobody'" in fails("report", "run", "usage", "-p", "user_id=nobody", store=path)


def test_a_store_from_before_people_finds_nobody_without_an_error(tmp_path):
    path = tmp_path / "old"
    store = MemoryStore.open(str(path), embedder=HashEmbedder())
    p = Project(name="x")
    store.add([p, Insight(project_id=p.id, content="hello there")])
    store.table.drop_columns(["user_id"])  # as a table written before the column was
    old = MemoryStore.open(str(path))
    assert "user_id" not in old.dataset().schema.names
    for mode in ("hybrid", "fts", "vector"):
        assert old.search("hello", mode=mode, scope=Scope(user_id="ada")) == []
    assert "no matching memories" in run("search", "hello", "--user-id", "ada", store=path).stdout
    assert len(old.search("hello", k=5)) >= 1


def test_just_remember_this_takes_one_call(tmp_path):
    """`memlib add --content "I prefer tea" --user-id alice` said --kind is required, then
    that a manual note needs a project_id: a personal assistant's memory has no project. One
    call stores a note, recalled in the person's scope: the CLI, the Python API, the tool."""
    import subprocess
    import sys
    from pathlib import Path

    from memlib import MemoryStore, Scope
    from memlib.agents import tools
    from memlib.embeddings import HashEmbedder

    memlib = str(Path(sys.executable).with_name("memlib"))
    uri = str(tmp_path / "store")
    MemoryStore.open(uri, embedder=HashEmbedder())

    def cli(*args):
        return subprocess.run([memlib, "--store", uri, *args], capture_output=True, text=True, timeout=300)

    made = cli("add", "I prefer tea", "--user-id", "alice")
    assert made.returncode == 0, made.stderr
    store = MemoryStore.open(uri)
    note = store.get(made.stdout.strip())
    assert (note.kind.value, note.content, note.user_id, note.project_id) == ("manual", "I prefer tea", "alice", None)
    (mine,) = store.add("My birthday is on 12 May", user_id="alice")
    (theirs,) = store.add("I prefer coffee", user_id="bob")
    box = tools.Toolbox(store, agent="assistant")
    kept = tools.call(box, "remember", {"content": "Alice's cat is called Miso", "user_id": "alice"})
    found = {h.id for h in store.search("what does alice like to drink", k=10, scope=Scope(user_id="alice"))}
    assert {note.id, mine, kept["id"]} == found and theirs not in found
    hits = cli("search", "tea", "--user-id", "alice", "--json")
    assert hits.returncode == 0 and note.id in hits.stdout and theirs not in hits.stdout
    # with neither a person nor a project, one line saying so, nothing written
    before = store.count()
    refused = cli("add", "I prefer tea")
    assert refused.returncode != 0 and refused.stderr.strip().splitlines() == [
        "memlib: error: memory: a note belongs to a project (project_id) or a person (user_id): give one"]
    assert "give a TEXT to remember" in cli("add").stderr
    store.refresh()
    assert store.count() == before
