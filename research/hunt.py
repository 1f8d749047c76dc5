"""One game in action segments (actions.py) over the engine's `Game`: the state every environment shares.

A capture chain in progress lives here, not in the engine (which knows whole moves): `chain` is
the path jumped so far and `chain_prey` the geese left. The chain becomes an engine `Move` when
the fox plays STOP or has no further jump, so history, counters, repetition and every ending are
the engine's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from foxgeese.engine import Game, Move, Outcome, Position, Side, Termination, Variant, get_variant
from foxgeese.engine.position import FIFTY_MOVE_PLIES, STALLING_MOVES
from foxgeese.research.actions import ActionSpace, action_space, observe


@dataclass(frozen=True)
class Rewards:
    """What each role gets at the end: a win, a draw, a loss (a truncated game gets `draw`)."""

    win: float = 1.0
    draw: float = 0.0
    loss: float = -1.0


def outcome_info(outcome: Outcome) -> dict[str, Any]:
    """The one outcome schema of every environment's info (PettingZoo, Gymnasium, OpenSpiel, batched):
    `{"winner": "fox" | "geese" | "hare" | "hounds" | "draw", "termination": "trapped" | ...}`, the
    engine's `Winner` and `Termination` values (the referee's endings, e.g. `"illegal-move"`, where
    it decided the game)."""
    return {"winner": outcome.winner.value, "termination": outcome.termination.value}


TRUNCATED = {"winner": "draw", "termination": "truncated"}
"""The outcome of a game an environment cut at its `max_steps` (the rules never go that far by default)."""


def variant_of(variant: Variant | str, options: Mapping[str, Any] | None = None, **flags: Any) -> Variant:
    """An environment's variant: a `Variant`, or an id with its options (`options`: any the variant's
    row has, e.g. `{"diagonals": "alternating"}`; `geese=`, `sideways=`: the older keywords, None unset)."""
    given = {**(options or {}), **{key: value for key, value in flags.items() if value is not None}}
    if isinstance(variant, Variant):
        return variant.with_options(**given) if given else variant
    return get_variant(variant, **given)


def position_of(start: str | Position, variant: Variant | None = None) -> Position:
    """A position given as text or as a `Position`; with `variant`, it must be one of that variant."""
    position = Position.from_text(start) if isinstance(start, str) else start
    if variant is not None and position.variant is not variant:
        raise ValueError(f"start position {position.text()!r} is of {position.variant}, not {variant}")
    return position


def side_of(variant: Variant, role: Side | str) -> Side:
    """A side given as a `Side` or by its name in `variant` ("fox", "geese", "hare", "hounds"), or as
    "predator"/"prey"; ValueError naming the valid names otherwise."""
    if isinstance(role, Side):
        return role
    name = str(role).strip().lower()
    if name in ("predator", "prey"):
        return Side.PREDATOR if name == "predator" else Side.PREY
    return variant.side_by_name(name)


def max_actions(variant: Variant) -> int:
    """An upper bound on the actions of one game from the start: the variant's rules end every game.

    Irreversible moves (a prey step that raises a row, a capture) are bounded by the prey's rows
    to climb and their number; between two of them at most 100 plies pass where the fifty-move rule
    applies, 20 under the stall rule, 2 where every prey step raises a row. Each capture may add a
    jump segment and a STOP.
    """
    prey = variant.prey_start.bit_count()
    raises = prey * (variant.board.rows - 1)
    captures = prey if variant.captures else 0
    if Termination.FIFTY_MOVES in variant.endings:
        window = FIFTY_MOVE_PLIES + 1
    elif Termination.STALLING in variant.endings:
        window = 2 * STALLING_MOVES + 2
    else:
        window = 2
    return (raises + captures + 1) * window + 2 * captures


class HuntGame:
    """A game played one action at a time; `game` is the engine's game of whole moves."""

    def __init__(self, variant: Variant, start: Position | None = None, actions: ActionSpace | None = None) -> None:
        """`actions`: the variant's action space when its caller keeps one (an environment), else made here."""
        self.variant = variant
        self.actions: ActionSpace = actions or action_space(variant)
        self.game = Game(variant) if start is None else Game.from_position(start)
        self.chain: tuple[int, ...] = ()
        self.chain_prey = 0
        self.steps = 0

    def copy(self) -> HuntGame:
        """An independent copy (positions and the variant are shared: they are immutable)."""
        clone = HuntGame.__new__(HuntGame)
        clone.variant, clone.actions, clone.game = self.variant, self.actions, self.game.copy()
        clone.chain, clone.chain_prey, clone.steps = self.chain, self.chain_prey, self.steps
        return clone

    def __deepcopy__(self, memo: dict) -> HuntGame:
        return self.copy()  # a deep copy would copy the Variant, whose identity is its equality

    def __reduce__(self) -> tuple:
        """Pickles as text: the start position, the moves and the open chain's jumps."""
        return _rebuild, (self.game.start.text(), [str(move) for move in self.game.moves], self.chain, self.steps)

    # -- state ------------------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        return self.game.position

    @property
    def to_move(self) -> Side:
        return self.game.position.turn

    def pieces(self) -> tuple[int, int]:
        """(predator point, prey bitmask) as they stand, mid-chain included."""
        if self.chain:
            return self.chain[-1], self.chain_prey
        return self.position.predator, self.position.prey

    def outcome(self) -> Outcome | None:
        return None if self.chain else self.game.outcome()

    def observation(self, role: Side | str) -> np.ndarray:
        """The planes as `role` (a Side or its name) sees the game."""
        role = side_of(self.variant, role)
        predator, prey = self.pieces()
        position = self.position
        return observe(self.actions, role, predator, prey, position.turn, position.quiet, position.stall,
                       bool(self.chain))

    # -- actions ----------------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal actions, sorted; [] once the game is over."""
        index = self.actions.index
        if self.chain:
            stop = self.actions.stop
            assert stop is not None  # a variant with chains has STOP
            return sorted(index[(self.chain[-1], land)] for land in self._jumps_from(*self.pieces())) + [stop]
        return sorted({index[move.path[0], move.path[1]] for move in self.game.legal_moves()})

    def mask(self) -> np.ndarray:
        mask = np.zeros(self.actions.size, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def _jumps_from(self, at: int, prey: int) -> list[int]:
        """Landing points of the jumps open to a fox on `at` over `prey` (mid-chain)."""
        return [land for over, land in self.variant.board.jumps[at] if prey >> over & 1 and not prey >> land & 1]

    def apply(self, action: int) -> Move | None:
        """Plays one legal action (ValueError otherwise); returns the engine move it completed, if any."""
        if action not in self.legal_actions():
            raise ValueError(f"action {action} ({self._name(action)}) is not legal here")
        self.steps += 1
        if action == self.actions.stop:
            return self._finish_chain()
        pair = self.actions.pair(action)
        assert pair is not None
        if not self.actions.is_jump(action):
            move = Move(pair, False)
            self.game.push(move)
            return move
        if not self.chain:
            self.chain, self.chain_prey = (pair[0],), self.position.prey
        self.chain += (pair[1],)
        self.chain_prey ^= 1 << ((pair[0] + pair[1]) >> 1)
        if not self._jumps_from(pair[1], self.chain_prey):
            return self._finish_chain()
        return None

    def play_move(self, move: Move) -> None:
        """Plays a whole engine move (an opponent's), which must be legal; no chain may be open."""
        if self.chain:
            raise ValueError("a capture chain is open: finish it with actions first")
        move = self.game.parse_move(move)
        self.steps += len(self.move_actions(move))
        self.game.push(move)

    def move_actions(self, move: Move) -> list[int]:
        """The actions that play `move` from the current position (steps: one; chains: their jumps and
        a STOP where the fox could jump on)."""
        if not move.is_capture:
            return [self.actions.index[move.path[0], move.path[1]]]
        result = [self.actions.index[a, b] for a, b in zip(move.path, move.path[1:])]
        prey = self.position.prey
        for a, b in zip(move.path, move.path[1:]):
            prey ^= 1 << ((a + b) >> 1)
        if self._jumps_from(move.path[-1], prey):
            stop = self.actions.stop
            assert stop is not None  # a variant with chains has STOP
            result.append(stop)
        return result

    def _finish_chain(self) -> Move:
        move = Move(self.chain, True)
        self.chain, self.chain_prey = (), 0
        self.game.push(move)
        return move

    def _name(self, action: int) -> str:
        return self.actions.name(action) if 0 <= action < self.actions.size else "out of range"

    def rewards(self, rewards: Rewards | dict[Side, Rewards]) -> dict[Side, float]:
        """Each role's reward for the game as it stands (zero while it goes on); `rewards` may differ by role."""
        by_role = rewards if isinstance(rewards, dict) else {Side.PREDATOR: rewards, Side.PREY: rewards}
        ended = self.outcome()
        if ended is None:
            return {Side.PREDATOR: 0.0, Side.PREY: 0.0}
        side = ended.termination.winner
        if side is None:
            return {role: by_role[role].draw for role in (Side.PREDATOR, Side.PREY)}
        return {side: by_role[side].win, side.other: by_role[side.other].loss}

    def text(self) -> str:
        """The position text, with ` chain=d4xd6` appended while a capture chain is open."""
        if not self.chain:
            return self.position.text()
        return f"{self.position.text()} chain={Move(self.chain, True)}"

    @classmethod
    def from_text(cls, text: str) -> HuntGame:
        """Reads `text()` back (no history: repetition counts start afresh)."""
        base, _, chain = text.strip().partition(" chain=")
        game = cls(Position.from_text(base).variant, Position.from_text(base))
        if chain:
            move = Move.parse(chain)
            if not move.is_capture or move.path[0] != game.position.predator:
                raise ValueError(f"chain {chain!r} is no capture chain of the fox on {game.position.text()}")
            for a, b in zip(move.path, move.path[1:]):
                game.apply(game.actions.index[a, b])
        return game


def _rebuild(start: str, moves: list[str], chain: tuple[int, ...], steps: int) -> HuntGame:
    hunt = HuntGame.from_text(start)
    for move in moves:
        hunt.game.push(Move.parse(move))
    for a, b in zip(chain, chain[1:]):
        hunt.apply(hunt.actions.index[a, b])
    hunt.steps = steps
    return hunt
