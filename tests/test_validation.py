"""Every rejected write names the record and the field, and writes nothing of its batch."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest

from memlib import InvalidInput, InvalidMemory, Project, RootTask
from memlib.models import MAX_TEXT, parse_memory


def _rejects(store, batch, field):
    before_rows, before_version = store.table.count_rows(), store.table.version
    with pytest.raises(InvalidMemory) as info:
        store.add(batch)
    assert info.value.field == field
    assert "record" in str(info.value)
    assert store.table.count_rows() == before_rows
    assert store.table.version == before_version
    return info.value


def test_valid_batch_is_written(store, tree):
    assert store.table.count_rows() == 5


@pytest.mark.parametrize("text, field", [
    ("", "name"), ("   ", "name"), ("x" * (MAX_TEXT + 1), "name"),
])
def test_text_empty_or_too_long(store, text, field):
    ok = {"kind": "project", "name": "fine"}
    err = _rejects(store, [ok, {"kind": "project", "name": text}], field)
    assert err.record.startswith("record 1")


def test_text_at_the_limit_is_accepted(store):
    store.add([{"kind": "project", "name": "x" * MAX_TEXT}])
    assert store.table.count_rows() == 1


def test_unknown_kind(store):
    _rejects(store, [{"kind": "thought", "content": "hm"}], "kind")


def test_unknown_importance(store, tree):
    _rejects(store, [{"kind": "insight", "project_id": tree["project"].id, "content": "c",
                      "importance": "urgent"}], "importance")


@pytest.mark.parametrize("confidence", [-1, 101, 1000])
def test_confidence_out_of_range(store, confidence):
    _rejects(store, [{"kind": "project", "name": "p", "confidence": confidence}], "confidence")


def test_embedding_with_wrong_dims(store):
    _rejects(store, [{"kind": "project", "name": "p", "embedding": [0.1] * 10}], "embedding")


def test_missing_parents(store, tree):
    _rejects(store, [{"kind": "root_task", "project_id": str(uuid.uuid4()), "objective": "o"}],
             "project_id")
    _rejects(store, [{"kind": "sub_task", "root_task_id": str(uuid.uuid4()), "details": "d"}],
             "root_task_id")
    # a project id given where a root task is expected is not a root task
    _rejects(store, [{"kind": "sub_task", "root_task_id": tree["project"].id, "details": "d"}],
             "root_task_id")
    _rejects(store, [{"kind": "learning", "project_id": tree["project"].id,
                      "root_task_id": str(uuid.uuid4()), "content": "c"}], "root_task_id")


def test_parent_in_same_batch_is_fine(store):
    project = Project(name="p")
    store.add([project, RootTask(project_id=project.id, objective="o")])
    assert store.table.count_rows() == 2


def test_knowledge_root_task_of_another_project(store, tree):
    other = Project(name="other")
    store.add([other])
    _rejects(store, [{"kind": "issue", "project_id": other.id, "root_task_id": tree["root"].id,
                      "content": "c"}], "root_task_id")


def test_duplicate_ids(store, tree):
    same = str(uuid.uuid4())
    _rejects(store, [{"kind": "project", "name": "a", "id": same},
                     {"kind": "project", "name": "b", "id": same}], "id")
    _rejects(store, [{"kind": "project", "name": "again", "id": tree["project"].id}], "id")


def test_ids_must_be_uuid4(store):
    _rejects(store, [{"kind": "project", "name": "p", "id": "not-a-uuid"}], "id")
    _rejects(store, [{"kind": "project", "name": "p", "id": str(uuid.uuid1())}], "id")


def test_unknown_field_for_kind(store):
    _rejects(store, [{"kind": "project", "name": "p", "objective": "belongs to root tasks"}],
             "objective")


def test_a_missing_field_named_like_its_kind_is_named(store, tree):
    """A decision's text is its field `decision`, as its kind is: the error names it (it said
    '(record)', the union's tag and the field being dropped alike)."""
    project_id = tree["project"].id
    _rejects(store, [{"kind": "decision", "project_id": project_id, "title": "t"}], "decision")
    _rejects(store, [{"kind": "decision", "project_id": project_id, "decision": "d"}], "title")


def test_metadata_must_be_json(store):
    _rejects(store, [{"kind": "project", "name": "p", "metadata": {"x": float("nan")}}], "metadata")


def test_defaults_and_derived_fields():
    m = parse_memory({"kind": "root_task", "project_id": "p", "objective": "o",
                      "created_at": datetime(2026, 1, 1)})
    assert m.created_at.tzinfo == timezone.utc  # naive input is taken as UTC
    assert (m.ttl_days, m.confidence, m.usage_count, m.source) == (90, 100, 0, "manual")
    assert m.expires_at == datetime(2026, 4, 1, tzinfo=timezone.utc)
    assert m.level == 1
    assert parse_memory({"kind": "project", "name": "p"}).expires_at is None


