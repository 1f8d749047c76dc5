"""Adjudication rules, one small tracker each (as fastchess's match.hpp): the rules that end a game
other than the engine's own endings, kept out of Match's turn loop so that one can be added or read
alone.

Each tracker has `adjudicatable(...)` (whether it would end the game now), `update(...)` where it
learns something from the game first, and `ending()`: the `Ending` it ends it with. Match asks them before
each turn, once the engine has found no ending: the table adjudicator (on a position reached by play: after
a move or the opening), then the ply limit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from foxgeese.engine import Position, Side, words
from foxgeese.protocol import codec
from foxgeese.protocol.record import DRAW, RefereeTermination

Adjudicator = Callable[[Position], "tuple[Any, str] | None"]


@dataclass
class Ending:
    """How a game ended: the record's winner, termination and reason, and the bot at fault, if any."""

    winner: str
    termination: str
    reason: str
    offender: Side | None = None

    def __post_init__(self) -> None:
        self.reason = codec.cut(self.reason)


class MaxPliesTracker:
    """Stops a game drawn once `limit` plies are played (the opening's included): `max_plies`."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def adjudicatable(self, plies: int) -> bool:
        """Whether the game stops at `plies` played. It needs no `update`: the count is all it reads,
        and it is asked before every turn (one call, not two, on the referee's critical path)."""
        return plies >= self.limit

    def ending(self) -> Ending:
        return Ending(DRAW, RefereeTermination.MAX_PLIES.value, f"stopped after {words.plies(self.limit)}")


class TableAdjudicationTracker:
    """Ends a game with an adjudicator's verdict (e.g. the solved tables': players/solver/adjudicate.py),
    once it gives one for a position reached."""

    __slots__ = ("adjudicator", "verdict")

    def __init__(self, adjudicator: Adjudicator) -> None:
        self.adjudicator = adjudicator
        self.verdict: tuple[Any, str] | None = None

    def update(self, position: Position) -> None:
        self.verdict = self.adjudicator(position)

    def adjudicatable(self) -> bool:
        return self.verdict is not None

    def ending(self) -> Ending:
        assert self.verdict is not None, "ending() before adjudicatable()"
        winner, reason = self.verdict
        return Ending(str(getattr(winner, "value", winner)), RefereeTermination.ADJUDICATED.value, str(reason))
