"""Sides, winners and the rule endings of the spec, as data."""

from __future__ import annotations

import enum
from typing import NamedTuple


class Side(enum.IntEnum):
    """The two seats of every variant; their names per variant come from `Variant.side_name`."""

    PREDATOR = 0  # fox or hare
    PREY = 1  # geese or hounds

    @property
    def other(self) -> Side:
        return _OTHER[self]  # a table, not Side(1 - self): constructing an enum value is slow


_OTHER = (Side.PREY, Side.PREDATOR)


class Winner(enum.Enum):
    FOX = "fox"
    GEESE = "geese"
    HARE = "hare"
    HOUNDS = "hounds"
    DRAW = "draw"


class Termination(enum.Enum):
    """Rule endings, in the order the spec checks them after every move.

    Each carries `winner`: the side it makes win, or None for a draw (a plain attribute, so the
    searches read it at no cost). `Termination("captured")` looks one up by its spec name.
    """

    CAPTURED = ("captured", Side.PREDATOR)
    ESCAPED = ("escaped", Side.PREDATOR)
    STALLING = ("stalling", Side.PREDATOR)
    FIFTY_MOVES = ("fifty-moves", None)
    REPETITION = ("repetition", None)
    TRAPPED = ("trapped", Side.PREY)
    IMMOBILIZED = ("immobilized", Side.PREDATOR)

    winner: Side | None

    def __new__(cls, name: str, winner: Side | None) -> Termination:
        member = object.__new__(cls)
        member._value_ = name
        member.winner = winner
        return member


class Outcome(NamedTuple):
    winner: Winner
    termination: Termination

    def __str__(self) -> str:
        return f"{self.winner.value} {self.termination.value}"
