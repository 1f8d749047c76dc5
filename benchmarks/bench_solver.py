"""Figures for the solver: the strong solve of standard (bit tables), Hare and Hounds, the int16 tables.

    python benchmarks/bench_solver.py                       # strong solve of 4..13 geese from scratch (temp dir)
    python benchmarks/bench_solver.py --geese 17 --tables ~/.cache/foxgeese/tables   # 4..17, goes on from what is there
    python benchmarks/bench_solver.py --geese 13 --tables DIR --fresh                # deletes DIR's bit tables first
    python benchmarks/bench_solver.py --strategy 13          # the winner's strategy from the tables on disk: size
    python benchmarks/bench_solver.py --int16 --max-geese 6  # H&H + the int16 endgame tables of 4..6 geese
    python benchmarks/bench_solver.py --int16 --sideways --max-geese 4
    python benchmarks/bench_solver.py --int16 --variant great-cross --max-geese 4

The strong solve builds each goose count from 9 geese on in its own child process (the build of
k geese reads the chains of k - 1 from disk), and 4..8 geese (about a billion positions, seconds)
in one, so that the start of a process (imports, the layout, the cached kernel: about 1.5 s) is
paid once for them. The figures per row are that process's own: wall time, CPU time (user +
system) and peak resident memory, as `/usr/bin/time -v` reports them (`os.wait4`). The figures
"up to N geese" are the sums of the wall and CPU times and the largest peak. Then it prints
positions and geese wins per count and side to move, the disk size, and for 13, 15 and 17 geese the
value of the start and of each of the fox's first moves, beside the issue's targets.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from foxgeese.engine import get_variant
from foxgeese.players.solver.hare_hounds_solution import load_solution, solve
from foxgeese.players.solver.retrograde import build_tables
from foxgeese.players.solver.strategy import StrategyError, make_strategy, save_strategy
from foxgeese.players.solver.strong import KEY, StrongBuilder, StrongTables, bits_path, complete_header, totals
from foxgeese.players.solver.strong_report import report_position
from foxgeese.players.solver.tables import table_dir, table_path, to_parent

# The targets on this machine (2 cores), and a single-threaded compiled solver measured here.
SMALL = 8  # 4..SMALL geese are built in one child process
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
    print(f"  cold solve (memoised recursion on the rules core, every state): {cold:.3f} s")
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


def build_one_count(directory: Path, geese: int, threads: int | None) -> None:
    """The child process: builds the tables of `geese` (the counts below must be on disk)."""
    last = [time.monotonic()]

    def progress(text: str) -> None:
        if time.monotonic() - last[0] >= 60:
            last[0] = time.monotonic()
            print(f"  {text}", file=sys.stderr, flush=True)

    StrongBuilder(directory, threads=threads, progress=progress).build(geese)


def timed_child(directory: Path, geese: int, threads: int | None) -> tuple[float, float, float, int]:
    """Builds one goose count in a child; (wall s, CPU s, peak RSS GB, exit status) of that process."""
    command = [sys.executable, __file__, "--child", str(geese), "--tables", str(directory)]
    if threads:
        command += ["--threads", str(threads)]
    started = time.perf_counter()
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024 / 1024, child.returncode


def bench_strong(max_geese: int, directory: Path, threads: int | None) -> None:
    layout = StrongBuilder(directory).layout
    print(f"strong solve of standard (no sideways), 4..{max_geese} geese, in {directory}; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the start")
    print(f"{'geese':>5} {'wall s':>8} {'CPU s':>8} {'peak GB':>8} {'table MB':>8} {'positions':>16} "
          f"{'G to move: G win':>17} {'F to move: G win':>17} {'load':>5}", flush=True)
    wall_sum = cpu_sum = peak = 0.0
    built_with = 0  # the last count of the child process that builds this one (4..8 share one)
    timing = group = ""
    for geese in range(4, max_geese + 1):
        wins = bits_path(directory, geese, "wins")
        if geese > built_with and complete_header(wins, layout) is not None:
            timing = f"{'on disk':>8} {'':>8} {'':>8}"  # loaded, not rebuilt
        elif geese > built_with:
            built_with = min(SMALL, max_geese) if geese < SMALL else geese
            wall, cpu, rss, code = timed_child(directory, built_with, threads)
            if code != 0:
                raise SystemExit(f"the build of {geese}..{built_with} geese failed (exit status {code})")
            wall_sum, cpu_sum, peak = wall_sum + wall, cpu_sum + cpu, max(peak, rss)
            timing = f"{wall:>8.1f} {cpu:>8.1f} {rss:>8.2f}"
            group = timing
        if geese < built_with:
            timing = f"{f'(in the {built_with}-geese row)':>26}"
        elif geese == built_with:
            timing = group
        header = complete_header(wins, layout)
        t = totals(header, layout)
        disk = wins.stat().st_size
        print(f"{geese:>5} {timing} {disk / 1e6:>8.0f} {2 * t['positions_per_side']:>16,} "
              f"{t['geese_to_move_geese_wins']:>17,} {t['fox_to_move_geese_wins']:>17,} "
              f"{os.getloadavg()[0]:>5.1f}", flush=True)
        if geese in TARGETS:
            target = TARGETS[geese]
            print(f"  up to {geese} geese (this run): {wall_sum:.0f} s wall, {cpu_sum:.0f} s CPU "
                  f"(CPU / {os.cpu_count()} cores = {cpu_sum / (os.cpu_count() or 1):.0f} s), peak {peak:.2f} GB; "
                  f"target <= {target[0]} s and <= {target[1]} GB"
                  + (f"; a single-threaded compiled solver: about {target[2]} s and {target[3]} GB"
                     if target[2] else ""), flush=True)
    tables_mb = sum(bits_path(directory, k, "wins").stat().st_size for k in range(4, max_geese + 1)) / 1e6
    chains = bits_path(directory, max_geese, "chains")
    chains_mb = chains.stat().st_size / 1e6 if chains.exists() else 0.0
    print(f"disk: {tables_mb:,.0f} MB of tables for 4..{max_geese} geese + {chains_mb:,.0f} MB of {max_geese}-geese "
          f"chains (kept so that a larger build can go on; delete them otherwise) in {directory}")
    tables = StrongTables(directory)
    for geese in (13, 15, 17):
        if geese <= max_geese:
            report_position(get_variant("standard", geese=geese, sideways=False).start_position(), tables)


def bench_strategy(geese: int, directory: Path, limit: int) -> None:
    """Makes the winner's strategy from the start with the bit tables in `directory`: its size, or how far it got."""
    tables = StrongTables(directory)
    start = get_variant("standard", geese=geese, sideways=False).start_position()
    started, cpu = time.perf_counter(), time.process_time()
    try:
        header, keys, codes = make_strategy(start, tables, limit=limit, progress=lambda text: print(f"  {text}",
                                                                                                    flush=True))
    except StrategyError as error:
        print(f"strategy for {geese} geese: {error} ({time.perf_counter() - started:.0f} s wall, "
              f"{time.process_time() - cpu:.0f} s CPU)")
        return
    with tempfile.TemporaryDirectory() as scratch:
        size = save_strategy(Path(scratch) / "s.fgs", header, keys, codes)
    print(f"strategy for {geese} geese ({header['winner']} win): {len(keys):,} positions of the winner, "
          f"{size / 1e6:.1f} MB compressed, {time.perf_counter() - started:.0f} s wall, "
          f"{time.process_time() - cpu:.0f} s CPU, peak {peak_mb():.0f} MB")


