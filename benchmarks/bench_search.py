"""Search speed per variant: alpha-beta nodes/sec and MCTS playouts/sec, compiled and Python (prints figures).

    python benchmarks/bench_search.py [--seconds 2] [--mcts-only]

Each search runs from the start position and from a few positions reached by random play, so the
figures cover the opening and the middle game. Rates are per second of this process's CPU time
(`time.process_time`): one core's work, whatever else the machine runs (the load is printed too);
the compiled alpha-beta (SPEC `minimax`) and the Python one (`minimax-py`, the reference) search the
same positions for the same time, in one run; then the compiled MCTS (`mcts`) and the Python one
(`mcts-py`) in a second table (`--mcts-only`: that table alone). Compiling or loading the compiled code is done first
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
from foxgeese.players.compiled.mcts import CompiledMCTS, SearchOptions
from foxgeese.players.compiled.player import CompiledSearch
from foxgeese.players.mcts import DEFAULT_IMPLICIT, DEFAULT_ROLLOUT, MCTS, RolloutEvaluator, variant_defaults
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


def bench_mcts_pair(variant, positions, seconds: float) -> tuple[float, float, int, int]:
    """The compiled MCTS (SPEC `mcts`) and the Python one (`mcts-py`) with the variant's default
    playout (players/mcts.py variant_defaults: 8 epsilon-greedy plies then the static evaluation; in
    great-cross none, the static evaluation alone), the same positions and time: playouts per
    CPU-second of each, and the compiled tree's nodes and playouts."""
    rules = rules_for(variant)
    defaults = variant_defaults(variant)
    options = SearchOptions(rollout=defaults.get("rollout", DEFAULT_ROLLOUT), implicit=defaults.get("implicit",
                                                                                                    DEFAULT_IMPLICIT))
    compiled = CompiledMCTS(variant, options, seed=1)
    compiled.warm()  # compiled or loaded before the clock starts
    fast = fast_time = slow = slow_time = 0.0
    nodes = 0
    for index, position in enumerate(positions):
        compiled.set_root(position.state)
        started = time.process_time()
        fast += compiled.run(playouts=None, deadline=Deadline(seconds * 1000 / len(positions)))
        fast_time += time.process_time() - started
        nodes += compiled.tree.size
        search = MCTS(rules, RolloutEvaluator(rules, random.Random(index), max_plies=options.rollout),
                      implicit=options.implicit)
        root = search.new_root(position.state)
        started = time.process_time()
        slow += search.run(root, playouts=None, deadline=Deadline(seconds * 1000 / len(positions)))
        slow_time += time.process_time() - started
    return fast / fast_time, slow / slow_time, nodes, int(fast)


def mcts_cost(variant, positions, playouts: int) -> list[float]:
    """Microseconds of CPU per compiled playout with parts of the work switched on one by one: the
    tree alone (UCT, the static evaluation at the leaf), + every new child valued by the static
    evaluation (the implicit-minimax weight), + the 8-ply rollout: where a playout's time goes."""
    costs = []
    for rollout, implicit in ((0, 0.0), (0, DEFAULT_IMPLICIT), (DEFAULT_ROLLOUT, DEFAULT_IMPLICIT)):
        search = CompiledMCTS(variant, SearchOptions(rollout=rollout, implicit=implicit), seed=1)
        search.warm()
        spent = 0.0
        for position in positions:
            search.set_root(position.state)
            started = time.process_time()
            search.run(playouts=playouts, deadline=Deadline(None))
            spent += time.process_time() - started
        costs.append(spent * 1e6 / (playouts * len(positions)))
    return costs


def mcts_table(args: argparse.Namespace) -> None:
    print(f"\nMCTS, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; playouts per CPU-second")
    print(f"{'variant':<28} {'compiled playouts/s':>20} {'Python playouts/s':>18} {'ratio':>6} {'nodes/playout':>14} "
          f"{'us: tree, +children valued, +rollout':>38}")
    for variant_id, options in VARIANTS:
        variant = get_variant(variant_id, **options)
        positions = played_positions(variant, args.positions, seed=1)
        fast, slow, nodes, playouts = bench_mcts_pair(variant, positions, args.seconds)
        costs = ", ".join(f"{cost:.1f}" for cost in mcts_cost(variant, positions, 2000))
        print(f"{str(variant):<28} {fast:>20,.0f} {slow:>18,.0f} {fast / slow:>5.1f}x {nodes / playouts:>14.1f} "
              f"{costs:>38}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per variant and per search kind")
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--mcts-only", action="store_true", help="only the compiled and Python MCTS table")
    args = parser.parse_args()
    if args.mcts_only:
        return mcts_table(args)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; rates per CPU-second of this process")
    print(f"{'variant':<28} {'compiled a-b nodes/s':>21} {'depths':>8} {'Python a-b nodes/s':>19} "
          f"{'depths':>8} {'ratio':>6}")
    for variant_id, options in VARIANTS:
        variant = get_variant(variant_id, **options)
        positions = played_positions(variant, args.positions, seed=1)
        fast, fast_time, fast_depths = bench_compiled(variant, positions, args.seconds)
        nodes, ab_time, depths = bench_alphabeta(variant, positions, args.seconds)
        label = str(variant)
        ratio = (fast / fast_time) / (nodes / ab_time)
        print(
            f"{label:<28} {fast / fast_time:>21,.0f} {span(fast_depths):>8} {nodes / ab_time:>19,.0f} "
            f"{span(depths):>8} {ratio:>5.1f}x"
        )
    mcts_table(args)


def span(depths: list[int]) -> str:
    return f"{min(depths)}..{max(depths)}"


if __name__ == "__main__":
    main()
