"""A tournament's results as typed records: a game's journal line (`GameEntry`), the SPRT's stop
line (`SprtStop`), and how a line is written and read back.

The worker makes a `GameEntry` when a game ends (its record is the referee's `GameRecord`); the
journal writes it as one JSON line, with the field names the journal has always had
(docs/tournaments.md), and reads every line back as its type, checked: a line an older version
wrote, or a hand edit, is refused by what is wrong with it (`predator_score: expected float, not
"x"`, `record.moves[3].think_ms: ...`), not met later as a KeyError. The summary, the reports,
the pairs and ratings, the failure lists and the live page read these attributes.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import msgspec

from foxgeese.engine import Side, get_variant
from foxgeese.engine.userinput import Mismatch, shown
from foxgeese.protocol.record import RECORD_FORMAT, GameRecord

# A variant's options as a journal and a schedule keep them (`{"geese": 13, "sideways": false}`).
Options = dict[str, int | bool | float | str]
Score = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
Count = Annotated[int, msgspec.Meta(ge=0)]


NOT_JSON = "not a JSON object"


class EntryError(ValueError):
    """A journal line that is not an entry this version reads; the message names the field."""


class Tables(msgspec.Struct):
    """The solved tables that adjudicated a game (`adjudicate: tables`): part of their fingerprint."""

    key: str
    geese: list[int]
    digest: str
    dir: str


class WorkerPlace(msgspec.Struct, omit_defaults=True):
    """The machine that played a game: its host name, and its node on Ray."""

    host: str | None = None
    node: str | None = None


class GameEntry(msgspec.Struct, tag="game", tag_field="type"):
    """One finished game: what the reports count, what identifies the game (the config hash, the
    seed, the players, the opening) and the referee's full record (None in a hand-made line)."""

    id: str
    twin: str
    variant: str
    options: Options
    predator: str
    prey: str
    opening: list[str]
    winner: str
    predator_score: Score  # 1 a predator's win, 0.5 a draw, 0 a prey's win
    termination: str
    reason: str
    plies: Count
    forfeit: str | None = None  # the player whose bot lost by its own fault (protocol.record.BOT_FAULTS)
    record: GameRecord | None = None
    seed: int | None = None
    config_hash: str | None = None
    tables: Tables | None = None
    worker: WorkerPlace | None = None

    def score_of(self, player: str) -> float:
        """What `player` scored in this game (0, 0.5 or 1)."""
        return self.predator_score if player == self.predator else 1.0 - self.predator_score

    @property
    def label(self) -> str:
        """`standard` or `standard geese=15`: how reports name the game's variant."""
        return variant_label(self.variant, self.options)

    def sides(self) -> tuple[str, str]:
        """(predator side name, prey side name): (`fox`, `geese`) or (`hare`, `hounds`)."""
        variant = get_variant(self.variant, **self.options)
        return variant.side_name(Side.PREDATOR), variant.side_name(Side.PREY)

    def seats(self) -> dict[str, str]:
        """{side name: player}."""
        predator, prey = self.sides()
        return {predator: self.predator, prey: self.prey}


class SprtStop(msgspec.Struct, tag="sprt_stop", tag_field="type"):
    """The line the runner journals when the SPRT decided: the match stops there."""

    after_games: int
    first_player: str
    llr: float
    lower: float
    upper: float
    pairs: int
    decision: str | None


JournalLine = GameEntry | SprtStop


def variant_label(variant_id: str, options: Options) -> str:
    """`standard` or `standard geese=15` (options only when given): how reports name a variant."""
    if not options:
        return variant_id
    return variant_id + " " + ",".join(f"{key}={options[key]}" for key in sorted(options))


_decoder = msgspec.json.Decoder(JournalLine)
_encoder = msgspec.json.Encoder()


def encode_line(line: JournalLine) -> bytes:
    """The journal's JSON of a line (no newline): an optional field that is not set is left out
    (`forfeit` is always there), and a record is written as `GameRecord.to_dict` gives it (its
    `stderr` map too), so a journal's record is the record file's JSON."""
    if not isinstance(line, GameEntry):
        return _encoder.encode(line)
    data: dict[str, object] = {"type": "game"}
    for key, value in msgspec.structs.asdict(line).items():
        if value is not None or key == "forfeit":
            data[key] = value
    if line.record is not None:
        data["record"] = line.record.to_dict()
    return _encoder.encode(data)


def decode_line(data: bytes) -> JournalLine:
    """One journal line as its type; EntryError says what is wrong, by field."""
    try:
        line = _decoder.decode(data)
    except msgspec.ValidationError as error:
        raise EntryError(_problem(error, data)) from None
    except msgspec.DecodeError:
        raise EntryError(NOT_JSON) from None
    if isinstance(line, GameEntry) and line.record is not None and line.record.format != RECORD_FORMAT:
        raise EntryError(f"record.format: {line.record.format!r} is not {RECORD_FORMAT}, the format this version reads")
    return line


def _problem(error: msgspec.ValidationError, data: bytes) -> str:
    """`predator_score: expected float, not "x"`, `no 'twin'`, `record.bots[...]: no 'name'`."""
    mismatch = Mismatch(error)
    where = "".join(f"[{step}]" if isinstance(step, int) or step == "..." else f".{step}" for step in mismatch.path)
    where = where[1:] if where.startswith(".") else where
    if mismatch.missing:
        return f"{where}: no {mismatch.missing!r}" if where else f"no {mismatch.missing!r}"
    if where == "type":
        return f"unknown type {shown(_value(data, ['type']), 30)}"
    if not where:
        return NOT_JSON
    if mismatch.expected:
        return f"{where}: expected {mismatch.expected}, not {shown(_value(data, mismatch.path), 30)}"
    return f"{where}: {mismatch.words[:1].lower()}{mismatch.words[1:]}"


def _value(data: bytes, path: list[str | int]) -> Any:
    """The value at `path` in the line (for an error message; `?` where it cannot be found)."""
    try:
        value: Any = json.loads(data)
        for step in path:
            value = value[step]
    except (ValueError, KeyError, IndexError, TypeError):
        return "?"
    return value
