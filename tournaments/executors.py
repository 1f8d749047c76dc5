"""Where games are played: slots, each one worker that plays one game at a time.

The runner keeps the schedule, the journal and the reports; an executor only gives it slots. A
slot's `play(job, emit)` returns the game's journal entry, or raises `WorkerLost` when its worker
died mid-game (killed, out of memory, its machine gone): the runner then plays that game again
on whichever slot is free, and the slot starts a new worker with `restart()`.

`local` (this module): one worker process per slot, so N slots use N cores; each process keeps
one referee and its bot processes between games (tournaments/worker.py). With `affinity` "auto"
and no more slots than CPUs, slot i's worker and everything it starts (bots, ZeroMQ threads) run
on the i-th CPU: a game is a ping-pong between the referee and a bot, and every hand-off that
stays on one CPU skips waking another (costly on a virtual machine), and the slots do not crowd
each other. `ray`: ray_executor.py.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection, wait

import msgspec
import psutil

from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.errors import TournamentError
from foxgeese.tournaments.messages import (
    Done,
    Events,
    Failed,
    FromWorker,
    GameJob,
    Quit,
    Ready,
    Where,
    WorkerSetup,
    decode_from_worker,
    encode,
)

Emit = Callable[[list[str]], None]  # hands the runner a batch of move events (`encoded` by the worker)
START_TIMEOUT_S = 120.0  # a worker process that has not said ready by then is broken


class WorkerLost(Exception):
    """The worker playing a game died before the game ended; the game is to be played again."""


class Slot:
    """One place where one game at a time is played (see the module doc)."""

    def where(self) -> Where:
        """Which worker plays this slot's games (host, pid; node id on Ray), for events."""
        raise NotImplementedError

    def play(self, job: GameJob, emit: Emit) -> GameEntry:
        raise NotImplementedError

    def restart(self, give_up: Callable[[], bool]) -> bool:
        """Starts a new worker after a loss; False when `give_up()` came true first."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class Executor:
    """Makes the slots of one run and ends everything they started on `close`.

    `slots` returns the slots ready now. An executor whose place grows (Ray: CPUs that free up, a
    node that joins) hands each later slot to `on_new_slot`, set by the runner, which returns
    False when it has no use for it any more (the executor then closes it).
    """

    name = "?"
    on_new_slot: Callable[[Slot], bool] | None = None

    def slots(self, count: int, setup: Callable[[int, int], WorkerSetup], grow: bool = False) -> list[Slot]:
        """`count` slots (fewer when they do not all fit yet); `grow`: more as room appears."""
        raise NotImplementedError

    def auto_slots(self) -> int:
        """How many slots `--concurrency auto` asks for: one per CPU."""
        return usable_cpus()

    def close(self) -> None:
        pass

    def abort(self) -> None:
        """Ends every worker now, games in progress and all (a second Ctrl-C)."""
        self.close()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalExecutor(Executor):
    """One worker process per slot on this machine; `affinity` "auto" or "off" (see the module doc)."""

    name = "local"

    def __init__(self, affinity: str = "auto") -> None:
        self.affinity = affinity
        self._slots: list[ProcessSlot] = []

    def slots(self, count: int, setup: Callable[[int, int], WorkerSetup], grow: bool = False) -> list[Slot]:
        cpus = slot_cpus(count) if self.affinity == "auto" else [None] * count
        self._slots = [ProcessSlot(index, setup, cpu) for index, cpu in zip(range(count), cpus)]
        try:
            for slot in self._slots:
                slot.start()
            for slot in self._slots:
                slot.await_ready()
        except BaseException:
            self.close()
            raise
        return list(self._slots)

    def close(self) -> None:
        for slot in self._slots:
            slot.close()

    def abort(self) -> None:
        for slot in self._slots:
            slot.kill()


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this system (macOS)
        return os.cpu_count() or 1


def slot_cpus(count: int) -> list[int | None]:
    """The CPU of each of `count` slots: one each while they fit the CPUs this process may use
    (in order), else None for all (more slots than CPUs: the OS spreads them best)."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this system (macOS)
        return [None] * count
    return list(allowed[:count]) if count <= len(allowed) else [None] * count


