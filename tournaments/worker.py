"""What plays a tournament's games: one Referee and its bots, fed one game at a time.

`GamePlayer` is the same object in every executor: in a local worker process (`serve_pipe`, one
per concurrency slot) and in a Ray actor. It keeps its referee, and so its bot processes, alive
between games, and gives each game the seed the runner derived for it, which is what makes a
game's moves independent of which worker plays it and of what that worker played before.

Everything that crosses to a worker is plain data (`PlayerDef`, `GameJob`): on Ray it may be
another machine, where bot commands are built afresh from the player definitions (so
`python -m foxgeese bot ...` runs that machine's Python, and `cwd` is resolved there).
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foxgeese.engine import Side, get_variant
from foxgeese.engine.variants import Variant
from foxgeese.protocol.botconfig import CMD_PREFIX, BotConfig
from foxgeese.protocol.match import MoveEvent
from foxgeese.protocol.referee import Referee
from foxgeese.tournaments.events import encoded
from foxgeese.tournaments.journal import FORFEITS
from foxgeese.tournaments.schedule import ScheduledGame

STARTUP_FAILURES = ("no-show", "crash", "protocol-error")  # endings of a bot that did not start or speak
SEED_LIMIT = 2**31  # game seeds fit a signed 32-bit int in any language
EVENT_DELAY_S = 0.1  # a move event reaches the runner at most this long after the move (docs/tournaments.md)


def game_seed(tournament_seed: int, game_id: str) -> int:
    """The seed of one game: a hash of the tournament's seed and the game's id, in [0, 2**31)."""
    digest = hashlib.sha256(f"foxgeese/{tournament_seed}/{game_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_LIMIT


@dataclass(frozen=True)
class PlayerDef:
    """A player as the config gives it; `cwd` is relative to the worker's base folder (or absolute)."""

    name: str
    spec: str | None = None
    command: tuple[str, ...] = ()
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    sandbox: bool = False

    def bot_config(self, base_dir: Path) -> Any:
        """The bot as this machine launches it: a `command` or `cmd:` bot runs in `cwd`, resolved
        from `base_dir` (the config's folder, or its copy on a Ray node), so relative paths mean the
        same wherever the runner was started."""
        workdir = (base_dir / self.cwd) if self.cwd else base_dir
        if self.spec is not None:
            cwd = workdir.resolve() if self.spec.strip().startswith(CMD_PREFIX) else None
            return BotConfig.from_spec(self.spec, name=self.name, sandbox=self.sandbox, cwd=cwd)
        return BotConfig(self.name, list(self.command), cwd=workdir.resolve(), env=dict(self.env),
                         sandbox=self.sandbox)


@dataclass(frozen=True)
class GameJob:
    """One game for a worker: the scheduled game, its seed and the rules of play."""

    game: dict[str, Any]  # ScheduledGame.to_json()
    seed: int
    time_control: str
    max_plies: int | None
    config_hash: str
    adjudicate: str | None = None  # "tables": end a game once a solved table proves its result
    adjudicate_from_ply: int | None = None  # ... but not before this ply


@dataclass
class WorkerSetup:
    """What a worker needs once: the players, where relative bot folders start, where logs go."""

    players: list[PlayerDef]
    base_dir: str
    log_dir: str | None
    referee_options: dict[str, Any] = field(default_factory=dict)
    check_job: GameJob | None = None  # a game of the tournament, for `GamePlayer.check_bots`


def journal_entry(game: ScheduledGame, record: Any, seed: int | None = None,
                  config_hash: str | None = None) -> dict[str, Any]:
    """The journal line of a finished game: a summary for reports, what identifies the game (the
    tournament's config hash, the game's seed, players and opening) and the full record."""
    variant = get_variant(game.variant_id, **game.variant_options)
    predator_side = variant.side_name(Side.PREDATOR)
    winner = str(getattr(record.winner, "value", record.winner))
    score = 0.5 if winner == "draw" else 1.0 if winner == predator_side else 0.0
    termination = str(getattr(record.termination, "value", record.termination))
    forfeit = None
    if termination in FORFEITS and score != 0.5:
        forfeit = game.prey if score == 1.0 else game.predator
    entry = {
        "type": "game",
        "id": game.id,
        "twin": game.twin,
        "variant": game.variant_id,
        "options": dict(game.variant_options),
        "predator": game.predator,
        "prey": game.prey,
        "opening": list(game.opening),
        "winner": winner,
        "predator_score": score,
        "termination": termination,
        "reason": record.reason,
        "plies": record.plies,
        "forfeit": forfeit,
        "record": record.to_dict(),
    }
    if seed is not None:
        entry["seed"] = seed
    if config_hash is not None:
        entry["config_hash"] = config_hash
    return entry


