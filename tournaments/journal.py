"""The output directory: an append-only, fsynced journal, the tournament's identity and a lock.

`journal.jsonl` gets one line per finished game the moment it ends (and one line when an SPRT
stops the match). A runner killed at any moment leaves at most one torn last line, which the next
runner cuts off before appending; every line before it is a complete, durable record.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, overload

import msgspec

from foxgeese.engine.userinput import JsonInputError, Mismatch, load_json
from foxgeese.tournaments.entries import NOT_JSON, EntryError, GameEntry, JournalLine, decode_line, encode_line
from foxgeese.tournaments.errors import JournalError, OutputDirBusyError, TournamentError

JOURNAL = "journal.jsonl"
IDENTITY = "tournament.json"
LOCK = "runner.lock"
SHOWN_PROBLEMS = 3  # damaged lines whose problem a refusal spells out


@dataclass
class JournalScan:
    """What a journal holds: the good entries (with their 1-based line numbers), the damaged lines
    with what is wrong with each, and whether the last line is torn (a write cut short by a crash,
    harmless)."""

    entries: list[JournalLine] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    damaged: list[int] = field(default_factory=list)
    problems: dict[int, str] = field(default_factory=dict)  # line number -> what is wrong with it
    torn: bool = False
    good_end: int = 0  # byte offset after the last good line, when no damage precedes it


def scan_journal(directory: Path) -> JournalScan:
    """Reads every line as its type (entries.py); never raises on content (see `read_journal`
    for the strict reading). The last line is torn when it has no newline or is not JSON: a write
    cut short. A complete line that is not an entry this version reads is damage, wherever it is."""
    path = Path(directory) / JOURNAL
    scan = JournalScan()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return scan
    position = 0
    number = 0
    while position < len(data):
        number += 1
        newline = data.find(b"\n", position)
        end = len(data) if newline < 0 else newline + 1
        try:
            if newline < 0:
                raise EntryError("no newline")
            entry = decode_line(data[position:newline])
        except EntryError as problem:
            if end >= len(data) and (newline < 0 or str(problem) == NOT_JSON):
                scan.torn = True  # the last line: a write cut short
            else:
                scan.damaged.append(number)
                scan.problems[number] = str(problem)
        else:
            scan.entries.append(entry)
            scan.lines.append(number)
            if not scan.damaged:
                scan.good_end = end
        position = end
    return scan


def damage_text(scan: JournalScan) -> str:
    """`line 3 is damaged (plies: expected int, not 'x')`, or `lines 1, 3 are damaged (line 1: ...;
    line 3: ...)`: the lines, and what is wrong with the first few, by field."""
    numbers = scan.damaged
    lines = ", ".join(str(n) for n in numbers[:10]) + (", ..." if len(numbers) > 10 else "")
    if len(numbers) == 1:
        return f"line {lines} is damaged ({scan.problems[numbers[0]]})"
    named = "; ".join(f"line {n}: {scan.problems[n]}" for n in numbers[:SHOWN_PROBLEMS])
    return f"lines {lines} are damaged ({named}{'; ...' if len(numbers) > SHOWN_PROBLEMS else ''})"


def read_journal(directory: Path, repair: bool = False) -> list[JournalLine]:
    """All complete entries. A torn last line (no newline, or not JSON) is ignored, or cut off
    when `repair` is set; a bad line anywhere else is real damage and raises JournalError naming
    its line and field (`foxgeese tournament repair DIR` keeps the good lines)."""
    path = Path(directory) / JOURNAL
    scan = scan_journal(directory)
    if scan.damaged:
        raise JournalError(f"{path}: {damage_text(scan)}; "
                           f"`foxgeese tournament repair {directory}` keeps the {len(scan.entries)} good "
                           "lines and drops the damaged ones")
    if repair and scan.torn:
        with open(path, "r+b") as handle:
            handle.truncate(scan.good_end)
            handle.flush()
            os.fsync(handle.fileno())
    return scan.entries


def repair_journal(directory: Path, foreign: Callable[[JournalLine], bool] | None = None
                   ) -> tuple[JournalScan, list[int], Path | None]:
    """Rewrites the journal with its good lines only; the dropped lines are kept in a side file.

    `foreign` picks good lines that are to go too (games of another tournament). Returns what was
    found, the line numbers of the foreign games dropped, and the side file (None when nothing
    had to be dropped)."""
    path = Path(directory) / JOURNAL
    scan = scan_journal(directory)
    strangers = [n for entry, n in zip(scan.entries, scan.lines) if foreign is not None and foreign(entry)]
    if not scan.damaged and not scan.torn and not strangers:
        return scan, [], None
    raw = path.read_bytes().split(b"\n")
    dropped = [raw[number - 1] for number in sorted(scan.damaged + strangers)]
    if scan.torn:
        dropped.append(raw[-1] if raw[-1] else raw[-2])
    side = path.with_name(f"journal.dropped-{time.strftime('%Y%m%dT%H%M%S')}.txt")
    side.write_bytes(b"\n".join(dropped) + b"\n")
    keep = b"".join(raw[number - 1] + b"\n" for number in scan.lines if number not in strangers)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(keep)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    return scan, strangers, side


class JournalWriter:
    """Appends entries durably: each `append` is on disk before it returns."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / JOURNAL
        self._handle: IO[bytes] = open(self.path, "ab")

    def append(self, entry: JournalLine) -> None:
        self._handle.write(encode_line(entry) + b"\n")
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


