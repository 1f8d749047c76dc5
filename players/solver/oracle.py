"""One oracle for solved values: what a position is worth, whichever tables lie behind it.

Like python-chess's `chess.syzygy.Tablebase` (one `probe` over every table file it opened),
`Oracle` is the one answerer the analysis (`foxgeese analyse`), the web coach, the research
labels, the solver player and the tables adjudicator ask. Its answers are `Solved` values for
the side to move: win, loss or draw with the distance in plies where the tables keep one, and the
tables they came from (`Source`); `unknown` where none holds the position.

`tables_for(variant)` is the one place that says which tables hold a variant's positions, best
first: the Hare and Hounds solution (every position, with distances); the int16 endgame tables of
a fox variant (`foxgeese solve VARIANT --build`: with distances); the strong solve's bit tables of
`standard` without sideways (win or loss); the two-bit win/draw/loss tables of the sideways rules.
It matches a variant's rules against the rules each kind of table was built for (board, prey
steps, captures, endings), not its id. A table file that is not on disk is never opened, so an
unknown answer costs a file test, never an index build.

Values follow the rules first: a finished position is worth its ending (`rules`, 0 plies). The
tables ignore the fifty-move counter and repetition (docs/solver.md); `exact(variant)` says
whether a variant has neither, so that its values are the game's own (what may adjudicate).
"""

from __future__ import annotations

import enum
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from foxgeese.engine import Move, Position, Side, Termination
from foxgeese.engine.position import MIN_GEESE
from foxgeese.engine.variants import Tables, Variant
from foxgeese.players.solver.hare_hounds_solution import HareHoundsSolution, load_solution
from foxgeese.players.solver.strong import KEY as STRONG_KEY
from foxgeese.players.solver.strong import WINS, StrongTables, bits_path
from foxgeese.players.solver.table_files import WIN as TABLE_WIN
from foxgeese.players.solver.table_files import describe, table_dir, table_path
from foxgeese.players.solver.tables import TableSet
from foxgeese.players.solver.wdl import WDL, WdlTables, wdl_path

WIN, LOSS, DRAW, UNKNOWN = "win", "loss", "draw", "unknown"
RANK = {WIN: 2, DRAW: 1, LOSS: 0}
SIGN = {WIN: 1, DRAW: 0, LOSS: -1}
_COUNTER_ENDINGS = frozenset({Termination.FIFTY_MOVES, Termination.REPETITION})


class Source(enum.Enum):
    """The kinds of solved tables, by the name a value's `source` gives them."""

    RULES = "rules"  # no table: the position has ended
    HARE_HOUNDS = "Hare and Hounds solution"
    ENDGAME = "endgame tables"  # int16 scores, distances in plies
    STRONG = "strong solve"  # one bit a position: win or loss
    WDL = "win/draw/loss tables"  # two bits a position, the sideways rules


DISTANCES = frozenset({Source.RULES.value, Source.HARE_HOUNDS.value, Source.ENDGAME.value})  # sources with plies


@dataclass(frozen=True)
class Solved:
    """A position's value for its side to move: win/loss/draw/unknown, with plies where known."""

    result: str
    plies: int | None = None
    source: str = ""

    @property
    def known(self) -> bool:
        return self.result != UNKNOWN

    @property
    def sign(self) -> int | None:
        """+1 win, 0 draw, -1 loss; None: unknown."""
        return SIGN.get(self.result)

    def for_parent(self) -> Solved:
        """The same value seen by the side that moved into the position (one ply further)."""
        flipped = {WIN: LOSS, LOSS: WIN}.get(self.result, self.result)
        return Solved(flipped, None if self.plies is None else self.plies + 1, self.source)

    def text(self) -> str:
        """`win in 5`, `loss`, `draw`, `unknown`."""
        if self.result in (UNKNOWN, DRAW):
            return self.result
        return self.result + (f" in {self.plies}" if self.plies is not None else "")

    def better_than(self, other: Solved) -> bool:
        """Strictly better for the same mover: a higher result (win > draw > loss), or the same win
        sooner, or the same loss later. Unknown values and missing distances are never better."""
        if UNKNOWN in (self.result, other.result):
            return False
        if RANK[self.result] != RANK[other.result]:
            return RANK[self.result] > RANK[other.result]
        if self.result == DRAW or self.plies is None or other.plies is None:
            return False
        return self.plies < other.plies if self.result == WIN else self.plies > other.plies

    def as_dict(self) -> dict[str, str | int | None]:
        return {"result": self.result, "plies": self.plies, "source": self.source, "text": self.text()}

    def order(self) -> tuple[int, int]:
        """Sorts best first for the mover: win fastest, then draw, then lose slowest, unknown last."""
        plies = self.plies if self.plies is not None else 999
        return {WIN: 0, DRAW: 1, LOSS: 2, UNKNOWN: 3}[self.result], (plies if self.result == WIN else -plies)

    def score(self) -> int | None:
        """The int16 tables' score (`WIN - plies`, `-WIN + plies`, 0), where the value's tables keep
        distances (a draw of the bit tables is no score: their lines may cycle)."""
        if self.source not in DISTANCES or self.result == UNKNOWN:
            return None
        if self.result == DRAW:
            return 0
        if self.plies is None:
            return None
        return TABLE_WIN - self.plies if self.result == WIN else -TABLE_WIN + self.plies


UNSOLVED = Solved(UNKNOWN)