class ProcessSlot(Slot):
    """A worker process: `python -m foxgeese.tournaments.worker`, talking over a socket pair.

    A fresh interpreter, not a fork (the runner has threads and sockets) and not multiprocessing's
    spawn (which would re-import the caller's main script). Its death shows as the end of the pipe.
    """

    def __init__(self, index: int, setup: Callable[[int, int], WorkerSetup], cpu: int | None = None) -> None:
        self.index = index
        self.setup = setup
        self.cpu = cpu  # the CPU its worker, and so its bots, are kept on (None: anywhere)
        self.generation = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.connection: Connection | None = None
        self.bot_pids: list[int] = []
        self._where = Where(host="", pid=0, cwd="")

    def start(self) -> None:
        ours, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "foxgeese.tournaments.worker", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
            )
        finally:
            theirs.close()
        if self.cpu is not None:
            try:  # before it starts its bots and threads, which inherit it
                os.sched_setaffinity(self.process.pid, {self.cpu})
            except OSError:
                pass  # the CPU was taken away meanwhile (a cgroup change): run anywhere
        self.connection = Connection(ours.detach())
        self.bot_pids = []
        self.connection.send_bytes(encode(self.setup(self.index, self.generation)))

    def await_ready(self) -> None:
        assert self.process is not None
        message = self._receive(START_TIMEOUT_S)
        if message is None:
            self.process.kill()
            raise TournamentError(f"worker {self.index} did not start (exit status {self.process.wait()})")
        if isinstance(message, Failed):
            raise TournamentError(f"worker {self.index} could not start: {message.text}")
        if not isinstance(message, Ready):
            raise TournamentError(f"worker {self.index} said {type(message).__name__} before it was ready")
        self._where = msgspec.structs.replace(message.where, slot=self.index, cpu=self.cpu)

    def where(self) -> Where:
        return self._where

    def _receive(self, timeout: float | None = None) -> FromWorker | None:
        """The next message, or None when the worker process died (its end of the pipe closed)."""
        assert self.connection is not None
        if timeout is not None and not wait([self.connection], timeout):  # else a plain blocking recv
            return None
        try:
            return decode_from_worker(self.connection.recv_bytes())
        except (EOFError, OSError):
            return None

    def play(self, job: GameJob, emit: Emit) -> GameEntry:
        assert self.connection is not None
        try:
            self.connection.send_bytes(encode(job))
        except (OSError, ValueError):
            raise WorkerLost(self._death()) from None
        while True:
            message = self._receive()
            if message is None:
                raise WorkerLost(self._death())
            if isinstance(message, Events):
                if message.pids is not None:  # the bots this worker runs now
                    self.bot_pids = message.pids
                if message.moves:
                    emit(message.moves)
            elif isinstance(message, Done):
                self.bot_pids = message.pids
                if message.moves:
                    emit(message.moves)
                return message.entry
            elif isinstance(message, Failed):
                raise TournamentError(f"game {job.game.id}: {message.text}")

    def _death(self) -> str:
        """Reaps a dead worker and ends the bots it leaves behind; says how it died."""
        assert self.process is not None
        try:
            code = self.process.wait(5)
        except subprocess.TimeoutExpired:  # its pipe broke but it lives on: it is no use now
            self.process.kill()
            code = self.process.wait()
        self._end_orphans()
        if code < 0:
            try:
                return f"worker process {self.process.pid} killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"worker process {self.process.pid} killed by signal {-code}"
        return f"worker process {self.process.pid} exited with status {code}"

    def _end_orphans(self) -> None:
        """Bots run in sessions of their own, so a killed worker's bots live on: end their groups."""
        victims = []
        for pid in self.bot_pids:
            try:
                victims.append(psutil.Process(pid))
                os.killpg(pid, signal.SIGKILL)
            except (psutil.Error, ProcessLookupError, PermissionError):
                pass
        psutil.wait_procs(victims, timeout=5)
        self.bot_pids = []

    def restart(self, give_up: Callable[[], bool]) -> bool:
        self.close()
        self.generation += 1
        self.start()
        self.await_ready()
        return True

    def kill(self) -> None:
        """Ends the worker and its bots at once (their game is lost)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
            self._end_orphans()

    def close(self) -> None:
        """Asks the worker to quit (its referee ends its bots), then makes sure."""
        if self.process is None or self.connection is None:
            return
        if self.process.poll() is None:
            try:
                self.connection.send_bytes(encode(Quit()))
            except (OSError, ValueError):
                pass
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                self._end_orphans()
        self.connection.close()
        self.process = None
        self.connection = None