def test_ttl_and_dates_are_bounded(store):
    err = _rejects(store, [{"kind": "project", "name": "p", "ttl_days": 10**9}], "ttl_days")
    assert "36500" in str(err)
    _rejects(store, [{"kind": "project", "name": "p", "created_at": "9999-01-01T00:00:00Z"}], "created_at")
    _rejects(store, [{"kind": "project", "name": "p", "updated_at": "1900-01-01T00:00:00Z"}], "updated_at")
    # the largest TTL on the latest date still has an expiry date
    latest = parse_memory({"kind": "project", "name": "p", "ttl_days": 36_500,
                           "created_at": "2199-12-31T00:00:00Z"})
    assert latest.expires_at.year == 2299


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_embeddings_must_be_finite(store, bad):
    vector = [0.1] * store.dims
    vector[3] = bad
    _rejects(store, [{"kind": "project", "name": "p", "embedding": vector}], "embedding")


def test_precomputed_vectors_must_be_finite(store):
    import numpy as np

    from memlib import InvalidInput

    vectors = np.ones((1, store.dims), np.float32)
    vectors[0, 0] = np.inf
    with pytest.raises(InvalidInput, match="finite"):
        store.add([Project(name="p")], vectors=vectors)
    assert store.table.count_rows() == 0


def test_links_must_name_existing_memories(store, tree):
    project = tree["project"].id
    _rejects(store, [{"kind": "conversation", "project_id": project, "content": "hi",
                      "previous_id": str(uuid.uuid4())}], "previous_id")
    _rejects(store, [{"kind": "conversation", "project_id": project, "content": "hi",
                      "previous_id": tree["decision"].id}], "previous_id")  # not a turn
    _rejects(store, [{"kind": "decision", "project_id": project, "title": "t", "decision": "d",
                      "promoted_from": str(uuid.uuid4())}], "promoted_from")
    _rejects(store, [{"kind": "pattern", "project_id": project, "name": "n", "description": "d",
                      "promoted_from": tree["insight"].id}], "promoted_from")  # a learning's
    store.add([{"kind": "decision", "project_id": project, "title": "t", "decision": "d",
                "promoted_from": tree["insight"].id}])


def test_a_nul_byte_or_an_all_zero_vector_is_refused(store, tree):
    """A zero vector has no direction (its cosine is undefined); a NUL byte is no text."""
    _rejects(store, [{"kind": "insight", "project_id": tree["project"].id, "content": "cache\x00ttl"}], "content")
    _rejects(store, [{"kind": "project", "name": "p", "embedding": [0.0] * 384}], "embedding")
    import numpy as np

    with pytest.raises(InvalidInput, match="vector 1 must not be all zeros"):
        store.add([Project(name="a"), Project(name="b")], vectors=np.vstack([np.ones(384), np.zeros(384)]).astype(np.float32))
    assert store.count() == 5


def test_a_vector_value_32_bits_cannot_hold_is_refused_not_stored_as_infinity(store, tree):
    """Embeddings are stored as 32-bit floats: 1e300 became Infinity, and every cosine with
    it NaN (a recall ranked it anyhow). A memory's, a batch's and a fragment's vectors are
    held to one rule (models.vector_problem)."""
    import numpy as np
    from memlib.consensus import Consensus

    big = [1e300] * 384
    assert "must be within" in str(_rejects(store, [{"kind": "project", "name": "p", "embedding": big}], "embedding"))
    with pytest.raises(InvalidInput, match=r"^vector 1 must be finite numbers \(no NaN or Infinity\)$"):
        store.add([Project(name="a"), Project(name="b")], vectors=[np.ones(384), big])
    consensus = Consensus(store)
    pointer = consensus.register_input(b"runs")
    for vector, why in ((big, "must be within"), ([float("nan")] * 384, "must be finite"), ([0.0] * 384, "must not be all zeros")):
        with pytest.raises(InvalidInput, match=f"^fragment 0: embedding: {why}"):
            consensus.add([{"content": "x", "source_agent": "a", "trace_pointer": pointer, "embedding": vector}])
    assert store.count() == 5 and consensus.fragments() == []


