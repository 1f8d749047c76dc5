"""Train the learned player's value and policy networks by self-play on the batched environment,
print each curve, save the weights (one .npz for every variant trained) for `learned:weights=PATH`.

    python examples/research/train_network.py --weights learned.npz                      # standard, great-cross
    python examples/research/train_network.py --variants hare-and-hounds --seconds 10    # a quick look

Per variant: `--seconds` of self-play (research/selfplay.py: actor-critic on the batched
environment, the value towards the exact value where the tables (`--tables`, default the table
directory) know a position, else the λ-return). Where the tables label positions, games start from
positions of near-perfect walks (selfplay.start_pool) as well as from the start, and the curve shows
the accuracy against perfect play on fixed decisions (geese counts in `--geese`, where tables
exist); everywhere it shows the score against random moves (win 1, draw 0.5) as each side. The last
line per variant is the whole training loop's speed against the environment alone, in this run.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np

from foxgeese.engine import get_variant
from foxgeese.players.network import Network, Weights, variant_name
from foxgeese.research.batched import BatchedHuntEnv
from foxgeese.research.labels import Labeller
from foxgeese.research.selfplay import (
    BlasThreads,
    TrainConfig,
    decisions,
    fresh_network,
    label_set,
    network_accuracy,
    scattered_decisions,
    score_against_random,
    start_pool,
    train,
)


def environment_alone(variant: str, games: int, seconds: float = 2.0) -> float:
    """Steps/s of the batched environment with random actions, one core (as the trainer runs it)."""
    env = BatchedHuntEnv(variant, games=games, seed=1, parallel=False)
    env.reset()
    env.step(env.random_actions())  # compiled already: the first call pays nothing more
    steps, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        env.step(env.random_actions())
        steps += games
    return steps / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=["standard", "great-cross"])
    parser.add_argument("--seconds", type=float, default=1200.0, help="training time per variant")
    parser.add_argument("--every", type=float, default=120.0, help="seconds between curve points")
    parser.add_argument("--weights", default="learned.npz")
    parser.add_argument("--tables", default=None, help="table directory for exact labels")
    parser.add_argument("--geese", default="8-13", help="geese counts of the decisions judged (standard)")
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--search-seconds", type=float, default=120.0, help="CPU time to look for decisions")
    parser.add_argument("--games", type=int, default=256, help="games stepped at once")
    parser.add_argument("--starts", type=int, default=1000, help="near-perfect walks the games start from")
    parser.add_argument("--label-decisions", type=int, default=400, help="standard: scattered decisions per geese "
                        "count whose positions and children the value learns")
    parser.add_argument("--label-seconds", type=float, default=240.0, help="CPU time to find them")
    parser.add_argument("--steps", type=int, default=32, help="actions per game per iteration")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    low, _, high = args.geese.partition("-")
    geese = range(int(low), int(high or low) + 1)
    labeller = Labeller(args.tables)
    networks = {}
    path = Path(args.weights)
    for variant_id in args.variants:
        variant = get_variant(variant_id)
        labelled = labeller.value(variant.start_position()).known or variant.id == "standard" and any(
            labeller.value(p).known for p in start_pool(variant, 20, args.seed + 7, None))
        began = time.perf_counter()
        judged = decisions(variant, args.decisions, args.seed, labeller, geese if variant.id == "standard" else None,
                           seconds=args.search_seconds) if labelled else []
        if labelled and variant.id == "standard":
            judged += scattered_decisions(variant, args.decisions // len(geese), args.seed, labeller, geese,
                                          seconds=args.search_seconds / len(geese))
        pool = start_pool(variant, args.starts, args.seed + 1, labeller) if labelled else None
        counts = Counter(d.position.prey.bit_count() for d in judged)
        print(f"\n== {variant_name(variant)}: {len(judged)} decisions judged against the tables "
              f"(by prey count: {dict(sorted(counts.items()))}); "
              f"{'exact labels and near-perfect starts' if labelled else 'no tables: self-play alone'}; "
              f"{time.perf_counter() - began:.0f} s to set up", flush=True)
        network = fresh_network(variant, np.random.default_rng(args.seed))
        labelled_set = None
        if labelled and variant.id == "standard":
            clock = time.process_time()
            near = scattered_decisions(variant, args.label_decisions, args.seed + 100, labeller, geese,
                                       seconds=args.label_seconds / len(geese))
            labelled_set = label_set(network, labeller, near)
            print(f"labelled set: {len(labelled_set[1]):,} positions around {len(near)} scattered decisions "
                  f"(another seed than the judged ones), {time.process_time() - clock:.0f} CPU s", flush=True)
        sides = (variant.predator_name, variant.prey_name)
        header = f"{'steps':>11} {'seconds':>8} {'steps/s':>8} {'v-loss':>7} {'entropy':>7} " + \
                 ("accuracy " if judged else "") + " ".join(f"{'vs random as ' + s:>18}" for s in sides)
        print(header, flush=True)

        def probe(net: Network) -> dict:
            out = {"accuracy": network_accuracy(net, judged)} if judged else {}
            out.update(score_against_random(net, 32, args.seed + 3))
            return out

        def report(row: dict) -> None:
            accuracy = f"{row['accuracy']:>8.1%} " if "accuracy" in row else ""
            print(f"{row['steps']:>11,} {row['seconds']:>8.0f} {row['steps_per_s']:>8,} {row['value_loss']:>7.4f} "
                  f"{row['entropy']:>7.3f} {accuracy}" + " ".join(f"{row[s]:>18.2f}" for s in sides), flush=True)

        config = TrainConfig(games=args.games, steps=args.steps, seed=args.seed)
        curve = train(network, args.seconds, config=config, labeller=labeller if labelled else None, starts=pool,
                      labelled=labelled_set,
                      every=args.every, report=report, probe=probe)
        networks[variant_name(variant)] = network
        Weights(networks).save(path)
        with BlasThreads(1):
            alone = environment_alone(variant.id, args.games)
        loop = np.mean([row["steps_per_s"] for row in curve[1:]]) if len(curve) > 1 else 0.0
        print(f"training loop {loop:,.0f} steps/s against the environment alone {alone:,.0f} steps/s "
              f"(random actions, {args.games} games, one core): {loop / alone:.1%} of it", flush=True)
    print(f"\nsaved {', '.join(networks)} to {path}: play it as learned:weights={path}")


if __name__ == "__main__":
    main()
