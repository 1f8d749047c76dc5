"""Plays a tournament's missing games through the referee, N at a time, journaling each at once.

N worker threads each own one `Referee` (so each keeps its bots alive between its games; the
referee restarts a bot that died). Workers take the next scheduled game from a shared list, play
it and append its line to the journal under one lock, fsynced before the next game is taken. A
rerun on the same directory plays only what the journal lacks, so a crash loses at most the games
that were in progress.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foxgeese.files import write_json_atomic
from foxgeese.tournaments.config import LoadedConfig, changed_keys
from foxgeese.tournaments.errors import ConfigChangedError, JournalError, TournamentError
from foxgeese.tournaments.journal import (
    DirectoryLock,
    JournalWriter,
    read_identity,
    read_journal,
)
from foxgeese.tournaments.report import FORFEITS, game_entries, pair_scores, sprt_stop
from foxgeese.tournaments.schedule import ScheduledGame, make_schedule
from foxgeese.tournaments.sprt import sprt

IDENTITY_FORMAT = 1


@dataclass
class RunState:
    """What progress displays and the final report are told about; updated by workers under `lock`.

    `journal` is every journal line, those found on resume and those this run wrote, in file
    order: the report is computed from it instead of reading the journal back.
    """

    scheduled: int
    players: list[str]
    games: list[dict[str, Any]] = field(default_factory=list)
    journal: list[dict[str, Any]] = field(default_factory=list)
    identity: dict[str, Any] = field(default_factory=dict)
    done_before: int = 0
    playing: dict[str, ScheduledGame] = field(default_factory=dict)
    interrupted: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


Listener = Callable[[RunState, dict[str, Any]], None]


def bot_configs(loaded: LoadedConfig) -> dict[str, Any]:
    """Player name -> BotConfig, built the way the referee launches them."""
    from foxgeese.protocol.botconfig import BotConfig

    bots = {}
    for player in loaded.config.players:
        if player.spec is not None:
            bots[player.name] = BotConfig.from_spec(player.spec, name=player.name)
        else:
            bots[player.name] = BotConfig(player.name, player.command or [], cwd=player.working_dir(loaded.base_dir),
                                          env=player.env)
    return bots


def prepare_directory(loaded: LoadedConfig, directory: Path) -> tuple[dict[str, Any], list[ScheduledGame]]:
    """Checks that tournament.json describes the same tournament, or creates it.

    Returns its contents and the schedule to play. Once written, the stored schedule is the truth
    the journal's ids refer to (a newer version of this package drawing openings differently cannot
    mix two schedules), so the schedule is drawn from the seed only when there is none yet.
    """
    config = loaded.config
    identity = read_identity(directory)
    if identity is not None:
        if identity.get("config_hash") != config.config_hash():
            keys = changed_keys(identity.get("config", {}), config.canonical())
            raise ConfigChangedError(
                f"{directory} holds tournament {identity.get('config', {}).get('name')!r} with another "
                f"config (changed: {', '.join(keys) or 'format'}); use another --out directory or restore the config"
            )
        labels = [(v.id, v.options) for v in config.variants]
        return identity, [ScheduledGame.from_json(game, labels.index((game["variant"], game["options"])))
                          for game in identity["schedule"]]
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


def journal_entry(game: ScheduledGame, record: Any) -> dict[str, Any]:
    """The journal line of a finished game: a summary for reports plus the full record."""
    from foxgeese.engine import Side, get_variant

    variant = get_variant(game.variant_id, **game.variant_options)
    predator_side = variant.side_name(Side.PREDATOR)
    winner = str(getattr(record.winner, "value", record.winner))
    score = 0.5 if winner == "draw" else 1.0 if winner == predator_side else 0.0
    termination = str(getattr(record.termination, "value", record.termination))
    forfeit = None
    if termination in FORFEITS and score != 0.5:
        forfeit = game.prey if score == 1.0 else game.predator
    return {
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


class Runner:
    """One run over one output directory (see the module doc).

    `listener` hears of every finished game; `on_start` once, when the schedule is known (read from
    the directory or drawn), before any game.
    """

    def __init__(self, loaded: LoadedConfig, directory: Path, listener: Listener | None = None,
                 concurrency: int | None = None, referee_options: dict[str, Any] | None = None) -> None:
        self.loaded = loaded
        self.config = loaded.config
        self.directory = Path(directory)
        self.listener = listener
        self.on_start: Callable[[RunState], None] | None = None
        self.concurrency = concurrency or self.config.concurrency
        self.referee_options = dict(referee_options or {})  # e.g. timeouts, passed to each Referee
        self.schedule: list[ScheduledGame] = []  # known once run() has read or drawn it
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        self._next = 0
        self._pending: list[ScheduledGame] = []
        self._write_lock = threading.Lock()
        self.state = RunState(scheduled=0, players=[p.name for p in self.config.players])

    def run(self) -> RunState:
        """Plays every missing game (or until an SPRT decides); raises TournamentError on user errors."""
        from foxgeese.protocol.timecontrol import TimeControl

        self.directory.mkdir(parents=True, exist_ok=True)
        bots = bot_configs(self.loaded)
        for bot in bots.values():
            bot.check()  # a missing program fails here, before any game
        with DirectoryLock(self.directory):
            self.state.identity, self.schedule = prepare_directory(self.loaded, self.directory)
            self.state.scheduled = len(self.schedule)
            if self.on_start is not None:
                self.on_start(self.state)
            entries = read_journal(self.directory, repair=True)
            known = {game.id for game in self.schedule}
            done = game_entries(entries)
            strangers = [entry["id"] for entry in done if entry["id"] not in known]
            if strangers:
                raise JournalError(
                    f"{self.directory}: journal has games not in the schedule: {', '.join(strangers[:5])}"
                )
            done_ids = {entry["id"] for entry in done}
            self.state.games = list(done)
            self.state.journal = list(entries)
            self.state.done_before = len(done)
            if sprt_stop(entries) is None:
                self._pending = [game for game in self.schedule if game.id not in done_ids]
            time_control = TimeControl.parse(self.config.time_control)
            with JournalWriter(self.directory) as journal:
                workers = [threading.Thread(target=self._work, args=(bots, time_control, journal, index),
                                            name=f"referee-{index}", daemon=True)
                           for index in range(min(self.concurrency, len(self._pending)))]
                for worker in workers:
                    worker.start()
                try:
                    for worker in workers:
                        while worker.is_alive():
                            worker.join(0.2)
                except KeyboardInterrupt:
                    self.stop.set()
                    self.state.interrupted = True
                    print("stopping after the games in progress (Ctrl-C again to abandon them)", file=sys.stderr)
                    for worker in workers:
                        while worker.is_alive():
                            worker.join(0.2)
        if self.errors:
            raise self.errors[0]
        return self.state

    def _take(self) -> ScheduledGame | None:
        with self._write_lock:
            if self.stop.is_set() or self._next >= len(self._pending):
                return None
            game = self._pending[self._next]
            self._next += 1
            return game

    def _work(self, bots: dict[str, Any], time_control: Any, journal: JournalWriter, index: int) -> None:
        from foxgeese.engine import Side, get_variant
        from foxgeese.protocol.referee import Referee

        try:
            # Bot stderr files stay with the tournament; one folder per worker of this run.
            log_dir = self.directory / "logs" / f"run{os.getpid()}-w{index}"
            with Referee(log_dir=str(log_dir), **self.referee_options) as referee:
                while (game := self._take()) is not None:
                    with self.state.lock:
                        self.state.playing[game.id] = game
                    variant = get_variant(game.variant_id, **game.variant_options)
                    record = referee.play_game(
                        variant, {Side.PREDATOR: bots[game.predator], Side.PREY: bots[game.prey]},
                        time_control, opening=list(game.opening), max_plies=self.config.max_plies,
                        game_id=game.id,
                    )
                    self._finish(game, journal_entry(game, record), journal)
        except BaseException as error:  # surfaced by run(); the unfinished game stays unplayed
            self.errors.append(error)
            self.stop.set()

    def _finish(self, game: ScheduledGame, entry: dict[str, Any], journal: JournalWriter) -> None:
        with self._write_lock:
            journal.append(entry)
            with self.state.lock:
                self.state.games.append(entry)
                self.state.journal.append(entry)
                self.state.playing.pop(game.id, None)
            test = self.config.sprt
            if test is not None and not self.stop.is_set():
                first = self.config.players[0].name
                state = sprt(pair_scores(game_entries(self.state.games), first),
                             test.elo0, test.elo1, test.alpha, test.beta)
                if state.decision is not None:
                    stop = {"type": "sprt_stop", "after_games": len(self.state.games),
                            "first_player": first, **state.to_json()}
                    journal.append(stop)
                    with self.state.lock:
                        self.state.journal.append(stop)
                    self.stop.set()
        if self.listener is not None:
            self.listener(self.state, entry)


def run_tournament(loaded: LoadedConfig, directory: Path, listener: Listener | None = None) -> RunState:
    return Runner(loaded, directory, listener).run()


__all__ = ["Runner", "RunState", "run_tournament", "journal_entry", "TournamentError"]
