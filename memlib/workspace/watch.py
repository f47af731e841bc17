"""`memlib workspace watch`: a sync after every save of a workspace file (watchdog: inotify,
FSEvents or ReadDirectoryChangesW, no polling). Saves that come together (an editor writes a
file in several steps, a person saves twice) make one sync after a quiet moment; memlib's
own files (.memlib/, temporary files) are not events."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from memlib.errors import MemlibError
from memlib.interface import StoreInterface
from memlib.workspace.files import STATE_DIR

QUIET = 0.3  # seconds without another event before the sync


def _ours(path: str, root: Path) -> bool:
    """Whether a changed path is a workspace file (a markdown file, not memlib's own)."""
    try:
        relative = Path(path).resolve().relative_to(root)
    except ValueError:
        return False
    return (relative.suffix == ".md" and not relative.name.startswith(".")
            and STATE_DIR not in relative.parts)


def watch(ws, store: StoreInterface, report: Callable[[str], None], stop: threading.Event | None = None,
          prefer: str = "file") -> None:
    """Sync once, then after each burst of saves, until `stop` is set (or Ctrl-C). A sync
    that fails (a file a person left invalid) is reported and the watch goes on."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    root = ws.files.root
    stop = stop or threading.Event()
    due = threading.Event()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event):
            paths = [event.src_path, getattr(event, "dest_path", "") or ""]
            if any(p and _ours(p, root) for p in paths):
                due.set()

    def once() -> None:
        try:
            report(ws.sync(store, prefer=prefer).summary())
        except MemlibError as exc:
            report(f"error: {exc}")

    observer = Observer()
    observer.schedule(Handler(), str(root), recursive=True)
    observer.start()
    try:
        once()
        while not stop.is_set():
            if not due.wait(0.2):
                continue
            while due.is_set() and not stop.is_set():  # wait for the burst to end
                due.clear()
                stop.wait(QUIET)
            if not stop.is_set():
                once()
    finally:
        observer.stop()
        observer.join()
