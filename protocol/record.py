"""Game records: one JSON object per game, written by the referee when the game ends.

The keys `variant`, `options`, `start` and `moves[i].move` are what `foxgeese show RECORD` replays;
everything else (clocks, bots, why the game ended) is for people and tournaments.
"""

from __future__ import annotations

import enum
import json
import os
import time
from dataclasses import MISSING, dataclass, field, fields
from typing import Annotated, Any

import msgspec

from foxgeese.engine import words
from foxgeese.engine.userinput import JsonInputError, Mismatch, load_json, shown
from foxgeese.files import atomic_write

RECORD_FORMAT = 1
Milliseconds = Annotated[int, msgspec.Meta(ge=0)]
DRAW = "draw"


class RefereeTermination(str, enum.Enum):
    """Endings the referee decides, kept apart from the engine's rule endings (`Termination`)."""

    TIME_FORFEIT = "time-forfeit"
    ILLEGAL_MOVE = "illegal-move"
    CRASH = "crash"
    PROTOCOL_ERROR = "protocol-error"
    NO_SHOW = "no-show"
    RESIGNATION = "resignation"
    MAX_PLIES = "max-plies"
    ADJUDICATED = "adjudicated"  # the caller's adjudicator decided the position (the reason says why)

    def __str__(self) -> str:
        return self.value


# The endings that are a bot's own fault: the loser failed (a drawn `no-show` is both seats'). The one
# list: the journal's `forfeit`, the failure lists and the logs shown after a game read it.
BOT_FAULTS: frozenset[str] = frozenset(ending.value for ending in (
    RefereeTermination.TIME_FORFEIT, RefereeTermination.ILLEGAL_MOVE, RefereeTermination.CRASH,
    RefereeTermination.PROTOCOL_ERROR, RefereeTermination.NO_SHOW))


class RecordError(ValueError):
    """A file or text that is not a game record of a format this version reads."""


@dataclass
class MoveRecord:
    """One ply: the move text, how long it took and what was left on the mover's clock.

    `think_ms + transport_ms` is what the mover's clock was charged (arrival of the reply less the
    sending of the turn); `referee_ms` is the referee's own work before that turn (checking the
    previous move, preparing the turn, callbacks), which is on no clock; the entry itself is written
    after the turn is out, while the bot thinks.
    """

    move: str
    side: str = ""
    think_ms: int = 0
    transport_ms: int = 0
    clock_ms: int = 0
    info: dict[str, Any] = field(default_factory=dict)
    book: bool = False
    referee_ms: float = 0.0


@dataclass
class SeatRecord:
    """Who played one side: from the BotConfig and from the bot's own `hello`."""

    name: str
    command: list[str] = field(default_factory=list)
    version: str = ""
    author: str = ""
    bot_name: str = ""
    stderr: str | None = None
    rtt_ms: float | None = None


@dataclass
class GameRecord:
    """Everything about one finished game; `to_json`/`from_json` round-trip it exactly."""

    game_id: str
    variant: str
    options: dict[str, Any]
    start: str
    bots: dict[str, SeatRecord]
    time_control: str
    moves: list[MoveRecord] = field(default_factory=list)
    winner: str = DRAW
    termination: str = ""
    reason: str = ""
    plies: int = 0
    started: str = ""
    ended: str = ""
    referee: str = ""
    final: str = ""
    seed: int | None = None  # the game's seed, sent to both bots in new_game
    # Each side's ms left at the start when the game did not start from its time control (a game
    # played on from a kept position, e.g. after a takeback); {} when both started from it.
    start_clocks: dict[str, Milliseconds] = field(default_factory=dict)
    format: int = RECORD_FORMAT

    def to_dict(self) -> dict[str, Any]:
        """What `dataclasses.asdict` gives (plus `stderr`), built directly: a worker turns every
        finished game into its journal line, and asdict's generic deep copy cost a millisecond a game."""
        data = _as_dict(self, _RECORD_KEYS)
        data["bots"] = {side: _as_dict(seat, _SEAT_KEYS) for side, seat in self.bots.items()}
        data["moves"] = [_move_dict(move) for move in self.moves]
        data["stderr"] = {side: seat.stderr for side, seat in self.bots.items()}
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        if not isinstance(data, dict):
            raise RecordError("a game record is a JSON object")
        if "format" not in data:
            raise RecordError(f"record: missing key 'format' (this version reads format {RECORD_FORMAT})")
        if data.get("format") != RECORD_FORMAT:
            raise RecordError(f"record format {data.get('format')!r} is not {RECORD_FORMAT}")
        try:  # typed by the dataclasses' own annotations; keys they do not declare are ignored
            return msgspec.convert(data, cls)
        except msgspec.ValidationError as error:
            raise RecordError(_problem(error, data)) from None

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        try:
            data = load_json(text)
        except JsonInputError as error:
            raise RecordError(str(error)) from None
        return cls.from_dict(data)  # type: ignore[arg-type]

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the record atomically (a reader never sees half a record)."""
        with atomic_write(path) as out:
            out.write(self.to_json(indent=1))
            out.write("\n")

    def result_line(self) -> str:
        """One line for people: `fox wins by captured (...)` / `draw by repetition`."""
        verdict = "draw" if self.winner == DRAW else words.side_verb(self.winner, "wins", "win")
        line = f"{verdict} by {self.termination} after {words.plies(self.plies)}"
        return f"{line}: {self.reason}" if self.reason else line


_MOVE_KEYS = tuple(f.name for f in fields(MoveRecord))
_MOVE_KEY_SET = frozenset(_MOVE_KEYS)
_SEAT_KEYS = tuple(f.name for f in fields(SeatRecord))
_RECORD_KEYS = tuple(f.name for f in fields(GameRecord))


def _as_dict(item: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """One record dataclass's fields by name, their dict and list values copied (see `_plain`)."""
    return {key: _plain(getattr(item, key)) for key in keys}


