"""Environment steps per second with random actions: the batched numba environment (both cores and one)
beside the plain Python environments (PettingZoo AEC, the shared HuntGame) in the same run.

    python benchmarks/bench_research.py                  # standard, 4096 games, 2 s per figure
    python benchmarks/bench_research.py --variant hare-and-hounds --games 8192 --seconds 5

A step is one action in one game (a capture chain takes one step per jump). Wall-clock figures on a
shared machine move with its load: the load average is printed beside them, and the CPU-time
figure (steps per CPU second of this process) beside each.
"""

from __future__ import annotations

import argparse
import os
import random
import time
import warnings

from foxgeese.research.batched import BatchedHuntEnv
from foxgeese.research.hunt import HuntGame
from foxgeese.research.pettingzoo_env import HuntAECEnv


def timed(run, seconds: float) -> tuple[float, float]:
    """(steps per wall second, steps per CPU second) of `run()` (returns the steps it took) over `seconds`."""
    steps, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        steps += run()
    return steps / (time.perf_counter() - wall), steps / max(time.process_time() - cpu, 1e-9)


def batched(variant: str, games: int, parallel: bool):
    env = BatchedHuntEnv(variant, games=games, seed=1, parallel=parallel)
    env.reset()
    env.step(env.random_actions())  # compiles (or loads the cached kernels)

    def run() -> int:
        for _ in range(10):
            env.step(env.random_actions())
        return 10 * games
    return run


def hunt_game(variant: str):
    rng = random.Random(1)
    state = {"game": HuntGame(BatchedHuntEnv(variant, games=1).variant)}

    def run() -> int:
        game = state["game"]
        for _ in range(100):
            if game.outcome() is not None:
                game = state["game"] = HuntGame(game.variant)
            game.apply(rng.choice(game.legal_actions()))
        return 100
    return run


def aec(variant: str):
    env = HuntAECEnv(variant, labels=False)
    env.reset(seed=1)
    rng = random.Random(1)

    def run() -> int:
        for _ in range(100):
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                env.reset()
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(rng.choice([a for a in range(len(mask)) if mask[a]]))
        return 100
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    cases = [
        (f"batched numba, {args.games} games, 2 cores", batched(args.variant, args.games, True)),
        (f"batched numba, {args.games} games, 1 core", batched(args.variant, args.games, False)),
        ("HuntGame (plain Python, 1 game)", hunt_game(args.variant)),
        ("PettingZoo AEC env (plain Python)", aec(args.variant)),
    ]
    print(f"variant {args.variant}, random actions, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f} (1 min) at start")
    print(f"{'environment':<42} {'steps/s (wall)':>16} {'steps/CPU-s':>14}")
    for name, run in cases:
        wall, cpu = timed(run, args.seconds)
        print(f"{name:<42} {wall:>16,.0f} {cpu:>14,.0f}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end; target: 1,000,000 steps/s on 2 cores (batched)")


if __name__ == "__main__":
    main()
