"""What each turn of one game offers: its moves and their packed texts, worked out ahead where they can be.

A turn's moves are the referee's hot path (a Match asks for them once a ply, between a reply and
the next turn). `TurnOffer` keeps what makes them cheap: the referee's `TurnCache` (the opening's
positions seen before, the predator's moves by its point and the prey near it) and, while the
predator thinks, the prey's next moves as if the predator stood nowhere (`predator_thinks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from foxgeese.engine import Move
from foxgeese.engine.gamestate import GameState
from foxgeese.engine.outcome import Side
from foxgeese.protocol.turncache import Choices, TurnCache, legal_array, prey_moves_ignoring_predator

PREDATOR = Side.PREDATOR  # a plain name: an enum member read off its class is slow
OPENING_PLIES = 16  # positions after this many plies seldom recur: their choices are not kept


@dataclass(slots=True)
class _PreyMoves:
    """The prey's moves as if the predator stood nowhere, worked out while the predator thinks: the
    prey's next turn is these less the steps onto the predator's new point (see `TurnOffer.here`).
    One per Match, filled anew for each predator turn."""

    prey: int | None = None  # the prey bitmask they were made for (None: not yet)
    moves: list[Move] = field(default_factory=list)
    packed: list[bytes] = field(default_factory=list)  # their texts, packed


class TurnOffer:
    """The moves each turn of one game offers (a Match has one); its caches are the referee's."""

    __slots__ = ("_choices", "_predator_choices", "_predator_reach", "_prey_base", "_prey_steps_onto", "cache")

    def __init__(self, cache: TurnCache, game: GameState) -> None:
        rules = game.rules
        cache.keep_steps(rules)
        self.cache = cache
        self._choices = cache.choices(rules)
        self._predator_choices = cache.predator_choices(rules)
        self._predator_reach, self._prey_steps_onto = cache.reach(rules)
        self._prey_base = _PreyMoves()

    def choices(self, game: GameState) -> Choices:
        """What a turn in `game`'s position offers: kept from an earlier game in the opening, else `here`."""
        return (game.ply < OPENING_PLIES and self._choices.get(game.key)) or self.here(game)

    def here(self, game: GameState) -> Choices:
        """What a turn in the position now offers (see turncache.py), made now: the predator's from its
        reach where it cannot capture, the prey's from their moves worked out while the predator
        thought (`predator_thinks`), else from the rules core. In a position that ended they are
        pseudo-moves: the caller asks the engine for the outcome, with them."""
        predator, prey = game.predator, game.prey
        if game.turn == PREDATOR:
            near = (predator, prey & self._predator_reach[predator])
            choices = self._predator_choices.get(near)
            if choices is None:
                moves = game.moves()
                choices = (moves, legal_array(self.cache.packed_texts(moves)))
                if not moves or not moves[-1].is_capture:  # captures come last: its reach decides its moves
                    self.cache.store(self._predator_choices, near, choices)
        else:
            base = self._prey_base
            if base.prey == prey:
                moves, packed = base.moves, base.packed
                for origin, step in self._prey_steps_onto[predator].items():
                    if prey >> origin & 1:  # a prey there would step onto the predator
                        index = moves.index(step)
                        moves, packed = moves[:index] + moves[index + 1:], packed[:index] + packed[index + 1:]
                choices = (moves, legal_array(packed))
            else:  # the predator captured (or this is the game's first turn)
                moves = game.moves()
                choices = (moves, legal_array(self.cache.packed_texts(moves)))
        if game.ply < OPENING_PLIES:
            self.cache.store(self._choices, game.key, choices)
        return choices

    def predator_thinks(self, game: GameState) -> None:
        """The predator's turn is out: the prey's next moves, less one filter (see `here`), made now."""
        base = self._prey_base
        base.prey = game.prey
        base.moves = prey_moves_ignoring_predator(game.rules.tables, game.prey)
        base.packed = self.cache.packed_texts(base.moves)
