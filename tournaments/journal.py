"""The output directory: an append-only, fsynced journal, the tournament's identity and a lock.

`journal.jsonl` gets one line per finished game the moment it ends (and one line when an SPRT
stops the match). A runner killed at any moment leaves at most one torn last line, which the next
runner cuts off before appending; every line before it is a complete, durable record.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import IO, Any

from foxgeese.tournaments.errors import JournalError, OutputDirBusyError

JOURNAL = "journal.jsonl"
IDENTITY = "tournament.json"
LOCK = "runner.lock"


def read_journal(directory: Path, repair: bool = False) -> list[dict[str, Any]]:
    """All complete entries. A torn last line (no newline, or not JSON) is ignored, or cut off
    when `repair` is set; a bad line anywhere else is real damage and raises JournalError."""
    path = Path(directory) / JOURNAL
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    entries: list[dict[str, Any]] = []
    good_end = 0
    position = 0
    while position < len(data):
        newline = data.find(b"\n", position)
        end = len(data) if newline < 0 else newline + 1
        line = data[position:end]
        try:
            entry = json.loads(line) if newline >= 0 else None
        except ValueError:
            entry = None
        if not isinstance(entry, dict):
            if end < len(data):
                raise JournalError(f"{path}: line {len(entries) + 1} is damaged (not a torn last line); "
                                   "move the file away to start over")
            break
        entries.append(entry)
        good_end = end
        position = end
    if repair and good_end < len(data):
        with open(path, "r+b") as handle:
            handle.truncate(good_end)
            handle.flush()
            os.fsync(handle.fileno())
    return entries


class JournalWriter:
    """Appends entries durably: each `append` is on disk before it returns."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / JOURNAL
        self._handle: IO[bytes] = open(self.path, "ab")

    def append(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        self._handle.write(line)
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DirectoryLock:
    """An exclusive flock on `runner.lock`: the kernel drops it when the holder dies, even by kill -9."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / LOCK
        self._handle: IO[str] | None = None

    def acquire(self) -> None:
        handle = open(self.path, "a+")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "?"
            handle.close()
            raise OutputDirBusyError(
                f"{self.path.parent}: another runner (pid {holder}) is using this directory"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def read_identity(directory: Path) -> dict[str, Any] | None:
    path = Path(directory) / IDENTITY
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        raise JournalError(f"{path}: not valid JSON") from None


