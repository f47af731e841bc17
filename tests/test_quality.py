"""The quality report (issue 42): its numbers against an independent count of the audit log,
the store and the control plane."""

from __future__ import annotations

import collections

from memlib import Insight, MemoryStore, Project, analytics
from memlib.agents import review
from memlib.agents.lifecycle_policy import ConservativePolicy, WriteInput, write_back
from memlib.analytics import report_data
from memlib.control import ControlPlane
from memlib.lifecycle import curation
from memlib.models import trusted


def test_the_quality_report_agrees_with_the_audit_log(tmp_path):
    store = MemoryStore.open(str(tmp_path / "s"))
    a, b = Project(name="shop"), Project(name="ops")
    ttl = Insight(project_id=a.id, content="Cache TTL is 300 s")
    logs = Insight(project_id=b.id, content="Logs are kept for 30 days")
    friday = Insight(project_id=a.id, content="We deploy on Fridays")
    store.add([a, b, ttl, logs, friday], actor="coder")
    store.add([{"kind": "insight", "project_id": a.id, "content": "cache ttl is 300 s."}], actor="reviewer")  # merged
    store.add([{"kind": "insight", "project_id": a.id, "content": "Cache TTL is 300 s"}], actor="coder",
              duplicates="link")
    (short,) = store.add([{"kind": "insight", "project_id": a.id, "content": "Cache TTL is 60 s"}], actor="ops")
    (never,) = store.add([{"kind": "insight", "project_id": a.id, "content": "We never deploy on Fridays"}],
                         actor="ops")
    store.add([{"kind": "insight", "project_id": b.id, "content": "As of March, logs are kept for 90 days"}],
              actor="ops")
    store.read_unread()  # as maintain or a memory server's reader would
    store.resolve_disagreement(friday.id, never, "Fridays before noon only", actor="ada")
    (web,) = store.add([{"kind": "insight", "project_id": b.id, "content": "Vendor says logs are free", "source": "web"}])
    (tool,) = store.add([{"kind": "insight", "project_id": a.id, "content": "lint output: 40 warnings",
                          "source": "tool"}])
    curation.forget(store, [tool], "noise", actor="ada")
    policy = ConservativePolicy(automatic_write_back=True, review="all")
    for goal in ("Rotate keys", "Tidy logs"):
        write_back(store, policy, WriteInput(goal, f"{goal} done", "coder", a.id))
    plane = ControlPlane.open(store.uri)
    review.reject(store, plane, review.pending(plane)[0]["approval_id"], "ada", "not knowledge")

    report = report_data.quality(analytics.connect(store))

    events = store.audit.events("action IN ('corroborate', 'duplicate', 'contradiction', 'update', 'resolve', "
                                "'correct', 'forget', 'quarantine', 'review_accepted', 'review_rejected')")
    counted = collections.Counter(e["action"] for e in events)
    memories = store.rows("kind != 'project'", 1_000, columns=["id", "source", "tags", "kind"])
    expected = {
        "duplicates_merged": counted["corroborate"], "duplicates_linked": counted["duplicate"],
        "contradictions_flagged": counted["contradiction"] // 2, "updates_recognised": counted["update"],
        "open_contradictions": len(store.disagreements()), "forgotten": counted["forget"],
        "not_read_yet": store.unread(),
        "quarantined": counted["quarantine"], "corrected": counted["correct"],
        "untrusted_memories": sum(not trusted(m["source"], m["tags"]) for m in memories),
        "waiting_for_review": len(review.pending(plane)), "reviews_rejected": counted["review_rejected"],
    }
    assert report.headline == expected
    assert expected["duplicates_merged"] == 1 and expected["contradictions_flagged"] >= 2
    assert expected["open_contradictions"] >= 1 and expected["untrusted_memories"] == 1
    assert expected["waiting_for_review"] == 1 and expected["forgotten"] == 1 and expected["not_read_yet"] == 1
    pairs = [r for r in report.tables["Open contradictions"].iter_rows(named=True)
             if (r["newer_text"], r["older_text"]) == ("Cache TTL is 60 s", "Cache TTL is 300 s")]
    assert {r["project_name"] for r in pairs} == {"shop"}
    # the first 300 s, which the merged repeat corroborates, and its linked copy
    assert sorted((r["older_support"], r["newer_support"]) for r in pairs) == [(1, 1), (2, 1)]
    by_agent = {(r["actor"], r["what"]): r["n_events"] for r in report.tables["By agent"].iter_rows(named=True)}
    pairs = {e["subject_id"] for e in events if e["action"] == "contradiction" and e["details"]["newer"] == e["subject_id"]}
    by_actor = collections.Counter((e["actor"], report_data.QUALITY_ACTIONS[e["action"]]) for e in events
                                   if e["action"] != "contradiction" or e["subject_id"] in pairs)
    assert by_agent == dict(by_actor)
    by_project = collections.Counter(r["project_name"] for r in report.tables["By project"].iter_rows(named=True)
                                     for _ in range(r["n_events"]))
    assert by_project["ops"] >= 1 and sum(by_project.values()) == sum(by_actor.values())
    everything = store.rows("true", 1_000, columns=["source", "tags"])
    sources = collections.Counter((m["source"], trusted(m["source"], m["tags"])) for m in everything)
    assert {(r["source"], r["trusted"]): r["n_memories"]
            for r in report.tables["Memories by source"].iter_rows(named=True)} == dict(sources)
    one = report_data.quality(analytics.connect(store, project_id=b.id))
    assert one.headline["duplicates_merged"] == 0 and one.headline["updates_recognised"] == counted["update"]


def test_a_correction_counts_once_and_an_undone_one_not_at_all(tmp_path):
    """`memlib correct`, `memlib correct --undo`, the quality report: it said corrected 2
    (one event on each memory, the undo ignored), and `memlib history` showed the event
    twice. The report's numbers against the audit log counted here by run."""
    from memlib.lifecycle import retention
    from memlib.store.history import memory_history

    store = MemoryStore.open(str(tmp_path / "s"))
    p = Project(name="shop")
    kept, undone, gone, back = (Insight(project_id=p.id, content=t) for t in (
        "Cache TTL is 300 s", "Deploys run on Fridays", "Logs are kept for 30 days", "The queue has 4 workers"))
    store.add([p, kept, undone, gone, back])
    curation.correct(store, kept.id, "measured", content="Cache TTL is 90 s")
    _, run = curation.correct(store, undone.id, "misread", content="Deploys run on Thursdays")
    curation.uncorrect(store, run)
    curation.forget(store, [gone.id], "stale")
    retention.undo(store, curation.forget(store, [back.id], "wrong one").run_id)

    headline = report_data.quality(analytics.connect(store)).headline
    events = store.audit.events()
    corrections = {e["run_id"] for e in events if e["action"] == "correct"}
    reversed_runs = {e["run_id"] for e in events if e["action"] in ("uncorrect", "retention_undo")}
    forgets = {e["subject_id"] for e in events if e["action"] == "forget" and e["run_id"] not in reversed_runs}
    assert headline["corrected"] == len(corrections - reversed_runs) == 1
    assert headline["forgotten"] == len(forgets) == 1
    life = memory_history(store, kept.id)["events"]
    assert [e["action"] for e in life].count("correct") == 1
