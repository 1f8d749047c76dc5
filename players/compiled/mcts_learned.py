"""A learned evaluator for the compiled MCTS: the interface, and the value tables of research/learn.py.

The search hands an evaluator batches of leaves between compiled calls (`mcts:evaluator=learned`;
`CompiledMCTS(variant, evaluator=obj)` in code). An evaluator is any object with

    values(leaves: LeafBatch) -> array of n floats in [0, 1]: each position's expected result for the
        predator (fox or hare), whoever is to move (1: it wins, 0: it loses, draws in between);

and, optionally,

    priors(parents: LeafBatch, children: LeafBatch, offsets) -> array of len(children) weights >= 0:
        parent i's moves lead to children[offsets[i]:offsets[i + 1]]; the search normalises each
        block and uses them in PUCT (`selection=puct`; without `priors`, every move gets the same).

A `LeafBatch` holds the positions as arrays (the core's dense points: tables.py) and converts them:
`states()` to engine states, `positions()` to `Position`s; `planes()` would be the place for a
network's input. Leaves come `batch` at a time (virtual losses spread one batch over the tree), so a
network is called once per batch, not once per playout. The values are what the search backs up: a
leaf is evaluated once, on its first visit, as the compiled rollout would be.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from foxgeese.engine import Position, Side, Variant, get_variant
from foxgeese.engine.rules import Rules, State
from foxgeese.players.compiled.tables import DenseBoard
from foxgeese.players.network import NetworkEvaluator, is_network_file


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
    """A value table saved by research/learn.py (`learned:weights=PATH`) as a leaf evaluator: the
    values the `learned` player plays by, searched by the MCTS. The file is read here, not through
    research/learn.py (nothing below research imports it): numpy's .npz with `keys` (int64: the
    engine's position key << 4 | min(stall, 15)), `values` (float32: V for the side to move, in
    [-1, 1]; unseen positions 0) and `variant` (JSON: id and options)."""

    def __init__(self, weights: str) -> None:
        try:
            with np.load(weights) as data:
                described = json.loads(str(data["variant"]))
                self.variant = get_variant(described["variant"], **described["options"])
                order = np.argsort(data["keys"])
                self.keys = np.asarray(data["keys"][order], np.int64)
                self.table = np.asarray(data["values"][order], np.float64)
        except Exception as error:  # a file that is not such a table: numpy, zipfile, json and the variant say why
            raise ValueError(f"cannot read weights {weights}: {error}") from None

    def values(self, leaves: LeafBatch) -> np.ndarray:
        if leaves.variant is not self.variant:
            raise ValueError(f"these weights are for {self.variant}, not {leaves.variant}")
        keys = np.array([Rules.key(state) << 4 | min(state[4], 15) for state in leaves.states()], np.int64)
        at = np.minimum(np.searchsorted(self.keys, keys), max(len(self.keys) - 1, 0))
        found = (self.keys[at] == keys) if len(self.keys) else np.zeros(len(keys), bool)
        mover = np.where(found, self.table[at] if len(self.keys) else 0.0, 0.0)
        return np.where(leaves.turn == Side.PREDATOR, (1.0 + mover) / 2.0, (1.0 - mover) / 2.0)


def load_evaluator(weights: str) -> LeafEvaluator:
    """The evaluator that a weights file holds: players/network.py's networks (values and priors),
    or research/learn.py's value tables."""
    if is_network_file(weights):
        try:
            return NetworkEvaluator(weights)
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"cannot read weights {weights}: {error}") from None
    return ValueTableEvaluator(weights)
