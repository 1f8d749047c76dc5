"""Figures for the win/draw/loss (sideways) build, `foxgeese solve check`, and the solver's cold start.

    python benchmarks/bench_wdl.py --geese 10                      # 4..10 of standard --sideways in a temp dir
    python benchmarks/bench_wdl.py --geese 13 --tables /tmp/tables # builds what is missing there, reports the rest
    python benchmarks/bench_wdl.py --geese 8 --sweeps              # also the fixpoint sweeps, same counts, compared
    python benchmarks/bench_wdl.py --cold-start-only

Each goose count that is missing is built in its own child process (timed with `os.wait4`: wall,
CPU and peak RSS, as `/usr/bin/time -v` gives them); counts already on disk are reported from their
headers (the seconds and peak memory recorded per level). Then: the positions and values per count
and side to move, the slowest level, the table's size and sha256, the start's value and each first
move's (13, 15, 17 geese), `solve check` on a sample of the largest table and of a forward-only
table (built here, 4..6 geese, if --forward-tables has none), and the cold start of
`foxgeese solve hare-and-hounds` beside a memoised reference solver of the same game.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from foxgeese.engine import get_variant
from foxgeese.players.solver.check import check_table
from foxgeese.players.solver.strong import WINS, StrongBuilder, bits_path
from foxgeese.players.solver.wdl import WDL, WdlBuilder, WdlTables, wdl_path, wdl_totals, wdl_variant
from foxgeese.players.solver.wdl_report import report_position

TARGET_13 = (7200, 20.0)  # the target for 13 geese of standard with sideways: seconds, GB


def timed(command: list[str]) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak RSS GB, exit status) of a child process."""
    started = time.perf_counter()
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    return (time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1e6,
            os.waitstatus_to_exitcode(status))


def bench_build(variant_id: str, top: int, directory: Path, threads: int | None, method: str) -> None:
    variant = wdl_variant(variant_id)
    print(f"{variant} win/draw/loss tables, 4..{top} geese, method {method}, in {directory}; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the start", flush=True)
    print(f"{'geese':>5} {'wall s':>8} {'CPU s':>8} {'peak GB':>7} {'slowest level s':>15} {'positions':>15} | "
          f"{'G to move: G win / draw / F wins':>40} | {'F to move: F wins / draw / G win':>40} | {'MB':>6}")
    for geese in range(4, top + 1):
        tables = WdlTables(variant, directory)
        if tables.available() < geese:
            command = [sys.executable, __file__, "--child", str(geese), "--tables", str(directory),
                       "--variant", variant_id, "--method", method] + (["--threads", str(threads)] if threads else [])
            wall, cpu, peak, code = timed(command)
            if code:
                raise SystemExit(f"the {geese}-geese build failed (exit status {code})")
            timing = f"{wall:>8.1f} {cpu:>8.1f} {peak:>7.2f}"
            tables = WdlTables(variant, directory)
        else:
            timing = None
        assert tables.available() >= geese
        header = tables.headers[geese]
        figures = header["figures"].values()
        if timing is None:  # on disk: what its header recorded
            timing = (f"{header['build_seconds']:>8.1f} {'':>8} "
                      f"{max(f.get('peak_rss_gb', 0.0) for f in figures):>7.2f}")
        t = wdl_totals(header, tables.layout)
        slowest = max(f.get("seconds", 0.0) for f in figures)
        size = wdl_path(directory, variant, geese, WDL).stat().st_size / 1e6
        print(f"{geese:>5} {timing} {slowest:>15.1f} {2 * t['positions_per_side']:>15,} | "
              f"{t['geese_to_move_geese_win']:>12,} {t['geese_to_move_draw']:>14,} "
              f"{t['geese_to_move_fox_wins']:>12,} | "
              f"{t['fox_to_move_fox_wins']:>12,} {t['fox_to_move_draw']:>14,} {t['fox_to_move_geese_win']:>12,} | "
              f"{size:>6.0f}", flush=True)
    if variant_id == "standard" and top == 13:
        print(f"  target for 13 geese: <= {TARGET_13[0]} s wall and <= {TARGET_13[1]} GB peak")
    tables = WdlTables(variant, directory)
    for geese in (13, 15, 17) if variant_id == "standard" else (18,):
        if geese <= top:
            options = {"geese": geese, "sideways": True} if variant_id == "standard" else {}
            report_position(get_variant(variant_id, **options).start_position(), tables)


def bench_check(path: Path, sample: int, seed: int) -> None:
    result = check_table(path, sample, seed)
    print(f"solve check {path.name}: {result.geese} geese, {result.size:,} bytes, sha256 {result.sha256}; "
          f"{result.checked:,} positions (--sample {sample} --seed {seed}) in {result.seconds:.1f} s "
          f"({result.seconds / max(result.checked, 1) * 1e3:.2f} ms each): {result.disagreements} disagreements",
          flush=True)


