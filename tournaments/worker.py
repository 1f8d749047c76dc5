"""What plays a tournament's games: one Referee and its bots, fed one game at a time.

`GamePlayer` is the same object in every executor: in a local worker process (`serve_pipe`, one
per concurrency slot) and in a Ray actor. It keeps its referee, and so its bot processes, alive
between games, and gives each game the seed the runner derived for it, which is what makes a
game's moves independent of which worker plays it and of what that worker played before.

Everything that crosses to a worker and back is a typed message (messages.py: `PlayerDef`,
`GameJob`, ..., `Done` with the game's `GameEntry`): on Ray it may be another machine, where bot
commands are built afresh from the player definitions (so `python -m foxgeese bot ...` runs that
machine's Python, and `cwd` is resolved there).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Generic, TypeVar

from foxgeese.engine import Position, Side, Winner, get_variant
from foxgeese.engine.variants import Variant
from foxgeese.protocol.match import MoveEvent
from foxgeese.protocol.record import BOT_FAULTS, GameRecord, RefereeTermination
from foxgeese.protocol.referee import Referee
from foxgeese.tournaments.entries import GameEntry, Tables
from foxgeese.tournaments.events import encoded
from foxgeese.tournaments.messages import (
    BotFailure,
    Done,
    Events,
    Failed,
    FromWorker,
    GameJob,
    Ready,
    Where,
    WorkerSetup,
    decode_to_worker,
    encode,
)
from foxgeese.tournaments.schedule import ScheduledGame

# Endings of a bot that did not start or speak (a subset of the bot-fault endings, BOT_FAULTS).
STARTUP_FAILURES = frozenset(ending.value for ending in (
    RefereeTermination.NO_SHOW, RefereeTermination.CRASH, RefereeTermination.PROTOCOL_ERROR))
T = TypeVar("T")
SEED_LIMIT = 2**31  # game seeds fit a signed 32-bit int in any language
EVENT_DELAY_S = 0.1  # a move event reaches the runner at most this long after the move (docs/tournaments.md)


def game_seed(tournament_seed: int, game_id: str) -> int:
    """The seed of one game: a hash of the tournament's seed and the game's id, in [0, 2**31)."""
    digest = hashlib.sha256(f"foxgeese/{tournament_seed}/{game_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_LIMIT


def journal_entry(game: ScheduledGame, record: GameRecord, seed: int | None = None,
                  config_hash: str | None = None) -> GameEntry:
    """The journal line of a finished game: a summary for reports, what identifies the game (the
    tournament's config hash, the game's seed, players and opening) and the full record."""
    variant = get_variant(game.variant_id, **game.variant_options)
    predator_side = variant.side_name(Side.PREDATOR)
    winner = str(getattr(record.winner, "value", record.winner))
    score = 0.5 if winner == "draw" else 1.0 if winner == predator_side else 0.0
    termination = str(getattr(record.termination, "value", record.termination))
    forfeit = None
    if termination in BOT_FAULTS and score != 0.5:
        forfeit = game.prey if score == 1.0 else game.predator
    return GameEntry(id=game.id, twin=game.twin, variant=game.variant_id, options=dict(game.variant_options),
                     predator=game.predator, prey=game.prey, opening=list(game.opening), winner=winner,
                     predator_score=score, termination=termination, reason=record.reason, plies=record.plies,
                     forfeit=forfeit, record=record, seed=seed, config_hash=config_hash)


class GamePlayer:
    """A referee with its bots, playing one game at a time (see the module doc)."""

    def __init__(self, setup: WorkerSetup) -> None:
        base = Path(setup.base_dir)
        self.bots = {player.name: player.bot_config(base) for player in setup.players}
        for bot in self.bots.values():  # compiled players' code compiled or loaded here, off every clock
            bot.warm()
        self.referee = Referee(log_dir=setup.log_dir, **setup.referee_options)
        self._tables: dict[Variant, Tables] = {}  # the adjudicating tables' fingerprint per variant

    def close(self) -> None:
        self.referee.close()

    def bot_pids(self) -> list[int]:
        return [process.pid for process in self.referee.processes()]

    def play(self, job: GameJob, emit: Callable[[MoveEvent], None]) -> GameEntry:
        """Plays `job` to its end; `emit` hears each move's `MoveEvent` (`move_event` turns it into
        the stream's `move` event, later, off the referee's loop)."""
        game = job.game
        variant = get_variant(game.variant_id, **game.variant_options)
        record = self.referee.play_game(
            variant, {Side.PREDATOR: self.bots[game.predator], Side.PREY: self.bots[game.prey]},
            job.time_control, opening=list(game.opening), max_plies=job.max_plies, game_id=game.id,
            on_move=emit, seed=job.seed, adjudicator=_table_adjudicator(job.adjudicate, job.adjudicate_from_ply),
        )
        entry = journal_entry(game, record, seed=job.seed, config_hash=job.config_hash)
        if job.adjudicate == "tables":
            entry.tables = self.tables_of(variant)
        return entry

    def tables_of(self, variant: Variant) -> Tables:
        """The fingerprint of the tables that adjudicate `variant` here (taken once per worker: a
        table rebuilt during a run is a rerun's to notice)."""
        if variant not in self._tables:  # one shared Variant per id and options: identity is equality
            from foxgeese.players.solver.adjudicate import fingerprint

            found = fingerprint(variant)
            self._tables[variant] = Tables(key=found["key"], geese=found["geese"], digest=found["digest"],
                                           dir=found["dir"])
        return self._tables[variant]

    def check_bots(self, job: GameJob) -> list[BotFailure]:
        """Starts every bot of the config and has it say hello: one ply of `job`'s variant with a
        partner (the real referee, so the bots stay for the games that follow). A game that ends as
        one bot fails may leave its partner unheard: that one is checked again with a bot that said
        hello. The bots that did not start, or broke the protocol, with their logs' ends."""
        unheard = list(self.bots)
        heard: list[str] = []
        failures: list[BotFailure] = []
        for number in range(1, 2 * len(unheard) + 1):
            if not unheard:
                break
            partner = heard[0] if heard else unheard[1] if len(unheard) > 1 else unheard[0]
            game = dataclasses.replace(job.game, id=f"check-{number}", predator=unheard[0], prey=partner, opening=())
            entry = self.play(GameJob(game, job.seed, job.time_control, 1, job.config_hash), lambda move: None)
            assert entry.record is not None  # the referee's
            for seat in entry.record.bots.values():
                if seat.name not in unheard:
                    continue
                if seat.bot_name:
                    heard.append(seat.name)
                elif entry.termination in STARTUP_FAILURES and entry.forfeit in (seat.name, None):
                    failures.append(BotFailure(seat.name, entry.reason, log_tail(seat.stderr)))
                else:
                    continue
                unheard.remove(seat.name)
        return failures

    def forfeit_logs(self, entry: GameEntry) -> dict[str, str]:
        """The end of the log of the bot that forfeited `entry`'s game, by its side ({} for none)."""
        if entry.forfeit is None or entry.record is None:
            return {}
        return {side: log_tail(seat.stderr) for side, seat in entry.record.bots.items() if seat.name == entry.forfeit}


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


def move_event(move: MoveEvent) -> str:
    """The stream's `move` event (fields of docs/tournaments.md) of a referee's MoveEvent, `encoded`
    here so that the runner only numbers it. Called where batches go out, not in the referee's loop."""
    return encoded({"event": "move", "game_id": move.game_id, "ply": move.ply, "side": move.side,
                    "move": move.move, "position": move.position, "think_ms": move.think_ms,
                    "clocks": move.clocks})


def _table_adjudicator(kind: str | None, from_ply: int | None = None
                       ) -> Callable[[Position], tuple[Winner, str] | None] | None:
    if kind != "tables":
        return None
    # Here, not at the top: the tables bring numpy and numba, a second of every worker's start-up.
    from foxgeese.players.solver.adjudicate import table_adjudicator

    return table_adjudicator(from_ply=from_ply)


class EventBatches(Generic[T]):
    """Events on their way from a game's thread to the thread that sends them on, in batches.

    A batch goes when its oldest event is `delay_s` old, at once when an event is urgent or on
    `flush()`, and `take()` returns what is left, then None, after `close()`. So a game of fast bots
    wakes the sending thread (and the runner behind it) a few times a second, not at every move,
    and a move still reaches the event stream within `delay_s` when the next one is slow to come.
    """

    def __init__(self, delay_s: float = EVENT_DELAY_S) -> None:
        self.delay_s = delay_s
        self._ready = threading.Condition()
        self._items: list[T] = []
        self._oldest = 0.0  # when the first item of the waiting batch came
        self._hurry = False
        self._closed = False
        self._put = 0  # items put so far
        self._sent = 0  # items the sending thread is done with

    def put(self, item: T, urgent: bool = False) -> None:
        with self._ready:
            wake = not self._items or urgent  # the sender sleeps without a deadline, or must hurry
            if not self._items:
                self._oldest = time.monotonic()
            self._items.append(item)
            self._put += 1
            self._hurry = self._hurry or urgent
            if wake:
                self._ready.notify_all()

    def take(self) -> list[T] | None:
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

    def sent(self, batch: list[T]) -> None:
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

    def drain(self) -> list[T]:
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


def where() -> Where:
    """Which worker this is, for `game_started` events and the operator's eye (`cwd`: its working
    folder; on Ray the node's copy of the shipped folder, where relative bot paths start)."""
    return Where(host=socket.gethostname(), pid=os.getpid(), cwd=os.getcwd())


@dataclass(frozen=True)
class BotPids:
    """The worker's bot processes, in its outbox among the moves: they changed before this move."""

    pids: list[int]


def events_of(batch: list[MoveEvent | BotPids]) -> Events:
    """The `Events` message of a batch of the outbox: its moves encoded, the last pids it holds."""
    pids = None
    moves = []
    for item in batch:
        if isinstance(item, BotPids):
            pids = item.pids
        else:
            moves.append(move_event(item))
    return Events(moves, pids)


# --------------------------------------------------------------- a local worker process

def main() -> None:
    """`python -m foxgeese.tournaments.worker FD`: a local worker on the socket FD (see executors.py)."""
    from multiprocessing.connection import Connection

    connection = Connection(int(sys.argv[1]))
    try:
        setup = decode_to_worker(connection.recv_bytes())
    except (EOFError, OSError):
        return
    if isinstance(setup, WorkerSetup):
        serve_pipe(connection, setup)


def serve_pipe(connection: Connection, setup: WorkerSetup) -> None:
    """The body of one local worker process: jobs come in on `connection`, messages go back
    (messages.py: `GameJob`s and `Quit` in; `Ready`, `Events`, `Done` and `Failed` out, as msgpack).

    `Events` carry the moves and, whenever the set of bot processes changed, their pids, so the
    runner can end them if this process is killed. Moves are handed to a sender thread in batches
    (`EventBatches`), so the referee's loop never waits on the pipe and a game of fast moves costs
    the runner a few messages a second, not one a move; what is left at the game's end goes with
    its result (`Done`).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's: it lets games finish
    outbox: EventBatches[MoveEvent | BotPids] = EventBatches()

    def send(message: FromWorker) -> None:
        connection.send_bytes(encode(message))

    def send_loop() -> None:
        broken = False
        while (batch := outbox.take()) is not None:
            if not broken:
                try:
                    send(events_of(batch))
                except (OSError, ValueError):
                    broken = True  # the runner is gone; keep releasing flushes until told to stop
            outbox.sent(batch)

    sender = threading.Thread(target=send_loop, name="events", daemon=True)
    sender.start()
    try:
        player = GamePlayer(setup)
    except Exception as error:  # noqa: BLE001 - told to the runner, which stops with it
        send(Failed(f"{type(error).__name__}: {error}"))
        return
    known_pids: list[int] = []
    first_move = True

    def emit(move: MoveEvent) -> None:
        nonlocal known_pids, first_move
        if first_move:  # the bots of a game are started (or restarted) before its first move
            first_move = False
            pids = player.bot_pids()
            if pids != known_pids:  # new bot processes: the runner must know them before this one can die
                known_pids = pids
                outbox.put(BotPids(pids), urgent=True)
        outbox.put(move)

    try:
        send(Ready(where()))
        while True:
            job = decode_to_worker(connection.recv_bytes())
            if not isinstance(job, GameJob):
                break
            first_move = True
            try:
                entry = player.play(job, emit)
            except Exception as error:  # noqa: BLE001 - a bad job is the runner's error to raise
                outbox.flush()
                send(Failed(f"{type(error).__name__}: {error}"))
                continue
            known_pids = player.bot_pids()
            send(Done(entry, known_pids, events_of(outbox.drain()).moves))
    except (EOFError, OSError):
        pass  # the runner went away: close the referee (and so the bots) and go
    finally:
        outbox.close()
        player.close()


if __name__ == "__main__":
    main()
