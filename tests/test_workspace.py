"""The markdown workspace (seed 003): files a person edits and the store kept in step."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone

import pytest

from memlib import Conversation, Decision, Insight, MemoryStore, Scope
from memlib.agents.context import build_context
from memlib.agents.sessions import Sessions
from memlib.embeddings import HashEmbedder
from memlib.errors import InvalidInput, InvalidMemory
from memlib.lifecycle import retention
from memlib.models import Kind
from memlib.workspace import Workspace
from memlib.workspace import markdown
from memlib.workspace.sync import STATE

pytestmark = pytest.mark.on_s3  # the workspace syncs with a store in a directory, and in a bucket on the S3 server

DAILY = """# 2026-02-14 日志

## 摘要
讨论了前端和数据库

## 记录条目

### 10:30 - 决策
用户决定使用 React 作为前端框架

### 14:00 - 对话
讨论了数据库选型，最终选择 SQLite

## 随手记
这一段不是条目，原样保留。
"""

MEMORY_MD = """# Long-term Memory

Some prose a person wrote, with **markdown** in it.

## Preferences
- Only drinks americano
- Likes plain UIs
  (no gradients)

## Decisions

### 2026-01-03 09:15 - decision: Local first
Notes never leave the laptop.

```
### 11:00 - decision
- not an entry: inside a code block
```
"""


class Counting(HashEmbedder):
    """The hash embedder, counting the texts it embeds."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return super().embed(texts)


@pytest.fixture
def setup(tmp_path, store_uri):
    embedder = Counting()
    store = MemoryStore.open(store_uri, embedder=embedder)
    ws, _ = Workspace.init(tmp_path / "ws", store, language="zh")
    (tmp_path / "ws" / "memory" / "2026-02-14.md").write_text(DAILY, encoding="utf-8")
    (tmp_path / "ws" / "MEMORY.md").write_text(MEMORY_MD, encoding="utf-8")
    return store, ws, embedder


def _read(ws, relative):
    return (ws.files.root / relative).read_text(encoding="utf-8")


def _write(ws, relative, text):
    (ws.files.root / relative).write_text(text, encoding="utf-8")


def _workspace_memories(store, ws):
    rows = store.dataset().to_table(filter=f"project_id = '{ws.project_id}' AND kind != 'project'").to_pylist()
    return {r["id"]: r for r in rows}


def _state(ws):
    return json.loads(_read(ws, STATE))


def _ids(ws, relative):
    return {key: rec["id"] for key, rec in _state(ws)["files"][relative]["entries"].items()}


# -- the formats -------------------------------------------------------------------------------


def test_a_daily_log_of_seed_003_parses_into_its_summary_and_timed_entries():
    doc = markdown.parse(DAILY, "daily")
    assert [(e.kind, e.at.strftime("%H:%M") if e.at else None, e.section) for e in doc.entries] == [
        (Kind.SUMMARY, None, "摘要"), (Kind.DECISION, "10:30", "记录条目"), (Kind.CONVERSATION, "14:00", "记录条目")]
    assert doc.entries[1].body == "用户决定使用 React 作为前端框架"
    assert doc.language == "zh"
    english = DAILY.replace("摘要", "Summary").replace("记录条目", "Entries").replace("决策", "Decision") \
        .replace("对话", "conversation")
    assert [e.kind for e in markdown.parse(english, "daily").entries] == [e.kind for e in doc.entries]
    assert doc.render() == DAILY


def test_memory_md_holds_bullets_and_dated_entries_but_not_code():
    doc = markdown.parse(MEMORY_MD, "memory")
    got = [(e.form, e.kind, e.section, e.body) for e in doc.entries]
    assert got == [("bullet", Kind.MANUAL, "Preferences", "Only drinks americano"),
                   ("bullet", Kind.MANUAL, "Preferences", "Likes plain UIs\n(no gradients)"),
                   ("heading", Kind.DECISION, "Decisions", "Notes never leave the laptop.\n\n```\n"
                    "### 11:00 - decision\n- not an entry: inside a code block\n```")]
    assert doc.entries[2].title == "Local first" and str(doc.entries[2].day) == "2026-01-03"


