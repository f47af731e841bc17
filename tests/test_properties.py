"""Property tests (hypothesis) over what users hand memlib: memories, JSONL files, scopes and
policies. Each input is either refused in one line with nothing written, or accepted and
round-trips."""

from __future__ import annotations

import json
import uuid
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlib import MemoryStore, Project, Scope
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput, MemlibError
from memlib.models import Kind, from_row, parse_memory, to_row
from memlib.policy import load
from memlib.store.transfer import export_jsonl, import_jsonl, load_memories

PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
PROJECT = str(uuid.UUID(int=1, version=4))

texts = st.text(min_size=0, max_size=60)
ints = st.one_of(st.integers(-10, 200), st.integers(), st.sampled_from([-1, 36_500, 36_501]))
times = st.one_of(
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2400, 1, 1)).map(lambda d: d.isoformat()),
    texts)
values = st.one_of(st.none(), texts, ints, st.booleans(), st.floats(allow_nan=True), times,
                   st.lists(texts, max_size=3))
FIELDS = ["kind", "name", "content", "title", "decision", "objective", "details", "confidence",
          "ttl_days", "created_at", "updated_at", "tags", "importance", "metadata", "source", "id"]


@st.composite
def memory_dicts(draw):
    """Dicts that look like memories, often valid, often wrong in one field."""
    kind = draw(st.sampled_from([k.value for k in Kind] + ["nonsense", 3]))
    data = {"kind": kind, "project_id": PROJECT, "name": "n", "content": "c", "title": "t",
            "decision": "d", "objective": "o", "details": "x", "description": "y"}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
        data[name] = draw(values)
    return data


def _one_line(exc: BaseException) -> None:
    text = str(exc)
    assert text and "\n" not in text and "Traceback" not in text


@PROPERTY
@given(memory_dicts())
def test_a_memory_is_refused_in_one_line_or_round_trips(data):
    try:
        memory = parse_memory(data)
    except MemlibError as exc:
        _one_line(exc)
        return
    row = to_row(memory)
    assert from_row(row) == memory
    assert from_row(row, trusted=True).model_dump() == memory.model_dump()
    assert parse_memory(memory.model_dump(mode="json")) == memory


@pytest.fixture(scope="module")
def jsonl_store(tmp_path_factory):
    store = MemoryStore.open(str(tmp_path_factory.mktemp("props") / "store"), embedder=HashEmbedder())
    store.add([Project(id=PROJECT, name="fuzz")])
    return store


lines = st.one_of(memory_dicts().map(json.dumps), texts, st.just(""), st.just("\ufeff{}"),
                  st.just('{"kind": "insight", "project_id": "%s", "content": "x", "embedding": [Infinity]}' % PROJECT))


@PROPERTY
@given(st.lists(lines, min_size=1, max_size=4), st.booleans())
def test_a_jsonl_import_writes_all_or_nothing(jsonl_store, tmp_path_factory, chosen, bom):
    store = jsonl_store
    path = tmp_path_factory.mktemp("jsonl") / "in.jsonl"
    path.write_text(("\ufeff" if bom else "") + "\n".join(chosen) + "\n", encoding="utf-8")
    store.refresh()
    before_rows, before_version = store.count(), store.version
    try:
        ids = import_jsonl(store, str(path))
    except MemlibError as exc:
        _one_line(exc)
        store.refresh()
        assert (store.count(), store.version) == (before_rows, before_version)
        return
    store.refresh()
    memories, _ = load_memories(str(path))
    assert ids == len(memories)
    exported = tmp_path_factory.mktemp("out") / "all.jsonl"
    export_jsonl(store, str(exported))
    back = {m.id: m for m in load_memories(str(exported))[0]}
    for memory in memories:  # accepted: each comes back as written
        assert back[memory.id].kind == memory.kind and back[memory.id].own_text == memory.own_text
        assert back[memory.id].created_at == memory.created_at


scope_values = st.one_of(st.none(), texts, ints, st.booleans(), st.lists(texts, max_size=3),
                         st.just("keep"), st.just(["decision", "insight"]), times)
SCOPE_FIELDS = ["project_id", "root_task_id", "level", "kinds", "tags", "source", "created_after",
                "created_before", "min_confidence", "include_expired", "as_of"]


@PROPERTY
@given(st.dictionaries(st.sampled_from(SCOPE_FIELDS), scope_values, max_size=4))
def test_a_scope_is_refused_in_one_line_or_filters(jsonl_store, kwargs):
    try:
        scope = Scope(**kwargs)
    except InvalidInput as exc:
        _one_line(exc)
        return
    assert jsonl_store.count(scope) >= 0  # its filter is valid for Lance
    assert Scope(**{k: getattr(scope, k) for k in SCOPE_FIELDS}) == scope
    if isinstance(kwargs.get("tags"), str):
        pytest.fail("a single string is not a list of tags")