class GamePlayer:
    """A referee with its bots, playing one game at a time (see the module doc)."""

    def __init__(self, setup: WorkerSetup) -> None:
        base = Path(setup.base_dir)
        self.bots = {player.name: player.bot_config(base) for player in setup.players}
        for bot in self.bots.values():  # compiled players' code compiled or loaded here, off every clock
            bot.warm()
        self.referee = Referee(log_dir=setup.log_dir, **setup.referee_options)
        self._tables: dict[Any, dict[str, Any]] = {}  # the adjudicating tables' fingerprint per variant

    def close(self) -> None:
        self.referee.close()

    def bot_pids(self) -> list[int]:
        return [process.pid for process in self.referee.processes()]

    def play(self, job: GameJob, emit: Callable[[Any], None]) -> dict[str, Any]:
        """Plays `job` to its end; `emit` hears each move's `MoveEvent` (`move_event` turns it into
        the stream's `move` event, later, off the referee's loop)."""
        game = ScheduledGame.from_json(job.game, 0)
        variant = get_variant(game.variant_id, **game.variant_options)
        record = self.referee.play_game(
            variant, {Side.PREDATOR: self.bots[game.predator], Side.PREY: self.bots[game.prey]},
            job.time_control, opening=list(game.opening), max_plies=job.max_plies, game_id=game.id,
            on_move=emit, seed=job.seed, adjudicator=_table_adjudicator(job.adjudicate, job.adjudicate_from_ply),
        )
        entry = journal_entry(game, record, seed=job.seed, config_hash=job.config_hash)
        if job.adjudicate == "tables":
            entry["tables"] = self.tables_of(variant)
        return entry

    def tables_of(self, variant: Variant) -> dict[str, Any]:
        """The fingerprint of the tables that adjudicate `variant` here (taken once per worker: a
        table rebuilt during a run is a rerun's to notice)."""
        key = (variant.id, variant.options)
        if key not in self._tables:
            from foxgeese.players.solver.adjudicate import fingerprint

            found = fingerprint(variant)
            self._tables[key] = {name: found[name] for name in ("key", "geese", "digest", "dir")}
        return self._tables[key]


    def check_bots(self, job: GameJob) -> list[dict[str, str]]:
        """Starts every bot of the config and has it say hello: one ply of `job`'s variant with a
        partner (the real referee, so the bots stay for the games that follow). A game that ends as
        one bot fails may leave its partner unheard: that one is checked again with a bot that said
        hello. The bots that did not start, or broke the protocol: [{"name", "reason", "log"}]."""
        unheard = list(self.bots)
        heard: list[str] = []
        failures: list[dict[str, str]] = []
        for number in range(1, 2 * len(unheard) + 1):
            if not unheard:
                break
            partner = heard[0] if heard else unheard[1] if len(unheard) > 1 else unheard[0]
            game = {**job.game, "id": f"check-{number}", "predator": unheard[0], "prey": partner, "opening": []}
            entry = self.play(GameJob(game, job.seed, job.time_control, 1, job.config_hash), lambda move: None)
            for seat in entry["record"]["bots"].values():
                name = seat.get("name")
                if name not in unheard:
                    continue
                if seat.get("bot_name"):
                    heard.append(name)
                elif entry["termination"] in STARTUP_FAILURES and entry["forfeit"] in (name, None):
                    failures.append({"name": name, "reason": entry["reason"], "log": log_tail(seat.get("stderr"))})
                else:
                    continue
                unheard.remove(name)
        return failures

    def forfeit_logs(self, entry: dict[str, Any]) -> dict[str, str]:
        """The end of the log of the bot that forfeited `entry`'s game, by its side ({} for none)."""
        return {side: log_tail(seat.get("stderr")) for side, seat in entry["record"]["bots"].items()
                if entry.get("forfeit") is not None and seat.get("name") == entry["forfeit"]}


