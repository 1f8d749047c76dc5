"""The solver player: perfect play from solved tables, minimax where no table reaches.

Every value comes from the solver's one `Oracle` (oracle.py: it picks the tables of a variant).
Hare and Hounds is solved whole (`hare_hounds_solution`), so there it always plays perfectly.
`standard` without sideways: from the winner's strategy shipped in the package (`strategy`),
else from the int16 endgame tables or the bit tables of the strong solve (`foxgeese solve
standard --geese N`). The bit tables know win or loss only: the winner takes any winning move
(without sideways steps every line ends, so it cannot dawdle); the loser *resists* by taking the
losing move that leaves the winner the smallest share of winning replies, the one a searching
opponent is likeliest to get wrong. In the other fox variants it plays from the int16 tables on
disk (`foxgeese solve VARIANT --build`) once few enough geese are left, winning fastest and
losing slowest; beyond them, in `standard` with sideways and `great-cross`, from the two-bit
win/draw/loss tables (`foxgeese solve great-cross --geese N`: keep the value, prefer a move that
leaves the level); and hands the move to the minimax player before that.
"""

from __future__ import annotations

import random
from typing import Any

from foxgeese.engine import Clock, Game, Move, Position, Side
from foxgeese.engine.board import GRID_WIDTH
from foxgeese.engine.variants import Variant
from foxgeese.players.base import Choice, Player, reseed
from foxgeese.players.minimax import MinimaxPlayer
from foxgeese.players.score import Score
from foxgeese.players.solver.oracle import SIGN, WIN, Oracle, Solved, Source
from foxgeese.players.solver.strategy import ShippedStrategies
from foxgeese.players.solver.tables import to_score


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
        self.oracle = Oracle(self.tables)  # the values; it picks the tables of each variant
        self._fallback: Player | None = None
        self._shipped = ShippedStrategies()

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        """Loads (or, the first time, builds and caches) what the variant's tables need before the
        clock runs: the Hare and Hounds solution, the bit tables' maps and indexes (`Oracle.prepare`).

        Ties between equal moves are broken from the game's `seed` (with the player's own): a game
        replays from its seed."""
        super().new_game(variant, side, seed)
        reseed(self.rng, self.seed, seed)
        self.oracle.prepare(variant)
        if self._fallback is not None:
            self._fallback.new_game(variant, side, seed)

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        moves = game.legal_moves()
        if not moves:
            raise ValueError("the game is over: no move to choose")
        position = game.position
        if Source.STRONG in self.oracle.sources(position.variant):
            planned = self._shipped.move(position)  # the shipped strategy plays the strong solve's rules
            if planned is not None and planned in moves:
                return Choice(planned, _proven(position.turn, True, nodes=len(moves), source="strategy"))
        solved = self.oracle.value(position)
        values = self.oracle.move_values(position, moves) if solved.known else []
        if not solved.known or any(not value.known for _, value in values):
            return self._minimax(game, clock)
        return self._solved_choice(position, values, solved)

    def _solved_choice(self, position: Position, values: list[tuple[Move, Solved]], solved: Solved) -> Choice:
        """The best move by the tables. With distances (the Hare and Hounds solution, the int16
        tables): win fastest, lose slowest. Without (the bit tables): keep the value; a loser
        *resists* (`resisting_move`); on the two-bit tables of the sideways rules, which know no
        distances and whose lines may cycle, a win-keeping move prefers one that leaves the level (a
        capture, a forward goose step), which can never come back (docs/solver.md)."""
        moves = [move for move, _ in values]
        scores = [value.score() for _, value in values]
        if all(score is not None for score in scores):
            best = max(score for score in scores if score is not None)
            move = self.rng.choice([m for m, score in zip(moves, scores) if score == best])
            return Choice(move, _info(position.turn, best, len(moves)))
        wdl = solved.source == Source.WDL.value
        source = "wdl tables" if wdl else "tables"
        best_sign = max(SIGN[value.result] for _, value in values)
        if best_sign == -1:
            return Choice(resisting_move(self.oracle, position, moves, self.rng),
                          _proven(position.turn, False, nodes=len(moves), source=source))
        keeping = [move for move, value in values if SIGN[value.result] == best_sign]
        leaving = [move for move in keeping if _leaves_level(position, move)] if wdl else []
        move = self.rng.choice(leaving or keeping)
        if best_sign == 1:
            return Choice(move, _proven(position.turn, True, nodes=len(moves), source=source))
        return Choice(move, dict(Score.proven_draw(position.turn).info(), nodes=len(moves), source=source))

    def _minimax(self, game: Game, clock: Clock | None) -> Choice:
        if self._fallback is None:
            self._fallback = MinimaxPlayer(depth=self.depth)
            self._fallback.new_game(game.variant, game.position.turn, getattr(self, "game_seed", None))
        choice = self._fallback.choose(game, clock)
        info = dict(choice.info or {})
        info["source"] = "minimax"
        return Choice(choice.move, info)


def _leaves_level(position: Position, move: Move) -> bool:
    """A capture or a forward goose step: the geese's count falls or their row sum rises, for good."""
    after = position.play(move)
    if after.prey.bit_count() != position.prey.bit_count():
        return True
    return _row_sum(after.prey) != _row_sum(position.prey)


def _row_sum(prey: int) -> int:
    return sum(p // GRID_WIDTH for p in range(prey.bit_length()) if prey >> p & 1)


def resisting_move(oracle: Oracle, position: Position, moves: list[Move], rng: random.Random) -> Move:
    """The losing move after which the fewest of the winner's replies keep the win (ties: `rng`)."""
    best: list[Move] = []
    best_share = 2.0
    for move in moves:
        after = position.play(move)
        replies = after.legal_moves()
        if not replies:
            share = 1.0
        else:
            keep = sum(value.result == WIN for _, value in oracle.move_values(after, replies))
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
