"""The rules on raw integers, for the searches' inner loops.

A search state is `(predator, prey, turn, quiet, stall)`: the predator's grid point, the prey
bitmask, the side to move (0 predator, 1 prey) and the two counters of the position text. The move
lists come from the engine's own generator (`foxgeese.engine.movegen`); only `play` and the ending
checks are repeated here, so a search node costs a tuple instead of a `Position`. The test suite
checks these against `Game.outcome()` on random games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from foxgeese.engine.board import GRID_WIDTH
from foxgeese.engine.movegen import (
    MoveTables,
    has_predator_move,
    has_prey_move,
    predator_moves,
    prey_moves,
    tables_for,
)
from foxgeese.engine.outcome import Side, Termination
from foxgeese.engine.position import FIFTY_MOVE_PLIES, MIN_GEESE, STALLING_MOVES

PREDATOR, PREY = 0, 1
DRAW = 2  # a third "winner" value for the ending checks

# The spec's thresholds, from the engine so they are stated once.
STALL_LIMIT = STALLING_MOVES
QUIET_LIMIT = FIFTY_MOVE_PLIES

State = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class FastRules:
    """Move generation, `play` and endings for one variant, on `State` tuples."""

    variant: Any
    tables: MoveTables
    captured_ending: bool
    escaped_ending: bool
    stalling_ending: bool
    quiet_ending: bool
    repetition_ending: bool

    @classmethod
    def for_variant(cls, variant: Any) -> "FastRules":
        endings = variant.endings
        return cls(
            variant,
            tables_for(variant),
            Termination.CAPTURED in endings,
            Termination.ESCAPED in endings,
            Termination.STALLING in endings,
            Termination.FIFTY_MOVES in endings,
            Termination.REPETITION in endings,
        )

    def state_of(self, position: Any) -> State:
        turn = PREDATOR if position.turn == Side.PREDATOR else PREY
        return (position.predator, position.prey, turn, position.quiet, position.stall)

    def moves(self, state: State) -> list:
        """Legal moves ignoring endings (call `ending` first)."""
        if state[2] == PREDATOR:
            return predator_moves(self.tables, state[0], state[1])
        return prey_moves(self.tables, state[0], state[1])

    def has_moves(self, state: State) -> bool:
        """Whether the side to move has a move (cheaper than building the list)."""
        if state[2] == PREDATOR:
            return has_predator_move(self.tables, state[0], state[1])
        return has_prey_move(self.tables, state[0], state[1])

    def play(self, state: State, move: Any) -> State:
        predator, prey, turn, quiet, stall = state
        path = move[0]
        if turn == PREDATOR:
            if move[1]:  # capture: remove every jumped goose
                for a, b in zip(path, path[1:]):
                    prey ^= 1 << ((a + b) >> 1)
                return (path[-1], prey, PREY, 0, stall)
            return (path[-1], prey, PREY, quiet + 1, stall)
        origin, target = path
        prey ^= (1 << origin) | (1 << target)
        if target - origin >= GRID_WIDTH - 1:  # raised a row (forward or diagonal forward)
            return (predator, prey, PREDATOR, 0, 0)
        return (predator, prey, PREDATOR, quiet + 1, stall + 1 if self.stalling_ending else 0)

    def ending(self, state: State) -> int | None:
        """The winner (PREDATOR, PREY or DRAW) of a position ended by a rule that needs no move
        list and no history, else None. Trapped/immobilized: an empty move list."""
        predator, prey, _, quiet, stall = state
        if self.captured_ending and prey.bit_count() < MIN_GEESE:
            return PREDATOR
        if self.escaped_ending and predator // GRID_WIDTH < ((prey & -prey).bit_length() - 1) // GRID_WIDTH:
            return PREDATOR
        if self.stalling_ending and stall >= STALL_LIMIT:
            return PREDATOR
        if self.quiet_ending and quiet >= QUIET_LIMIT:
            return DRAW
        return None

    @staticmethod
    def key(state: State) -> int:
        """Pieces and side (the repetition identity), as one int."""
        return (state[1] << 8) | (state[0] << 1) | state[2]
