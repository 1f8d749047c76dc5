"""Adjudication by tables (cutechess-cli's `-tb`): end a game once its position is solved.

`table_adjudicator()` is the callable `Referee.play_game(..., adjudicator=...)` takes: given the
position after a move, `(winner, reason)` when a table proves the result with best play, else
None. The values are the solver's `Oracle`'s, and only where they are the game's own
(`oracle.exact`): a variant without fifty-move or repetition endings (`standard` without
sideways: no draws, no counters; Hare and Hounds: its solution's state has the stall counter).
Tables of the sideways rules ignore the fifty-move counter and repetition, so they never end a
game early.
"""

from __future__ import annotations

from collections.abc import Callable

from foxgeese.engine import Position, Winner
from foxgeese.players.solver.fingerprint import fingerprint, short
from foxgeese.players.solver.oracle import Oracle
from foxgeese.players.solver.oracle import exact as exact_rules

__all__ = ["exact", "fingerprint", "short", "solved_start", "table_adjudicator"]


def exact(position: Position) -> bool:
    """Whether the tables' values of `position`'s variant are the game's own (`oracle.exact`)."""
    return exact_rules(position.variant)


def solved_start(position: Position, tables: str | None = None) -> bool:
    """Whether tables adjudication would end a game from `position` at its first move: the tables
    know its value (Hare and Hounds always; `standard` when the tables of its goose count are there)."""
    return exact(position) and Oracle(tables).value(position).known


def table_adjudicator(tables: str | None = None, from_ply: int | None = None, oracle: Oracle | None = None
                      ) -> Callable[[Position], tuple[Winner, str] | None]:
    """A fresh adjudicator over the tables in `tables` (default $FOXGEESE_TABLES or the cache), or
    over a given `oracle`; `from_ply`: it ends no game before that ply (counted from the start, the
    opening included)."""
    oracle = oracle or Oracle(tables)

    def adjudicate(position: Position) -> tuple[Winner, str] | None:
        if from_ply is not None and position.ply < from_ply:
            return None
        if not exact(position) or position.outcome() is not None:
            return None  # the rules end finished games themselves
        value = oracle.value(position).sign
        if not value:
            return None
        side = position.turn if value > 0 else position.turn.other
        winner = position.variant.winner_for(side)
        return winner, f"tables: the {position.variant.side_verb(side, 'wins', 'win')} with best play"

    return adjudicate
