"""Steps per second of self-play training against the batched environment alone, in one run: what the
bookkeeping around a 4 M steps/s environment costs when it is arrays of shape (steps, games), against
per-game Python bookkeeping, and what the network itself costs (research/selfplay.py).

    python benchmarks/bench_training.py                   # standard, 256 games, 3 s per figure
    python benchmarks/bench_training.py --variant great-cross --games 1024

Rows, all on one core (the trainer's environment is `parallel=False`; numpy's BLAS on one thread):
1. the environment alone (random actions);
2. the environment with the trainer's vectorised bookkeeping (every step's states, actions, rewards
   and endings stored in (steps, games) arrays, then the λ-returns computed one vector per step), random actions;
3. the same with per-game Python bookkeeping (a list per game, appended each step; returns per game):
   the pattern that held a REINFORCE loop to 12 k steps/s;
4. the whole training loop (SelfPlay.iteration: the network chooses every action, then learns).
Wall figures on a shared machine follow its load (printed beside them); the CPU-time column is
steps per CPU second of this process.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from foxgeese.research.batched import BatchedHuntEnv
from foxgeese.research.selfplay import BlasThreads, SelfPlay, TrainConfig, fresh_network

STEPS = 32  # actions per game per iteration, as the trainer


def timed(run, seconds: float) -> tuple[float, float]:
    """(steps per wall second, steps per CPU second) of `run()` (returns the steps it took) over `seconds`."""
    run()  # compiled / warmed
    steps, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        steps += run()
    return steps / (time.perf_counter() - wall), steps / max(time.process_time() - cpu, 1e-9)


def environment(variant: str, games: int):
    env = BatchedHuntEnv(variant, games=games, seed=1, parallel=False)
    env.reset()

    def run() -> int:
        for _ in range(STEPS):
            env.step(env.random_actions())
        return STEPS * games
    return run


def vectorised(variant: str, games: int):
    env = BatchedHuntEnv(variant, games=games, seed=1, parallel=False)
    env.reset()
    states = np.empty((STEPS, 6, games), np.int64)
    rewards = np.empty((STEPS, games), np.float32)
    done = np.empty((STEPS, games), np.bool_)
    actions = np.empty((STEPS, games), np.int64)

    def run() -> int:
        for t in range(STEPS):
            states[t] = env.fox, env.prey, env.turn, env.quiet, env.stall, env.chain
            actions[t] = env.random_actions()
            _, reward, ended = env.step(actions[t])
            rewards[t], done[t] = reward[:, 0], ended != 0
        running = np.zeros(games, np.float32)
        returns = np.empty_like(rewards)
        for t in range(STEPS - 1, -1, -1):
            running = rewards[t] + (1.0 - done[t]) * running
            returns[t] = running
        return STEPS * games
    return run


def per_game(variant: str, games: int):
    env = BatchedHuntEnv(variant, games=games, seed=1, parallel=False)
    env.reset()
    episodes: list[list[tuple[int, int, int]]] = [[] for _ in range(games)]

    def run() -> int:
        for _ in range(STEPS):
            chosen = env.random_actions()
            _, reward, ended = env.step(chosen)
            for i in range(games):
                episodes[i].append((int(env.fox[i]), int(env.prey[i]), int(chosen[i])))
                if ended[i]:
                    result = float(reward[i, 0])
                    _returns = [result] * len(episodes[i])
                    episodes[i] = []
        return STEPS * games
    return run


def training(variant: str, games: int):
    trainer = SelfPlay(fresh_network(BatchedHuntEnv(variant, games=1).variant, np.random.default_rng(1)),
                       TrainConfig(games=games, steps=STEPS))

    def run() -> int:
        return trainer.iteration().steps
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print(f"{args.variant}, {args.games} games, {STEPS} actions a game per iteration, one core; "
          f"load average at the start {os.getloadavg()[0]:.2f}")
    print(f"{'loop':<62} {'steps/s (wall)':>15} {'steps per CPU s':>16}")
    rows = [("environment alone (random actions)", environment),
            ("+ vectorised bookkeeping, (steps, games) arrays", vectorised),
            ("+ per-game Python bookkeeping (lists per game)", per_game),
            ("whole training loop (network acts and learns; selfplay.py)", training)]
    figures = {}
    with BlasThreads(1):
        for label, make in rows:
            wall, cpu = timed(make(args.variant, args.games), args.seconds)
            figures[label] = cpu
            print(f"{label:<62} {wall:>15,.0f} {cpu:>16,.0f}", flush=True)
    alone = figures[rows[0][0]]
    print(f"per CPU second: vectorised bookkeeping keeps {figures[rows[1][0]] / alone:.0%} of the environment's "
          f"speed, per-game bookkeeping {figures[rows[2][0]] / alone:.0%}, the whole training loop "
          f"{figures[rows[3][0]] / alone:.1%} (the network's own arithmetic)")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