# What reports and resuming read from tournament.json: one without it is damage, reported by
# name, not a KeyError. (Other keys may be added and are ignored; these must be there.)
class _Scheduled(msgspec.Struct):
    id: str
    round: int
    variant: str
    options: dict[str, Any]
    predator: str
    prey: str
    opening: list[Any]
    twin: str


class _Player(msgspec.Struct):
    name: str


class _Variant(msgspec.Struct):
    id: str
    options: dict[str, Any]


class _Config(msgspec.Struct):
    name: str
    players: list[_Player]
    variants: list[_Variant]


class _Identity(msgspec.Struct):
    config_hash: str
    scheduled: int
    config: _Config
    schedule: list[_Scheduled]


def identity_problem(data: Any) -> str | None:
    """What tournament.json lacks, or None: the first key missing or of the wrong type, named by
    where it is (`config`, `schedule[3]`)."""
    try:
        msgspec.convert(data, _Identity)
    except msgspec.ValidationError as error:
        mismatch = Mismatch(error)
        steps = [f"[{step}]" if isinstance(step, int) else f".{step}" for step in mismatch.path]
        if mismatch.missing:
            return f"{''.join(steps)[1:] or 'tournament.json'} has no '{mismatch.missing}'"
        if not steps or isinstance(mismatch.path[-1], int):  # the file itself, or an item of a list
            return f"{''.join(steps)[1:] or 'tournament.json'} is not a JSON object"
        return f"{''.join(steps[:-1])[1:] or 'tournament.json'}: '{steps[-1].strip('.[]')}' has the wrong type"
    return None


def accepted_hashes(identity: dict[str, Any]) -> set[str]:
    """The config hashes whose games count here: the current one and those it extended."""
    return {identity.get("config_hash", ""), *identity.get("extends", [])}


def belonging(identity: dict[str, Any]) -> Callable[[JournalLine], str | None]:
    """A check of journal entries against the tournament of `identity`: it gives why an entry's
    game does not belong there, or None when it does. A game belongs when its id is scheduled
    with the same variant, players and opening, and it was played under this config (or one it
    extended)."""
    games = {game["id"]: game for game in identity["schedule"]}
    hashes = accepted_hashes(identity)

    def why_foreign(entry: JournalLine) -> str | None:
        if not isinstance(entry, GameEntry):
            return None
        game = games.get(entry.id)
        if game is None:
            return f"game {entry.id} is not in this tournament's schedule"
        for key, value in (("variant", entry.variant), ("options", entry.options), ("predator", entry.predator),
                           ("prey", entry.prey), ("opening", entry.opening)):
            if value != game[key]:
                return f"game {entry.id} has {key} {value!r} where the schedule has {game[key]!r}"
        played_under = entry.config_hash
        if played_under is not None and played_under not in hashes:
            return (f"game {entry.id} was played under config hash {played_under[:12]}, "
                    f"this tournament's is {identity.get('config_hash', '')[:12]}")
        return None

    return why_foreign


@overload
def load_identity(directory: Path, missing_ok: Literal[False] = False) -> dict[str, Any]: ...
@overload
def load_identity(directory: Path, missing_ok: bool) -> dict[str, Any] | None: ...
def load_identity(directory: Path, missing_ok: bool = False) -> dict[str, Any] | None:
    """tournament.json of a tournament directory (checked by `read_identity`), or a
    TournamentError saying there is none (None instead when `missing_ok`)."""
    identity = read_identity(directory)
    if identity is None and not missing_ok:
        raise TournamentError(f"{directory}: not a tournament directory (no tournament.json)")
    return identity