def log_tail(path: str | None, limit: int = 64_000) -> str:
    """The end of a bot's log file on this machine ('' when there is none)."""
    if not path:
        return ""
    try:
        with open(path, "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - limit))
            return log.read().decode("utf-8", "replace")
    except OSError:
        return ""


def move_event(move: Any) -> Any:
    """The stream's `move` event (fields of docs/tournaments.md) of a referee's MoveEvent, `encoded`
    here so that the runner only numbers it; anything else (a ("pids", [...]) item) as it is.
    Called where batches go out, not in the referee's loop."""
    if not isinstance(move, MoveEvent):
        return move
    return encoded({"event": "move", "game_id": move.game_id, "ply": move.ply, "side": move.side,
                    "move": move.move, "position": move.position, "think_ms": move.think_ms,
                    "clocks": move.clocks})


def _table_adjudicator(kind: str | None, from_ply: int | None = None) -> Any:
    if kind != "tables":
        return None
    # Here, not at the top: the tables bring numpy and numba, a second of every worker's start-up.
    from foxgeese.players.solver.adjudicate import table_adjudicator

    return table_adjudicator(from_ply=from_ply)


class EventBatches:
    """Events on their way from a game's thread to the thread that sends them on, in batches.

    A batch goes when its oldest event is `delay_s` old, at once when an event is urgent or on
    `flush()`, and `take()` returns what is left, then None, after `close()`. So a game of fast bots
    wakes the sending thread (and the runner behind it) a few times a second, not at every move,
    and a move still reaches the event stream within `delay_s` when the next one is slow to come.
    """

    def __init__(self, delay_s: float = EVENT_DELAY_S) -> None:
        self.delay_s = delay_s
        self._ready = threading.Condition()
        self._items: list[Any] = []
        self._oldest = 0.0  # when the first item of the waiting batch came
        self._hurry = False
        self._closed = False
        self._put = 0  # items put so far
        self._sent = 0  # items the sending thread is done with

    def put(self, item: Any, urgent: bool = False) -> None:
        with self._ready:
            wake = not self._items or urgent  # the sender sleeps without a deadline, or must hurry
            if not self._items:
                self._oldest = time.monotonic()
            self._items.append(item)
            self._put += 1
            self._hurry = self._hurry or urgent
            if wake:
                self._ready.notify_all()

    def take(self) -> list[Any] | None:
        """The next batch, waiting for it; None once closed and empty."""
        with self._ready:
            while True:
                if self._items:
                    due = self._oldest + self.delay_s
                    if self._hurry or self._closed or time.monotonic() >= due:
                        batch, self._items, self._hurry = self._items, [], False
                        return batch
                    self._ready.wait(due - time.monotonic())
                elif self._closed:
                    return None
                else:
                    self._ready.wait()

    def sent(self, batch: list[Any]) -> None:
        """Told by the sending thread once it is done with a batch from `take`."""
        with self._ready:
            self._sent += len(batch)
            self._ready.notify_all()

    def flush(self) -> None:
        """Sends everything put so far now, and waits until the sending thread is done with it."""
        with self._ready:
            target = self._put
            if self._items:
                self._hurry = True
                self._ready.notify_all()
            while self._sent < target:
                self._ready.wait()

    def drain(self) -> list[Any]:
        """Everything put and not yet taken, for the caller to send itself (with a game's result),
        once the sending thread is done with what it took: no wake-up of that thread, and nothing
        overtakes what it sent."""
        with self._ready:
            while self._sent < self._put - len(self._items):  # a batch taken and not yet sent
                self._ready.wait()
            batch, self._items, self._hurry = self._items, [], False
            self._sent += len(batch)
            return batch

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify_all()


def where() -> dict[str, Any]:
    """Which worker this is, for `game_started` events and the operator's eye (`cwd`: its working
    folder; on Ray the node's copy of the shipped folder, where relative bot paths start)."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "cwd": os.getcwd()}


# --------------------------------------------------------------- a local worker process

def main() -> None:
    """`python -m foxgeese.tournaments.worker FD`: a local worker on the socket FD (see executors.py)."""
    from multiprocessing.connection import Connection

    connection = Connection(int(sys.argv[1]))
    try:
        setup = connection.recv()
    except (EOFError, OSError):
        return
    serve_pipe(connection, setup)


def serve_pipe(connection: Any, setup: WorkerSetup) -> None:
    """The body of one local worker process: jobs come in on `connection`, messages go back.

    Messages out: ("ready", where), ("events", [move events and ("pids", [bot pids]) whenever the
    set of bot processes changed, so the runner can end them if this process is killed]),
    ("done", entry, bot pids, [the game's last events]) and ("error", text). Moves are handed to a
    sender thread in batches (`EventBatches`), so the referee's loop never waits on the pipe and a
    game of fast moves costs the runner a few messages a second, not one a move; what is left at
    the game's end goes with its result.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's: it lets games finish
    outbox = EventBatches()

    def send_loop() -> None:
        broken = False
        while (batch := outbox.take()) is not None:
            if not broken:
                try:
                    connection.send(("events", [move_event(item) for item in batch]))
                except (OSError, ValueError):
                    broken = True  # the runner is gone; keep releasing flushes until told to stop
            outbox.sent(batch)

    sender = threading.Thread(target=send_loop, name="events", daemon=True)
    sender.start()
    try:
        player = GamePlayer(setup)
    except Exception as error:  # noqa: BLE001 - told to the runner, which stops with it
        connection.send(("error", f"{type(error).__name__}: {error}"))
        return
    known_pids: list[int] = []
    first_move = True

    def emit(move: Any) -> None:
        nonlocal known_pids, first_move
        if first_move:  # the bots of a game are started (or restarted) before its first move
            first_move = False
            pids = player.bot_pids()
            if pids != known_pids:  # new bot processes: the runner must know them before this one can die
                known_pids = pids
                outbox.put(("pids", pids), urgent=True)
        outbox.put(move)

    try:
        connection.send(("ready", where()))
        while True:
            job = connection.recv()
            if job is None:
                break
            first_move = True
            try:
                entry = player.play(job, emit)
            except Exception as error:  # noqa: BLE001 - a bad job is the runner's error to raise
                outbox.flush()
                connection.send(("error", f"{type(error).__name__}: {error}"))
                continue
            known_pids = player.bot_pids()
            connection.send(("done", entry, known_pids, [move_event(item) for item in outbox.drain()]))
    except (EOFError, OSError):
        pass  # the runner went away: close the referee (and so the bots) and go
    finally:
        outbox.close()
        player.close()


if __name__ == "__main__":
    main()
