"""Paired statistics by simulation: observed coverage of the 95% intervals and the SPRT's error
rates beside the nominal ones, over thousands of simulated runs from a known truth.

    python benchmarks/bench_pairs.py [--runs 5000] [--sprt-runs 2000] [--seed 1]

The model (tournaments/simulation.py): A is D Elo stronger than B; each opening gives the
predator an advantage drawn around the role advantage with a spread (the same in both games of
its pair); a share of games is drawn. Coverage: how often pairs.py's interval holds the true pair
score's Elo (and the role advantage's), next to the interval that takes the games as independent
(runs where one side won every pair count with the two-sided interval of the score; the report
gives a one-sided bound there).
SPRT: how often a test with alpha = beta = 0.05 accepts H1 when the truth is elo0, and H0 when it
is elo1.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from foxgeese.tournaments.simulation import Truth, coverage, elo_for_pair_score, run_sprts

TRUTHS = [
    Truth(elo=0.0, role=0.0, opening_spread=0.0, draws=0.3),
    Truth(elo=40.0, role=120.0, opening_spread=150.0, draws=0.2),
    Truth(elo=100.0, role=-80.0, opening_spread=300.0, draws=0.05),
    Truth(elo=200.0, role=300.0, opening_spread=400.0, draws=0.0),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--sprt-runs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.monotonic()
    print(f"coverage of 95% intervals, {args.runs} runs each (nominal 0.950)")
    print(f"{'D':>5} {'role':>5} {'spread':>6} {'draws':>5} {'pairs':>5} {'true Elo':>8} {'Elo cov.':>8} "
          f"{'true role':>9} {'role cov.':>9} {'games-independent cov.':>22}")
    for truth in TRUTHS:
        for pairs in (5, 20, 100, 400):
            found = coverage(truth, pairs, args.runs, rng)
            print(f"{truth.elo:>5.0f} {truth.role:>5.0f} {truth.opening_spread:>6.0f} {truth.draws:>5.2f} "
                  f"{pairs:>5} {found['elo_true']:>8.1f} {found['elo']:>8.3f} {found['role_true']:>9.1f} "
                  f"{found['role']:>9.3f} {found['naive_elo']:>22.3f}")
    print(f"\nGSPRT on pairs, alpha = beta = 0.05, {args.sprt_runs} runs each (nominal error 0.050)")
    print(f"{'elo0':>5} {'elo1':>5} {'role':>5} {'spread':>6} {'draws':>5} {'truth':>6} {'error':>6} "
          f"{'undecided':>9} {'mean pairs':>10}")
    for elo0, elo1, base in ((0.0, 20.0, TRUTHS[1]), (0.0, 50.0, TRUTHS[2]), (-10.0, 30.0, TRUTHS[0])):
        for target, wrong in ((elo0, "h1"), (elo1, "h0")):
            truth = Truth(elo_for_pair_score(target, base), base.role, base.opening_spread, base.draws)
            runs = run_sprts(truth, elo0, elo1, 0.05, 0.05, args.sprt_runs, 20_000, rng)
            error = (runs.h1 if wrong == "h1" else runs.h0) / args.sprt_runs
            print(f"{elo0:>5.0f} {elo1:>5.0f} {base.role:>5.0f} {base.opening_spread:>6.0f} {base.draws:>5.2f} "
                  f"{'elo0' if wrong == 'h1' else 'elo1':>6} {error:>6.3f} {runs.undecided:>9} "
                  f"{runs.mean_pairs:>10.0f}")
    print(f"\n{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
