"""Train a learned Hare and Hounds player, print its accuracy against perfect play as it learns, save its
weights, and play it against other players as the SPEC `learned:weights=PATH`.

    python examples/research/train_hare_hounds.py                       # 16,000 self-play games
    python examples/research/train_hare_hounds.py --episodes 2000 --every 500 --weights /tmp/hare.npz

Accuracy is the share of 500 fixed decisions (positions from random games where some move throws
the exact value away) where the agent's move keeps it, judged by the solved game.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from foxgeese.engine import Game, Side, get_variant, play_game
from foxgeese.players.registry import make_player
from foxgeese.research.learn import learning_curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=16000)
    parser.add_argument("--every", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", default="hare-and-hounds-learned.npz")
    parser.add_argument("--games", type=int, default=20, help="games against each opponent afterwards")
    args = parser.parse_args()
    variant = get_variant("hare-and-hounds")
    began = time.perf_counter()
    print(f"{'games trained':>13} {'accuracy':>9} {'seconds':>8}")

    def report(episodes: int, accuracy: float) -> None:
        print(f"{episodes:>13,} {accuracy:>9.1%} {time.perf_counter() - began:>8.1f}", flush=True)

    table, _ = learning_curve(variant, args.episodes, args.every, seed=args.seed, report=report)
    path = Path(args.weights)
    table.save(path)
    print(f"saved {len(table.values):,} values to {path}")
    spec = f"learned:weights={path}"
    for opponent in ("random", "minimax:depth=3", "solver"):
        for side in (Side.PREDATOR, Side.PREY):
            wins = 0
            for seed in range(args.games):
                seeded = f"{opponent},seed={seed}" if ":" in opponent else f"{opponent}:seed={seed}"
                players = {side: make_player(f"{spec},seed={seed}"), side.other: make_player(seeded)}
                game = play_game(Game(variant), players)
                outcome = game.outcome()
                wins += outcome is not None and outcome.winner.value == variant.side_name(side)
            print(f"{spec} as {variant.side_name(side)} vs {opponent}: won {wins}/{args.games}")


if __name__ == "__main__":
    main()