def test_persona_owner_and_tools_become_typed_records(setup):
    store, ws, _ = setup
    _write(ws, "OWNER.md", "# 用户画像\n\n## 基本信息\n- 姓名: 张三\n- 年龄: 32\n- 职业: 前端工程师\n\n"
                           "## 兴趣爱好\n- 编程\n- 咖啡\n\n## 当前目标\n- 开发一款本地 AI 笔记工具\n\n"
                           "## 偏好设置\n- 喜欢简洁 UI\n- 饮品: 美式\n")
    _write(ws, "TOOLS.md", "# Tools\n\n## Files\n- read_file(path): read a file\n- [ ] write_file(path, text): write\n\n"
                           "## Web\n- search_web: search the web\n")
    owner = ws.owner()
    assert (owner.name, owner.age, owner.occupation) == ("张三", 32, "前端工程师")
    assert owner.interests == ["编程", "咖啡"] and owner.preferences == {"喜欢简洁 UI": True, "饮品": "美式"}
    assert owner.file_path == "OWNER.md" and owner.last_modified.tzinfo is not None
    persona = ws.persona()
    assert persona.role == "你是主人的个人助理。" and persona.values == ["诚实", "尊重隐私"]
    tools = ws.tools()
    assert [(t.name, t.enabled, t.group) for t in tools] == [
        ("read_file", True, "Files"), ("write_file", False, "Files"), ("search_web", True, "Web")]
    assert tools[0].parameters["required"] == ["path"] and tools[0].file_path == "TOOLS.md"
    _write(ws, "OWNER.md", "# Owner\n\n## Basic Info\n- Name: Ann\n- Age: thirty\n")
    with pytest.raises(InvalidInput, match=r"^OWNER.md: age 'thirty' is not a whole number$"):
        ws.owner()


def test_the_context_builder_takes_persona_owner_and_tools_from_the_workspace(setup):
    store, ws, _ = setup
    _write(ws, "TOOLS.md", "# Tools\n\n## Files\n- read_file(path): read a file\n- [ ] rm(path): delete\n")
    store.workspace = ws
    session = Sessions(store).start(agent="helper", project_id=ws.project_id)
    context = build_context(store, session.session_id, "what did we decide", budget_tokens=2_000)
    assert "Role: 你是主人的个人助理。" in context.text
    assert "Owner: 主人" in context.text
    assert "- read_file: read a file" in context.text and "rm" not in context.text
    assert "query_memory" not in context.text  # memlib's own tool list gave way to TOOLS.md


# -- sync ---------------------------------------------------------------------------------------


def test_first_sync_makes_memories_and_a_second_changes_nothing(setup):
    store, ws, _ = setup
    report = ws.sync(store)
    assert report.added == 6 and not report.files_written
    assert _read(ws, "memory/2026-02-14.md") == DAILY and _read(ws, "MEMORY.md") == MEMORY_MD
    memories = _workspace_memories(store, ws)
    by_text = {r["text"].split("\n")[0]: r for r in memories.values()}
    decision = by_text["用户决定使用 React 作为前端框架"]
    assert decision["kind"] == "decision" and decision["source"] == "workspace"
    assert json.loads(decision["metadata"]) == {"source_file": "memory/2026-02-14.md", "section": "记录条目"}
    assert decision["created_at"] == datetime(2026, 2, 14, 10, 30, tzinfo=timezone.utc)
    assert {r["kind"] for r in memories.values()} == {"summary", "decision", "conversation", "manual"}
    state, version = _read(ws, STATE), store.version
    again = ws.sync(store)
    assert (again.added, again.updated, again.deleted, again.written, again.parsed) == (0, 0, 0, 0, 0)
    assert again.unchanged == 6 and _read(ws, STATE) == state and store.refresh() == version


