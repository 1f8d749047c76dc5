"""Sides, winners and the rule endings of the spec, as data."""

from __future__ import annotations

import enum
from typing import NamedTuple


class Side(enum.IntEnum):
    """The two seats of every variant; their names per variant come from `Variant.side_name`."""

    PREDATOR = 0  # fox or hare
    PREY = 1  # geese or hounds

    @property
    def other(self) -> "Side":
        return Side(1 - self)


class Winner(enum.Enum):
    FOX = "fox"
    GEESE = "geese"
    HARE = "hare"
    HOUNDS = "hounds"
    DRAW = "draw"


class Termination(enum.Enum):
    """Rule endings, in the order the spec checks them after every move."""

    CAPTURED = "captured"
    ESCAPED = "escaped"
    STALLING = "stalling"
    FIFTY_MOVES = "fifty-moves"
    REPETITION = "repetition"
    TRAPPED = "trapped"
    IMMOBILIZED = "immobilized"


class Outcome(NamedTuple):
    winner: Winner
    termination: Termination

    def __str__(self) -> str:
        return f"{self.winner.value} {self.termination.value}"
