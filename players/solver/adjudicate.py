"""Adjudication by tables (cutechess-cli's `-tb`): end a game once its position is solved.

`table_adjudicator()` is the callable `Referee.play_game(..., adjudicator=...)` takes: given the
position after a move, `(winner, reason)` when a table proves the result with best play, else
None. Only exact tables adjudicate: the strong solve and the int16 tables of `standard` without
sideways (no draws, no counters), and the Hare and Hounds solution (its state has the stall
counter). Tables of the sideways rules ignore the fifty-move counter and repetition, so they
never end a game early.
"""

from __future__ import annotations

from collections.abc import Callable

from foxgeese.engine import Position, Winner
from foxgeese.engine.variants import Tables
from foxgeese.players.solver.analyse import Judge
from foxgeese.players.solver.fingerprint import fingerprint, short

__all__ = ["exact", "fingerprint", "short", "solved_start", "table_adjudicator"]


def exact(position: Position) -> bool:
    return position.variant.tables in (Tables.SOLUTION, Tables.BITS)


def solved_start(position: Position, tables: str | None = None) -> bool:
    """Whether tables adjudication would end a game from `position` at its first move: the tables
    know its value (Hare and Hounds always; `standard` when the tables of its goose count are there)."""
    return exact(position) and Judge(tables).value(position) is not None


def table_adjudicator(tables: str | None = None, from_ply: int | None = None
                      ) -> Callable[[Position], tuple[Winner, str] | None]:
    """A fresh adjudicator over the tables in `tables` (default $FOXGEESE_TABLES or the cache);
    `from_ply`: it ends no game before that ply (counted from the start, the opening included)."""
    judge = Judge(tables)

    def adjudicate(position: Position) -> tuple[Winner, str] | None:
        if from_ply is not None and position.ply < from_ply:
            return None
        if not exact(position) or position.outcome() is not None:
            return None  # the rules end finished games themselves
        value = judge.value(position)
        if not value:
            return None
        side = position.turn if value > 0 else position.turn.other
        winner = position.variant.winner_for(side)
        return winner, f"tables: the {position.variant.side_verb(side, 'wins', 'win')} with best play"

    return adjudicate
