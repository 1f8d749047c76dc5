"""A learned evaluator for the compiled MCTS: the interface, and the value tables of research/learn.py.

The search hands an evaluator batches of leaves between compiled calls (`mcts:evaluator=learned`;
`CompiledMCTS(variant, evaluator=obj)` in code). An evaluator is any object with

    values(leaves: LeafBatch) -> array of n floats in [0, 1]: each position's expected result for the
        predator (fox or hare), whoever is to move (1: it wins, 0: it loses, draws in between);

and, optionally,

    priors(parents: LeafBatch, children: LeafBatch, offsets) -> array of len(children) weights >= 0:
        parent i's moves lead to children[offsets[i]:offsets[i + 1]]; the search normalises each
        block and uses them in PUCT (`selection=puct`; without `priors`, the playout policy's).

A `LeafBatch` holds the positions as arrays (the core's dense points: tables.py) and converts them:
`states()` to engine states, `positions()` to `Position`s; `planes()` would be the place for a
network's input. Leaves come `batch` at a time (virtual losses spread one batch over the tree), so a
network is called once per batch, not once per playout. The values are what the search backs up: a
leaf is evaluated once, on its first visit, as the compiled rollout would be.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from foxgeese.engine import Position, Side, Variant
from foxgeese.engine.rules import State
from foxgeese.players.compiled.tables import DenseBoard


@dataclass(frozen=True)
class LeafBatch:
    """n positions of one variant, on dense points; `turn` 0 predator, 1 prey to move."""

    board: DenseBoard
    fox: np.ndarray
    prey: np.ndarray
    turn: np.ndarray
    quiet: np.ndarray
    stall: np.ndarray

    @property
    def variant(self) -> Variant:
        return self.board.variant

    def __len__(self) -> int:
        return len(self.fox)

    def states(self) -> list[State]:
        return [self.board.engine_state(int(self.fox[i]), int(self.prey[i]), int(self.turn[i]), int(self.quiet[i]),
                                        int(self.stall[i])) for i in range(len(self))]

    def positions(self) -> list[Position]:
        return [Position(self.variant, *state) for state in self.states()]


class LeafEvaluator(Protocol):
    def values(self, leaves: LeafBatch) -> np.ndarray:
        """The predator's expected result in each position, in [0, 1]."""


class ValueTableEvaluator:
    """research/learn.py's value table (V for the side to move, in [-1, 1]; unseen positions 0) as
    a leaf evaluator: the values the `learned` player plays by, searched by the MCTS."""

    def __init__(self, weights: str) -> None:
        from foxgeese.research.learn import ValueTable, key_of  # research sits above players: only when asked

        try:
            self.table = ValueTable.load(weights)
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"cannot read weights {weights}: {error}") from None
        self.key_of = key_of
        self.variant = self.table.variant

    def values(self, leaves: LeafBatch) -> np.ndarray:
        if leaves.variant is not self.variant:
            raise ValueError(f"these weights are for {self.variant}, not {leaves.variant}")
        out = np.empty(len(leaves), np.float64)
        for index, position in enumerate(leaves.positions()):
            mover = self.table.values.get(self.key_of(position), 0.0)
            out[index] = (1.0 + mover) / 2.0 if position.turn == Side.PREDATOR else (1.0 - mover) / 2.0
        return out


def load_evaluator(weights: str) -> LeafEvaluator:
    """The evaluator that a weights file holds (today: research/learn.py's value tables)."""
    return ValueTableEvaluator(weights)
