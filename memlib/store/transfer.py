"""JSONL import and export: one memory per line, embeddings included, a lossless round trip."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from memlib.errors import InvalidInput
from memlib.models import from_row, parse_memory


def read_jsonl(path: str) -> list[tuple[str, dict[str, Any]]]:
    """(label, record) for each non-blank line; a bad line is one clear error naming it."""
    name = "<stdin>" if path == "-" else path
    try:
        # utf-8-sig: a byte-order mark some editors put at the start is not part of the JSON
        text = sys.stdin.read().removeprefix("\ufeff") if path == "-" else Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {name}: {exc}") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{name} line {number}: not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise InvalidInput(f"{name} line {number}: must be a JSON object")
        records.append((f"{name} line {number}", record))
    return records


def load_memories(path: str):
    """Validated memories and their labels from a JSONL file, nothing written yet."""
    records = read_jsonl(path)
    labels = [label for label, _ in records]
    return [parse_memory(record, label) for label, record in records], labels


def import_jsonl(store, path: str, progress: bool = False) -> int:
    """Upsert every memory of the file in one commit; re-importing creates no duplicates. A
    memory that names one the file and the store do not hold (the turn before it, what it was
    promoted from, a root task that retention or a delete removed from the store exported)
    keeps that id as a reference to history: an export always imports into a new store."""
    memories, labels = load_memories(path)
    return len(store.upsert(memories, labels=labels, progress=progress, history=True))


def export_jsonl(store, path: str) -> int:
    """Write every memory, embeddings included; the file appears whole or not at all."""
    count = 0
    if path == "-":
        for row in store.iter_rows():
            sys.stdout.write(_line(row))
            count += 1
        return count
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".", prefix=".export-")
    except OSError as exc:  # no such folder, no permission
        raise InvalidInput(f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for row in store.iter_rows():
                fh.write(_line(row))
                count += 1
        try:
            os.replace(tmp, target)
        except OSError as exc:  # the path is a folder
            raise InvalidInput(f"cannot write {path}: {exc.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


def _line(row: dict[str, Any]) -> str:
    return json.dumps(from_row(row).model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n"