def test_the_python_api_refuses_a_wrong_type_in_one_line(store, tree):
    """Arguments of the wrong type are the caller's mistake: InvalidInput naming what is
    wrong (they were a TypeError, a Lance filter error, an AttributeError), nothing written;
    a scope may be given as a dict of its fields, and vectors as a list of lists."""
    from memlib import Scope
    from memlib.agents import query_memory
    from memlib.consensus import Consensus
    from memlib.server import Tokens
    from memlib.sessions import Sessions
    from memlib.embeddings import HashEmbedder

    before = store.count()
    project = tree["project"].id
    for call, message in [
        (lambda: store.add(None), "memories are given as a list, not a NoneType"),
        (lambda: store.add({"kind": "project", "name": "x"}), "memories are given as a list, not a dict"),
        (lambda: store.get(5), "a memory id is a string, not int 5"),
        (lambda: store.count("x"), "a scope must be a memlib.Scope or a dict"),
        (lambda: store.search("x", scope={"project": project}), "a scope has no field 'project'"),
        (lambda: store.add([{"kind": "project", "name": "y"}], vectors=[["a"]]), "vectors must be a matrix"),
        (lambda: store.search("x", vector=["a"] * 384), "the query vector must be a list of numbers"),
        (lambda: store.search("x", vector=[float("nan")] * 384), r"the query vector must be finite numbers \("),
        (lambda: store.search("x", vector=[1e300] * 384), r"the query vector must be finite numbers \("),
        (lambda: store.search("x", vector=[0.0] * 384), "the query vector must not be all zeros"),
        (lambda: query_memory(store, None), "memory query: .*a valid dictionary"),
        (lambda: Consensus(store).add(None), "fragments are given as a list, not a NoneType"),
        (lambda: Consensus(store, threshold="x"), "threshold is the mean cosine .*: a number from -1 to 1, not 'x'"),
        (lambda: Consensus(store, threshold=float("nan")), "a number from -1 to 1, not nan"),
        (lambda: Consensus(store, threshold=1.3), "a number from -1 to 1, not 1.3"),
        (lambda: Sessions(store).get(5), "a session id is a string, not int 5"),
        (lambda: Sessions(store).transcript("s", last="x"), "last must be a whole number of turns"),
        (lambda: Tokens(store).create("ana", projects="abc"), "a list of project ids, not one text 'abc'"),
        (lambda: Tokens(store).revoke(None), "a token id is a string"),
    ]:
        with pytest.raises(InvalidInput, match=message):
            call()
    assert store.count() == before
    as_dict = store.search("ledger retries", mode="fts", scope={"project_id": project, "kinds": ["insight"]})
    assert [h.id for h in as_dict] == [tree["insight"].id]
    assert store.count({"project_id": project}) == store.count(Scope(project_id=project))
    vector = HashEmbedder().embed(["z"])[0].tolist()
    (made,) = store.add([{"kind": "project", "name": "z"}], vectors=[vector])
    assert store.get(made).name == "z"


def test_a_boolean_is_not_a_number_anywhere_a_number_is_asked(store, tree):
    """`confidence: true` was stored as 1 through REST and the Python API: pydantic's lax
    mode makes 1 of true. Every number a caller gives refuses a boolean, in one line, and
    nothing is written."""
    from fastapi.testclient import TestClient

    from memlib import Insight
    from memlib.agents import tools
    from memlib.lifecycle import curation
    from memlib.server import Server, Tokens
    from memlib.server.app import create_app

    project, insight = tree["project"].id, tree["insight"].id
    before = (store.count(), store.get(insight).confidence)
    with pytest.raises(InvalidMemory, match="confidence.*must be a number, not true"):
        store.add([{"kind": "insight", "project_id": project, "content": "x", "confidence": True}])
    with pytest.raises(ValueError, match="must be a number, not false"):
        Insight(project_id=project, content="x", confidence=False)
    with pytest.raises(InvalidMemory, match="ttl_days.*must be a number, not true"):
        store.add([{"kind": "insight", "project_id": project, "content": "y", "ttl_days": True}])
    with pytest.raises(InvalidMemory, match="confidence.*must be a number, not true"):
        curation.revise(store, insight, "r", confidence=True)
    with pytest.raises(InvalidInput, match="a confidence change must be a whole number from -100 to 100, not True"):
        curation.adjust_confidence(store, insight, True, "r")
    box = tools.Toolbox(store, agent="coder")
    for name, arguments in [("update_memory", {"memory_id": insight, "reason": "r", "confidence": True}),
                            ("query_memory", {"project_id": project, "limit": True}),
                            ("enqueue_task", {"kind": "k", "priority": True}),
                            ("claim_task", {"lease_seconds": True})]:
        with pytest.raises(InvalidInput, match="must be a number, not true"):
            tools.call(box, name, arguments)
    token = Tokens(store).create("lead")[0]
    with TestClient(create_app(Server(store))) as client:
        auth = {"Authorization": f"Bearer {token}"}
        for method, path, body in [
                ("POST", "/v1/memories", {"memories": [{"kind": "insight", "project_id": project, "content": "z",
                                                        "confidence": True}]}),
                ("PATCH", f"/v1/memories/{insight}", {"reason": "r", "changes": {"confidence": True}}),
                ("POST", f"/v1/memories/{insight}/confidence", {"delta": True, "reason": "r"}),
                ("POST", "/v1/search", {"query": "x", "k": True}),
                ("POST", "/v1/search", {"query": "x", "scope": {"min_confidence": True}})]:
            response = client.request(method, path, json=body, headers=auth)
            assert response.status_code in (400, 422) and "must be a number, not true" in response.json()["error"], \
                (path, response.text)
    store.refresh()
    assert (store.count(), store.get(insight).confidence) == before
