"""The runner's own load per game, for sizing a tournament of many machines (docs/tournaments.md,
"At fishtest scale").

1. The runner alone: one real game is played (real referee, bots and worker), and its journal
   line and move events are then handed to the runner `--games` times by an executor that plays
   nothing (each copy with its scheduled game's id and players). What is left is what the runner
   does per game whatever the cluster: take the game, emit its events to DIR/events.jsonl,
   journal it (one fsynced append), count it in the standings. Printed: events, bytes and
   journal writes per game, the runner's CPU per game, and the games per hour one core of the
   runner would sustain, beside the yardstick of 10,000 games an hour.
2. `--ray`: real games of two bots that wait `--delay` before each move (so each move is a batch
   of its own, as with a real time control), played on local worker processes and on a local
   one-node Ray cluster: the runner process's CPU per game and per batch of events on each (Ray's
   driver side included: every batch of moves is one object the runner fetches).

    python benchmarks/bench_runner_load.py                 # part 1
    python benchmarks/bench_runner_load.py --ray           # both parts
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from foxgeese.tournaments.config import parse_config
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.events import EventStream, encoded
from foxgeese.tournaments.executors import Emit, Executor, Slot
from foxgeese.tournaments.journal import read_journal
from foxgeese.tournaments.messages import GameJob, Where, WorkerSetup
from foxgeese.tournaments.report import game_entries
from foxgeese.tournaments.runner import Runner

GOAL_PER_HOUR = 10_000
CONFIG = """\
name: load
variants: [{{id: standard}}]
players:
  - {{name: a, spec: "minimax:depth=1"}}
  - {{name: b, spec: "random:seed=1"}}
  - {{name: c, spec: "random:seed=2"}}
  - {{name: d, spec: "minimax:depth=1,seed=3"}}
games_per_pairing: {games}
time_control: 10+0.1
seed: 1
opening_plies: 2
max_plies: {plies}
"""


def config(games_per_pairing: int, plies: int) -> Any:
    return parse_config(CONFIG.format(games=games_per_pairing, plies=plies), Path("load.yaml"))


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # this process only: the runner (and Ray's driver)
    return usage.ru_utime + usage.ru_stime


class ReplaySlot(Slot):
    """Plays nothing: hands the runner one recorded game as each scheduled game's result."""

    def __init__(self, entry: GameEntry, moves: list[dict[str, Any]]) -> None:
        self.entry, self.moves = entry, moves

    def where(self) -> Where:
        return Where(host="replay", pid=os.getpid(), cwd=os.getcwd(), slot=0)

    def play(self, job: GameJob, emit: Emit) -> GameEntry:
        game = job.game
        # Events go by 10 a batch, as a worker sends a fast game's moves within its 0.1 s delay,
        # encoded there (worker.move_event).
        batch = [encoded({**move, "game_id": game.id}) for move in self.moves]
        for start in range(0, len(batch), 10):
            emit(batch[start:start + 10])
        return msgspec.structs.replace(copy.deepcopy(self.entry), id=game.id, twin=game.twin, predator=game.predator,
                                       prey=game.prey, opening=list(game.opening), seed=job.seed,
                                       config_hash=job.config_hash)

    def restart(self, give_up: Callable[[], bool]) -> bool:
        return True

    def close(self) -> None:
        pass


class ReplayExecutor(Executor):
    name = "replay"

    def __init__(self, entry: GameEntry, moves: list[dict[str, Any]]) -> None:
        self.entry, self.moves = entry, moves

    def slots(self, count: int, setup: Callable[[int, int], WorkerSetup], grow: bool = False) -> list[Slot]:
        return [ReplaySlot(self.entry, self.moves)]


def one_real_game(folder: Path, plies: int) -> tuple[GameEntry, list[dict[str, Any]]]:
    out = folder / "real"
    Runner(config(2, plies), out, concurrency=1).run()
    entries = game_entries(read_journal(out))
    entry = max(entries, key=lambda e: e.plies)
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    moves = [e for e in events if e["event"] == "move" and e["game_id"] == entry.id]
    for move in moves:
        move.pop("seq", None)
        move.pop("time", None)
    entry.worker = None
    return entry, moves


