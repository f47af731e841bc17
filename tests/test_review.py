"""Review before save (issue 42): a lifecycle policy holds write-back for a person; nothing
pending is recalled or put in a context; accepting saves it, rejecting is kept in the audit log."""

from __future__ import annotations

import pytest

from memlib import MemoryStore, Project
from memlib.agents.context import build_context
from memlib.agents.lifecycle_policy import ConservativePolicy, WriteInput, load_lifecycle_policy, write_back
from memlib.agents.sessions import Sessions
from memlib.control import ControlPlane
from memlib.control.db import FILE
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput
from tests.test_cli import fails, run


@pytest.fixture
def held(tmp_path):
    path = tmp_path / "s"
    store = MemoryStore.open(str(path), embedder=HashEmbedder())
    p = Project(name="payments")
    store.add([p])
    policy = ConservativePolicy(automatic_write_back=True, review="untrusted")
    trusted = write_back(store, policy, WriteInput("Rotate the keys", "rotated the settlement keys", "coder", p.id))
    untrusted = write_back(store, policy, WriteInput("Read the vendor page", "the vendor says settlement keys never "
                                                     "need rotating", "browser", p.id, source="web"))
    return store, p, path, trusted, untrusted


def test_only_what_the_policy_names_waits_and_nothing_waiting_is_recalled(held):
    store, p, path, trusted, untrusted = held
    assert len(trusted) == 1 and untrusted == []
    plane = ControlPlane.open(store.uri)
    (waiting,) = plane.approvals.list()
    assert "from web" in waiting.request and "never need rotating" in waiting.request
    assert all("never" not in h.memory.content for h in store.search("settlement keys rotating", k=10)
               if h.memory.kind.value == "summary")
    session = Sessions(store).start("coder", project_id=p.id)
    assert "never need rotating" not in build_context(store, session.session_id, "settlement keys").text
    # the same outcome again waits once
    write_back(store, ConservativePolicy(automatic_write_back=True, review="untrusted"),
               WriteInput("Read the vendor page", "the vendor says settlement keys never need rotating",
                          "browser", p.id, source="web"))
    assert len(plane.approvals.list()) == 1


def test_accept_and_reject_from_the_shell(held):
    store, p, path, _, _ = held
    plane = ControlPlane.open(store.uri)
    listed = run("review", "list", store=path).stdout
    assert "from web" in listed and "browser" in listed
    (approval,) = plane.approvals.list()
    assert "needs a reason" in fails("review", "reject", approval.approval_id, "--by", "ada", "--reason", " ",
                                     store=path)
    out = run("review", "accept", approval.approval_id, "--by", "ada", store=path).stdout
    memory_id = out.strip().split()[-1]
    store.refresh()
    saved = store.get(memory_id)
    assert saved.source == "web" and not saved.trusted and saved.agent == "browser"
    assert plane.tasks.get(plane.approvals.get(approval.approval_id).task_id).status == "done"
    assert "already approved" in fails("review", "accept", approval.approval_id, "--by", "ada", store=path)
    assert "nothing waits for review" in run("review", "list", store=path).stdout
    write_back(store, ConservativePolicy(automatic_write_back=True, review="all"),
               WriteInput("Another", "another outcome", "coder", p.id))
    (second,) = plane.approvals.list()
    run("review", "reject", second.approval_id, "--by", "ada", "--reason", "noise", store=path)
    (event,) = store.audit.events("action = 'review_rejected'")
    assert event["actor"] == "ada" and event["details"]["reason"] == "noise"
    assert plane.approvals.get(second.approval_id).status == "rejected"
    assert not store.lookup([event["subject_id"]], ["id"])


def test_the_policy_file_names_the_review(tmp_path):
    good = tmp_path / "p.toml"
    good.write_text('[write_back]\nautomatic = true\nreview = "all"\n')
    assert load_lifecycle_policy(good).review == "all"
    bad = tmp_path / "bad.toml"
    bad.write_text('[write_back]\nreview = "some"\n')
    with pytest.raises(InvalidInput, match="review"):
        load_lifecycle_policy(bad)


def test_a_store_that_never_held_a_review_has_nothing_waiting_and_no_store_is_named(tmp_path):
    path = str(tmp_path / "store")
    MemoryStore.open(path, embedder=HashEmbedder())
    assert run("review", "list", store=path).stdout.strip() == "nothing waits for review"
    assert run("review", "list", "--json", store=path).stdout.strip() == "[]"
    assert not (tmp_path / "store" / FILE).exists()  # listing made no control plane
    assert "no memlib store" in fails("review", "list", store=str(tmp_path / "nothing"))
