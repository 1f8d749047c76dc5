"""Figures for the solver: Hare and Hounds solve/load/lookup times, endgame table build time and size.

    python benchmarks/bench_solver.py                       # H&H + standard tables for 4 and 5 geese
    python benchmarks/bench_solver.py --max-geese 6         # add 6 geese (about half a minute)
    python benchmarks/bench_solver.py --sideways --max-geese 4
    python benchmarks/bench_solver.py --variant great-cross --max-geese 4

Tables are built in a fresh temporary directory (or --tables DIR) so the figures are cold builds.
Peak memory is the process's maximum resident set size so far (it includes the earlier builds).
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from foxgeese.engine import get_variant
from foxgeese.players.solver.hare_hounds_solution import load_solution, solve
from foxgeese.players.solver.retrograde import build_tables
from foxgeese.players.solver.tables import table_path, to_parent


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_hare_and_hounds(directory: Path) -> None:
    started = time.perf_counter()
    scores, header = solve()
    cold = time.perf_counter() - started
    load_solution(directory)  # builds once more and saves
    started = time.perf_counter()
    solution = load_solution(directory)
    warm = time.perf_counter() - started
    start = solution.variant.start_position()
    started = time.perf_counter()
    rounds = 1000
    for _ in range(rounds):
        [int(to_parent(solution.score(start.play(m)))) for m in start.legal_moves()]
    lookup_us = (time.perf_counter() - started) / rounds * 1e6
    size = table_path(directory, solution.variant, None).stat().st_size
    print(f"hare-and-hounds: {header['states']} states, {header['edges']} moves, {header['draws']} draws")
    print(f"  cold solve (engine graph + retrograde): {cold:.2f} s")
    print(f"  warm load from disk: {warm * 1000:.1f} ms  (file {size / 1024:.0f} KiB)")
    print(f"  scoring every first move from the start: {lookup_us:.0f} us")


def bench_tables(variant_id: str, sideways: bool, max_geese: int, directory: Path) -> None:
    variant = get_variant(variant_id, sideways=sideways if variant_id == "standard" else None)
    print(f"{variant} endgame tables in {directory}")
    print(f"{'geese':>5} {'build s':>8} {'file MB':>8} {'positions':>11} {'draws':>10} {'longest':>8} {'peak MB':>8}")
    for geese in range(4, max_geese + 1):
        started = time.perf_counter()
        headers = build_tables(variant, geese, directory)
        seconds = time.perf_counter() - started
        h = headers[-1]
        size = table_path(directory, variant, geese).stat().st_size / 1e6
        draws = h["fox_to_move_draws"] + h["geese_to_move_draws"]
        print(f"{geese:>5} {seconds:>8.1f} {size:>8.1f} {h['positions']:>11} {draws:>10} {h['longest_plies']:>8} "
              f"{peak_mb():>8.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="standard", choices=["standard", "great-cross"])
    parser.add_argument("--sideways", action="store_true", help="standard with sideways goose steps")
    parser.add_argument("--max-geese", type=int, default=5)
    parser.add_argument("--tables", type=Path, default=None, help="build here instead of a temporary directory")
    parser.add_argument("--skip-hare-and-hounds", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="foxgeese-bench-") as scratch:
        directory = args.tables or Path(scratch)
        if not args.skip_hare_and_hounds:
            bench_hare_and_hounds(directory)
        bench_tables(args.variant, args.sideways, args.max_geese, directory)


if __name__ == "__main__":
    main()