def part_runner(games_per_pairing: int, plies: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        entry, moves = one_real_game(folder, plies)
        out = folder / "replay"
        runner = Runner(config(games_per_pairing, plies), out, executor=ReplayExecutor(entry, moves))
        fsyncs = 0
        real_fsync = os.fsync

        def counted_fsync(fd: int) -> None:
            nonlocal fsyncs
            fsyncs += 1
            real_fsync(fd)

        os.fsync = counted_fsync
        try:
            cpu, wall = cpu_s(), time.perf_counter()
            state = runner.run()
            cpu, wall = cpu_s() - cpu, time.perf_counter() - wall
        finally:
            os.fsync = real_fsync
        games = state.games_done
        events = sum(1 for _ in (out / "events.jsonl").open())
        events_bytes = (out / "events.jsonl").stat().st_size
        journal_bytes = (out / "journal.jsonl").stat().st_size
    per_hour = 3600 * games / cpu
    print(f"1. the runner alone: {games} games of {entry.plies} plies each, replayed (nothing played)")
    print(f"   per game: {events / games:.1f} events ({len(moves)} moves + game_started, game_ended, standings), "
          f"{events_bytes / games / 1000:.1f} kB of events.jsonl, {journal_bytes / games / 1000:.1f} kB of journal, "
          f"{fsyncs / games:.2f} fsynced journal writes")
    print(f"   runner CPU per game: {1000 * cpu / games:.2f} ms ({1000 * wall / games:.2f} ms wall)")
    print(f"   one runner core sustains {per_hour:,.0f} games/hour; yardstick {GOAL_PER_HOUR:,} games/hour "
          f"({per_hour / GOAL_PER_HOUR:.0f}x headroom), i.e. {GOAL_PER_HOUR * cpu / games / 3600:.1%} of a core")


SLOW_CONFIG = """\
name: slow
variants: [{{id: standard}}]
players:
  - {{name: a, command: ["{python}", "{bot}", "--seed", "1", "--delay", "{delay}"]}}
  - {{name: b, command: ["{python}", "{bot}", "--seed", "2", "--delay", "{delay}"]}}
games_per_pairing: {games}
time_control: 60+1
seed: 1
max_plies: {plies}
"""
BOT = Path(__file__).resolve().parent.parent / "tests" / "bots" / "tournament_bot.py"


def part_ray(games_per_pairing: int, plies: int, delay: float) -> None:
    import ray

    loaded = parse_config(SLOW_CONFIG.format(python=sys.executable, bot=BOT, delay=delay, games=games_per_pairing,
                                             plies=plies), BOT.parent / "slow.yaml")
    results = {}
    batches: list[int] = []  # the size of each batch of events the runner was handed
    forward = EventStream.forward

    def counted(stream: EventStream, items: list[Any]) -> None:
        batches.append(len(items))
        forward(stream, items)

    EventStream.forward = counted  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as directory:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=100 * 1024 * 1024,
                 runtime_env={"working_dir": directory}, namespace="foxgeese")
        try:
            for executor in ("local", "ray"):
                out = Path(directory) / executor
                batches.clear()
                cpu, wall = cpu_s(), time.perf_counter()
                state = Runner(loaded, out, concurrency=2, executor=executor).run()
                cpu, wall = cpu_s() - cpu, time.perf_counter() - wall
                events = sum(1 for _ in (out / "events.jsonl").open())
                results[executor] = (state.games_done, cpu, wall, events, len(batches))
        finally:
            ray.shutdown()
            EventStream.forward = forward  # type: ignore[method-assign]
    print(f"2. {results['ray'][0]} real games of {plies} plies, a move every {delay:g} s (so each is a batch of "
          "its own, as in a real time control), at concurrency 2 (runner CPU, Ray's driver included)")
    for executor, (games, cpu, wall, events, handed) in results.items():
        print(f"   {executor:5}: runner CPU per game {1000 * cpu / games:.1f} ms ({events / games:.0f} events and "
              f"{handed / games:.1f} batches a game; {games / wall:.2f} games/s wall)")
    games, cpu, _, _, handed = results["ray"]
    more = (cpu - results["local"][1]) / handed
    print(f"   Ray: {1000 * cpu / handed:.2f} ms of runner CPU a batch ({1000 * more:.2f} ms more than local); "
          f"at {GOAL_PER_HOUR:,} games/hour such games cost "
          f"{GOAL_PER_HOUR * cpu / games / 3600:.1%} of a runner core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games_per_pairing of part 1 (6 pairings)")
    parser.add_argument("--plies", type=int, default=120, help="max_plies of every game")
    parser.add_argument("--ray", action="store_true", help="also part 2, on a local Ray cluster")
    parser.add_argument("--ray-games", type=int, default=8, help="games of part 2")
    parser.add_argument("--ray-plies", type=int, default=40, help="plies of each game of part 2")
    parser.add_argument("--delay", type=float, default=0.15, help="seconds before each move in part 2")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    part_runner(args.games, args.plies)
    if args.ray:
        part_ray(args.ray_games, args.ray_plies, args.delay)


if __name__ == "__main__":
    main()
