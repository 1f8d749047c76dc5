"""Helpers of the scaling tests (local worker processes and Ray): configs whose bots travel with
the config's folder, the comparable part of a journal, the event stream, a runner in a thread."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from foxgeese.main import main
from foxgeese.tournaments.journal import read_journal
from foxgeese.tournaments.report import game_entries
from foxgeese.tournaments.runner import Runner

BOT = Path(__file__).parent / "bots" / "tournament_bot.py"


def scale_config(folder: Path, extra: str = "", delay: float = 0.0, variants: str = "standard, hare-and-hounds",
                 name: str = "scale") -> Path:
    """Two hash bots (by a path relative to the config, so the folder must travel to a Ray worker)
    and two seeded built-in players, in a config file in `folder`."""
    (folder / "bots").mkdir(parents=True, exist_ok=True)
    shutil.copy(BOT, folder / "bots" / BOT.name)
    slow = f', "--delay", "{delay:g}"' if delay else ""
    path = folder / f"{name}.yaml"
    path.write_text(
        f"name: {name}\n"
        f"variants: [{', '.join('{id: ' + v + '}' for v in variants.split(', '))}]\n"
        "players:\n"
        f'  - {{name: h1, command: ["{sys.executable}", "bots/{BOT.name}", "--seed", "1"{slow}]}}\n'
        f'  - {{name: h2, command: ["{sys.executable}", "bots/{BOT.name}", "--seed", "2"{slow}]}}\n'
        '  - {name: rnd, spec: "random"}\n'
        '  - {name: mcts, spec: "mcts:playouts=20"}\n'
        f"games_per_pairing: 2\ntime_control: 20+0.1\nseed: 5\nopening_plies: 2\nmax_plies: 40\n{extra}"
    )
    return path


def relative_config(folder: Path, python: str = sys.executable, delay: float = 0.0, games: int = 2) -> Path:
    """A config whose bots are given by paths relative to its folder, as people write them: a
    `cmd:` spec (`python bots/BOT.py`, run by `python`) and one with a `cwd` of its own."""
    (folder / "bots").mkdir(parents=True, exist_ok=True)
    shutil.copy(BOT, folder / "bots" / BOT.name)
    path = folder / "relative.yaml"
    slow = f" --delay {delay:g}" if delay else ""
    path.write_text(
        "name: relative\nvariants: [{id: standard}]\nplayers:\n"
        f'  - {{name: h1, spec: "cmd:{python} bots/{BOT.name} --seed 1{slow}"}}\n'
        f'  - {{name: h2, spec: "cmd:{python} {BOT.name} --seed 2{slow}", cwd: bots}}\n'
        '  - {name: rnd, spec: "random"}\n'
        f"games_per_pairing: {games}\ntime_control: 20+0.1\nseed: 3\nmax_plies: 30\n"
    )
    return path


def foxgeese_here(*args: str) -> subprocess.CompletedProcess[str]:
    """`foxgeese ARGS` run in this process by click's runner, for tests of what a command prints
    and its exit status rather than of its process: it saves a Python start-up (a second or more,
    mostly imports) a call. An exception the command let out is shown in stderr, as a traceback."""
    result = CliRunner().invoke(main, list(args))
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["foxgeese", *args], result.exit_code, result.stdout, stderr)


def comparable(directory: Path) -> dict[str, tuple[Any, ...]]:
    """What must not change with concurrency or executor: per game its seed, moves and result."""
    out = {}
    for game in game_entries(read_journal(directory)):
        assert game.record is not None
        moves = tuple(move.move for move in game.record.moves)
        out[game.id] = (game.seed, game.predator, game.prey, moves, game.winner, game.termination, game.plies)
    return out


def events(directory: Path) -> list[dict[str, Any]]:
    path = directory / "events.jsonl"
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    return [json.loads(line) for line in lines if line.endswith("}")]


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Background:
    """A runner in a thread (so the test can act on it mid-tournament); `result()` joins it."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.runner.run()
        except BaseException as error:  # noqa: BLE001 - handed to the test by result()
            self.error = error

    def result(self, timeout: float = 120) -> Any:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the runner did not finish"
        if self.error is not None:
            raise self.error
        return self.runner.state


def first_move_of_a_game(directory: Path, after_games: int, predicate: Callable[[dict[str, Any]], bool]
                         ) -> dict[str, Any] | None:
    """The game_started event of a game that has made a move, after `after_games` games ended and
    whose worker satisfies `predicate` (None while there is none yet)."""
    stream = events(directory)
    ended = sum(1 for event in stream if event["event"] == "game_ended")
    if ended < after_games:
        return None
    started = {event["game_id"]: event for event in stream if event["event"] == "game_started"}
    finished = {event["game_id"] for event in stream if event["event"] == "game_ended"}
    for event in stream:
        if event["event"] == "move" and event["game_id"] not in finished:
            begun = started.get(event["game_id"])
            if begun is not None and predicate(begun["worker"]):
                return begun
    return None
