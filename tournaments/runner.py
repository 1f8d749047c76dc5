"""Plays a tournament's missing games on an executor's slots, journaling each at once.

The runner keeps the schedule, the journal, the event stream and the reports; an executor
(executors.py: `local` worker processes, ray_executor.py: Ray actors) only plays the games it is
handed. One thread per slot takes the next game and hands it to its worker; when the game ends,
the slot takes its next game at once and the journal thread appends the finished one's line,
fsynced, before it counts the game done. A game whose worker died is put back at the head of the
queue and played again on whichever slot is free, so it is journaled once. A rerun on the same
directory plays only what the journal lacks, so a crash loses at most the games in progress.

Each game is played from its own seed (`game_seed`: the tournament's seed and the game's id), so
the same config gives the same games at any concurrency and on any executor.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from foxgeese.engine import Game, Side, get_variant
from foxgeese.engine.variants import Variant
from foxgeese.files import write_json_atomic
from foxgeese.players.solver.adjudicate import fingerprint, short, solved_start
from foxgeese.tournaments.config import LoadedConfig, changed_keys
from foxgeese.tournaments.entries import GameEntry, SprtStop, WorkerPlace
from foxgeese.tournaments.errors import ConfigChangedError, JournalError, TournamentError
from foxgeese.tournaments.events import EventStream
from foxgeese.tournaments.executors import Executor, LocalExecutor, Slot, WorkerLost
from foxgeese.tournaments.journal import (
    DirectoryLock,
    JournalWriter,
    belonging,
    load_identity,
    read_identity,
    read_journal,
)
from foxgeese.tournaments.messages import GameJob, PlayerDef, WorkerSetup
from foxgeese.tournaments.ray_nodes import check_address
from foxgeese.tournaments.report import game_entries, sprt_stop
from foxgeese.tournaments.schedule import ScheduledGame, make_schedule
from foxgeese.tournaments.sprt import sprt_of_counts
from foxgeese.tournaments.standings import Standings, TwinPairs
from foxgeese.tournaments.worker import game_seed, journal_entry

IDENTITY_FORMAT = 1
MAX_ATTEMPTS = 3  # a game whose worker dies this often stops the tournament: something kills it


@dataclass
class RunState:
    """What progress displays are told about; updated by the slot threads under `lock`.

    It holds tallies, not games: `games_done` counts the journal's games (found on resume and
    played by this run), `standings` their points, each finished game added in constant time.
    The journal itself is the record (the final report reads it back).
    """
    scheduled: int
    players: list[str]
    standings: Standings = field(init=False)
    games_done: int = 0
    identity: dict[str, Any] = field(default_factory=dict)
    done_before: int = 0
    playing: dict[str, ScheduledGame] = field(default_factory=dict)
    interrupted: bool = False
    extended: int = 0  # games added to the schedule by a raised games_per_pairing
    lost: list[tuple[str, str]] = field(default_factory=list)  # (game id, how its worker died)
    sprt_stop: SprtStop | None = None  # the journal's sprt_stop line, when the SPRT decided
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.standings = Standings(self.players)

    def count(self, entry: GameEntry) -> None:
        """Adds one finished game (a journal game line)."""
        self.games_done += 1
        self.standings.add(entry)


Listener = Callable[[RunState, GameEntry], None]


def player_defs(loaded: LoadedConfig, base_dir: Path | None = None) -> list[PlayerDef]:
    """The players as plain data for workers; `cwd` relative to `base_dir` (default: the config's
    folder), which is the folder a worker resolves it from."""
    base = (base_dir or loaded.base_dir).resolve()
    players = []
    for player in loaded.config.players:
        cwd = None
        if player.command is not None or player.cwd is not None:
            folder = player.working_dir(loaded.base_dir)
            try:
                cwd = str(folder.relative_to(base))
            except ValueError:
                cwd = str(folder)  # outside the shipped folder: the same path on every machine
        players.append(PlayerDef(player.name, player.spec, tuple(player.command or ()), cwd,
                                 tuple(sorted(player.env.items())), player.sandbox, player.transport))
    return players


def bot_configs(loaded: LoadedConfig) -> dict[str, Any]:
    """Player name -> BotConfig, built the way the referee launches them."""
    return {player.name: player.bot_config(loaded.base_dir) for player in player_defs(loaded)}


def prepare_directory(loaded: LoadedConfig, directory: Path) -> tuple[dict[str, Any], list[ScheduledGame]]:
    """Checks that tournament.json describes the same tournament, or creates it.

    Returns its contents and the schedule to play. Once written, the stored schedule is the truth
    the journal's ids refer to (a newer version of this package drawing openings differently cannot
    mix two schedules), so the schedule is drawn from the seed only when there is none yet. A
    config whose only change is a larger games_per_pairing extends the stored schedule.
    """
    config = loaded.config
    identity = load_identity(directory, missing_ok=True)
    if identity is not None:
        if identity["config_hash"] != config.config_hash():
            identity = _extended(identity, loaded, directory)
        labels = [(v.id, v.options) for v in config.variants]
        try:
            return identity, [ScheduledGame.from_json(game, labels.index((game["variant"], game["options"])))
                              for game in identity["schedule"]]
        except (KeyError, TypeError, ValueError):
            raise JournalError(f"{directory / 'tournament.json'}: its schedule is damaged; restore it, or delete "
                               "it to start the directory afresh with this config") from None
    schedule = make_schedule(config)
    identity = {
        "format": IDENTITY_FORMAT,
        "config_hash": config.config_hash(),
        "config": config.canonical(),
        "scheduled": len(schedule),
        "schedule": [game.to_json() for game in schedule],
    }
    write_json_atomic(directory / "tournament.json", identity)
    return identity, schedule


def _extended(identity: dict[str, Any], loaded: LoadedConfig, directory: Path) -> dict[str, Any]:
    """The identity of the stored tournament grown to the config's larger games_per_pairing, or a
    ConfigChangedError naming what else changed."""
    config = loaded.config
    old = identity.get("config", {})
    keys = changed_keys(old, config.canonical())
    refusal = (f"{directory} holds tournament {old.get('name')!r} with another config "
               f"(changed: {', '.join(keys) or 'format'}); use another --out directory or restore the config")
    if keys != ["games_per_pairing"]:
        raise ConfigChangedError(refusal)
    if config.games_per_pairing < old["games_per_pairing"]:
        raise ConfigChangedError(f"{refusal} (games_per_pairing can grow, to extend a tournament, "
                                 f"but not shrink below {old['games_per_pairing']})")
    schedule = [game.to_json() for game in make_schedule(config)]
    if schedule[: len(identity["schedule"])] != identity["schedule"]:
        raise ConfigChangedError(f"{refusal} (the larger schedule does not begin with the stored one: "
                                 "game ids grew a digit)")
    grown = {
        **identity,
        "config_hash": config.config_hash(),
        "config": config.canonical(),
        "scheduled": len(schedule),
        "schedule": schedule,
        "extends": [*identity.get("extends", []), identity["config_hash"]],
    }
    write_json_atomic(directory / "tournament.json", grown)
    return grown


class Runner:
    """One run over one output directory (see the module doc).

    `listener` hears of every finished game; `on_start` once, when the schedule is known (read from
    the directory or drawn), before any game. `executor` is "local" (default: the config's) or
    "ray", or an Executor object.
    """

    def __init__(self, loaded: LoadedConfig, directory: Path, listener: Listener | None = None,
                 concurrency: int | str | None = None, referee_options: dict[str, Any] | None = None,
                 executor: str | Executor | None = None, ray_address: str | None = None,
                 events_pub: str | None = None) -> None:
        self.loaded = loaded
        self.config = loaded.config
        self.directory = Path(directory)
        self.listener = listener
        self.on_start: Callable[[RunState], None] | None = None
        self.concurrency: int | str = concurrency or self.config.concurrency  # or "auto": one slot a CPU
        self.referee_options = dict(referee_options or {})  # e.g. timeouts, passed to each Referee
        self.executor = executor if executor is not None else ("ray" if ray_address else self.config.executor)
        self.ray_address = ray_address
        self.events_pub = events_pub or (self.config.events.pub if self.config.events else None)
        self.schedule: list[ScheduledGame] = []  # known once run() has read or drawn it
        self.stop = threading.Event()  # no more games are taken
        self.abandon = threading.Event()  # games in progress are given up (a second Ctrl-C)
        self.errors: list[BaseException] = []
        self.events: EventStream | None = None
        self._pending: deque[ScheduledGame] = deque()
        self._ended: list[threading.Event] = []  # one per slot thread, set when it returns
        self._slots_done = False  # no slot thread is started any more
        self._attempts: dict[str, int] = {}
        self._write_lock = threading.Lock()
        self._finished: queue.SimpleQueue[tuple[ScheduledGame, GameEntry] | None] = queue.SimpleQueue()
        self.state = RunState(scheduled=0, players=[p.name for p in self.config.players])
        self._pairs = TwinPairs(self.state.players[0])  # the SPRT's, when the config has one

    def run(self) -> RunState:
        """Plays every missing game (or until an SPRT decides); raises TournamentError on user errors."""
        for bot in bot_configs(self.loaded).values():
            bot.check()  # a missing program fails here, before any game
            bot.warm()  # compiled players: compiled here once (the first run on a machine), not in each worker
        if self.executor == "ray":  # a wrong address fails here, in seconds, before the directory is made
            check_address(self.ray_address or (self.config.ray.address if self.config.ray else None))
        self.directory.mkdir(parents=True, exist_ok=True)
        with DirectoryLock(self.directory):
            self._load()
            pending = len(self._pending)
            with EventStream(self.directory, self.events_pub) as self.events:
                self.events.emit("tournament_started", name=self.config.name, players=self.state.players,
                                 games_total=self.state.scheduled, games_done=self.state.games_done,
                                 executor=self._executor_name(), concurrency=self.concurrency)
                if pending:
                    self._play(pending)
                self.events.emit("tournament_ended", games_played=self.state.games_done - self.state.done_before,
                                 games_total=self.state.scheduled, games_done=self.state.games_done,
                                 interrupted=self.state.interrupted)
        if self.errors:
            raise self.errors[0]
        return self.state

    def _executor_name(self) -> str:
        return self.executor if isinstance(self.executor, str) else self.executor.name

    def _load(self) -> None:
        """Reads or draws the schedule, reads the journal, refuses games that do not belong."""
        before = read_identity(self.directory)
        self.state.identity, self.schedule = prepare_directory(self.loaded, self.directory)
        if before is not None and self.state.identity["config_hash"] != before.get("config_hash"):
            self.state.extended = self.state.identity["scheduled"] - before.get("scheduled", 0)
        self.state.scheduled = len(self.schedule)
        if self.on_start is not None:
            self.on_start(self.state)
        entries = read_journal(self.directory, repair=True)
        why_foreign = belonging(self.state.identity)
        strangers = [reason for entry in entries if (reason := why_foreign(entry))]
        if strangers:
            more = f" (and {len(strangers) - 3} more)" if len(strangers) > 3 else ""
            raise JournalError(f"{self.directory}: the journal holds games of another tournament: "
                               f"{'; '.join(strangers[:3])}{more}; `foxgeese tournament repair "
                               f"{self.directory}` drops them, or use another --out directory")
        done = game_entries(entries)
        for warning in table_warnings(self.loaded, done):
            print(f"foxgeese: warning: {warning}", file=sys.stderr)
        done_ids = {entry.id for entry in done}
        for entry in done:
            self.state.count(entry)
            self._pairs.add(entry)
        self.state.done_before = len(done)
        self.state.sprt_stop = sprt_stop(entries)
        if self.state.sprt_stop is None:
            self._pending = deque(game for game in self.schedule if game.id not in done_ids)

    def _make_executor(self) -> Executor:
        if isinstance(self.executor, Executor):
            return self.executor
        if self.executor == "ray":
            from foxgeese.tournaments.ray_executor import RayExecutor

            return RayExecutor(self.loaded, self.ray_address, self.directory)
        return LocalExecutor(self.config.affinity)

    def _setup(self, index: int, generation: int) -> WorkerSetup:
        """What the worker of slot `index` needs (its bot logs stay with the tournament)."""
        suffix = f".{generation}" if generation else ""
        log_dir = self.directory / "logs" / f"run{os.getpid()}-w{index}{suffix}"
        return WorkerSetup(player_defs(self.loaded), str(self.loaded.base_dir), str(log_dir.resolve()),
                           dict(self.referee_options), check_job=self._job(self.schedule[0]))

    def _play(self, pending: int) -> None:
        with JournalWriter(self.directory) as journal, self._make_executor() as executor:
            auto = self.concurrency == "auto"
            wanted = executor.auto_slots() if auto else int(self.concurrency)
            executor.on_new_slot = self._add_slot
            journaler = threading.Thread(target=self._journal_loop, args=(journal,), name="journal", daemon=True)
            journaler.start()
            try:
                for slot in executor.slots(min(wanted, pending), self._setup, grow=auto):
                    self._add_slot(slot)
                self._wait_slots()
            except KeyboardInterrupt:
                self.stop.set()
                self.state.interrupted = True
                print("stopping after the games in progress (Ctrl-C again to abandon them)", file=sys.stderr)
                try:
                    self._wait_slots()
                except KeyboardInterrupt:
                    self.abandon.set()
                    print("abandoning the games in progress; a rerun plays them", file=sys.stderr)
                    executor.abort()  # ends the workers (and their bots) now
                    for done in self._ended:
                        done.wait(10)
            finally:
                with self._write_lock:
                    self._slots_done = True  # a slot that becomes ready from now on is closed unused
                self._finished.put(None)
                journaler.join()

    def _add_slot(self, slot: Slot) -> bool:
        """Starts a slot's thread (at the start, or when the executor found room for one more);
        False when no game is left for it."""
        with self._write_lock:
            if self._slots_done or (self._ended and (self.stop.is_set() or not self._pending)):
                return False
            done = threading.Event()
            self._ended.append(done)
            threading.Thread(target=self._serve, args=(slot, done), name=f"slot-{len(self._ended)}",
                             daemon=True).start()
            return True

    def _wait_slots(self) -> None:
        """Until every slot thread has ended, slots added meanwhile included."""
        while True:
            with self._write_lock:
                ended = list(self._ended)
            _wait_all(ended)
            with self._write_lock:
                if len(self._ended) == len(ended):
                    self._slots_done = True
                    return

    def _take(self) -> ScheduledGame | None:
        with self._write_lock:
            if self.stop.is_set() or not self._pending:
                return None
            return self._pending.popleft()

    def _job(self, game: ScheduledGame) -> GameJob:
        return GameJob(game=game, seed=game_seed(self.config.seed, game.id),
                       time_control=self.config.time_control, max_plies=self.config.max_plies,
                       config_hash=self.state.identity["config_hash"], adjudicate=self.config.adjudicate,
                       adjudicate_from_ply=self.config.adjudicate_from_ply)

    def _serve(self, slot: Slot, ended: threading.Event) -> None:
        """One slot's thread: take a game, play it, hand it to the journal thread and take the next
        at once (the worker does not wait for the fsync); replay a game whose worker died; end the
        worker when no game is left. Sets `ended` when it returns."""
        assert self.events is not None
        try:
            while (game := self._take()) is not None:
                job = self._job(game)
                with self.state.lock:
                    self.state.playing[game.id] = game
                place = slot.where()
                self.events.emit("game_started", **game_started_fields(game, job.seed),
                                 worker=msgspec.to_builtins(place))
                try:
                    entry = slot.play(job, self.events.forward)
                except WorkerLost as lost:
                    if self.abandon.is_set():
                        return  # ended by a second Ctrl-C: the game stays unplayed
                    self._lost(game, str(lost))
                    if not slot.restart(self._nothing_left):
                        return
                    continue
                entry.worker = WorkerPlace(host=place.host, node=place.node)
                self._finished.put((game, entry))
            # No game left for this slot: its worker goes now, not at the run's end, so that a game
            # another slot loses later finds room (a Ray slot's actor holds its CPU while it lives).
            slot.close()
        except BaseException as error:  # surfaced by run(); the unfinished game stays unplayed
            self.errors.append(error)
            self.stop.set()
        finally:
            ended.set()

    def _nothing_left(self) -> bool:
        with self._write_lock:
            return self.stop.is_set() or not self._pending

    def _lost(self, game: ScheduledGame, reason: str) -> None:
        """A game whose worker died: back to the head of the queue, unless it keeps dying."""
        attempts = self._attempts[game.id] = self._attempts.get(game.id, 0) + 1
        with self.state.lock:
            self.state.playing.pop(game.id, None)
            self.state.lost.append((game.id, reason))
        assert self.events is not None
        self.events.emit("game_lost", game_id=game.id, reason=reason, attempts=attempts)
        if attempts >= MAX_ATTEMPTS:
            raise TournamentError(f"game {game.id}: its worker died {attempts} times (last: {reason}); "
                                  "see the bots' logs in the logs/ folder of the output directory")
        print(f"foxgeese: game {game.id} lost its worker ({reason}); playing it again", file=sys.stderr)
        with self._write_lock:
            self._pending.appendleft(game)

    def _journal_loop(self, journal: JournalWriter) -> None:
        """The journal thread: each finished game in turn is journaled (fsynced), counted and told."""
        failed = False
        while (finished := self._finished.get()) is not None:
            if failed:
                continue  # the journal could not be written: the games left are a rerun's to play
            try:
                self._finish(*finished, journal)
            except BaseException as error:  # surfaced by run(), like a slot's
                self.errors.append(error)
                self.stop.set()
                failed = True

    def _finish(self, game: ScheduledGame, entry: GameEntry, journal: JournalWriter) -> None:
        assert self.events is not None
        with self._write_lock:
            journal.append(entry)
            with self.state.lock:
                self.state.count(entry)
                self.state.playing.pop(game.id, None)
                rows = self.state.standings.rows()
            self.events.forward([  # one write for both
                {"event": "game_ended", "game_id": game.id, "winner": entry.winner,
                 "termination": entry.termination, "reason": entry.reason, "plies": entry.plies},
                {"event": "standings", "rows": msgspec.to_builtins(rows), "games_done": self.state.games_done,
                 "games_total": self.state.scheduled}])
            test = self.config.sprt
            if test is not None and not self.stop.is_set():
                self._pairs.add(entry)
                state = sprt_of_counts(self._pairs.counts, test.elo0, test.elo1, test.alpha, test.beta)
                if state.decision is not None:
                    stop = SprtStop(after_games=self.state.games_done, first_player=self._pairs.first,
                                    llr=state.llr, lower=state.lower, upper=state.upper, pairs=state.pairs,
                                    decision=state.decision)
                    journal.append(stop)
                    with self.state.lock:
                        self.state.sprt_stop = stop
                    self.stop.set()
        if self.listener is not None:
            self.listener(self.state, entry)


def table_warnings(loaded: LoadedConfig, done: list[GameEntry]) -> list[str]:
    """With `adjudicate: tables`: the variants whose starts (or openings) the tables already decide,
    so every game would end at its first move, and the tables that changed since games of this
    tournament were adjudicated (a resumed run's games would be judged by other tables)."""
    config = loaded.config
    if config.adjudicate != "tables":
        return []
    out = []
    for variant_config in config.variants:
        variant = get_variant(variant_config.id, **variant_config.options)
        now = fingerprint(variant)
        label = variant_config.id + "".join(f" {key}={value}" for key, value in sorted(variant_config.options.items()))
        before = sorted({entry.tables.digest for entry in done if entry.tables is not None
                         and entry.tables.key == now["key"]} - {now["digest"]})
        if before:
            out.append(f"{label}: the tables changed since games of this tournament were adjudicated (digest "
                       f"{', '.join(before)} then, now {short(now)}): the games played before were judged by "
                       "other tables; use another --out directory for a clean comparison")
        if config.adjudicate_from_ply is None:
            starts = [_after(variant, opening) for opening in variant_config.openings] or [variant.start_position()]
            if any(solved_start(position) for position in starts):
                out.append(f"{label}: the tables ({short(now)}) already know the value of the games' starts, so "
                           "adjudicate: tables ends every game at its first move; set adjudicate_from_ply: N to "
                           "let the players play N plies first")
    return out


def _after(variant: Variant, opening: tuple[str, ...]) -> Any:
    game = Game(variant)
    for text in opening:
        game.push(game.parse_move(text))
    return game.position


def _wait_all(ended: list[threading.Event]) -> None:
    """Waits until every slot thread has ended, in short steps so that Ctrl-C is heard meanwhile.

    Events, not Thread.join: a join that Ctrl-C interrupts can leave a running thread marked as
    ended (CPython), and the games it still plays would be dropped.
    """
    for done in ended:
        while not done.wait(0.2):
            pass


def game_started_fields(game: ScheduledGame, seed: int) -> dict[str, Any]:
    """The `game_started` event of a game (see docs/tournaments.md)."""
    variant = get_variant(game.variant_id, **game.variant_options)
    start, predator, prey = (variant.start_position().text(), variant.side_name(Side.PREDATOR),
                             variant.side_name(Side.PREY))
    return {"game_id": game.id, "variant": game.variant_id, "options": dict(game.variant_options),
            "start": start, "opening": list(game.opening), "seats": {predator: game.predator, prey: game.prey},
            "seed": seed}


def run_tournament(loaded: LoadedConfig, directory: Path, listener: Listener | None = None) -> RunState:
    return Runner(loaded, directory, listener).run()


__all__ = ["Runner", "RunState", "run_tournament", "journal_entry", "TournamentError"]
