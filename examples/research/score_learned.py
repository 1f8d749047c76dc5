"""Score a learned player against perfect play and place it on a small ladder.

    python examples/research/score_learned.py --weights learned.npz --tables DIR
    python examples/research/score_learned.py --weights learned.npz --skip-ladder --decisions 100

1. Accuracy: fixed decisions of `standard` with a number of geese in `--geese`, where some legal
   move throws the exact value away (positions of near-perfect walks, research/selfplay.decisions,
   another seed than training's; and per geese count positions scattered uniformly,
   selfplay.scattered_decisions), and the share where each player's move keeps the exact value:
   the learned player, and minimax and MCTS given the same time per decision (the learned player's
   mean, at least `--min-ms`), by geese count, with 95% Wilson intervals.
2. The ladder: a short round robin through the real referee (`foxgeese tournament run`) of the
   learned player against random, minimax and MCTS in `standard` (from the book standard-balanced)
   and the great cross, then the tournament's own report (ratings with intervals).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from foxgeese.engine import Clock, Game, Position, get_variant
from foxgeese.players.registry import make_player
from foxgeese.research.labels import Labeller
from foxgeese.research.selfplay import Decision, decisions, scattered_decisions

VARIANTS = {"standard": "  - id: standard\n    book: standard-balanced\n", "great-cross": "  - id: great-cross\n"}
LADDER = """name: learned-ladder
variants:
{variants}players:
  - {{name: random, spec: "random:seed=1"}}
  - {{name: minimax1, spec: "minimax:depth=1"}}
  - {{name: minimax2, spec: "minimax:depth=2"}}
  - {{name: mcts100, spec: "mcts:playouts=100,seed=1"}}
  - {{name: learned, spec: "learned:weights={weights},seed=1"}}
games_per_pairing: {games}
time_control: 300+1
format: round-robin
concurrency: 2
seed: 1
opening_plies: 2
max_plies: 300
"""


def wilson(kept: int, total: int) -> tuple[float, float]:
    """The 95% Wilson interval of a share."""
    if total == 0:
        return float("nan"), float("nan")
    z, p = 1.96, kept / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def accuracy(args: argparse.Namespace) -> None:
    variant = get_variant("standard")
    low, _, high = args.geese.partition("-")
    labeller = Labeller(args.tables)
    began = time.process_time()
    saved = Path(args.decisions_file) if args.decisions_file else None
    if saved is not None and saved.exists():
        judged = [Decision(Position.from_text(row["position"]), frozenset(row["keeping"]))
                  for row in json.loads(saved.read_text())]
    else:
        counts = range(int(low), int(high or low) + 1)
        judged = decisions(variant, args.decisions, args.seed, labeller, counts, seconds=args.search_seconds)
        judged += scattered_decisions(variant, args.scattered, args.seed, labeller, counts,
                                      seconds=args.search_seconds / len(counts))
        if saved is not None:
            saved.write_text(json.dumps([{"position": d.position.text(), "keeping": sorted(d.keeping)}
                                         for d in judged], indent=1))
    print(f"{len(judged)} decisions ({time.process_time() - began:.0f} CPU s to find or read); "
          f"a decision is judged by the tables: kept = the move keeps the exact value")
    if args.weights is None:
        return
    learned = make_player(f"learned:weights={args.weights},seed=1")
    spent = []
    choices: dict[str, list[bool]] = defaultdict(list)
    for decision in judged:
        learned.new_game(variant, decision.position.turn, seed=1)
        clock = time.perf_counter()
        move = learned.choose(Game.from_position(decision.position), None).move
        spent.append((time.perf_counter() - clock) * 1000)
        choices["learned"].append(str(move) in decision.keeping)
    budget = max(args.min_ms, sum(spent) / max(len(spent), 1))
    for spec in (f"minimax:time={budget:.0f}", f"mcts:time={budget:.0f},seed=1"):
        player = make_player(spec)
        for decision in judged:
            player.new_game(variant, decision.position.turn, seed=1)
            move = player.choose(Game.from_position(decision.position), Clock(60_000, 60_000, 0, None)).move
            choices[spec].append(str(move) in decision.keeping)
    counts = sorted({d.position.prey.bit_count() for d in judged})
    print(f"time per decision: learned {sum(spent) / max(len(spent), 1):.1f} ms on average; "
          f"minimax and MCTS {budget:.0f} ms")
    print(f"{'player':<22} {'decisions':>9} {'kept':>5} {'accuracy':>9} {'95% interval':>15}  "
          + " ".join(f"{str(k) + ' geese':>9}" for k in counts))
    for name, kept in choices.items():
        lo, hi = wilson(sum(kept), len(kept))
        by_count = []
        for k in counts:
            rows = [ok for ok, d in zip(kept, judged) if d.position.prey.bit_count() == k]
            by_count.append(f"{sum(rows):>4}/{len(rows):<4}")
        print(f"{name:<22} {len(kept):>9} {sum(kept):>5} {sum(kept) / max(len(kept), 1):>9.1%} "
              f"{lo:>7.1%}-{hi:<7.1%} " + " ".join(f"{b:>9}" for b in by_count), flush=True)


def ladder(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config = out / "learned-ladder.yaml"
    config.write_text(LADDER.format(weights=Path(args.weights).resolve(), games=args.games,
                                    variants="".join(VARIANTS[v] for v in args.ladder)))
    run = [sys.executable, "-m", "foxgeese", "tournament", "run", str(config), "--out", str(out / "run"),
           "--quiet"]
    subprocess.run(run, check=True)
    subprocess.run([sys.executable, "-m", "foxgeese", "tournament", "report", str(out / "run")], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default=None, help="without: only find (and save) the decisions")
    parser.add_argument("--decisions-file", default=None, help="read the decisions here, or find and save them")
    parser.add_argument("--tables", default=None)
    parser.add_argument("--geese", default="8-13")
    parser.add_argument("--decisions", type=int, default=300, help="from near-perfect walks")
    parser.add_argument("--scattered", type=int, default=40, help="per geese count, from scattered positions")
    parser.add_argument("--search-seconds", type=float, default=600.0, help="CPU time to look for decisions")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--min-ms", type=float, default=20.0, help="least time per decision for minimax and MCTS")
    parser.add_argument("--games", type=int, default=4, help="games per pairing and variant on the ladder")
    parser.add_argument("--out", default="learned-score")
    parser.add_argument("--ladder", nargs="+", default=["standard", "great-cross"], choices=sorted(VARIANTS))
    parser.add_argument("--skip-ladder", action="store_true")
    parser.add_argument("--skip-accuracy", action="store_true")
    args = parser.parse_args()
    if not args.skip_accuracy:
        accuracy(args)
    if not args.skip_ladder and args.weights is not None:
        ladder(args)


if __name__ == "__main__":
    main()
