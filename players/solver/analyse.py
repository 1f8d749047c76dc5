"""Accuracy against perfect play: for every move made in a solved position, did it throw away a win?

A move is a *mistake* when the mover's value (win > draw > loss, from the tables) is worse after
it than before: a won position turned into a draw or a loss, or a draw into a loss. Judges, in
order: the strong solve of `standard` without sideways (bit tables on disk), the Hare and Hounds
solution (always: it is built in half a second), the int16 endgame tables of the other fox
variants where they are on disk, and beyond them the two-bit win/draw/loss tables of `standard`
with sideways and `great-cross` (`wdl`). A position none of them knows is not judged.

`foxgeese analyse RECORD|RUNDIR` prints it per game and per bot; `accuracy_by_bot` is what the
tournament report calls.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foxgeese.engine import Position, Side, get_variant
from foxgeese.players.solver.hare_hounds_solution import solution
from foxgeese.players.solver.strong import StrongTables
from foxgeese.players.solver.tables import TableSet
from foxgeese.players.solver.wdl import WdlTables, has_wdl_tables


class AnalyseError(ValueError):
    """A path that holds no game record the analysis can read."""


class Judge:
    """The value of a position for its side to move (1 win, 0 draw, -1 loss), or None: unknown."""

    def __init__(self, tables: str | None = None) -> None:
        self.tables = tables
        self._strong: Any = None
        self._hare: Any = None
        self._table_sets: dict[Any, Any] = {}
        self._wdl: dict[Any, Any] = {}

    def value(self, position: Position) -> int | None:
        variant = position.variant
        if variant.id == "hare-and-hounds":
            score = solution(self.tables).score(position)
            return (score > 0) - (score < 0)
        if variant.id == "standard" and not variant.option_dict.get("sideways"):
            strong = self._strong_tables()
            geese_win = strong.geese_win(position) if strong.covers(position) else None
            if geese_win is not None:
                return 1 if geese_win == (position.turn == Side.PREY) else -1
        key = (variant.id, variant.options)
        if key not in self._table_sets:
            self._table_sets[key] = TableSet(variant, self.tables)
        score = self._table_sets[key].score(position)
        if score is None and has_wdl_tables(variant):
            if key not in self._wdl:
                self._wdl[key] = WdlTables(variant, self.tables)
            return self._wdl[key].value(position)
        return None if score is None else (score > 0) - (score < 0)

    def _strong_tables(self) -> Any:
        if self._strong is None:
            self._strong = StrongTables(self.tables)
        return self._strong


@dataclass
class SideAccuracy:
    bot: str
    judged: int = 0  # moves made in a solved position
    mistakes: int = 0
    first_mistake_ply: int | None = None


@dataclass
class GameAccuracy:
    game_id: str
    result: str
    sides: dict[str, SideAccuracy] = field(default_factory=dict)  # side name -> accuracy


def analyse_record(record: dict[str, Any], judge: Judge) -> GameAccuracy:
    """Judges every move of one game record (a `GameRecord.to_dict()`)."""
    options = dict(record.get("options") or {})
    variant = get_variant(record["variant"], **options)
    position = Position.from_text(record["start"]) if record.get("start") else variant.start_position()
    bots = record.get("bots") or {}
    sides = {variant.side_name(side): SideAccuracy(_bot_name(bots.get(variant.side_name(side))))
             for side in (Side.PREDATOR, Side.PREY)}
    result = f"{record.get('winner', '?')} by {record.get('termination', '?')} after {record.get('plies', '?')} plies"
    game = GameAccuracy(str(record.get("game_id", "")), result, sides)
    before = judge.value(position)
    for ply, entry in enumerate(record.get("moves") or [], 1):
        move = position.parse_move(entry["move"])
        after_position = position.play(move)
        after = judge.value(after_position)
        side = sides[variant.side_name(position.turn)]
        if before is not None and after is not None and not entry.get("book"):  # book moves are no bot's
            side.judged += 1
            if -after < before:
                side.mistakes += 1
                if side.first_mistake_ply is None:
                    side.first_mistake_ply = ply
        position, before = after_position, after
    return game


def _bot_name(seat: Any) -> str:
    if isinstance(seat, dict):
        return seat.get("name") or seat.get("bot_name") or "?"
    return "?"


def records_in(path: Path) -> list[dict[str, Any]]:
    """The game records of a record file, a tournament run directory (its journal) or a folder of records."""
    path = Path(path)
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise AnalyseError(f"cannot read a game record from {path}: {error}") from None
        if not isinstance(data, dict) or "moves" not in data:
            raise AnalyseError(f"{path} is not a game record (no moves)")
        return [data]
    if not path.is_dir():
        raise AnalyseError(f"no record file or run directory {path}")
    journal = path / "journal.jsonl"
    if journal.exists():
        return journal_records(journal)
    records = []
    for file in sorted(path.glob("*.json")):
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(data, dict) and "moves" in data and "variant" in data:
            records.append(data)
    if not records:
        raise AnalyseError(f"{path} holds no journal.jsonl and no game records")
    return records


def journal_records(journal: Path) -> list[dict[str, Any]]:
    """The game records in a tournament journal (one JSON line per game; a torn last line is skipped)."""
    records, seen = [], set()
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "game" and entry.get("record") and \
                entry.get("id") not in seen:
            seen.add(entry.get("id"))
            records.append(entry["record"])
    return records


def accuracy_by_bot(games: Iterable[GameAccuracy]) -> dict[str, dict[str, Any]]:
    """Per bot: games judged, moves judged, mistakes, mistakes per game, first-mistake plies."""
    out: dict[str, dict[str, Any]] = {}
    for game in games:
        for side in game.sides.values():
            if not side.judged:
                continue
            line = out.setdefault(side.bot, {"games": 0, "judged_moves": 0, "mistakes": 0,
                                             "games_with_mistake": 0, "first_mistake_plies": []})
            line["games"] += 1
            line["judged_moves"] += side.judged
            line["mistakes"] += side.mistakes
            if side.first_mistake_ply is not None:
                line["games_with_mistake"] += 1
                line["first_mistake_plies"].append(side.first_mistake_ply)
    for line in out.values():
        line["mistakes_per_game"] = round(line["mistakes"] / line["games"], 3)
        plies = line["first_mistake_plies"]
        line["mean_first_mistake_ply"] = round(sum(plies) / len(plies), 1) if plies else None
    return out


def tournament_accuracy(records: Iterable[dict[str, Any]], tables: str | None = None) -> dict[str, dict[str, Any]]:
    """What the tournament report shows: `accuracy_by_bot` over the games a table can judge."""
    judge = Judge(tables)
    return accuracy_by_bot(analyse_record(record, judge) for record in records)
