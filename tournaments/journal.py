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
from typing import Any, IO

from foxgeese.engine.userinput import JsonInputError, load_json
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
        data = load_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except JsonInputError as error:
        raise JournalError(f"{path}: {error}") from None
    problem = identity_problem(data)
    if problem:
        raise JournalError(f"{path}: damaged ({problem}); restore it, or use a new output directory")
    return data  # type: ignore[return-value]


# What reports and resuming read from the files: an entry or identity without it is damage,
# reported by name, not a KeyError. (Other keys may be added; these must be there.)
_GAME_KEYS: dict[str, Any] = {
    "id": str, "twin": str, "variant": str, "options": dict, "predator": str, "prey": str, "winner": str,
    "predator_score": (int, float), "termination": str, "plies": int,
}
_SCHEDULED_KEYS: dict[str, Any] = {
    "id": str, "round": int, "variant": str, "options": dict, "predator": str, "prey": str, "opening": list,
    "twin": str,
}
_IDENTITY_KEYS: dict[str, Any] = {"config_hash": str, "scheduled": int, "config": dict, "schedule": list}
_CONFIG_KEYS: dict[str, Any] = {"name": str, "players": list, "variants": list}


def entry_problem(entry: dict[str, Any]) -> str | None:
    """What a journal line lacks, or None (only game lines have required keys)."""
    if entry.get("type") == "game":
        return _shape_problem(entry, _GAME_KEYS, "game entry")
    return None


def identity_problem(data: Any) -> str | None:
    """What tournament.json lacks, or None."""
    problem = _shape_problem(data, _IDENTITY_KEYS, "tournament.json")
    if problem:
        return problem
    config = data["config"]
    problem = _shape_problem(config, _CONFIG_KEYS, "config")
    if problem:
        return problem
    for key, required in (("players", {"name": str}), ("variants", {"id": str, "options": dict})):
        for index, item in enumerate(config[key]):
            problem = _shape_problem(item, required, f"config.{key}[{index}]")
            if problem:
                return problem
    for index, game in enumerate(data["schedule"]):
        problem = _shape_problem(game, _SCHEDULED_KEYS, f"schedule[{index}]")
        if problem:
            return problem
    return None


def _shape_problem(data: Any, keys: dict[str, Any], what: str) -> str | None:
    if not isinstance(data, dict):
        return f"{what} is not a JSON object"
    for key, kind in keys.items():
        if key not in data:
            return f"{what} has no '{key}'"
        if not isinstance(data[key], kind) or (isinstance(data[key], bool) and kind is int):
            return f"{what}: '{key}' has the wrong type"
    return None


def write_json_atomic(path: Path, data: Any) -> None:
    """Write-then-rename, so readers (and a rerun after a crash) see the old file or the new one."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
