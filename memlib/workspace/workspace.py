"""A workspace: a folder of markdown a person edits (seed 003) kept in step with a store.

    SPIRIT.md               the assistant's persona (records.SpiritConfig)
    OWNER.md                its owner's profile (records.OwnerProfile)
    TOOLS.md                its tools by group (records.ToolDefinition)
    MEMORY.md               long-term entries
    memory/YYYY-MM-DD.md    daily logs: a summary and timed entries
    .memlib/                memlib's own: workspace.json (its project, language, time zone),
                            state.json (what the last sync agreed on), journal, lock

Entries become memories of the workspace's project (`sync`); a memory saved through the
API, the CLI or the agent tools while a workspace is configured is appended to its files
(`saved`). Persona, profile and tools feed the context builder.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from memlib.errors import InvalidInput, invalid
from memlib.interface import StoreInterface
from memlib.models import Project, uuid4_text
from memlib.workspace import convert, markdown, records, sync
from memlib.workspace.files import MEMORY, OWNER, SPIRIT, STATE_DIR, TOOLS, Root, daily_path, day_of
from memlib.workspace.markdown import ENTRY_KINDS

CONFIG = f"{STATE_DIR}/workspace.json"
LANGUAGES = ("en", "zh")

STARTER = {
    "zh": {
        SPIRIT: "# AI 人格设定\n\n## 角色定位\n你是主人的个人助理。\n\n## 性格特征\n- 耐心\n- 直接\n\n"
                "## 价值观\n- 诚实\n- 尊重隐私\n\n## 行为准则\n- 不确定时先提问\n- 回答简洁\n",
        OWNER: "# 用户画像\n\n## 基本信息\n- 姓名: 主人\n- 年龄:\n- 职业:\n\n## 兴趣爱好\n\n## 当前目标\n\n## 偏好设置\n",
        MEMORY: "# 长期记忆\n",
        TOOLS: "# 工具定义\n\n## 记忆\n- query_memory(query): 检索记忆\n- save_insight(content): 记录洞察\n",
    },
    "en": {
        SPIRIT: "# Persona\n\n## Role\nYou are your owner's personal assistant.\n\n## Personality\n- Patient\n"
                "- Direct\n\n## Values\n- Honesty\n- Privacy\n\n## Behavior Rules\n- Ask when unsure\n"
                "- Answer briefly\n",
        OWNER: "# Owner\n\n## Basic Info\n- Name: Owner\n- Age:\n- Occupation:\n\n## Interests\n\n## Goals\n\n"
               "## Preferences\n",
        MEMORY: "# Long-term Memory\n",
        TOOLS: "# Tools\n\n## Memory\n- query_memory(query): search the memory\n"
               "- save_insight(content): record an insight\n",
    },
}


def _zone(name: str) -> str:
    """A time zone's name, checked (ZoneInfo refuses paths such as '../../etc/passwd')."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise ValueError(f"{name!r} is not a time zone (such as UTC or Asia/Shanghai)") from None
    return name


def _project(value: str) -> str:
    try:
        return uuid4_text(value)  # a project is a memory: its id is one
    except ValueError:
        raise ValueError(f"{value!r} is not a project id (a UUID)") from None


class Config(BaseModel):
    """What .memlib/workspace.json holds (memlib workspace init writes it)."""

    model_config = ConfigDict(extra="allow")

    project_id: Annotated[str, AfterValidator(_project)]
    language: Literal["en", "zh"] = "en"
    timezone: Annotated[str, AfterValidator(_zone)] = "UTC"


def daily_starter(day, language: str) -> str:
    title = markdown.TITLES["daily"][language].format(date=day.isoformat())
    summary, entries = (markdown.SECTIONS[k][0] if language == "zh" else markdown.SECTIONS[k][1].title()
                        for k in ("summary", "entries"))
    return f"# {title}\n\n## {summary}\n\n## {entries}\n"


