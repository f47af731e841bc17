"""The workspace's files on disk: which paths may be read or written (nothing outside the
root), atomic writes (a temporary file in the same folder, fsynced, then renamed over the
old one: a reader or a crash sees the old file or the new one, never half of one), and the
lock every sync and every append holds (filelock), so two never interleave."""

from __future__ import annotations

import os
import re
import stat
from contextlib import contextmanager
from datetime import date
from pathlib import Path, PurePosixPath

from memlib.errors import InvalidInput, StoreError

SPIRIT, OWNER, MEMORY, TOOLS = "SPIRIT.md", "OWNER.md", "MEMORY.md", "TOOLS.md"
DAILY = "memory"
STATE_DIR = ".memlib"
LOCK_TIMEOUT = 60.0  # seconds a sync waits for another to finish
_DAILY_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")


def daily_path(day: date) -> str:
    return f"{DAILY}/{day.isoformat()}.md"


def day_of(relative: str) -> date | None:
    """The date a daily log's path names (memory/YYYY-MM-DD.md), else None."""
    parts = PurePosixPath(relative).parts
    match = _DAILY_NAME.match(parts[-1]) if len(parts) == 2 and parts[0] == DAILY else None
    if not match:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


class Root:
    """A workspace folder; every path memlib touches in it passes `path`."""

    def __init__(self, root: str | os.PathLike):
        given = Path(root)
        if not given.is_dir():
            raise InvalidInput(f"workspace {str(root)!r} is not a directory")
        self.path_given = given
        self.root = given.resolve()

    def path(self, relative: str) -> Path:
        """The file a workspace-relative path names; refused in one line when it is absolute,
        climbs with '..', leaves the root through a symlink (or leads into memlib's own state
        folder through one), or is under memory/ and not a date (memory/YYYY-MM-DD.md)."""
        pure = PurePosixPath(relative.replace("\\", "/"))
        if pure.is_absolute() or relative.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", relative):
            raise InvalidInput(f"{relative!r}: an absolute path; workspace paths are relative to its root")
        if ".." in pure.parts:
            raise InvalidInput(f"{relative!r}: '..' is not allowed in a workspace path")
        if len(pure.parts) > 1 and pure.parts[0] == DAILY and day_of(str(pure)) is None:
            raise InvalidInput(f"{relative!r}: a daily log is named by its date, memory/YYYY-MM-DD.md")
        target = self.root.joinpath(*pure.parts)
        resolved = target.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise InvalidInput(f"{relative!r} leads outside the workspace (a symlink to {resolved})")
        state = self.root / STATE_DIR
        if pure.parts[:1] != (STATE_DIR,) and (resolved == state or state in resolved.parents):
            raise InvalidInput(f"{relative!r} is a link to memlib's own state ({resolved}), not a workspace file")
        return target

    def daily_logs(self) -> list[str]:
        """memory/*.md, by date; a markdown file there that is not named by a date is refused
        (hidden files and editors' swap files are not workspace files)."""
        folder = self.path(DAILY)
        if not folder.is_dir():
            return []
        out = []
        for child in sorted(folder.iterdir()):
            if child.name.startswith(".") or not child.name.endswith(".md"):
                continue
            out.append(str(self.path(f"{DAILY}/{child.name}").relative_to(self.root)).replace(os.sep, "/"))
        return out

    def regular(self, relative: str) -> Path | None:
        """The path, if it names a regular file (None if nothing is there); a directory, a
        FIFO, a socket or a device is refused in one line."""
        path = self.path(relative)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InvalidInput(f"{relative}: cannot be read ({exc.strerror or exc})") from None
        _regular(relative, mode)
        return path

    def read(self, relative: str) -> str | None:
        """A file's text, None if it is missing. Opened without blocking and checked once
        open, so a FIFO put in a file's place never stalls a sync holding the lock."""
        try:
            fd = os.open(self.path(relative), os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InvalidInput(f"{relative}: cannot be read ({exc.strerror or exc})") from None
        with os.fdopen(fd, "rb") as fh:
            _regular(relative, os.fstat(fd).st_mode)
            data = fh.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput(f"{relative}: not UTF-8 text") from None

    def write(self, relative: str, text: str) -> None:
        """Atomically: the whole new file, or the old one."""
        atomic_write(self.path(relative), text)

    @contextmanager
    def locked(self, timeout: float = LOCK_TIMEOUT):
        """Held by a sync or an append for as long as it reads and writes the files."""
        from filelock import FileLock, Timeout

        state = self.path(STATE_DIR)
        state.mkdir(exist_ok=True)
        lock = FileLock(str(state / "lock"))
        try:
            lock.acquire(timeout=timeout)
        except Timeout:
            raise StoreError(f"workspace {self.root} is being synced by another process "
                             f"(waited {timeout:.0f} s for {state / 'lock'})") from None
        try:
            self._sweep()
            yield
        finally:
            lock.release()

    def _sweep(self) -> None:
        """Temporary files a killed writer left (none is being written: the lock is held)."""
        for folder in (self.root, self.root / DAILY, self.root / STATE_DIR):
            if folder.is_dir():
                for stale in folder.glob(".*.tmp"):
                    stale.unlink(missing_ok=True)


def _regular(relative: str, mode: int) -> None:
    """Refuse in one line what is not a regular file (a directory, a FIFO, a socket, a device)."""
    if stat.S_ISREG(mode):
        return
    kinds = [(stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")]
    what = next((name for test, name in kinds if test(mode)), "not a file")
    raise InvalidInput(f"{relative}: not a regular file ({what}); workspace files are text files")


def atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    finally:
        if temp.exists():
            temp.unlink()
    try:  # the rename itself survives a power cut once the folder is synced
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
