"""The solver player: perfect play from solved tables, minimax where no table reaches.

Hare and Hounds is solved whole (`hare_hounds_solution`), so there it always plays perfectly.
`standard` without sideways: from the bit tables of the strong solve when they are on disk
(`foxgeese solve standard --geese N`), else from the winner's strategy shipped in the package
(`strategy`), else from the int16 endgame tables. The bit tables know win or loss only: the
winner takes any winning move (without sideways steps every line ends, so it cannot dawdle);
the loser *resists* by taking the losing move that leaves the winner the smallest share of
winning replies, the one a searching opponent is likeliest to get wrong. In the other fox
variants it plays from the int16 tables on disk (`foxgeese solve VARIANT --build`) once few
enough geese are left, winning fastest and losing slowest; beyond them, in `standard` with
sideways and `great-cross`, from the two-bit win/draw/loss tables (`foxgeese solve great-cross
--geese N`: keep the value, prefer a move that leaves the level); and hands the move to the
minimax player before that.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from foxgeese.engine import Clock, Game, Move, Position, Side
from foxgeese.engine.board import GRID_WIDTH
from foxgeese.engine.variants import Tables, Variant
from foxgeese.players.base import Choice, Player, reseed
from foxgeese.players.minimax import MinimaxPlayer
from foxgeese.players.score import Score
from foxgeese.players.solver.hare_hounds_solution import HareHoundsSolution, load_solution
from foxgeese.players.solver.strategy import ShippedStrategies
from foxgeese.players.solver.strong import KEY as STRONG_KEY
from foxgeese.players.solver.strong import StrongTables
from foxgeese.players.solver.tables import TableSet, to_parent, to_score
from foxgeese.players.solver.wdl import WdlTables, has_wdl_tables


class SolverPlayer(Player):
    """Options: `depth` for the minimax fallback, `tables` (a table directory; default
    $FOXGEESE_TABLES or ~/.cache/foxgeese/tables), `seed` to break ties between equal moves."""

    name = "solver"

    def __init__(self, *, depth: int = 4, tables: str | None = None, seed: int | None = None) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth <= 0:
            raise ValueError(f"depth must be a positive whole number, not {depth!r}")
        self.depth = depth
        self.tables = None if tables is None else str(tables)
        self.seed = seed
        self.rng = random.Random(seed)
        self._table_sets: dict[tuple[str, tuple[tuple[str, Any], ...]], TableSet] = {}
        self._wdl_sets: dict[str, WdlTables] = {}
        self._fallback: Player | None = None
        self._hare: HareHoundsSolution | None = None  # loaded (or built) by the first hare-and-hounds game
        self._shipped = ShippedStrategies()
        self._strong: Any = None  # StrongTables, or False when none are on disk

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        """Loads (or, the first time, builds and caches) the Hare and Hounds solution before the clock runs.

        Ties between equal moves are broken from the game's `seed` (with the player's own): a game
        replays from its seed."""
        super().new_game(variant, side, seed)
        reseed(self.rng, self.seed, seed)
        if variant.tables is Tables.SOLUTION:
            self._hare_solution()
        if variant.table_key == STRONG_KEY:
            self._strong_judge()  # maps the bit tables (and builds their index) before the clock runs
        elif has_wdl_tables(variant):
            self._wdl_tables(variant)  # builds the two-bit tables' index before the clock runs
        if self._fallback is not None:
            self._fallback.new_game(variant, side, seed)

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        moves = game.legal_moves()
        if not moves:
            raise ValueError("the game is over: no move to choose")
        position = game.position
        strong = self._strong_choice(position, moves)
        if strong is not None:
            return strong
        scored = self.score_moves(position, moves)
        if scored is None:
            wdl = self._wdl_choice(position, moves)
            return wdl if wdl is not None else self._minimax(game, clock)
        best = max(score for _, score in scored)
        move = self.rng.choice([m for m, score in scored if score == best])
        return Choice(move, _info(position.turn, best, len(scored)))

    def _strong_choice(self, position: Position, moves: list[Move]) -> Choice | None:
        """A move from the bit tables or the shipped strategy, or None where neither reaches."""
        variant = position.variant
        if variant.table_key != STRONG_KEY:  # the bit tables and the strategy solve the default variant only
            return None
        planned = self._shipped.move(position)
        if planned is not None and planned in moves:
            return Choice(planned, _proven(position.turn, True, nodes=len(moves), source="strategy"))
        judge = self._strong_judge()
        if judge is None or not judge.covers(position) or judge.geese_win(position) is None:
            return None
        winning = [m for m in moves if judge.mover_wins_after(position, m) is True]
        if winning:
            return Choice(self.rng.choice(winning), _proven(position.turn, True, nodes=len(moves), source="tables"))
        return Choice(resisting_move(judge, position, moves, self.rng),
                      _proven(position.turn, False, nodes=len(moves), source="tables"))

    def _wdl_choice(self, position: Position, moves: list[Move]) -> Choice | None:
        """A move from the two-bit win/draw/loss tables (sideways rules), or None where they do not reach.

        They know no distances: the winner keeps the win and prefers a move that leaves the level
        (a capture, a forward goose step), which can never come back; inside a level a win-keeping
        choice may still cycle (docs/solver.md).
        """
        tables = self._wdl_tables(position.variant)
        if tables is None or tables.value(position) is None:
            return None
        values = [(move, tables.value_after(position, move)) for move in moves]
        if any(value is None for _, value in values):
            return None
        best = max(value for _, value in values if value is not None)
        if best == -1:
            return Choice(resisting_move(tables, position, moves, self.rng),
                          _proven(position.turn, False, nodes=len(moves), source="wdl tables"))
        keeping = [move for move, value in values if value == best]
        leaving = [move for move in keeping if _leaves_level(position, move)]
        move = self.rng.choice(leaving or keeping)
        if best == 1:
            return Choice(move, _proven(position.turn, True, nodes=len(moves), source="wdl tables"))
        return Choice(move, dict(Score.proven_draw(position.turn).info(), nodes=len(moves), source="wdl tables"))

    def _wdl_tables(self, variant: Variant) -> WdlTables | None:
        if not has_wdl_tables(variant):
            return None
        if variant.id not in self._wdl_sets:
            self._wdl_sets[variant.id] = WdlTables(variant, self.tables)
        return self._wdl_sets[variant.id]

    def _hare_solution(self) -> HareHoundsSolution:
        if self._hare is None:
            self._hare = load_solution(self.tables)
        return self._hare

    def _strong_judge(self) -> Any:
        if self._strong is None:
            tables = StrongTables(self.tables)
            self._strong = tables if tables.available() >= 4 else False
        return self._strong or None

    def score_moves(self, position: Position, moves: list[Move]) -> list[tuple[Move, int]] | None:
        """Every move with the mover's exact score after it, or None when the tables do not reach."""
        if position.variant.tables is Tables.SOLUTION:
            return [(entry.move, entry.score) for entry in self._hare_solution().move_scores(position, moves)]
        tables = self._tables_for(position.variant)
        if tables.score(position) is None:
            return None
        scored = []
        for move in moves:
            child = tables.score(position.play(move))
            if child is None:
                return None
            scored.append((move, int(to_parent(child))))
        return scored

    def _tables_for(self, variant: Variant) -> TableSet:
        key = (variant.id, variant.options)
        if key not in self._table_sets:
            self._table_sets[key] = TableSet(variant, self.tables)
        return self._table_sets[key]

    def _minimax(self, game: Game, clock: Clock | None) -> Choice:
        if self._fallback is None:
            self._fallback = MinimaxPlayer(depth=self.depth)
            self._fallback.new_game(game.variant, game.position.turn, getattr(self, "game_seed", None))
        choice = self._fallback.choose(game, clock)
        info = dict(choice.info or {})
        info["source"] = "minimax"
        return Choice(choice.move, info)