policy_values = st.one_of(st.none(), texts, ints, st.floats(allow_nan=True), st.booleans(),
                          st.lists(st.sampled_from(["project", "decision", "x", 3]), max_size=3),
                          st.dictionaries(st.sampled_from(["default", "decision", "level:1", "bad", "level:9"]),
                                          st.one_of(ints, st.floats(allow_nan=True), texts), max_size=3))
POLICY_FIELDS = ["name", "version", "drop_expired", "min_decay_score", "min_confidence", "grace_days",
                 "keep_iterations", "protected_kinds", "protected_tags", "ttl_days", "half_life_days",
                 "unknown_setting"]


@PROPERTY
@given(st.dictionaries(st.sampled_from(POLICY_FIELDS), policy_values, max_size=4))
def test_a_policy_is_refused_in_one_line_or_loads_the_same_again(changes):
    base = load("default").model_dump(mode="json")
    data = {**base, **changes}
    try:
        policy = load(data)
    except InvalidInput as exc:
        _one_line(exc)
        return
    again = load(policy.model_dump(mode="json"))
    assert again == policy and again.digest == policy.digest
    for days in list(policy.settings.ttl_days.values()) + list(policy.settings.half_life_days.values()):
        assert 0 < days <= 36_500


statement_texts = st.lists(st.one_of(
    st.sampled_from(["5", "12k", "2024-03-05", "ſept", "ſix", "ſome", "ſept 5, 2024", "5 ſept 2024", "half a",
                     "the 3rd", "March", "not",
                     "no longer", "uses", "Redis", "p95", "~", "$48,200", "08:00-20:00", "\n", "-ish", "ms",
                     "under", "at least", "max", "up to", "within", "if", "should", ":", "9:30", "2pm", "12 am",
                     "noon", "UTC", "Berlin time", "between", "to", "-", "Thu", "Mondays", "last", "first"]),
    st.text(max_size=12)), max_size=12).map(" ".join)


@PROPERTY
@given(statement_texts, statement_texts, st.floats(-1, 1))
def test_the_write_screen_reads_any_text(old, new, cosine):
    """What a memory states, whether it repeats or contradicts another, what a consensus
    fragment claims: answered for any text, never an exception (the write screen runs them on
    every add, the clustering on every fragment)."""
    from memlib.consensus import clustering, conflicts, duplicates

    assert isinstance(conflicts.claims(old), conflicts.Claims) and clustering.features(new) is not None

    assert conflicts.between(old, new, max(cosine, conflicts.CLOSE)) in (None, "value", "choice", "negation", "update")
    assert duplicates.judge(old, new, cosine) in (None, "exact", "near")


@PROPERTY
@given(st.integers(0, 287), st.integers(0, 287), st.booleans(), st.booleans())
def test_two_times_of_day_conflict_exactly_when_they_differ_in_either_clock(first, second, twelve, other_first):
    """Times of day against arithmetic: "the backup starts at HH:MM UTC" against another time
    on the five-minute marks disagree exactly when the minutes after midnight differ, a
    12-hour time ("2:30 pm", "12 am") being the 24-hour one."""
    from memlib.consensus import conflicts

    def said(slot: int, twelve: bool) -> str:
        hour, minute = divmod(slot * 5, 60)
        clock = f"{(hour - 1) % 12 + 1}:{minute:02d} {'am' if hour < 12 else 'pm'}" if twelve else f"{hour:02d}:{minute:02d}"
        return f"the nightly backup starts at {clock} UTC"

    texts = [said(first, twelve), said(second, not twelve)]
    texts = texts if other_first else texts[::-1]
    assert [f.kind for f in conflicts.find(texts, [1.0, 1.0])] == (["value"] if first != second else [])


@PROPERTY
@given(st.integers(1, 10_000), st.integers(1, 10_000), st.sampled_from(["under", "at most", "within", "at least"]),
       st.booleans())
def test_a_seen_amount_conflicts_with_a_stated_limit_exactly_when_it_lies_beyond_it(limit, seen, bound, rule_first):
    """The breach rule against arithmetic: "the export must finish under N seconds" and "the
    export took M seconds" disagree exactly when M is past N on the bound's side."""
    from memlib.consensus import conflicts

    rule, said = f"The nightly export must finish {bound} {limit} seconds.", f"the nightly export took {seen} seconds"
    beyond = seen < limit if bound == "at least" else seen > limit
    texts = [rule, said] if rule_first else [said, rule]
    assert [f.kind for f in conflicts.find(texts, [1.0, 1.0])] == (["value"] if beyond else [])
