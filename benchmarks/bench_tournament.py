"""Tournament throughput and time forfeits.

1. Games per minute of a round robin through the referee (real processes, ZeroMQ; one worker
   process per concurrency slot) at concurrency 1 and 2, next to the same games played in-process
   (players called directly on a `Game`, no protocol, no clocks), for fast bots and for searching
   bots. The yardsticks: concurrency 2 gives at least 1.85x the games of concurrency 1 with
   searching bots and 1.7x with fast ones on 2 cores, and fast bots through the referee at
   concurrency 2 reach at least 0.4x in-process play. The load average is printed beside them:
   other programs on the machine take cores from the second slot. The modes run interleaved,
   `--rounds` times for the fast bots (default 3) and `--search-rounds` for the searching ones
   (default 1: a round takes minutes); each ratio is of the modes' best rates. The runs are long
   enough (`--games`, `--search-games`) that what a tournament pays once, starting each worker
   and its bots (about a second and a half of CPU a slot), and the last game of a slot that the
   other slot has no game left to match, do not decide the figures. The local executor
   keeps each slot on a CPU of its own (`affinity: auto`, its default), as a tournament would.
2. The issue's claim: at concurrency 2 and time control 1+0.1, how many games the built-in
   players (the bundled quick config's players) lose on time. It should be 0.

    python benchmarks/bench_tournament.py            # both parts
    python benchmarks/bench_tournament.py --part 1   # throughput only
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from foxgeese.engine import Game, Side, get_variant, play_game
from foxgeese.players.registry import make_player
from foxgeese.tournaments.config import load_config, parse_config
from foxgeese.tournaments.journal import read_journal
from foxgeese.tournaments.report import game_entries
from foxgeese.tournaments.runner import Runner
from foxgeese.tournaments.schedule import make_schedule
from foxgeese.tournaments.worker import game_seed

FAST_PLAYERS = {"r1": "random:seed=1", "r2": "random:seed=2", "mm1": "minimax:depth=1"}
SEARCH_PLAYERS = {"mm2": "minimax:depth=2", "mm3": "minimax:depth=3", "mcts300": "mcts:playouts=300,seed=1"}
CONFIG = """\
name: bench
variants: [{{id: standard}}, {{id: hare-and-hounds}}]
players:
{players}
games_per_pairing: {games}
time_control: 10+0.1
concurrency: {concurrency}
seed: 3
opening_plies: 2
max_plies: 300
"""


def bench_config(players: dict[str, str], games: int, concurrency: int) -> str:
    lines = "\n".join(f'  - {{name: {name}, spec: "{spec}"}}' for name, spec in players.items())
    return CONFIG.format(players=lines, games=games, concurrency=concurrency)


def through_referee(players: dict[str, str], games: int, concurrency: int) -> tuple[int, float]:
    loaded = parse_config(bench_config(players, games, concurrency), Path("bench.yaml"))
    with tempfile.TemporaryDirectory() as directory:
        started = time.perf_counter()
        Runner(loaded, Path(directory)).run()
        elapsed = time.perf_counter() - started
        played = len(game_entries(read_journal(Path(directory))))
    return played, elapsed


def in_process(players: dict[str, str], games: int) -> tuple[int, float]:
    """The same schedule, each game with fresh players called directly (no processes, no clock)."""
    config = parse_config(bench_config(players, games, 1), Path("bench.yaml")).config
    specs = {player.name: player.spec for player in config.players}
    started = time.perf_counter()
    schedule = make_schedule(config)
    for scheduled in schedule:
        variant = get_variant(scheduled.variant_id, **scheduled.variant_options)
        game = Game(variant)
        for text in scheduled.opening:
            game.push(game.parse_move(text))
        players = {Side.PREDATOR: make_player(specs[scheduled.predator]), Side.PREY: make_player(specs[scheduled.prey])}
        play_game(game, players, max_plies=config.max_plies, seed=game_seed(config.seed, scheduled.id))
    return len(schedule), time.perf_counter() - started


def time_forfeits(games: int) -> None:
    quick = load_config("quick")
    text = quick.path.read_text().replace("time_control: 10+0.1", "time_control: 1+0.1")
    text = text.replace(f"games_per_pairing: {quick.config.games_per_pairing}", f"games_per_pairing: {games}")
    loaded = parse_config(text, quick.path)
    assert loaded.config.time_control == "1+0.1" and loaded.config.concurrency == 2
    with tempfile.TemporaryDirectory() as directory:
        started = time.perf_counter()
        Runner(loaded, Path(directory)).run()
        elapsed = time.perf_counter() - started
        played = game_entries(read_journal(Path(directory)))
    endings = Counter(game.termination for game in played)
    forfeits = Counter(game.forfeit for game in played if game.termination == "time-forfeit")
    print(f"\ntime forfeits at concurrency 2, 1+0.1, players {', '.join(p.name for p in loaded.config.players)}:")
    print(f"  {len(played)} games in {elapsed:.1f}s; time forfeits: {endings.get('time-forfeit', 0)}"
          + (f" ({', '.join(f'{k} {v}' for k, v in forfeits.items())})" if forfeits else ""))
    print(f"  endings: {', '.join(f'{k} {v}' for k, v in sorted(endings.items()))}")
    # How close the players came: the lowest clock reading after a move, per player.
    lowest: dict[str, int] = {}
    slowest: dict[str, int] = {}
    for game in played:
        assert game.record is not None
        seats = {side: seat.name for side, seat in game.record.bots.items()}
        for move in game.record.moves:
            if move.book:
                continue
            name = seats.get(move.side, move.side)
            lowest[name] = min(lowest.get(name, 10**9), move.clock_ms)
            slowest[name] = max(slowest.get(name, 0), move.think_ms + move.transport_ms)
    for name in sorted(lowest):
        print(f"  {name}: lowest clock after a move {lowest[name]} ms, slowest move {slowest[name]} ms")


def throughput(players: dict[str, str], games: int, yardstick: float, kind: str, rounds: int) -> float:
    """Prints the three modes, `rounds` times interleaved, and the ratios of each mode's best rate
    (other programs on a shared machine slow a run, never speed it up); returns concurrency 2 over
    in-process (for the fast bots' yardstick)."""
    names = ", ".join(f"{name} ({spec})" for name, spec in players.items())
    print(f"{kind}: round robin of {names}; standard + hare-and-hounds; {games} games per pairing"
          + (f"; best of {rounds} interleaved rounds" if rounds > 1 else ""))
    print(f"  {'mode':<28}{'games':>6}{'seconds':>9}{'games/min':>11}{'load (1 min)':>14}")
    rates: dict[str, float] = {}
    for _ in range(rounds):
        for label, run in (
            ("referee, concurrency 1", lambda: through_referee(players, games, 1)),
            ("referee, concurrency 2", lambda: through_referee(players, games, 2)),
            ("in-process, no protocol", lambda: in_process(players, games)),
        ):
            played, elapsed = run()
            rate = played / elapsed * 60
            rates[label] = max(rates.get(label, 0.0), rate)
            print(f"  {label:<28}{played:>6}{elapsed:>9.2f}{rate:>11.0f}{os.getloadavg()[0]:>14.2f}")
    scaling = rates["referee, concurrency 2"] / rates["referee, concurrency 1"]
    best = "best " if rounds > 1 else ""
    print(f"  concurrency 2 / concurrency 1 ({best}games/min): {scaling:.2f}x (yardstick: at least {yardstick}x)")
    return rates["referee, concurrency 2"] / rates["in-process, no protocol"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", type=int, choices=(1, 2), default=None)
    # Enough games that starting the workers and their bots (about 1.5 s of CPU a slot: 15% of a
    # concurrency 2 run of 60 games a pairing), and at concurrency 2 the last game, which one slot
    # plays while the other has none left (half a searching game, a second), do not decide the figure.
    parser.add_argument("--games", type=int, default=120, help="games per pairing, fast players (even)")
    parser.add_argument("--search-games", type=int, default=10, help="games per pairing, searching players")
    parser.add_argument("--forfeit-games", type=int, default=4, help="games per pairing for part 2 (even)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the fast players' modes")
    parser.add_argument("--search-rounds", type=int, default=1, help="interleaved rounds, searching players")
    args = parser.parse_args()
    print(f"measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.part in (None, 1):
        versus = throughput(FAST_PLAYERS, args.games, 1.7, "fast bots", args.rounds)
        print(f"  fast bots, concurrency 2 / in-process: {versus:.2f}x (yardstick: at least 0.4x)")
        throughput(SEARCH_PLAYERS, args.search_games, 1.85, "searching bots", args.search_rounds)
    if args.part in (None, 2):
        time_forfeits(args.forfeit_games)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