def test_a_chinese_workspace_is_searched_by_its_words(setup):
    """Design document 003's workspace: its entries found by a word inside a sentence."""
    store, ws, _ = setup
    ws.sync(store)
    scope = Scope(project_id=ws.project_id, include_expired=True)  # the entries are from February
    (hit,) = store.search("前端框架", k=1, mode="fts", scope=scope)
    assert hit.text.startswith("用户决定使用 React 作为前端框架")
    assert "讨论了数据库选型，最终选择 SQLite" in " ".join(h.text for h in store.search("数据库", mode="fts", scope=scope))


def test_an_edited_entry_is_updated_and_only_it_is_embedded_again(setup):
    store, ws, embedder = setup
    ws.sync(store)
    before = _ids(ws, "memory/2026-02-14.md")
    embedder.texts.clear()
    _write(ws, "memory/2026-02-14.md", DAILY.replace("最终选择 SQLite", "最终选择 DuckDB"))
    report = ws.sync(store)
    assert (report.updated, report.embedded, report.added, report.deleted) == (1, 1, 0, 0)
    assert len(embedder.texts) == 1 and "DuckDB" in embedder.texts[0]
    assert _ids(ws, "memory/2026-02-14.md") == before  # same memory, same key
    conversation = store.get(before["heading|记录条目|14:00 conversation|1"])
    assert conversation.content == "讨论了数据库选型，最终选择 DuckDB"


def test_an_edited_bullet_stays_the_same_memory(setup):
    store, ws, _ = setup
    ws.sync(store)
    (old_id,) = [i for k, i in _ids(ws, "MEMORY.md").items() if "americano" in k]
    _write(ws, "MEMORY.md", MEMORY_MD.replace("Only drinks americano", "Only drinks flat whites"))
    report = ws.sync(store)
    assert (report.updated, report.added, report.deleted) == (1, 0, 0)
    assert store.get(old_id).content == "Only drinks flat whites"


def test_a_deleted_entry_is_deleted_reversibly_and_a_new_one_added(setup):
    store, ws, _ = setup
    ws.sync(store)
    ids = _ids(ws, "memory/2026-02-14.md")
    gone = ids["heading|记录条目|10:30 decision|1"]
    text = DAILY.replace("### 10:30 - 决策\n用户决定使用 React 作为前端框架\n\n", "")
    text = text.replace("## 随手记", "### 16:00 - 手记\n买咖啡豆\n\n## 随手记")
    _write(ws, "memory/2026-02-14.md", text)
    report = ws.sync(store)
    assert (report.deleted, report.added, report.updated) == (1, 1, 0)
    assert gone not in _workspace_memories(store, ws)
    events = store.audit.events(f"subject_id = '{gone}' AND action = 'workspace_delete'")
    assert len(events) == 1 and events[0]["run_id"] == report.undo
    assert retention.undo(store, report.undo) == 1
    assert store.get(gone).title == "用户决定使用 React 作为前端框架"
    added = [m for m in _workspace_memories(store, ws).values() if m["kind"] == "manual" and m["content"] == "买咖啡豆"]
    assert len(added) == 1 and added[0]["created_at"] == datetime(2026, 2, 14, 16, 0, tzinfo=timezone.utc)


def test_what_the_store_changes_is_written_to_the_file_in_its_format(setup):
    store, ws, _ = setup
    ws.sync(store)
    ids = _ids(ws, "memory/2026-02-14.md")
    store.update(ids["heading|记录条目|14:00 conversation|1"], content="最终选择 Postgres")
    store.delete([ids["summary|摘要|summary|1"]])
    report = ws.sync(store)
    assert (report.written, report.removed, report.updated, report.deleted) == (1, 1, 0, 0)
    expected = DAILY.replace("讨论了数据库选型，最终选择 SQLite", "最终选择 Postgres").replace(
        "## 摘要\n讨论了前端和数据库\n\n", "## 摘要\n\n")
    assert _read(ws, "memory/2026-02-14.md") == expected
    assert ws.sync(store).parsed == 0  # and that is agreed: nothing to do


