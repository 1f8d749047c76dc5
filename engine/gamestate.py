"""A game in play: where it stands now (the state, its ply and key) and how often each position occurred.

The one way to hold a game that is being played: `Game` keeps one beside its move stack, and the
referee's `Match` keeps one and nothing else of the rules. It runs on the rules core's state
(engine/rules.py) and keeps that state's fields under their names, so a holder reads `turn` or
`prey`, never a tuple's index. A move costs the rules core's `play`, the key and one count; a
`Position` is made only when asked for (`position()`).
"""

from __future__ import annotations

from foxgeese.engine.move import Move
from foxgeese.engine.outcome import Outcome, Side
from foxgeese.engine.position import Position, pieces_text
from foxgeese.engine.rules import State, rules_for


class GameState:
    """The position now, field by field, with the history that repetition needs (a count per key).

    `predator` is the predator's grid point, `prey` the prey bitmask, `turn` the side to move,
    `quiet` and `stall` the counters of the position text, `ply` the plies since the game's start
    and `key` the position's repetition key (`Position.key`). Change it only with `play` and
    `back_to`; `state` is the same position as the rules core's tuple, for code that runs on the
    core (perft, the searches).
    """

    __slots__ = ("variant", "rules", "state", "predator", "prey", "turn", "quiet", "stall", "ply", "key", "_seen")

    predator: int
    prey: int
    turn: Side
    quiet: int
    stall: int
    state: State
    ply: int
    key: int

    def __init__(self, start: Position, seen: dict[int, int] | None = None) -> None:
        """`seen`: how often each key occurred up to `start` (it is copied); by default `start` once."""
        self.variant = start.variant
        self.rules = rules_for(start.variant)
        self._stand(start.state, start.ply)
        self._seen = dict(seen) if seen is not None else {self.key: 1}

    def copy(self) -> GameState:
        """An independent copy: playing on it leaves this one as it is."""
        return GameState(self.position(), self._seen)

    def _stand(self, state: State, ply: int) -> None:
        self.state = state
        self.predator, self.prey, self.turn, self.quiet, self.stall = state
        self.ply = ply
        self.key = self.rules.key(state)

    def play(self, move: Move) -> None:
        """Plays `move`, which must be legal now (not checked: see `Position.parse_move`)."""
        rules = self.rules
        state = self.state = rules.play(self.state, move)
        self.predator, self.prey, self.turn, self.quiet, self.stall = state
        self.ply += 1
        key = self.key = rules.key(state)
        seen = self._seen
        seen[key] = seen.get(key, 0) + 1

    def back_to(self, before: Position) -> None:
        """Takes the last move back: `before` is the position it was played in, which the caller kept."""
        self._seen[self.key] -= 1
        self._stand(before.state, before.ply)

    def repetitions(self) -> int:
        """How often the position now (pieces and side to move) has occurred in this game."""
        return self._seen[self.key]

    def moves(self) -> list[Move]:
        """The moves of the side to move, not checking whether the game has ended (see `outcome`)."""
        return self.rules.moves(self.state)

    def outcome(self, moves: list[Move] | None = None) -> Outcome | None:
        """The ending of the game now, if any, by every rule of the engine, repetition included.

        `moves` are the side to move's moves when the caller has them already (else the rules
        find whether there is one)."""
        termination = self.rules.outcome(self.state, self._seen[self.key], moves)
        return None if termination is None else self.variant.outcome(termination)

    def position(self) -> Position:
        return Position(self.variant, self.predator, self.prey, self.turn, self.quiet, self.stall, self.ply)

    def text(self) -> str:
        """The position text (`Position.text`), made without making the Position."""
        return f"{pieces_text(self.variant, self.state)} {self.quiet} {self.stall} {self.ply}"
