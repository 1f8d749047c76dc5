"""What the runner and its workers say to each other: typed messages, one tagged union each way.

The runner sends a worker its `WorkerSetup` once, then a `GameJob` per game and `Quit` at the end;
the worker answers `Ready` (where it runs) or `Failed`, then per game `Events` (move events,
already encoded for the stream, and the bots' process ids when they changed) and at its end `Done`
(the game's journal entry) or `Failed`. A local worker's messages cross a socket as msgpack
(`encode`, `decode_from_worker`, `decode_to_worker`: decoding checks every field); a Ray actor's
are the same objects, which Ray carries itself. Everything here is plain data: on Ray the worker
may be another machine, where bot commands are built afresh from the player definitions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from foxgeese.protocol.botconfig import CMD_PREFIX, BotConfig
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.schedule import ScheduledGame


class PlayerDef(msgspec.Struct, frozen=True):
    """A player as the config gives it; `cwd` is relative to the worker's base folder (or absolute)."""

    name: str
    spec: str | None = None
    command: tuple[str, ...] = ()
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    sandbox: bool = False
    transport: str = "auto"

    def bot_config(self, base_dir: Path) -> BotConfig:
        """The bot as this machine launches it: a `command` or `cmd:` bot runs in `cwd`, resolved
        from `base_dir` (the config's folder, or its copy on a Ray node), so relative paths mean the
        same wherever the runner was started."""
        workdir = (base_dir / self.cwd) if self.cwd else base_dir
        if self.spec is not None:
            cwd = workdir.resolve() if self.spec.strip().startswith(CMD_PREFIX) else None
            return BotConfig.from_spec(self.spec, name=self.name, sandbox=self.sandbox, cwd=cwd,
                                       transport=self.transport)
        return BotConfig(self.name, list(self.command), cwd=workdir.resolve(), env=dict(self.env),
                         sandbox=self.sandbox, transport=self.transport)


class GameJob(msgspec.Struct, frozen=True, tag="job"):
    """One game for a worker: the scheduled game, its seed and the rules of play."""

    game: ScheduledGame
    seed: int
    time_control: str
    max_plies: int | None
    config_hash: str
    adjudicate: str | None = None  # "tables": end a game once a solved table proves its result
    adjudicate_from_ply: int | None = None  # ... but not before this ply


class WorkerSetup(msgspec.Struct, tag="setup"):
    """What a worker needs once: the players, where relative bot folders start, where logs go."""

    players: list[PlayerDef]
    base_dir: str
    log_dir: str | None
    referee_options: dict[str, Any] = {}  # Referee keyword arguments (timeouts, margins), as a caller gives them
    check_job: GameJob | None = None  # a game of the tournament, for `GamePlayer.check_bots`


class Quit(msgspec.Struct, tag="quit"):
    """No more games: the worker closes its referee (and so its bots) and exits."""


class Where(msgspec.Struct, omit_defaults=True):
    """Which worker plays a slot's games, for `game_started` events and the operator's eye: its host,
    process and working folder (on Ray the node's copy of the shipped folder), its slot, the CPU
    it is kept on (local), its node (Ray)."""

    host: str
    pid: int
    cwd: str
    slot: int | None = None
    cpu: int | None = None
    node: str | None = None


class BotFailure(msgspec.Struct):
    """A bot that did not start, or broke the protocol, in a worker's check: its log's end."""

    name: str
    reason: str
    log: str


class Ready(msgspec.Struct, tag="ready"):
    """The worker is up; on Ray also the bots that failed their check there."""

    where: Where
    failures: list[BotFailure] = []


class Events(msgspec.Struct, tag="events"):
    """Move events of the game in progress (encoded for the stream), and the worker's bot
    processes when they changed (so the runner can end them if the worker is killed)."""

    moves: list[str]
    pids: list[int] | None = None


class Done(msgspec.Struct, tag="done"):
    """A game's end: its journal entry, the worker's bot processes now, the game's last events, and
    (from Ray) the end of the forfeiting bot's log by side, to be kept with the tournament."""

    entry: GameEntry
    pids: list[int] = []
    moves: list[str] = []
    logs: dict[str, str] = {}


class Failed(msgspec.Struct, tag="error"):
    """The worker could not start, or could not play a job: the runner stops with `text`."""

    text: str


ToWorker = WorkerSetup | GameJob | Quit
FromWorker = Ready | Events | Done | Failed

_encoder = msgspec.msgpack.Encoder()
_from_worker = msgspec.msgpack.Decoder(FromWorker)
_to_worker = msgspec.msgpack.Decoder(ToWorker)


def encode(message: ToWorker | FromWorker) -> bytes:
    return _encoder.encode(message)


def decode_from_worker(data: bytes) -> FromWorker:
    return _from_worker.decode(data)


def decode_to_worker(data: bytes) -> ToWorker:
    return _to_worker.decode(data)