# The yardstick: Hare and Hounds solved by plain memoised recursion on the engine's rules core, in a process
# that imports nothing else (no numpy); prints the start's value in plies.
REFERENCE = """
import functools, sys
from foxgeese.engine import get_variant
from foxgeese.engine.rules import rules_for

sys.setrecursionlimit(100_000)
variant = get_variant("hare-and-hounds")
rules = rules_for(variant)


@functools.lru_cache(maxsize=None)
def score(state):  # > 0: the mover wins in 1000 - score plies; < 0: loses in 1000 + score
    ended = rules.outcome(state)
    if ended is not None:
        return 1000 if ended.winner == state[2] else -1000
    best = -10_000
    for child in rules.children(state):
        s = score(child)
        best = max(best, -s + (1 if s > 0 else -1))
    return best


value = score(variant.start_position().state)
print(1000 - value if value > 0 else -(1000 + value))
"""


def bench_cold_start(rounds: int) -> None:
    """`foxgeese solve hare-and-hounds` with no tables on disk (the installed script and `python -m foxgeese`),
    against the memoised reference in its own process and a bare interpreter, interleaved round by round.
    Wall time and the child's CPU time (user + system, from `os.wait4`: what a busy machine does not inflate)."""
    script = Path(sys.executable).with_name("foxgeese")
    commands = {"foxgeese solve hare-and-hounds (nothing cached)": [str(script), "solve", "hare-and-hounds"],
                "python -m foxgeese solve hare-and-hounds (nothing cached)":
                    [sys.executable, "-m", "foxgeese", "solve", "hare-and-hounds"],
                "memoised reference (same rules, own process)": [sys.executable, "-c", REFERENCE],
                "python -c pass (the interpreter's floor)": [sys.executable, "-c", "pass"]}
    if not script.exists():
        del commands["foxgeese solve hare-and-hounds (nothing cached)"]
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    loads = []
    for _ in range(rounds):
        loads.append(os.getloadavg()[0])
        for name, command in commands.items():
            with tempfile.TemporaryDirectory() as empty:
                started = time.perf_counter()
                env = dict(os.environ, FOXGEESE_TABLES=empty)
                child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
                _, status, usage = os.wait4(child.pid, 0)
                if os.waitstatus_to_exitcode(status):
                    raise SystemExit(f"{name} failed")
                runs[name].append((time.perf_counter() - started, usage.ru_utime + usage.ru_stime))
    imports = subprocess.run([sys.executable, "-c", "import sys, foxgeese.players.solver.report, foxgeese.main\n"
                              "print(*(int(m in sys.modules) for m in ('numba', 'numpy')))"],
                             capture_output=True, text=True, check=True).stdout.split()
    # With PYTHONDONTWRITEBYTECODE, a module whose __pycache__ entry is missing or stale is compiled in every run.
    bytecode = "not written (PYTHONDONTWRITEBYTECODE)" if sys.dont_write_bytecode else "cached after the first run"
    print(f"cold start, {rounds} interleaved runs each, 1-minute load {min(loads):.1f}-{max(loads):.1f} "
          f"(loaded by the solve's imports: numba {'yes' if imports[0] == '1' else 'no'}, "
          f"numpy {'yes' if imports[1] == '1' else 'no'}; bytecode {bytecode}):")
    for name, times in runs.items():
        walls, cpus = [t[0] for t in times], [t[1] for t in times]
        print(f"  {name}: wall median {statistics.median(walls):.3f} s, best {min(walls):.3f} s; "
              f"CPU median {statistics.median(cpus):.3f} s, best {min(cpus):.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--geese", type=int, default=10)
    parser.add_argument("--variant", default="standard", choices=["standard", "great-cross"])
    parser.add_argument("--tables", type=Path, default=None, help="build here instead of a temporary directory")
    parser.add_argument("--threads", type=int, default=1, help="build threads (default 1)")
    parser.add_argument("--method", default="counters", choices=["counters", "sweeps"])
    parser.add_argument("--sweeps", action="store_true", help="also build with the sweeps (a temp dir) and compare")
    parser.add_argument("--forward-tables", type=Path, default=None,
                        help="forward-only tables to check (else 4..6 built here)")
    parser.add_argument("--sample", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=7, help="cold start runs")
    parser.add_argument("--cold-start-only", action="store_true")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        WdlBuilder(wdl_variant(args.variant), args.tables, threads=args.threads, method=args.method).build(args.child)
        return
    if not args.cold_start_only:
        with tempfile.TemporaryDirectory() as scratch:
            directory = args.tables or Path(scratch)
            bench_build(args.variant, args.geese, directory, args.threads, args.method)
            if args.sweeps:
                other = Path(scratch) / "sweeps"
                bench_build(args.variant, args.geese, other, args.threads, "sweeps")
                variant = wdl_variant(args.variant)
                same = all(wdl_path(directory, variant, k, WDL).read_bytes()[1 << 16:]
                           == wdl_path(other, variant, k, WDL).read_bytes()[1 << 16:] for k in range(4, args.geese + 1))
                print(f"counters and sweeps: {'the same bits' if same else 'DIFFERENT'} for 4..{args.geese} geese")
            bench_check(wdl_path(directory, wdl_variant(args.variant), args.geese, WDL), args.sample, args.seed)
            forward = args.forward_tables or Path(scratch) / "forward"
            top = max((k for k in range(4, 18) if bits_path(forward, k, WINS).exists()), default=None)
            if top is None:
                StrongBuilder(forward, threads=args.threads).build(6)
                top = 6
            bench_check(bits_path(forward, top, WINS), args.sample, args.seed)
    bench_cold_start(args.rounds)


if __name__ == "__main__":
    main()