def remove_bit_tables(directory: Path) -> None:
    for path in directory.glob(f"{KEY}-*.fgb*"):
        path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--geese", type=int, default=13, help="strong solve: every count from 4 to this")
    parser.add_argument("--tables", type=Path, default=None, help="build here instead of a temporary directory")
    parser.add_argument("--fresh", action="store_true", help="delete the bit tables in --tables first")
    parser.add_argument("--threads", type=int, default=None, help="strong solve: threads (default: all cores)")
    parser.add_argument("--int16", action="store_true", help="Hare and Hounds and the int16 tables instead")
    parser.add_argument("--variant", default="standard", choices=["standard", "great-cross"])
    parser.add_argument("--sideways", action="store_true", help="standard with sideways goose steps")
    parser.add_argument("--max-geese", type=int, default=5, help="--int16: the largest goose count")
    parser.add_argument("--skip-hare-and-hounds", action="store_true")
    parser.add_argument("--strategy", type=int, default=None, metavar="N",
                        help="make the winner's strategy for N geese from the tables in --tables (its size)")
    parser.add_argument("--limit", type=int, default=20_000_000, help="--strategy: give up past this many positions")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        build_one_count(args.tables, args.child, args.threads)
        return
    if args.strategy is not None:
        bench_strategy(args.strategy, args.tables or table_dir(None), args.limit)
        return
    with tempfile.TemporaryDirectory(prefix="foxgeese-bench-") as scratch:
        directory = args.tables or Path(scratch)
        if args.int16:
            if not args.skip_hare_and_hounds:
                bench_hare_and_hounds(directory)
            bench_tables(args.variant, args.sideways, args.max_geese, directory)
            return
        directory.mkdir(parents=True, exist_ok=True)
        if args.fresh:
            remove_bit_tables(directory)
        bench_strong(args.geese, directory, args.threads)


if __name__ == "__main__":
    main()
