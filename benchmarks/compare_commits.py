"""Speed of this tree against another checkout, measured alternately on one (loaded) machine.

    python benchmarks/compare_commits.py OLD_TREE OLD_PYTHON [--rounds 3] [--bench bench_engine.py ...]

e.g. `git worktree add /tmp/old 1602672`, a venv there with `pip install -e .`, then
`python benchmarks/compare_commits.py /tmp/old /tmp/old-venv/bin/python`.

Each round runs every benchmark script once in each tree, old and new alternating, so both see
the same load. The scripts' clocks (`time.perf_counter`, `time.monotonic`) are replaced by the
process's CPU clock before they start: a search deadline then buys the same CPU time in both trees
and a figure counts work per CPU second, which other processes on the machine change far less
than they change wall time. The table shows the best figure of the rounds per tree, and new/old.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
BENCHES = ("bench_search.py", "bench_engine.py")
# Runs a benchmark script with its clocks on CPU time (see the docstring).
CPU_CLOCK_RUNNER = (
    "import runpy, sys, time; time.perf_counter = time.monotonic = time.process_time; "
    "script = sys.argv[1]; sys.argv = sys.argv[1:]; runpy.run_path(script, run_name='__main__')"
)
NUMBER = re.compile(r"^-?[\d,]+(\.\d+)?$")


def run_bench(tree: Path, python: str, script: str, extra: list[str]) -> list[list[str]]:
    """The benchmark's table as rows of cells (header row first)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    completed = subprocess.run(
        [python, "-c", CPU_CLOCK_RUNNER, str(tree / "benchmarks" / script), *extra],
        cwd=tree, env=env, capture_output=True, text=True, check=True,
    )
    return [split_row(line) for line in completed.stdout.splitlines() if line.strip()]


def split_row(line: str) -> list[str]:
    """Label cells (words with single spaces) and figure cells (separated by two spaces or more)."""
    return [cell for cell in re.split(r"\s{2,}", line.strip()) if cell]


def as_number(cell: str) -> float | None:
    return float(cell.replace(",", "")) if NUMBER.match(cell) else None


def best_of(runs: list[list[list[str]]], higher_is_better: list[bool]) -> list[list[str]]:
    """Cell by cell, the best number over the runs (text cells from the first run)."""
    best = [row[:] for row in runs[0]]
    for run in runs[1:]:
        for r, row in enumerate(run):
            for c, cell in enumerate(row):
                new, old = as_number(cell), as_number(best[r][c])
                if new is None or old is None:
                    continue
                if (new > old) if higher_is_better[c] else (new < old):
                    best[r][c] = cell
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old_tree", type=Path)
    parser.add_argument("old_python")
    parser.add_argument("--new-python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bench", action="append", help="benchmark script (default: search and engine)")
    parser.add_argument("--args", default="", help="extra arguments for every benchmark, e.g. '--seconds 1'")
    args = parser.parse_args()
    trees = {"old": (args.old_tree.resolve(), args.old_python), "new": (HERE, args.new_python)}
    for script in args.bench or BENCHES:
        runs: dict[str, list[list[list[str]]]] = {"old": [], "new": []}
        for round_number in range(args.rounds):
            order = ("old", "new") if round_number % 2 == 0 else ("new", "old")
            for name in order:
                tree, python = trees[name]
                runs[name].append(run_bench(tree, python, script, args.args.split()))
        print(f"== {script}: best of {args.rounds} per tree, CPU clock; load {os.getloadavg()[0]:.2f}")
        header = runs["new"][0][0]
        # Seconds and microseconds are better low; every other figure (leaves, plies per second) high.
        higher = [not cell.endswith((" s", " us")) for cell in header]
        best = {name: best_of(r, higher) for name, r in runs.items()}
        print_comparison(header, best["old"][1:], best["new"][1:], higher)


def print_comparison(header: list[str], old: list[list[str]], new: list[list[str]], higher: list[bool]) -> None:
    """Per row: every per-second and microsecond figure with old, new and new/old; other figures
    (the search depths) as old -> new; seconds are left out (the per-second figure says the same)."""
    for old_row, new_row in zip(old, new):
        cells = []
        for c, (before, after) in enumerate(zip(old_row, new_row)):
            a, b = as_number(before), as_number(after)
            if c > 0 and a is None and b is None:
                cells.append(f"{header[c]} {before} -> {after}")
            if a is None or b is None or not header[c].endswith(("/s", " us")) or a == 0:
                continue
            name = header[c]
            if header.count(name) > 1:  # e.g. the engine's two leaves/s: say which table
                name = header[c - 1].removesuffix(" s") + " " + name
            cells.append(f"{name} {before} -> {after} ({b / a - 1:+.1%})")
        print(f"  {new_row[0]:<28} " + "; ".join(cells))


if __name__ == "__main__":
    main()
