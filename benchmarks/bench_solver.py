"""Figures for the solver: the strong solve (bit tables), Hare and Hounds, the int16 endgame tables.

    python benchmarks/bench_solver.py --strong 13           # bit tables for 4..13 geese, beside the int16 builder
    python benchmarks/bench_solver.py --strong 17 --tables ~/.cache/foxgeese/tables   # resumes what is there
    python benchmarks/bench_solver.py                       # H&H + standard tables for 4 and 5 geese
    python benchmarks/bench_solver.py --max-geese 6         # add 6 geese (about half a minute)
    python benchmarks/bench_solver.py --sideways --max-geese 4
    python benchmarks/bench_solver.py --variant great-cross --max-geese 4

Tables are built in a fresh temporary directory (or --tables DIR) so the figures are cold builds.
Peak memory is the process's maximum resident set size so far (it includes the earlier builds);
run under `/usr/bin/time -v` for the whole process's figure. With `--strong N` the run first builds
4..6 geese both ways (bit tables and the int16 tables) as the yardstick, then 4..N as bit tables, and
prints wall and CPU seconds (CPU / cores is the wall time of an idle machine), peak memory, disk,
the value of the start and the figures the issue set as targets.
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
from foxgeese.players.solver.strong import StrongBuilder, StrongTables, totals
from foxgeese.players.solver.tables import table_path, to_parent

# The targets on this machine (2 cores), and a single-threaded compiled solver measured here.
TARGETS = {13: (360, 6.0, 420, 3.6), 15: (1800, 12.0, None, None), 17: (1800, 12.0, 1800, 7.0)}


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


def bench_strong(max_geese: int, directory: Path, scratch: Path) -> None:
    import os

    variant = get_variant("standard", sideways=False)
    started = time.perf_counter()
    build_tables(variant, 6, scratch / "int16")
    int16_s = time.perf_counter() - started
    started2 = time.perf_counter()
    StrongBuilder(scratch / "bits").build(6)  # includes numba's compile (or its cache load)
    bits_s = time.perf_counter() - started2
    positions = 2_373_360 + 13_290_816 + 59_808_672
    print(f"yardstick, 4-6 geese ({positions:,} positions): int16 numpy tables {int16_s:.1f} s, "
          f"bit tables {bits_s:.1f} s (with compile)")
    started, cpu = time.perf_counter(), time.process_time()
    headers = StrongBuilder(directory, progress=lambda text: print(text, flush=True) if "100%" in text else None
                            ).build(max_geese)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    layout = StrongBuilder(directory).layout
    print(f"{'geese':>5} {'positions':>16} {'G to move: G win':>17} {'F to move: G win':>17} {'build s':>8} "
          f"{'disk MB':>8}")
    disk = 0
    for h in headers:
        t = totals(h, layout)
        size = sum(p.stat().st_size for p in directory.glob(f"*-{h['geese']}geese.*.fgb"))
        disk += size
        print(f"{h['geese']:>5} {2 * t['positions_per_side']:>16,} {t['geese_to_move_geese_wins']:>17,} "
              f"{t['fox_to_move_geese_wins']:>17,} {h['build_seconds']:>8.1f} {size / 1e6:>8.0f}")
    tables = StrongTables(directory)
    if max_geese in (13, 15, 17):
        start = get_variant("standard", geese=max_geese, sideways=False).start_position()
        verdict = "the geese win" if tables.geese_win(start) else "the fox wins"
        print(f"start of standard with {max_geese} geese: {verdict}")
    print(f"this run: {wall:.0f} s wall, {cpu:.0f} s CPU on {os.cpu_count()} cores, "
          f"peak RSS {peak_mb() / 1024:.2f} GB, disk {disk / 1e9:.2f} GB "
          "(tables already on disk are loaded, not rebuilt)")
    target = TARGETS.get(max_geese)
    if target:
        print(f"targets: <= {target[0]} s wall and <= {target[1]} GB peak"
              + (f"; a single-threaded compiled solver: about {target[2]} s and {target[3]} GB" if target[2] else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="standard", choices=["standard", "great-cross"])
    parser.add_argument("--sideways", action="store_true", help="standard with sideways goose steps")
    parser.add_argument("--max-geese", type=int, default=5)
    parser.add_argument("--tables", type=Path, default=None, help="build here instead of a temporary directory")
    parser.add_argument("--skip-hare-and-hounds", action="store_true")
    parser.add_argument("--strong", type=int, default=None, metavar="N",
                        help="the strong solve of standard up to N geese (bit tables), and nothing else")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="foxgeese-bench-") as scratch:
        directory = args.tables or Path(scratch)
        if args.strong is not None:
            bench_strong(args.strong, directory if args.tables else Path(scratch) / "run", Path(scratch))
            return
        if not args.skip_hare_and_hounds:
            bench_hare_and_hounds(directory)
        bench_tables(args.variant, args.sideways, args.max_geese, directory)


if __name__ == "__main__":
    main()