def _move_dict(move: MoveRecord) -> dict[str, Any]:
    """`_as_dict` of a move, the common case (its __dict__ is its fields, in order) made quick."""
    data = dict(move.__dict__)
    if data.keys() != _MOVE_KEY_SET:  # an attribute added or missing: the general way
        return _as_dict(move, _MOVE_KEYS)
    data["info"] = _plain(data["info"])
    return data


def _plain(value: Any) -> Any:
    """A JSON-like value with its dicts and lists copied, as asdict copies them."""
    kind = value.__class__
    if kind is dict:
        return {key: _plain(item) for key, item in value.items()}
    if kind is list:
        return [_plain(item) for item in value]
    return value


def load_record(path: str | os.PathLike[str]) -> GameRecord:
    """Reads a record written by `GameRecord.save` (or any file holding one record's JSON)."""
    try:
        with open(path, "rb") as source:
            return GameRecord.from_json(source.read())
    except OSError as error:
        raise RecordError(f"cannot read record {shown(os.fspath(path))}: {error.strerror}") from None


# Fields whose problem is said in words rather than as a JSON type.
_FIELD_WORDS = {"command": "a list of strings", "start_clocks": "whole milliseconds, 0 or more, by side"}


def _problem(error: msgspec.ValidationError, data: dict[str, Any]) -> str:
    """What `msgspec.convert` found wrong with a record, named as the record's parts are named:
    `record.plies`, `moves[3].think_ms`, `bots['fox'].command` (records are files anyone can edit)."""
    mismatch = Mismatch(error)
    steps = list(mismatch.path)
    where, value = "record", data
    cls: type = GameRecord
    if len(steps) >= 2 and steps[0] in ("bots", "moves"):
        part, key = steps[0], steps[1]
        if key == "...":  # msgspec does not name a dict's key: the first seat that does not convert
            key = next(side for side, seat in data["bots"].items() if not _converts(seat, SeatRecord))
        where = f"{part}[{shown(key, 20) if part == 'bots' else key}]"
        cls, value = (SeatRecord if part == "bots" else MoveRecord), data[part][key]
        steps = steps[2:]
    if mismatch.missing:
        missing = [item.name for item in fields(cls) if item.name not in value
                   and item.default is MISSING and item.default_factory is MISSING]
        noun = "key" if len(missing) == 1 else "keys"
        return f"{where}: missing {noun} {', '.join(repr(name) for name in missing)}"
    if not steps:
        return f"{where}: expected a JSON object, not {shown(value, 30)}"
    name = str(steps[0])
    if name in _FIELD_WORDS:
        return f"{where}.{name}: expected {_FIELD_WORDS[name]}"
    if mismatch.expected:
        return f"{where}.{name}: expected {mismatch.expected}, not {shown(value[name], 30)}"
    return f"{where}.{name}: {mismatch.words[:1].lower()}{mismatch.words[1:]}"


def _converts(data: Any, cls: type) -> bool:
    try:
        msgspec.convert(data, cls)
    except msgspec.ValidationError:
        return False
    return True


def utc_now() -> str:
    """ISO 8601 UTC with milliseconds, as records store times (`2026-12-01T19:15:13.634Z`): two
    calls a game, about 2 us each (`datetime.now(UTC).isoformat()` takes 4)."""
    second, ns = divmod(time.time_ns(), 1_000_000_000)
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(second))}.{ns // 1_000_000:03d}Z"