def tables_for(variant: Variant) -> tuple[Source, ...]:
    """Which tables hold positions of `variant`, best first: the one place a variant's tables are
    chosen, from the variant's own facts (`Variant.tables`: which kind its rules are solved by;
    `Variant.table_key`: the rules a table file was built for, so the strong solve, built for the
    default board, is not read for another board)."""
    kinds: list[Source] = []
    if variant.tables is Tables.SOLUTION:
        kinds.append(Source.HARE_HOUNDS)
    if variant.captures:
        kinds.append(Source.ENDGAME)
    if variant.tables is Tables.BITS and variant.table_key == STRONG_KEY:
        kinds.append(Source.STRONG)
    if variant.tables is Tables.WDL:
        kinds.append(Source.WDL)
    return tuple(kinds)


def exact(variant: Variant) -> bool:
    """Whether the tables' values are the game's own: the variant has no fifty-move or repetition
    ending, which the tables ignore (only such values may end a game by adjudication)."""
    return bool(tables_for(variant)) and not variant.endings & _COUNTER_ENDINGS


class Oracle:
    """Solved values from the tables in `tables` (default $FOXGEESE_TABLES or ~/.cache/foxgeese/tables).

    Owns what it loads, each at its first use and under a lock (the web server asks from threads):
    the Hare and Hounds solution, and per variant's rules its int16, bit and two-bit tables.
    """

    def __init__(self, tables: str | os.PathLike[str] | None = None) -> None:
        self.tables = None if tables is None else str(tables)
        self.directory = table_dir(self.tables)
        self.lock = threading.RLock()
        self._hare: HareHoundsSolution | None = None
        self._endgame: dict[Variant, TableSet] = {}
        self._strong: StrongTables | None = None
        self._wdl: dict[Variant, WdlTables] = {}
        self._kinds: dict[Variant, tuple[Source, ...]] = {}  # one entry per variant: a small, fixed set

    # -- the questions ------------------------------------------------------------------------------

    def value(self, position: Position) -> Solved:
        """The value for the side to move (a finished position: its ending's, 0 plies)."""
        ending = position.outcome()
        if ending is not None:
            winner = ending.termination.winner
            if winner is None:
                return Solved(DRAW, 0, Source.RULES.value)
            return Solved(WIN if winner == position.turn else LOSS, 0, Source.RULES.value)
        with self.lock:
            for kind in self.sources(position.variant):
                found = self._look_up(kind, position)
                if found is not None:
                    return found
        return UNSOLVED

    def move_values(self, position: Position, moves: Sequence[Move] | None = None) -> list[tuple[Move, Solved]]:
        """Every move (default: every legal move, in the engine's order) with its value for the mover."""
        chosen = position.legal_moves() if moves is None else moves
        return [(move, self.value(position.play(move)).for_parent()) for move in chosen]

    def covers(self, position: Position) -> bool:
        """Whether the oracle knows `position`'s value: it has ended, or a table for its piece count
        is on disk (no table is read)."""
        if position.outcome() is not None:
            return True
        geese = position.prey.bit_count()
        return any(self._on_disk(kind, position.variant, geese) for kind in self.sources(position.variant))

    def prepare(self, variant: Variant) -> None:
        """Loads what answers for `variant` take long to load (the Hare and Hounds solution, the
        bit tables' indexes), before a clock runs."""
        with self.lock:
            kinds = self.sources(variant)
            if Source.HARE_HOUNDS in kinds:
                self._hare_solution()
            if Source.STRONG in kinds:
                self._strong_tables().available()
            if Source.WDL in kinds:
                self._wdl_tables(variant)  # its layout; a goose count's index is built when its file is read

    def sources(self, variant: Variant) -> tuple[Source, ...]:
        """The kinds of tables that may answer for `variant` (`tables_for`, kept per variant)."""
        if variant not in self._kinds:
            self._kinds[variant] = tables_for(variant)
        return self._kinds[variant]

    # -- the tables behind it -----------------------------------------------------------------------

    def _on_disk(self, kind: Source, variant: Variant, geese: int) -> bool:
        if kind == Source.HARE_HOUNDS:
            return True  # solved in memory when not on disk
        if kind == Source.ENDGAME:
            return geese < MIN_GEESE or table_path(self.directory, variant, geese).exists()
        if kind == Source.STRONG:
            return bits_path(self.directory, geese, WINS).exists()
        return wdl_path(self.directory, variant, geese, WDL).exists()

    def _look_up(self, kind: Source, position: Position) -> Solved | None:
        variant = position.variant
        if kind == Source.HARE_HOUNDS:
            result, plies = describe(self._hare_solution().score(position))
            return Solved(result, plies, kind.value)
        geese = position.prey.bit_count()
        if not self._on_disk(kind, variant, geese):
            return None
        if kind == Source.ENDGAME:
            score = self._endgame_tables(variant).score(position)
            if score is None:
                return None
            result, plies = describe(score)
            return Solved(result, plies, kind.value)
        if kind == Source.STRONG:
            geese_win = self._strong_tables().geese_win(position)
            if geese_win is None:
                return None
            return Solved(WIN if geese_win == (position.turn == Side.PREY) else LOSS, None, kind.value)
        sign = self._wdl_tables(variant).value(position)
        return None if sign is None else Solved({1: WIN, 0: DRAW, -1: LOSS}[sign], None, kind.value)

    def _hare_solution(self) -> HareHoundsSolution:
        if self._hare is None:
            self._hare = load_solution(None if self.tables is None else Path(self.tables))
        return self._hare

    def _endgame_tables(self, variant: Variant) -> TableSet:
        if variant not in self._endgame:
            self._endgame[variant] = TableSet(variant, self.tables)
        return self._endgame[variant]

    def _strong_tables(self) -> StrongTables:
        if self._strong is None:
            self._strong = StrongTables(self.tables)
        return self._strong

    def _wdl_tables(self, variant: Variant) -> WdlTables:
        if variant not in self._wdl:
            self._wdl[variant] = WdlTables(variant, self.tables)
        return self._wdl[variant]