class WinJudge(Protocol):
    """What `resisting_move` asks of the tables (the bit tables' and the win/draw/loss tables' judges)."""

    def mover_wins_after(self, position: Position, move: Move) -> bool | None: ...


def _leaves_level(position: Position, move: Move) -> bool:
    """A capture or a forward goose step: the geese's count falls or their row sum rises, for good."""
    after = position.play(move)
    if after.prey.bit_count() != position.prey.bit_count():
        return True
    return _row_sum(after.prey) != _row_sum(position.prey)


def _row_sum(prey: int) -> int:
    return sum(p // GRID_WIDTH for p in range(prey.bit_length()) if prey >> p & 1)


def resisting_move(judge: WinJudge, position: Position, moves: list[Move], rng: random.Random) -> Move:
    """The losing move after which the fewest of the winner's replies keep the win (ties: `rng`)."""
    best: list[Move] = []
    best_share = 2.0
    for move in moves:
        after = position.play(move)
        replies = after.legal_moves()
        if not replies:
            share = 1.0
        else:
            keep = sum(judge.mover_wins_after(after, reply) is True for reply in replies)
            share = keep / len(replies)
        if share < best_share:
            best, best_share = [move], share
        elif share == best_share:
            best.append(move)
    return rng.choice(best)


def _proven(mover: Side, wins: bool, plies: int | None = None, **extra: Any) -> dict[str, Any]:
    """`Choice.info` for a proven result, through the searches' shared `Score`."""
    score = Score.proven_win(mover, plies) if wins else Score.proven_loss(mover, plies)
    return dict(score.info(), **extra)


def _info(mover: Side, score: int, count: int) -> dict[str, Any]:
    return dict(to_score(score, mover).info(), nodes=count, source="tables")
