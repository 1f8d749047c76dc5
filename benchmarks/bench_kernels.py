"""Nanoseconds per call of the compiled kernels a search spends its time in (prints a table).

    python benchmarks/bench_kernels.py [--positions 400] [--repeats 1000]

Each kernel runs over the same positions reached by random play (engine/sampling.py), inside one
compiled loop, so the figure is the kernel's own cost, not Python's: move generation, the states
after every move (`children`), the playout's move choice, the static evaluation, a rollout of 0
and of 8 plies (through the searcher's cache of static values), and the alpha-beta's static
evaluation. Per CPU-second of this process (`time.process_time`); the load is printed too.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from foxgeese.engine import get_variant
from foxgeese.engine.sampling import played_positions
from foxgeese.players.compiled import core, mcts_rules
from foxgeese.players.compiled.bits import kernel
from foxgeese.players.compiled.evaluation import eval_tables, evaluate
from foxgeese.players.compiled.mcts_rules import Moves
from foxgeese.players.compiled.tables import DenseBoard

GENERATE, CHILDREN, POLICY, EVALUATE, ROLLOUT_0, ROLLOUT_8 = range(6)
NAMES = ("generate", "children", "moves+policy", "evaluate", "rollout 0", "rollout 8")


@kernel()
def run(kind, t, e, rng, states, repeats, moves, cache):
    """`repeats` passes of one kernel over every state; a checksum (so nothing is optimised away)."""
    total = 0.0
    for _ in range(repeats):
        for i in range(states.shape[1]):
            fox, prey, turn, quiet, stall = states[0, i], states[1, i], states[2, i], states[3, i], states[4, i]
            if kind == GENERATE:
                total += core.generate(t, fox, prey, turn, moves[0], moves[1], moves[2], moves[3], 0)
            elif kind == CHILDREN:
                total += mcts_rules.children(t, fox, prey, turn, quiet, stall, moves)
            elif kind == POLICY:
                n = mcts_rules.moves_only(t, fox, prey, turn, moves)
                if n:
                    total += mcts_rules.policy_move(t, rng, fox, prey, turn, n, moves)
            elif kind == EVALUATE:
                total += evaluate(t, e, fox, prey, turn, stall)
            else:
                plies = 0 if kind == ROLLOUT_0 else 8
                total += mcts_rules.rollout(t, e, rng, fox, prey, turn, quiet, stall, plies, 0.1, 0.5, moves, cache)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; ns of CPU per call")
    print(f"{'variant':<14}" + "".join(f"{name:>14}" for name in NAMES) + f"{'moves':>8}")
    for variant_id in ("standard", "great-cross", "hare-and-hounds"):
        variant = get_variant(variant_id)
        board = DenseBoard(variant)
        t, e = board.tables, eval_tables(board)
        states = np.array([board.state(p.state) for p in played_positions(variant, args.positions, seed=3)],
                          np.int64).T.copy()
        moves = Moves().arrays
        cache = (np.zeros(1 << 16, np.int64), np.zeros(1 << 16, np.float64))
        rng = np.ones(1, np.uint64)
        costs = []
        for kind in range(len(NAMES)):
            repeats = max(1, args.repeats // 8) if kind == ROLLOUT_8 else args.repeats
            run(kind, t, e, rng, states, 1, moves, cache)  # compiled before the clock starts
            started = time.process_time()
            run(kind, t, e, rng, states, repeats, moves, cache)
            costs.append((time.process_time() - started) * 1e9 / (repeats * states.shape[1]))
        mean_moves = run(GENERATE, t, e, rng, states, 1, moves, cache) / states.shape[1]
        print(f"{variant_id:<14}" + "".join(f"{cost:>14.1f}" for cost in costs) + f"{mean_moves:>8.1f}")


if __name__ == "__main__":
    main()
