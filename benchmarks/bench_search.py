"""Search speed per variant: alpha-beta nodes/sec and MCTS playouts/sec (prints figures, not a test).

    python benchmarks/bench_search.py [--seconds 2]

Each search runs from the start position and from a few positions reached by random play, so the
figures cover the opening and the middle game.
"""

from __future__ import annotations

import argparse
import random
import time

from foxgeese.engine import get_variant
from foxgeese.engine.rules import rules_for
from foxgeese.engine.sampling import played_positions
from foxgeese.players.base import Deadline
from foxgeese.players.mcts import MCTS, RolloutEvaluator
from foxgeese.players.minimax import AlphaBeta

VARIANTS = (("standard", {}), ("standard", {"sideways": True}), ("great-cross", {}), ("hare-and-hounds", {}))


def bench_alphabeta(variant, positions, seconds: float) -> tuple[int, float, list[int]]:
    rules = rules_for(variant)
    nodes, spent, depths = 0, 0.0, []
    for position in positions:
        engine = AlphaBeta(rules)
        started = time.perf_counter()
        result = engine.search(position.state, time_ms=seconds * 1000 / len(positions))
        spent += time.perf_counter() - started
        nodes += result.nodes
        depths.append(result.depth)
    return nodes, spent, depths


def bench_mcts(variant, positions, seconds: float) -> tuple[int, float]:
    rules = rules_for(variant)
    playouts, spent = 0, 0.0
    for index, position in enumerate(positions):
        search = MCTS(rules, RolloutEvaluator(rules, random.Random(index)))
        root = search.new_root(position.state)
        started = time.perf_counter()
        playouts += search.run(root, playouts=None, deadline=Deadline(seconds * 1000 / len(positions)))
        spent += time.perf_counter() - started
    return playouts, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per variant and per search kind")
    parser.add_argument("--positions", type=int, default=4)
    args = parser.parse_args()
    print(f"{'variant':<28} {'alpha-beta nodes/s':>19} {'depths reached':>16} {'MCTS playouts/s':>16}")
    for variant_id, options in VARIANTS:
        variant = get_variant(variant_id, **options)
        positions = played_positions(variant, args.positions, seed=1)
        nodes, ab_time, depths = bench_alphabeta(variant, positions, args.seconds)
        playouts, mc_time = bench_mcts(variant, positions, args.seconds)
        label = str(variant)
        print(
            f"{label:<28} {nodes / ab_time:>19,.0f} {min(depths):>7}..{max(depths):<8} {playouts / mc_time:>16,.0f}"
        )


if __name__ == "__main__":
    main()
