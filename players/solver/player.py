"""The solver player: perfect play from solved tables, minimax where no table reaches.

Hare and Hounds is solved whole (`hare_hounds_solution`), so there it always plays perfectly.
In the fox variants it plays from the endgame tables on disk (`foxgeese solve VARIANT --build`)
once few enough geese are left, and hands the move to the minimax player before that. Inside a
table it wins as fast as it can and, when lost, loses as slowly as it can.
"""

from __future__ import annotations

import random
from typing import Any

from foxgeese.engine import Clock, Game
from foxgeese.players.base import Choice, Player
from foxgeese.players.solver.tables import TableSet, describe, to_parent


class SolverPlayer(Player):
    """Options: `depth` for the minimax fallback, `tables` (a table directory; default
    $FOXGEESE_TABLES or ~/.cache/foxgeese/tables), `seed` to break ties between equal moves."""

    name = "solver"

    def __init__(self, *, depth: int = 4, tables: str | None = None, seed: int | None = None) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth <= 0:
            raise ValueError(f"depth must be a positive whole number, not {depth!r}")
        self.depth = depth
        self.tables = None if tables is None else str(tables)
        self.rng = random.Random(seed)
        self._table_sets: dict[Any, TableSet] = {}
        self._fallback: Player | None = None

    def new_game(self, variant: Any, side: Any) -> None:
        """Loads (or, the first time, builds and caches) the Hare and Hounds solution before the clock runs."""
        super().new_game(variant, side)
        if getattr(variant, "id", None) == "hare-and-hounds":
            from foxgeese.players.solver.hare_hounds_solution import solution

            solution(self.tables)
        if self._fallback is not None:
            self._fallback.new_game(variant, side)

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        moves = game.legal_moves()
        if not moves:
            raise ValueError("the game is over: no move to choose")
        position = game.position
        scored = self.score_moves(position, moves)
        if scored is None:
            return self._minimax(game, clock)
        best = max(score for _, score in scored)
        move = self.rng.choice([m for m, score in scored if score == best])
        return Choice(move, _info(best, len(scored)))

    def score_moves(self, position: Any, moves: list) -> list[tuple[Any, int]] | None:
        """Every move with the mover's exact score after it, or None when the tables do not reach."""
        if position.variant.id == "hare-and-hounds":
            from foxgeese.players.solver.hare_hounds_solution import solution

            return [(entry.move, entry.score) for entry in solution(self.tables).move_scores(position, moves)]
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

    def _tables_for(self, variant: Any) -> TableSet:
        key = (variant.id, variant.options)
        if key not in self._table_sets:
            self._table_sets[key] = TableSet(variant, self.tables)
        return self._table_sets[key]

    def _minimax(self, game: Game, clock: Clock | None) -> Choice:
        if self._fallback is None:
            from foxgeese.players.minimax import MinimaxPlayer

            self._fallback = MinimaxPlayer(depth=self.depth)
            self._fallback.new_game(game.variant, game.position.turn)
        choice = self._fallback.choose(game, clock)
        info = dict(choice.info or {})
        info["source"] = "minimax"
        return Choice(choice.move, info)


def _info(score: int, count: int) -> dict[str, Any]:
    kind, plies = describe(score)
    info: dict[str, Any] = {"score": 0 if kind == "draw" else (100_000 if kind == "win" else -100_000),
                            "nodes": count, "source": "tables"}
    if plies is not None:
        info["mate"] = plies if kind == "win" else -plies
    return info
