"""Search speed per variant: alpha-beta nodes/sec, compiled and Python, and MCTS playouts/sec (prints figures).

    python benchmarks/bench_search.py [--seconds 2]

Each search runs from the start position and from a few positions reached by random play, so the
figures cover the opening and the middle game. Rates are per second of this process's CPU time
(`time.process_time`): one core's work, whatever else the machine runs (the load is printed too);
the compiled alpha-beta (SPEC `minimax`) and the Python one (`minimax-py`, the reference) search the
same positions for the same time, in one run. Compiling or loading the compiled code is done first
and not counted.
"""

from __future__ import annotations

import argparse
import os
import random
import time

from foxgeese.engine import get_variant
from foxgeese.engine.rules import rules_for
from foxgeese.engine.sampling import played_positions
from foxgeese.players.base import Deadline
from foxgeese.players.compiled.player import CompiledSearch
from foxgeese.players.mcts import MCTS, RolloutEvaluator
from foxgeese.players.minimax import AlphaBeta

VARIANTS = (("standard", {}), ("standard", {"sideways": True}), ("great-cross", {}), ("hare-and-hounds", {}))


def bench_alphabeta(variant, positions, seconds: float) -> tuple[int, float, list[int]]:
    rules = rules_for(variant)
    nodes, spent, depths = 0, 0.0, []
    for position in positions:
        engine = AlphaBeta(rules)
        started = time.process_time()
        result = engine.search(position.state, time_ms=seconds * 1000 / len(positions), time_is_budget=False)
        spent += time.process_time() - started
        nodes += result.nodes
        depths.append(result.depth)
    return nodes, spent, depths


def bench_compiled(variant, positions, seconds: float) -> tuple[int, float, list[int]]:
    """The compiled alpha-beta on the same positions (no solved table: the search itself is timed)."""
    search = CompiledSearch(variant, tables=False)
    first = search.board.state(positions[0].state)
    search.searcher.search(first, [0], depth=2)  # compiled or loaded before the clock starts
    nodes, spent, depths = 0, 0.0, []
    for position in positions:
        search.searcher.clear()
        state = search.board.state(position.state)
        started = time.process_time()
        result = search.searcher.search(state, [0], time_ms=seconds * 1000 / len(positions), time_is_budget=False)
        spent += time.process_time() - started
        nodes += result.nodes
        depths.append(result.depth)
    return nodes, spent, depths


def bench_mcts(variant, positions, seconds: float) -> tuple[int, float]:
    rules = rules_for(variant)
    playouts, spent = 0, 0.0
    for index, position in enumerate(positions):
        search = MCTS(rules, RolloutEvaluator(rules, random.Random(index)))
        root = search.new_root(position.state)
        started = time.process_time()
        playouts += search.run(root, playouts=None, deadline=Deadline(seconds * 1000 / len(positions)))
        spent += time.process_time() - started
    return playouts, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per variant and per search kind")
    parser.add_argument("--positions", type=int, default=4)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; rates per CPU-second of this process")
    print(f"{'variant':<28} {'compiled a-b nodes/s':>21} {'depths':>8} {'Python a-b nodes/s':>19} "
          f"{'depths':>8} {'ratio':>6} {'MCTS playouts/s':>16}")
    for variant_id, options in VARIANTS:
        variant = get_variant(variant_id, **options)
        positions = played_positions(variant, args.positions, seed=1)
        fast, fast_time, fast_depths = bench_compiled(variant, positions, args.seconds)
        nodes, ab_time, depths = bench_alphabeta(variant, positions, args.seconds)
        playouts, mc_time = bench_mcts(variant, positions, args.seconds)
        label = str(variant)
        ratio = (fast / fast_time) / (nodes / ab_time)
        print(
            f"{label:<28} {fast / fast_time:>21,.0f} {span(fast_depths):>8} {nodes / ab_time:>19,.0f} "
            f"{span(depths):>8} {ratio:>5.1f}x {playouts / mc_time:>16,.0f}"
        )


def span(depths: list[int]) -> str:
    return f"{min(depths)}..{max(depths)}"


if __name__ == "__main__":
    main()
