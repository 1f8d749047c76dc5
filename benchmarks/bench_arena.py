"""The arena's throughput and its server's cost per game, beside the same games in a tournament.

Games per hour twice: from the start (the worker process and its bots start inside it) to the last
game, and once under way (from the first game's end to the last's: the start-up left out).

1. The arena (web/arena/): one local worker process, a fixed test of `--pairs` twin pairs between
   two fast bots (the ladder off), played to its end: games per hour, and the CPU the arena's own
   process spent per game (scheduling, the consistency check, the accuracy judge, the SQLite
   commits; the worker process and the bots are not in it): `time.process_time()` of this process.
2. The yardstick: the same number of games of the same bots played by `foxgeese tournament run` at
   concurrency 1 (one worker process): games per hour, and the runner process's CPU per game.

The load average is printed beside them: other programs on the machine slow both alike.

    python benchmarks/bench_arena.py                 # 40 pairs of random against minimax:depth=1
    python benchmarks/bench_arena.py --pairs 50 --variant standard
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from foxgeese.tournaments.config import parse_config
from foxgeese.tournaments.runner import Runner
from foxgeese.web.arena.db import ArenaDB
from foxgeese.web.arena.routes import queue_test
from foxgeese.web.arena.service import Arena

BOTS = (("random", "random"), ("minimax-1", "minimax:depth=1"))
TC = "60+1"


def arena_run(folder: Path, variant: str, pairs: int, judge: bool) -> tuple[float, float, int, float]:
    """(wall seconds, this process's CPU seconds, games, games per hour under way) of a fixed test
    played by the arena (its pairs are committed two games at a time)."""
    arena = Arena(ArenaDB(folder / "arena.sqlite3"), workers=1, rungs=BOTS, variants=(variant,), tc=TC,
                  ladder_priority=0, judge=judge, log_dir=folder / "logs", tables=str(folder))
    wall, cpu = time.monotonic(), time.process_time()  # from the start, its worker's too, as for the tournament
    arena.start()
    try:
        queue_test(arena, "minimax-1", "random", variant, "pairs", elo0=0, elo1=0, alpha=0, beta=0, pairs=pairs,
                   priority=1.0, tc=TC)
        test = arena.db.tests()[0]["id"]
        arena.wait_until(lambda: (arena.db.test(test) or {}).get("status") == "done", 3600)
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        games = len(arena.db.games(test=test))
        ends = sorted({g["created"] for g in arena.db.games(test=test)})
        under_way = 3600 * (games - 2) / (ends[-1] - ends[0])
    finally:
        arena.stop()
        arena.db.close()
    return wall, cpu, games, under_way


def tournament_run(folder: Path, variant: str, pairs: int) -> tuple[float, float, int, float]:
    players = "\n".join(f"  - name: {name}\n    spec: {spec}" for name, spec in BOTS)
    text = (f"name: bench-arena\nvariants:\n  - id: {variant}\nplayers:\n{players}\ngames_per_pairing: {2 * pairs}\n"
            f"time_control: {TC}\nopening_plies: 2\nconcurrency: 1\nseed: 1\n")
    loaded = parse_config(text, folder / "bench.yaml")
    wall, cpu = time.monotonic(), time.process_time()
    state = Runner(loaded, folder / "out").run()
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    with open(folder / "out" / "events.jsonl", encoding="utf-8") as events:
        ends = [json.loads(line)["time"] for line in events if '"game_ended"' in line]
    return wall, cpu, state.games_done, 3600 * (len(ends) - 1) / (max(ends) - min(ends))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--variant", default="hare-and-hounds")
    parser.add_argument("--no-judge", action="store_true", help="the arena without the accuracy judge")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="bench-arena-") as folder:
        rows = [("arena, 1 worker", *arena_run(Path(folder) / "arena", args.variant, args.pairs, not args.no_judge)),
                ("tournament run, concurrency 1", *tournament_run(Path(folder), args.variant, args.pairs))]
    print(f"{args.pairs} pairs of {BOTS[1][1]} against {BOTS[0][1]}, {args.variant}, time control {TC}")
    print(f"{'':32} {'games':>6} {'games/hour':>11} {'under way':>10} "
          f"{'CPU ms/game in the server (runner) process':>44}")
    for label, wall, cpu, games, under_way in rows:
        print(f"{label:32} {games:>6} {3600 * games / wall:>11.0f} {under_way:>10.0f} "
              f"{1000 * cpu / max(1, games):>44.1f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
