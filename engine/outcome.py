"""Sides, winners and the rule endings of the spec, as data."""

from __future__ import annotations

import enum
from collections.abc import Iterable
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


# What each rule ending means, in words for people: the one definition, which the referee sends as
# a game's `reason` and every table or result line that names an ending explains itself with.
RULE_MEANINGS = {
    "captured": "fewer than four {prey} remain",
    "escaped": "the {predator} stands on a lower row than every hound",
    "stalling": "ten hound moves in a row did not raise a row",
    "fifty-moves": "100 plies without a capture or a forward {prey} step",
    "repetition": "the same position occurred for the third time",
    "trapped": "the {predator} is to move and has no legal move",
    "immobilized": "the {prey} are to move and have no legal move",
}


# The endings the referee decides (protocol.record.RefereeTermination), in the same words, so that
# every package that prints an ending's name (none may import the protocol) explains it alike.
REFEREE_MEANINGS = {
    "time-forfeit": "the loser's clock ran out",
    "illegal-move": "the loser sent an illegal move",
    "crash": "the loser's program exited or stopped answering",
    "protocol-error": "the loser sent a message the protocol does not allow",
    "no-show": "the loser's program never said hello",
    "resignation": "the loser resigned",
    "max-plies": "the game reached its ply limit and was scored a draw",
    "adjudicated": "the tables' verdict on a solved position, not played out",
}


def ending_meaning(name: str, predator: str = "fox", prey: str = "geese") -> str | None:
    """What an ending's name (`trapped`, `time-forfeit`) means with these side names, in the words
    every table's legend and result line uses; None for a name that is no ending."""
    text = RULE_MEANINGS.get(name) or REFEREE_MEANINGS.get(name)
    return None if text is None else text.format(predator=predator, prey=prey)


def ending_legend(names: Iterable[str], predator: str = "fox", prey: str = "geese") -> list[str]:
    """`trapped: the fox is to move and has no legal move`, one line per ending named (in order)."""
    return [f"{name}: {meaning}" for name in dict.fromkeys(names)
            if (meaning := ending_meaning(name, predator, prey))]