@pytest.mark.parametrize("prefer", ["file", "store"])
def test_a_conflict_is_never_resolved_silently(setup, prefer):
    store, ws, _ = setup
    ws.sync(store)
    memory_id = _ids(ws, "memory/2026-02-14.md")["heading|记录条目|14:00 conversation|1"]
    store.update(memory_id, content="the store's words")
    _write(ws, "memory/2026-02-14.md", DAILY.replace("最终选择 SQLite", "the file's words"))
    report = ws.sync(store, prefer=prefer)
    assert len(report.conflicts) == 1 and "conflict in memory/2026-02-14.md" in report.summary()
    (event,) = store.audit.events(f"subject_id = '{memory_id}' AND action = 'workspace_conflict'")
    assert event["details"]["store_version"]["body"] == "the store's words"
    assert event["details"]["file_version"]["body"] == "讨论了数据库选型，the file's words"
    assert event["details"]["kept"] == prefer
    winner = "讨论了数据库选型，the file's words" if prefer == "file" else "the store's words"
    assert store.get(memory_id).content == winner
    assert winner in _read(ws, "memory/2026-02-14.md")
    assert not ws.sync(store).conflicts


def test_memories_saved_with_a_workspace_are_appended_in_the_files_format(setup):
    store, ws, _ = setup
    ws.sync(store)
    agent = MemoryStore.open(store.uri, embedder=store.embedder, workspace=ws.files.root)
    when = datetime(2026, 2, 14, 18, 5, tzinfo=timezone.utc)
    turn = Conversation(project_id=ws.project_id, content="我们明天发布", created_at=when)
    insight = Insight(project_id=ws.project_id, content="发布前先跑迁移", created_at=when)
    agent.add([turn, insight])
    daily = _read(ws, "memory/2026-02-14.md")
    assert daily.startswith(DAILY.split("## 随手记")[0] + "### 18:05 - 对话\n我们明天发布\n\n### 18:05 → MEMORY.md (洞察): 发布前先跑迁移\n")
    assert _read(ws, "MEMORY.md").endswith("```\n\n### 2026-02-14 18:05 - insight\n发布前先跑迁移\n")  # its language
    report = ws.sync(store)
    assert (report.added, report.updated, report.deleted) == (0, 0, 0)  # the same memories, not copies
    assert _ids(ws, "memory/2026-02-14.md")["heading|记录条目|18:05 conversation|1"] == turn.id
    _write(ws, "MEMORY.md", _read(ws, "MEMORY.md").replace("发布前先跑迁移", "发布前先跑迁移和备份"))
    assert ws.sync(store).updated == 1 and store.get(insight.id).content == "发布前先跑迁移和备份"
    events = store.audit.events("action = 'workspace_append'")
    assert {e["subject_id"] for e in events} == {turn.id, insight.id}


def test_a_lost_state_finds_the_same_memories_again(setup):
    store, ws, _ = setup
    ws.sync(store)
    before = set(_workspace_memories(store, ws))
    os.remove(ws.files.path(STATE))
    report = ws.sync(store)
    assert report.added == 0 and set(_workspace_memories(store, ws)) == before


def test_an_invalid_entry_is_refused_in_one_line_and_nothing_is_written(setup):
    store, ws, _ = setup
    ws.sync(store)
    version, state = store.version, _read(ws, STATE)
    _write(ws, "memory/2026-02-15.md", "# 2026-02-15\n\n## Entries\n\n### 09:00 - note\n" + "x" * 10_001 + "\n")
    with pytest.raises(InvalidMemory, match=r"^memory/2026-02-15.md line 5: field 'content': String should have at most 10000 characters$"):
        ws.sync(store)
    assert store.refresh() == version and _read(ws, STATE) == state


def test_a_decision_title_taken_in_the_project_gets_its_time(setup):
    store, ws, _ = setup
    store.add([Decision(project_id=ws.project_id, title="用户决定使用 React 作为前端框架", decision="earlier")])
    ws.sync(store)
    titles = {r["title"] for r in _workspace_memories(store, ws).values() if r["kind"] == "decision"}
    assert "用户决定使用 React 作为前端框架 (2026-02-14 10:30)" in titles
    assert ws.sync(store).updated == 0