class Workspace:
    def __init__(self, root: str | os.PathLike):
        self.files = Root(root)
        self._config: dict | None = None
        self._records: dict[str, tuple] = {}

    def __repr__(self) -> str:
        return f"Workspace({str(self.files.root)!r})"

    # -- configuration ----------------------------------------------------------------------

    @property
    def config(self) -> dict:
        """.memlib/workspace.json, checked: a hand-edited one that names no project by its
        UUID, an unknown language or no time zone is refused in one line."""
        if self._config is None:
            text = self.files.read(CONFIG)
            if text is None:
                raise InvalidInput(f"{self.files.root} is not a memlib workspace "
                                   f"(memlib workspace init {self.files.path_given})")
            try:
                data = json.loads(text)
            except ValueError:
                raise InvalidInput(f"{self.files.root / CONFIG}: not JSON") from None
            try:
                self._config = Config.model_validate(data).model_dump()
            except ValidationError as exc:
                raise invalid(str(self.files.root / CONFIG), exc) from None
        return self._config

    def check(self) -> None:
        """Refuse in one line, before any lock is taken, a folder that is no workspace, a bad
        workspace.json, or an entry file that is not a regular file (a FIFO would block the
        read, holding the lock)."""
        self.config  # noqa: B018 (validates)
        for relative in self.entry_files():
            self.files.regular(relative)

    @classmethod
    def configured(cls, root: str | os.PathLike) -> "Workspace | None":
        """The workspace in `root` if memlib workspace init made one there, else None."""
        ws = cls(root)
        return ws if ws.files.path(CONFIG).exists() else None

    @property
    def project_id(self) -> str:
        return self.config["project_id"]

    @property
    def language(self) -> str:
        return self.config["language"]

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.config["timezone"])

    @classmethod
    def init(cls, root: str | os.PathLike, store: StoreInterface, name: str | None = None, language: str = "en",
             timezone_name: str = "UTC") -> tuple["Workspace", list[str]]:
        """A workspace in `root` (made if missing): the starter files it lacks (a file that
        exists is never touched), and its project in the store. Returns it and what was written."""
        if language not in LANGUAGES:
            raise InvalidInput(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
        try:
            _zone(timezone_name)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from None
        try:
            Path(root).mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file in the way, no permission, a read-only file system
            raise InvalidInput(f"cannot make the workspace folder {root}: {exc.strerror}") from None
        ws = cls(root)
        written = []
        with ws.files.locked():
            if ws.files.read(CONFIG) is None:
                project = Project(name=name or ws.files.root.name or "workspace", source=convert.SOURCE,
                                  metadata={"workspace": str(ws.files.root)})
                store.add([project])
                ws.files.write(CONFIG, json.dumps({"project_id": project.id, "language": language,
                                                   "timezone": timezone_name}, indent=2) + "\n")
                written.append(CONFIG)
            for relative, text in STARTER[language].items():
                if not ws.files.path(relative).exists():
                    ws.files.write(relative, text)
                    written.append(relative)
            ws.files.path("memory").mkdir(exist_ok=True)
        return ws, written

    def ensure_project(self, store: StoreInterface) -> None:
        """The workspace's project in this store (a store the workspace is new to gets it)."""
        if not store.lookup([self.project_id], ["id"]):
            store.add([Project(id=self.project_id, name=self.files.root.name or "workspace",
                               source=convert.SOURCE, metadata={"workspace": str(self.files.root)})])

    def entry_files(self) -> list[str]:
        """The files that hold entries: MEMORY.md and the daily logs."""
        return ([MEMORY] if self.files.path(MEMORY).exists() else []) + self.files.daily_logs()

    # -- keeping files and store in step ----------------------------------------------------

    def sync(self, store: StoreInterface, prefer: str = "file", actor: str | None = None, on_step=None) -> sync.Report:
        return sync.run(self, store, prefer=prefer, actor=actor, on_step=on_step or sync._nothing)

    def saved(self, store: StoreInterface, memories, actor: str | None = None) -> list[str]:
        """Append memories just saved in the store to the files, in each file's own format:
        a long-term kind (convert.LONG_TERM) to MEMORY.md with a line in today's log, the
        others to their day's log. A journal line per entry tells the next sync which memory
        it is (written first: an entry whose file write a crash lost is written by the sync).
        Returns the files written."""
        todo = [m for m in memories if m.kind in ENTRY_KINDS and m.source != convert.SOURCE]
        if not todo:
            return []
        with self.files.locked():
            return self.append(store, todo, actor)

    def append(self, store: StoreInterface, memories, actor: str | None = None, back: bool = False) -> list[str]:
        """`saved`, by a caller holding the files' lock. `back`: the memories come back to
        the files (an undo restored them): each goes where it came from, its file and
        section, with no line in the day's log."""
        zone = self.zone
        texts: dict[str, str] = {}
        journal, events = [], []

        def doc_of(relative: str, kind: str):
            text = texts.get(relative)
            if text is None:
                text = self.files.read(relative)
            if text is None:
                text = (daily_starter(day_of(relative), self.language)
                        if kind == "daily" else STARTER[self.language][MEMORY])
            return markdown.parse(text, kind)

        for memory in memories:
            local = memory.created_at.astimezone(zone)
            daily = daily_path(local.date())
            relative, kind = (MEMORY, "memory") if memory.kind in convert.LONG_TERM else (daily, "daily")
            source = (memory.metadata or {}).get("source_file") if back else None
            if source == MEMORY or (source and day_of(source) is not None):
                relative, kind = source, sync.entries_of(source)
            doc = doc_of(relative, kind)
            text = convert.entry_text(memory, doc.language or self.language, "heading", zone,
                                      dated=kind == "memory")
            section = (memory.metadata or {}).get("section") if back else None
            new = markdown.appended(doc, text, kind, section or ("entries" if kind == "daily" else None))
            before = {e.key for e in doc.entries}
            entry = next(e for e in new.entries if e.key not in before)
            texts[relative] = new.render()
            journal.append({"file": relative, "key": entry.key, "entry": {
                "id": memory.id, "file": convert.file_hash(entry), "store": convert.store_hash(memory),
                "rev": None, "pending": True}})
            events.append((memory.id, relative))
            if kind == "memory" and not back:  # the day's log says what was kept for good
                log = doc_of(daily, "daily")
                title = convert.text_of(memory)[0] or convert.first_line(convert.text_of(memory)[1])
                # a heading that is not an entry (its label is the arrow): it ends the
                # entry above it and is no one's body
                line = (f"### {local:%H:%M} → {MEMORY} "
                        f"({markdown.label(memory.kind, log.language or self.language)}): {title}\n")
                texts[daily] = markdown.appended(log, line, "daily", "entries").render()
        with open(self.files.path(sync.JOURNAL), "a", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(j, ensure_ascii=False) + "\n" for j in journal))
            fh.flush()
            os.fsync(fh.fileno())
        for relative, text in texts.items():
            self.files.write(relative, text)
        store.log_event("workspace_append", [memory_id for memory_id, _ in events], actor=actor,
                        details=[{"file": relative, **({"back": True} if back else {})}
                                 for _, relative in events])  # one commit
        return sorted(texts)

    # -- persona, owner, tools --------------------------------------------------------------

    def _record(self, relative: str, build):
        """A record file parsed, cached while the file is unchanged; None if it is missing."""
        path = self.files.path(relative)
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._records.get(relative)
        if cached is None or cached[0] != stamp:
            doc = markdown.parse(self.files.read(relative) or "")
            modified = datetime.fromtimestamp(stat.st_mtime, timezone.utc)
            cached = (stamp, build(doc, relative, modified))
            self._records[relative] = cached
        return cached[1]

    def persona(self) -> records.SpiritConfig | None:
        return self._record(SPIRIT, records.spirit)

    def owner(self) -> records.OwnerProfile | None:
        return self._record(OWNER, records.owner)

    def tools(self) -> list[records.ToolDefinition]:
        return self._record(TOOLS, records.tools) or []
