"""Exact labels: what a position is worth to its side to move with perfect play, from the solved tables.

`Labeller.value(position)` is a `Label`: "win", "loss" or "draw" for the side to move, with the
distance in plies where the tables keep one (the Hare and Hounds solution and the int16 endgame
tables), or "unknown" where no table holds the position. Sources, in order: the position's own
ending; the Hare and Hounds solution (built in a second, cached on disk); the int16 tables of the
fox variants; then the strong (win/loss) bit tables of `standard` and the win/draw/loss bit tables of
the sideways variants (as `players/solver/analyse.Judge` reads them; a file that is not on disk is
not opened, so a label costs a look-up, never a layout build).
Like the tables, labels ignore the fifty-move counter and repetition history (docs/solver.md).

A learner is scored by `keeps_value`: whether its move keeps the mover's value (win > draw > loss).
Every method takes what a researcher has: a `Position` or a position text (as the environments'
`info["position"]` holds it, ` chain=d4xd6` mid-chain included), a move as a `Move` or its text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foxgeese.engine import Move, Position, Side
from foxgeese.engine.variants import Tables
from foxgeese.players.solver.hare_hounds_solution import HareHoundsSolution, load_solution
from foxgeese.players.solver.strong import KEY as STRONG_KEY
from foxgeese.players.solver.strong import WINS, StrongTables, bits_path
from foxgeese.players.solver.tables import TableSet, describe, table_dir
from foxgeese.players.solver.wdl import WDL, WdlTables, has_wdl_tables, wdl_path

_RANK = {"loss": -1, "draw": 0, "win": 1}


@dataclass(frozen=True)
class Label:
    """A value for the side to move: win/loss/draw (plies to the end where known) or unknown."""

    value: str
    plies: int | None = None

    @property
    def known(self) -> bool:
        return self.value != "unknown"

    @property
    def sign(self) -> int | None:
        """+1 win, 0 draw, -1 loss; None: unknown."""
        return _RANK.get(self.value)

    def for_mover(self) -> Label:
        """This label (of the position after a move) seen by the side that moved."""
        if self.value in ("win", "loss"):
            return Label("loss" if self.value == "win" else "win", None if self.plies is None else self.plies + 1)
        return self

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "plies": self.plies}


UNKNOWN = Label("unknown")


class Labeller:
    """Labels positions from the tables in `tables` (default: the table directory); owns its loaded tables."""

    def __init__(self, tables: str | Path | None = None) -> None:
        self.tables = None if tables is None else str(tables)
        self.directory = table_dir(self.tables)
        self._hare: HareHoundsSolution | None = None
        self._table_sets: dict[Any, TableSet] = {}
        self._strong: StrongTables | None = None
        self._wdl: dict[Any, WdlTables] = {}

    def value(self, position: Position | str) -> Label:
        """The value for the side to move; a text with ` chain=...` (an open capture chain, as the
        environments write it) is the fox's value mid-chain (`chain_value`)."""
        if isinstance(position, str):
            base, _, chain = position.strip().partition(" chain=")
            if chain:
                return self.chain_value(base, chain)
            position = Position.from_text(base)
        ended = position.outcome()
        if ended is not None:
            side = ended.termination.winner
            if side is None:
                return Label("draw", 0)
            return Label("win" if side == position.turn else "loss", 0)
        variant = position.variant
        if variant.tables is Tables.SOLUTION:
            if self._hare is None:
                self._hare = load_solution(None if self.tables is None else Path(self.tables))
            kind, plies = describe(self._hare.score(position))
            return Label(kind, plies)
        if variant.captures:
            key = (variant.id, variant.options)
            if key not in self._table_sets:
                self._table_sets[key] = TableSet(variant, self.tables)
            score = self._table_sets[key].score(position)
            if score is not None:
                kind, plies = describe(score)
                return Label(kind, plies)
        sign = self._bit_tables(position)
        return UNKNOWN if sign is None else Label({1: "win", 0: "draw", -1: "loss"}[sign])

    def _bit_tables(self, position: Position) -> int | None:
        variant, geese = position.variant, position.prey.bit_count()
        if variant.table_key == STRONG_KEY:  # the bit tables of the default variant's rules
            if not bits_path(self.directory, geese, WINS).exists():
                return None
            if self._strong is None:
                self._strong = StrongTables(self.tables)
            geese_win = self._strong.geese_win(position)
            return None if geese_win is None else 1 if geese_win == (position.turn == Side.PREY) else -1
        if has_wdl_tables(variant) and wdl_path(self.directory, variant, geese, WDL).exists():
            key = (variant.id, variant.options)
            if key not in self._wdl:
                self._wdl[key] = WdlTables(variant, self.tables)
            return self._wdl[key].value(position)
        return None

    def after(self, position: Position | str, move: Move | str) -> Label:
        """What `move` is worth to the side making it (it must be legal: the engine's text of it)."""
        position = _position(position)
        return self.value(position.play(_move(position, move))).for_mover()

    def best(self, position: Position, moves: list[Move]) -> Label:
        """The best value among `moves` for the mover (unknown if an unknown move could be better)."""
        labels = [self.after(position, move) for move in moves]
        known = [label for label in labels if label.known]
        if not known:
            return UNKNOWN
        top = max(known, key=_order)
        if len(known) < len(labels) and top.value != "win":
            return UNKNOWN
        return top

    def chain_value(self, position: Position | str, chain: tuple[int, ...] | Move | str) -> Label:
        """The fox's value mid-chain: the best way to finish the capture chain `chain` begun in `position`.

        `chain`: the jumps so far as text (`"d4xd6"`, as `info["position"]` ends ` chain=d4xd6`), a
        capture `Move`, or the points of its path (the fox's start first)."""
        position = _position(position)
        path = Move.parse(chain).path if isinstance(chain, str) else chain.path if isinstance(chain, Move) else chain
        path = tuple(path)
        moves = [m for m in position.legal_moves() if m.is_capture and m.path[: len(path)] == path]
        if not moves:
            raise ValueError(f"{chain!r} begins no capture of the fox in {position.text()}")
        return self.best(position, moves)

    def keeps_value(self, position: Position | str, move: Move | str) -> bool | None:
        """Whether `move` keeps the mover's value (win stays win, draw stays at least draw); None: unknown."""
        position = _position(position)
        before, after = self.value(position), self.after(position, move)
        if not before.known or not after.known:
            return None
        return _RANK[after.value] >= _RANK[before.value]


def _position(position: Position | str) -> Position:
    return Position.from_text(position) if isinstance(position, str) else position


def _move(position: Position, move: Move | str) -> Move:
    """A move given as text, checked to be legal in `position` (a Move is taken as it is)."""
    if isinstance(move, Move):
        return move
    parsed = Move.parse(move)
    if parsed not in position.legal_moves():
        raise ValueError(f"{move!r} is not a legal move in {position.text()}")
    return parsed


def _order(label: Label) -> tuple[int, int]:
    """Win fastest, lose slowest: the ordering of the tables' scores."""
    plies = label.plies if label.plies is not None else 0
    return (_RANK[label.value], -plies if label.value == "win" else plies)