# -- safety -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path, message", [
    ("../outside.md", "'..' is not allowed"),
    ("/etc/passwd", "an absolute path"),
    ("memory/notes.md", "a daily log is named by its date"),
    ("memory/2026-02-30.md", "a daily log is named by its date"),
])
def test_paths_outside_the_root_or_not_dates_are_refused(setup, path, message):
    _, ws, _ = setup
    with pytest.raises(InvalidInput, match=message):
        ws.files.path(path)


def test_a_symlink_that_leaves_the_root_is_refused(setup, tmp_path):
    store, ws, _ = setup
    (tmp_path / "elsewhere.md").write_text("### 10:00 - note\nsecret\n")
    os.symlink(tmp_path / "elsewhere.md", ws.files.root / "memory" / "2026-03-01.md")
    with pytest.raises(InvalidInput, match=r"leads outside the workspace"):
        ws.sync(store)
    assert "secret" not in {r["text"] for r in _workspace_memories(store, ws).values()}


def test_a_symlink_to_the_workspaces_own_state_is_refused(setup):
    """`ln -s $W/.memlib/state.json $W/memory/2026-01-13.md` was read as a daily log (nothing
    added, rc 0)."""
    store, ws, _ = setup
    ws.sync(store)
    version = store.refresh()
    os.symlink(ws.files.root / ".memlib" / "state.json", ws.files.root / "memory" / "2026-01-13.md")
    with pytest.raises(InvalidInput, match=r"^'memory/2026-01-13.md' is a link to memlib's own state"):
        ws.sync(store)
    assert store.refresh() == version


def test_a_stray_markdown_file_in_memory_stops_the_sync_before_anything_is_written(setup):
    store, ws, _ = setup
    _write(ws, "memory/ideas.md", "- an idea\n")
    version = store.version
    with pytest.raises(InvalidInput, match=r"^'memory/ideas.md': a daily log is named by its date"):
        ws.sync(store)
    assert store.refresh() == version



