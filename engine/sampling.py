"""Random positions for tests and benchmarks: one sampler instead of one per caller.

Two kinds: `scattered_position` puts the pieces anywhere on the board (positions no game may
reach, which is what a rules check wants), `played_position` plays random moves from the start
(positions games do reach, which is what a speed figure wants).
"""

from __future__ import annotations

import random

from foxgeese.engine.board import GRID_WIDTH
from foxgeese.engine.game import Game
from foxgeese.engine.outcome import Side
from foxgeese.engine.position import Position
from foxgeese.engine.rules import MIN_GEESE, rules_for
from foxgeese.engine.variants import Variant

# A fifty-move counter this close to the limit lets a test see the draw happen.
QUIET_RANGE = (0, 101)


def scattered_position(
    variant: Variant,
    rng: random.Random,
    *,
    prey_count: int | None = None,
    lowest_row: int = 0,
    counters: bool = False,
) -> Position:
    """The predator and `prey_count` prey (default: any number up to the start's) on random points.

    `lowest_row` keeps the prey on that row and above; `counters` draws the fifty-move counter
    (and the stall counter where the variant counts stalls) too, so the endings they decide show up.
    """
    points = sorted(variant.board.points)
    start_count = variant.prey_start.bit_count()
    if prey_count is None:
        low = min(MIN_GEESE, start_count) if variant.captures else start_count
        prey_count = rng.randint(low, start_count)
    high = [p for p in points if p // GRID_WIDTH >= lowest_row]
    prey = rng.sample(high, prey_count)
    predator = rng.choice([p for p in points if p not in prey])
    turn = rng.choice([Side.PREDATOR, Side.PREY])
    quiet = stall = 0
    if counters:
        quiet = rng.randint(*QUIET_RANGE)
        if rules_for(variant).counts_stall:
            stall = rng.randint(0, 10)
    return Position(variant, predator, sum(1 << p for p in prey), turn, quiet, stall)


def played_position(
    variant: Variant, rng: random.Random, plies: tuple[int, int] = (4, 15), *, capture_bias: float = 0.0
) -> Position | None:
    """The position after a random number of random plies in `plies` (inclusive), or None if the
    game ended. With `capture_bias`, a capture is preferred with that chance (longer chains show up)."""
    game = Game(variant)
    for _ in range(rng.randint(*plies)):
        moves = game.legal_moves()
        if not moves:
            return None
        captures = [m for m in moves if m.is_capture] if capture_bias else []
        game.push(rng.choice(captures if captures and rng.random() < capture_bias else moves))
    return None if game.outcome() is not None else game.position


def played_positions(variant: Variant, count: int, seed: int, plies: tuple[int, int] = (4, 15)) -> list[Position]:
    """The start position plus `count - 1` positions of running games after random plies."""
    rng = random.Random(seed)
    positions = [variant.start_position()]
    while len(positions) < count:
        position = played_position(variant, rng, plies)
        if position is not None:
            positions.append(position)
    return positions
