"""A memory's lifetime: the TTL its writer gave, else its kind's default counted from when the
store writes it, so history imported with its own times is not expired on arrival."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memlib import Conversation, MemoryStore, Project, Scope
from memlib.clock import Clock
from memlib.embeddings import HashEmbedder

NOW = datetime(2026, 11, 1, 12, tzinfo=timezone.utc)
SAID = NOW - timedelta(days=400, hours=5)  # a chat from last year, imported now


def _at(path, when: datetime) -> MemoryStore:
    return MemoryStore.open(str(path), embedder=HashEmbedder(), clock=Clock(when))


def _found(store: MemoryStore, text: str, project: Project) -> list[str]:
    scope = Scope(project_id=project.id, kinds=("conversation",))
    return [h.memory.id for h in store.search(text, k=5, mode="fts", scope=scope)]


def test_a_chat_imported_with_its_own_times_is_found_for_its_kinds_default_from_the_write(tmp_path):
    store = _at(tmp_path / "s", NOW)
    chat = Project(name="chat")
    imported, given, today = store.add([
        chat,
        Conversation(project_id=chat.id, speaker="Caroline", content="I went to the support group", created_at=SAID),
        Conversation(project_id=chat.id, speaker="Mel", content="Pottery class is on Fridays", created_at=SAID,
                     ttl_days=30),
        Conversation(project_id=chat.id, speaker="Mel", content="The lake trip is booked"),
    ])[1:]
    default = Conversation.model_fields["ttl_days"].default
    assert store.get(imported).ttl_days == default + 401  # whole days from when it was said to the write, and more
    assert NOW + timedelta(days=default) <= store.get(imported).expires_at < NOW + timedelta(days=default + 1)
    assert store.get(today).ttl_days == default  # written as it happens: nothing to count
    assert store.get(given).ttl_days == 30 and store.get(given).expires_at < NOW  # what its writer gave, kept
    assert _found(store, "support group", chat) == [imported]
    assert _found(store, "pottery class", chat) == []  # expired as its writer said
    later = _at(tmp_path / "s", NOW + timedelta(days=default + 1))
    assert _found(later, "support group", chat) == []  # and the import expires as one written that day


def test_a_stored_memory_rewritten_without_a_ttl_keeps_its_own(tmp_path):
    store = _at(tmp_path / "s", NOW)
    chat = Project(name="chat")
    said = dict(created_at=SAID, updated_at=SAID)  # as an import's records give them
    turn = dict(project_id=chat.id, speaker="Caroline", content="I went to the support group", **said)
    short = dict(project_id=chat.id, speaker="Mel", content="Pottery class is on Fridays", ttl_days=7, **said)
    first, second = store.add([chat, Conversation(**turn), Conversation(**short)])[1:]
    kept = store.lookup([first, second], ["ttl_days", "revision"])
    a_week_on = _at(tmp_path / "s", NOW + timedelta(days=7))
    a_week_on.upsert([Conversation(id=first, **turn),  # the same import, run again a week later
                      Conversation(id=second, **{k: v for k, v in short.items() if k != "ttl_days"})])
    assert a_week_on.lookup([first, second], ["ttl_days", "revision"]) == kept  # nothing rewritten


def test_a_correction_expires_when_what_it_corrects_would_have(tmp_path):
    from memlib.lifecycle import curation

    store = _at(tmp_path / "s", NOW)
    chat = Project(name="chat")
    imported, short = store.add([
        chat,
        Conversation(project_id=chat.id, speaker="Caroline", content="The support group meets on Mondays",
                     created_at=SAID),
        Conversation(project_id=chat.id, speaker="Mel", content="Pottery class is on Fridays", ttl_days=7,
                     iteration_id="later"),
    ])[1:]
    five_days_on = _at(tmp_path / "s", NOW + timedelta(days=5))
    for memory_id, words in ((imported, "The support group meets on Tuesdays"), (short, "Pottery class is on Thursdays")):
        was = five_days_on.get(memory_id).expires_at
        new, _ = curation.correct(five_days_on, memory_id, "it moved", content=words)
        assert was <= new.expires_at < was + timedelta(days=1)  # neither its default again, nor its import's days twice