@pytest.mark.parametrize("relative, make, what", [
    ("memory/2026-01-05.md", os.mkfifo, "a FIFO"),
    ("MEMORY.md", lambda p: (p.unlink(), os.mkfifo(p)), "a FIFO"),
    ("memory/2026-01-06.md", os.mkdir, "a directory"),
])
def test_an_entry_file_that_is_not_a_regular_file_is_refused_without_holding_the_lock(setup, relative, make, what):
    """A FIFO where a daily log goes made the sync block in open() for over 60 s holding the
    lock; a directory named like a daily log was a traceback. Both are refused in one line,
    before the lock is taken, and nothing is written."""
    import threading
    import time

    store, ws, _ = setup
    make(ws.files.root / relative)
    version = store.version
    done = []
    worker = threading.Thread(target=lambda: done.append(_refusal(lambda: ws.sync(store))), daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(timeout=20)
    assert done and time.monotonic() - started < 20, "the sync hung"
    assert done[0] == f"{relative}: not a regular file ({what}); workspace files are text files"
    with ws.files.locked(timeout=0.5):  # free
        pass
    assert store.refresh() == version and not (ws.files.root / STATE).exists()


def _refusal(call) -> str:
    try:
        call()
    except InvalidInput as exc:
        return str(exc)
    return "not refused"


@pytest.mark.parametrize("change, message", [
    ({"project_id": "not-a-uuid"}, r"project_id: 'not-a-uuid' is not a project id \(a UUID\)$"),
    ({"timezone": "../../etc/passwd"}, r"timezone: '../../etc/passwd' is not a time zone"),
    ({"language": "fr"}, r"language: Input should be 'en' or 'zh'$"),
    ({"project_id": 7}, r"project_id: Input should be a valid string$"),
])
def test_a_bad_workspace_json_is_refused_in_one_line_before_the_lock(setup, change, message):
    store, ws, _ = setup
    config = ws.files.root / ".memlib" / "workspace.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), **change}))
    (ws.files.root / ".memlib" / "lock").unlink(missing_ok=True)
    with pytest.raises(InvalidInput, match=f"^{re.escape(str(config))}: {message}"):
        Workspace(ws.files.root).sync(store)
    assert not (ws.files.root / ".memlib" / "lock").exists()  # the lock was never taken


def test_a_folder_that_is_no_workspace_is_refused_and_left_as_it_was(setup, tmp_path):
    store, _, _ = setup
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(InvalidInput, match="is not a memlib workspace"):
        Workspace(plain).sync(store)
    assert list(plain.iterdir()) == []  # no .memlib/lock left behind


# -- analytics ----------------------------------------------------------------------------------


def test_the_workspace_activity_views_and_report_section_match_an_independent_count(setup):
    from collections import Counter
    from datetime import timedelta

    from memlib import analytics
    from memlib.analytics import report_data

    store, ws, _ = setup
    ws.sync(store)
    agent = MemoryStore.open(store.uri, embedder=store.embedder, workspace=ws.files.root)
    agent.add([Insight(project_id=ws.project_id, content="发布前先跑迁移")], actor="helper")
    _write(ws, "MEMORY.md", MEMORY_MD.replace("Likes plain UIs", "Likes plain, fast UIs"))
    ws.sync(store)
    hits = store.recall("React 前端框架", k=2)
    con = analytics.connect(store, analytics.Params(as_of=datetime.now(timezone.utc) + timedelta(minutes=1)))
    rows = con.execute("select id, kind, created_on, written_by, is_never_recalled from mart_workspace_entries").fetchall()
    # independently: the entries the files hold now, and the memories an agent appended
    state = _state(ws)
    in_files = {r["id"] for f in state["files"].values() for r in f["entries"].values()}
    assert {r[0] for r in rows} == in_files
    memories = {i: store.get(i) for i in in_files}
    expected_days = Counter((m.created_at.date(), m.kind.value) for m in memories.values())
    assert Counter((r[2], r[1]) for r in rows) == expected_days
    assert {r[0] for r in rows if r[3] == "agent"} == {e["subject_id"] for e in store.audit.events("action = 'workspace_append'")}
    assert {r[0] for r in rows if r[4]} == in_files - {h.id for h in hits}
    changes = {(r[0], r[1]): r[2] for r in con.execute(
        "select changed_by, action, sum(n_changes) from mart_workspace_changes group by all").fetchall()}
    events = Counter(e["action"] for e in store.audit.events() if e["action"].startswith("workspace_"))
    assert changes[("hand", "workspace_sync")] == events["workspace_sync"] == 6 + 1  # the first sync's six, one edit
    assert changes[("agent", "workspace_append")] == events["workspace_append"] == 1
    report = report_data.usage(con)
    daily = report.tables["Workspace entries per day by kind"]
    assert dict(zip(zip(daily["created_on"], daily["kind"]), daily["n_entries"])) == expected_days
    assert report.headline["workspace_entries_never_recalled_share"] == pytest.approx(
        len(in_files - {h.id for h in hits}) / len(in_files))
    assert {"Workspace entries per day", "Workspace changes per day"} <= set(report.charts)


@pytest.mark.parametrize("prefer", ["file", "store"])
def test_an_entry_deleted_from_its_file_and_edited_in_the_store_is_a_conflict(setup, prefer):
    store, ws, _ = setup
    ws.sync(store)
    memory_id = _ids(ws, "memory/2026-02-14.md")["heading|记录条目|10:30 decision|1"]
    store.update(memory_id, decision="用户决定使用 Vue")
    _write(ws, "memory/2026-02-14.md", DAILY.replace("### 10:30 - 决策\n用户决定使用 React 作为前端框架\n\n", ""))
    report = ws.sync(store, prefer=prefer)
    assert len(report.conflicts) == 1 and report.conflicts[0]["file_version"] is None
    if prefer == "file":
        assert report.deleted == 1 and memory_id not in _workspace_memories(store, ws)
        assert retention.undo(store, report.undo) == 1  # the store's version is not lost
        assert store.get(memory_id).decision == "用户决定使用 Vue"
    else:
        assert report.deleted == 0 and "\n用户决定使用 Vue\n" in _read(ws, "memory/2026-02-14.md")
        assert not ws.sync(store).conflicts


def test_a_save_whose_file_write_was_lost_is_written_by_the_next_sync(setup, monkeypatch):
    store, ws, _ = setup
    ws.sync(store)
    agent = MemoryStore.open(store.uri, embedder=store.embedder, workspace=ws)
    insight = Insight(project_id=ws.project_id, content="备份每天一次")

    def crash(relative, text):
        raise OSError("disk gone")

    with monkeypatch.context() as patched:  # only this: the store's own settings stay
        patched.setattr(ws.files, "write", crash)
        with pytest.raises(OSError):
            agent.add([insight])
    assert "备份每天一次" not in _read(ws, "MEMORY.md") and agent.get(insight.id)
    report = ws.sync(store)
    assert (report.written, report.added, report.deleted) == (1, 0, 0)
    assert "\n备份每天一次\n" in _read(ws, "MEMORY.md")
    assert ws.sync(store).parsed == 0


def test_an_undo_of_a_syncs_deletion_puts_the_entry_back_in_its_file(tmp_path):
    """Delete an entry from a daily log, sync (1 deleted, undo offered), undo the run: the
    memory came back to the store and no later sync wrote it to its file, and `retention
    runs` listed the run as 'None vNone as of 0 memories'. Through the installed command."""
    import subprocess
    import sys
    from pathlib import Path

    memlib = str(Path(sys.executable).with_name("memlib"))

    def run(*args):
        done = subprocess.run([memlib, "--store", str(tmp_path / "store"), *args], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("init", "--embedder", "hash")
    run("workspace", "init", str(tmp_path / "ws"), "--language", "en")
    log = tmp_path / "ws" / "memory" / "2026-02-14.md"
    both = ("# 2026-02-14 Log\n\n## Entries\n\n### 10:30 - decision\nWe use React for the front end\n\n"
            "### 11:00 - insight\nThe invoices job retries three times\n")
    log.write_text(both, encoding="utf-8")
    run("workspace", "sync", str(tmp_path / "ws"))
    log.write_text(both.replace("\n### 11:00 - insight\nThe invoices job retries three times\n", ""), encoding="utf-8")
    synced = run("workspace", "sync", str(tmp_path / "ws"), "--json")
    run_id = json.loads(synced)["undo"]
    assert json.loads(synced)["deleted"] == 1 and run_id
    listed = run("retention", "runs")
    assert "None" not in listed and "deleted from the workspace files" in listed and "1 memories removed" in listed
    undone = run("retention", "undo", run_id)
    assert "restored 1 memories" in undone and "1 entries written back" in undone
    text = log.read_text(encoding="utf-8")
    assert "The invoices job retries three times" in text and text.count("We use React") == 1
    again = json.loads(run("workspace", "sync", str(tmp_path / "ws"), "--json"))
    assert (again["added"], again["deleted"], again["written"]) == (0, 0, 0)
    assert log.read_text(encoding="utf-8") == text
    # the Python API's undo leaves the files to the next sync, which writes the entry back
    store = MemoryStore.open(str(tmp_path / "store"))
    ws = Workspace.configured(tmp_path / "ws")
    log.write_text(both.replace("\n### 11:00 - insight\nThe invoices job retries three times\n", ""), encoding="utf-8")
    removed = ws.sync(store)
    assert removed.deleted == 1
    from memlib.lifecycle import retention

    retention.undo(store, removed.undo)
    assert ws.sync(store).written == 1 and "The invoices job retries three times" in log.read_text(encoding="utf-8")
    assert ws.sync(store).written == 0
