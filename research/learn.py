"""A learned player: a table of position values trained by self-play, scored against perfect play.

The agent is a negamax value table V(position) = what the position is worth to its side to move
(in [-1, 1]), keyed by pieces, side to move and the stall counter. It plays the move whose position
after is worth least to the opponent (ties broken by its seed). Training plays itself with
epsilon-greedy moves and moves each visited V(s) towards the best child's value (a sampled value
iteration): on Hare and Hounds (a few thousand reachable positions) it converges to perfect play.
Accuracy is the share of evaluation positions where its move keeps the exact value (labels.py).

    python examples/research/train_hare_hounds.py     # the learning curve; saves weights
    foxgeese play --fox learned:weights=W.npz ...      # or any tournament SPEC: learned:weights=PATH

The weights file is numpy's .npz: `keys` (int64), `values` (float32) and `variant` (its text).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

from foxgeese.engine import Clock, Game, Move, Position, Side, Variant, get_variant
from foxgeese.files import atomic_write
from foxgeese.players.base import Choice, Player, reseed
from foxgeese.players.network import Network, Weights, is_network_file
from foxgeese.research.labels import Labeller
from foxgeese.research.selfplay import child_scores


def key_of(position: Position) -> int:
    """Pieces, side to move and the stall counter as one int (the table's key)."""
    return position.key() << 4 | min(position.stall, 15)


class ValueTable:
    """V(position) for the side to move; unseen positions are worth 0."""

    def __init__(self, variant: Variant, values: dict[int, float] | None = None) -> None:
        self.variant = variant
        self.values = values if values is not None else {}

    def child_value(self, position: Position, move: Move) -> float:
        """What `move` is worth to its mover: the ending's result, else minus the table's value after it."""
        after = position.play(move)
        ended = after.outcome()
        if ended is not None:
            side = ended.termination.winner
            return 0.0 if side is None else 1.0 if side == position.turn else -1.0
        return -self.values.get(key_of(after), 0.0)

    def best_moves(self, position: Position) -> tuple[list[Move], float]:
        scored = [(self.child_value(position, move), move) for move in position.legal_moves()]
        top = max(value for value, _ in scored)
        return [move for value, move in scored if value >= top - 1e-9], top

    def save(self, path: str | Path) -> None:
        keys = np.fromiter(self.values, dtype=np.int64, count=len(self.values))
        values = np.array([self.values[int(k)] for k in keys], dtype=np.float32)
        variant = np.array(json.dumps({"variant": self.variant.id, "options": self.variant.option_dict}))

        with atomic_write(path, "wb") as handle:
            np.savez_compressed(handle, keys=keys, values=values, variant=variant)

    @classmethod
    def load(cls, path: str | Path) -> ValueTable:
        with np.load(Path(path)) as data:
            described = json.loads(str(data["variant"]))
            variant = get_variant(described["variant"], **described["options"])
            return cls(variant, dict(zip(data["keys"].tolist(), data["values"].tolist())))


def train(table: ValueTable, episodes: int, rng: random.Random, *, alpha: float = 1.0, epsilon: float = 0.3,
          max_plies: int = 400) -> None:
    """Self-play with epsilon-greedy moves; after each game its positions, last first, move `alpha` of
    the way to their best move's value (the game is deterministic, so 1: the best child's value, a
    sampled value iteration whose backward sweep carries an ending to the start in one game)."""
    for _ in range(episodes):
        position = table.variant.start_position()
        visited = []
        for _ in range(max_plies):
            if position.outcome() is not None:
                break
            visited.append(position)
            moves = position.legal_moves()
            move = rng.choice(moves) if rng.random() < epsilon else rng.choice(table.best_moves(position)[0])
            position = position.play(move)
        for seen in reversed(visited):
            key = key_of(seen)
            old = table.values.get(key, 0.0)
            table.values[key] = old + alpha * (table.best_moves(seen)[1] - old)


def random_walk(position: Position, plies: int, rng: random.Random) -> Position:
    """`plies` random moves on from `position` (fewer if the game ends)."""
    for _ in range(plies):
        if position.outcome() is not None:
            break
        position = position.play(rng.choice(position.legal_moves()))
    return position


def evaluation_positions(variant: Variant, count: int, seed: int, labeller: Labeller) -> list[Position]:
    """Up to `count` decisions from games from the start (random walks, fixed seed): labelled, unfinished
    positions where some move throws the value away (elsewhere every move keeps it, and any agent scores)."""
    rng = random.Random(seed)
    found: dict[int, Position] = {}
    for _ in range(count * 20):
        if len(found) >= count:
            break
        position = random_walk(variant.start_position(), rng.randrange(0, 40), rng)
        if position.outcome() is not None or not labeller.value(position).known:
            continue
        if any(labeller.keeps_value(position, move) is False for move in position.legal_moves()):
            found.setdefault(key_of(position), position)
    return list(found.values())


def accuracy(table: ValueTable, positions: list[Position], labeller: Labeller) -> float:
    """Share of `positions` where the table's move (its first best) keeps the exact value."""
    kept = 0
    for position in positions:
        move = table.best_moves(position)[0][0]
        kept += bool(labeller.keeps_value(position, move))
    return kept / len(positions)


def learning_curve(variant: Variant, episodes: int, every: int, *, seed: int = 1, eval_count: int = 500,
                   labeller: Labeller | None = None,
                   report: Callable[[int, float], None] | None = None) -> tuple[ValueTable, list[tuple[int, float]]]:
    """Trains from scratch; (the table, [(episodes so far, accuracy against perfect play)])."""
    labeller = labeller or Labeller()
    rng = random.Random(seed + 1)  # training and evaluation draw different walks
    positions = evaluation_positions(variant, eval_count, seed, labeller)
    table = ValueTable(variant)
    curve = []
    done = 0
    while True:
        point = (done, accuracy(table, positions, labeller))
        curve.append(point)
        if report is not None:
            report(*point)
        if done >= episodes:
            return table, curve
        batch = min(every, episodes - done)
        train(table, batch, rng)
        done += batch


class LearnedPlayer(Player):
    """Plays from trained weights (`learned:weights=PATH[,seed=N]`): a value table of this module, or
    the networks of players/network.py (research/selfplay.py trains them, one per variant): each
    move's position after it valued in one batch, the best for the mover."""

    name = "learned"

    def __init__(self, *, weights: str = "", seed: int | None = None) -> None:
        if not weights:
            raise ValueError("learned needs weights=PATH (a file saved by foxgeese.research.learn or "
                             "examples/research/train_network.py)")
        self.table: ValueTable | None = None
        self.weights: Weights | None = None
        self.network: Network | None = None
        try:
            if is_network_file(weights):
                self.weights = Weights.load(weights)
                self.variants = [network.variant.id for network in self.weights.networks.values()]
            else:
                self.table = ValueTable.load(weights)
                self.variants = [self.table.variant.id]
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"cannot read weights {weights}: {error}") from None
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        super().new_game(variant, side, seed)
        if self.weights is not None:
            self.network = self.weights.for_variant(variant)
        elif self.table is not None and variant is not self.table.variant:
            raise ValueError(f"these weights are for {self.table.variant}, not {variant}")
        reseed(self.rng, self.seed, seed)

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        if game.outcome() is not None:
            raise ValueError("the game is over: no move to choose")
        if self.weights is not None:
            network = self.network or self.weights.for_variant(game.position.variant)
            (moves, scores), = child_scores(network, [game.copy()])
            top = float(scores.max())
            best = [move for move, score in zip(moves, scores) if score >= top - 1e-6]
            return Choice(self.rng.choice(best), {"score": int(round(top * 100))})
        assert self.table is not None
        best, top = self.table.best_moves(game.position)
        return Choice(self.rng.choice(best), {"score": int(round(top * 100))})
