"""Accuracy against perfect play: for every move made in a solved position, did it throw away a win?

A move is a *mistake* when the mover's value (win > draw > loss, from the tables) is worse after
it than before: a won position turned into a draw or a loss, or a draw into a loss. Only moves
with a real choice are *judged*: positions where some legal move would have been a mistake. A
move where every choice keeps the value (a lost position, or a won ending any move still wins)
is *forced*, counted apart: otherwise a random player's moves in trivial endings would read as
"71 judged, 0 mistakes", as good as a search's. Judges, in
order: the strong solve of `standard` without sideways (bit tables on disk), the Hare and Hounds
solution (always: it is built in a tenth of a second), the int16 endgame tables of the other fox
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

from foxgeese.engine import Position, Side, get_variant, words
from foxgeese.engine.variants import Variant
from foxgeese.players.solver.fingerprint import fingerprint
from foxgeese.players.solver.hare_hounds_solution import HareHoundsSolution, load_solution
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
        self._hare: HareHoundsSolution | None = None
        self._table_sets: dict[Any, Any] = {}
        self._wdl: dict[Any, Any] = {}

    def value(self, position: Position) -> int | None:
        variant = position.variant
        if variant.id == "hare-and-hounds":
            if self._hare is None:
                self._hare = load_solution(self.tables)
            score = self._hare.score(position)
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
    judged: int = 0  # moves made in a solved position where some move would have been a mistake
    mistakes: int = 0
    first_mistake_ply: int | None = None
    forced: int = 0  # moves made in a solved position where no move could be a mistake
    unknown: int = 0  # moves made where no table knows the position
    judged_by_geese: dict[int, int] = field(default_factory=dict)  # judged moves per prey count
    unknown_by_geese: dict[int, int] = field(default_factory=dict)


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
    count = record.get("plies", "?")
    result = f"{record.get('winner', '?')} by {record.get('termination', '?')} after " + (
        words.plies(count) if isinstance(count, int) else f"{count} plies")
    game = GameAccuracy(str(record.get("game_id", "")), result, sides)
    before = judge.value(position)
    for ply, entry in enumerate(record.get("moves") or [], 1):
        move = position.parse_move(entry["move"])
        after_position = position.play(move)
        after = judge.value(after_position)
        side = sides[variant.side_name(position.turn)]
        geese = position.prey.bit_count()
        if entry.get("book"):
            pass  # book moves are no bot's
        elif before is None or after is None:
            side.unknown += 1
            side.unknown_by_geese[geese] = side.unknown_by_geese.get(geese, 0) + 1
        elif not _can_err(position, before, judge):
            side.forced += 1
        else:
            side.judged += 1
            side.judged_by_geese[geese] = side.judged_by_geese.get(geese, 0) + 1
            if -after < before:
                side.mistakes += 1
                if side.first_mistake_ply is None:
                    side.first_mistake_ply = ply
        position, before = after_position, after
    return game


def _can_err(position: Position, value: int, judge: Judge) -> bool:
    """Whether some legal move in `position` (worth `value` to the mover) would lower that value."""
    if value == -1:
        return False  # a lost position cannot be lost more
    for move in position.legal_moves():
        after = judge.value(position.play(move))
        if after is not None and -after < value:
            return True
    return False


def _bot_name(seat: Any) -> str:
    if isinstance(seat, dict):
        return seat.get("name") or seat.get("bot_name") or "?"
    return "?"


def records_in(path: str | Path) -> list[dict[str, Any]]:
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
            line = out.setdefault(side.bot, {"games": 0, "judged_moves": 0, "mistakes": 0, "forced_moves": 0,
                                             "unknown_moves": 0, "games_with_mistake": 0, "first_mistake_plies": [],
                                             "judged_by_geese": {}, "unknown_by_geese": {}})
            line["forced_moves"] += side.forced
            line["unknown_moves"] += side.unknown
            for key, counts in (("judged_by_geese", side.judged_by_geese), ("unknown_by_geese", side.unknown_by_geese)):
                for geese, count in counts.items():
                    line[key][geese] = line[key].get(geese, 0) + count
            if not side.judged:
                continue
            line["games"] += 1
            line["judged_moves"] += side.judged
            line["mistakes"] += side.mistakes
            if side.first_mistake_ply is not None:
                line["games_with_mistake"] += 1
                line["first_mistake_plies"].append(side.first_mistake_ply)
    for line in out.values():
        line["mistakes_per_game"] = round(line["mistakes"] / line["games"], 3) if line["games"] else 0.0
        plies = line["first_mistake_plies"]
        line["mean_first_mistake_ply"] = round(sum(plies) / len(plies), 1) if plies else None
    return out


def tournament_accuracy(records: Iterable[dict[str, Any]], tables: str | None = None) -> dict[str, Any]:
    """What the tournament report shows: `accuracy_by_bot` over the games' moves ({"bots": {}} when
    no move had a real choice in a solved position), the tables that judged (`fingerprint`), and
    for the moves no table knew, the command that builds the tables they need."""
    judge = Judge(tables)
    records = list(records)
    games = [analyse_record(record, judge) for record in records]
    variants = {(variant.id, variant.options): variant for variant in map(record_variant, records)}
    by_bot = accuracy_by_bot(games)
    return {
        "bots": {name: line for name, line in by_bot.items() if line["judged_moves"] or line["forced_moves"]},
        "tables": [fingerprint(variant, tables) for variant in variants.values()],
        "missing": missing_hints(records, games),
    }


def record_variant(record: dict[str, Any]) -> Variant:
    return get_variant(record["variant"], **dict(record.get("options") or {}))


def missing_hints(records: list[dict[str, Any]], games: list[GameAccuracy]) -> list[str]:
    """Per variant, what would judge the moves no table knew (`build_hint`)."""
    variants: dict[Any, Variant] = {}
    unknown: dict[Any, dict[int, int]] = {}  # per variant: moves no table knew, by goose count
    for record, game in zip(records, games):
        variant = record_variant(record)
        key = (variant.id, variant.options)
        variants[key] = variant
        counts = unknown.setdefault(key, {})
        for side in game.sides.values():
            for geese, count in side.unknown_by_geese.items():
                counts[geese] = counts.get(geese, 0) + count
    return [hint for key, variant in variants.items() if (hint := build_hint(variant, unknown[key]))]


# Building the tables a judge needs: the command, and its time and disk (docs/solver.md's figures).
STRONG_BUILDS = {13: "4 to 13 geese: about 5 minutes on two cores, 1.5 GB of memory, 3.3 GB of disk",
                 17: "4 to 17 geese: about 19 minutes on two cores, 3.2 GB of memory, 12.4 GB of disk"}


# The win/draw/loss builds measured in docs/solver.md (one thread; the sideways table and the
# great-cross table there): per goose count, build seconds, peak memory GB, table GB. Beyond the
# last count no table is built: `WDL_OUT_OF_REACH` says what it would take.
WDL_BUILDS = {
    ("standard", True): {4: (2, 0.17, 0.001), 5: (1, 0.18, 0.003), 6: (2, 0.2, 0.015), 7: (12, 0.27, 0.056),
                         8: (71, 0.48, 0.17), 9: (209, 1.0, 0.46), 10: (778, 1.94, 1.06), 11: (611, 4.05, 2.13),
                         12: (1124, 7.26, 3.73), 13: (1268, 11.56, 5.73)},
    ("great-cross", True): {4: (22, 0.26, 0.003), 5: (6, 0.29, 0.025), 6: (12, 0.43, 0.16), 7: (125, 1.14, 0.86),
                            8: (778, 4.04, 3.99), 9: (962, 15.1, 15.95)},
}
WDL_OUT_OF_REACH = {("standard", True): "14 geese and more are not built yet (docs/solver.md)",
                    ("great-cross", True): "10 geese would need about 50 GB of memory"}


def wdl_cost(key: tuple[str, bool], geese: int) -> str:
    """`4 to 9 geese: about 32 minutes on one thread, 15.1 GB of memory, 21 GB of disk` (docs/solver.md)."""
    rows = [row for count, row in WDL_BUILDS[key].items() if count <= geese]
    seconds = sum(row[0] for row in rows)
    took = f"{seconds / 60:.0f} minutes" if seconds >= 90 else f"{seconds} s"
    disk = sum(row[2] for row in rows)
    return (f"4 to {geese} geese: about {took} on one thread, {max(row[1] for row in rows):g} GB of memory, "
            f"{disk:.2g} GB of disk")


def build_hint(variant: Variant, unknown_by_geese: dict[int, int]) -> str | None:
    """What would judge the moves no table knew: a command a user can run, with its cost, or, where
    no table reaches (the great cross's start), that plainly; None when every move was known."""
    if not unknown_by_geese:
        return None
    most = max(unknown_by_geese)
    moves = sum(unknown_by_geese.values())
    if variant.id == "standard" and not variant.option_dict.get("sideways"):
        size = min((g for g in STRONG_BUILDS if g >= most), default=17)
        return (f"{moves} moves of {variant.id} (up to {most} geese): no table knows them; "
                f"`foxgeese solve standard --geese {size}` builds the tables that do ({STRONG_BUILDS[size]})")
    key = (variant.id, True)
    if has_wdl_tables(variant) and key in WDL_BUILDS:
        flag = " --sideways" if variant.id == "standard" else ""
        head = f"{moves} moves of {variant.id}{flag} (up to {most} geese): no table knows them"
        reach = max(WDL_BUILDS[key])
        if most <= reach:
            return (f"{head}; `foxgeese solve {variant.id}{flag} --geese {most}` builds win/draw/loss tables "
                    f"that do ({wdl_cost(key, max(most, 4))})")
        within = sum(count for geese, count in unknown_by_geese.items() if geese <= reach)
        cover = (f"; {within} of them (at most {reach} geese) are judged after "
                 f"`foxgeese solve {variant.id}{flag} --geese {reach}` ({wdl_cost(key, reach)})" if within else "")
        return (f"{head}, and no table reaches {most} geese: the tables stop at {reach} geese "
                f"({WDL_OUT_OF_REACH[key]}){cover}")
    return f"{moves} moves of {variant.id}: no table knows them"
