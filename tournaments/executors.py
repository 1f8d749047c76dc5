"""Where games are played: slots, each one worker that plays one game at a time.

The runner keeps the schedule, the journal and the reports; an executor only gives it slots. A
slot's `play(job, emit)` returns the game's journal entry, or raises `WorkerLost` when its worker
died mid-game (killed, out of memory, its machine gone): the runner then plays that game again
on whichever slot is free, and the slot starts a new worker with `restart()`.

`local` (this module): one worker process per slot, so N slots use N cores; each process keeps
one referee and its bot processes between games (tournaments/worker.py). `ray`: ray_executor.py.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from multiprocessing.connection import wait
from typing import Any, Callable

import psutil

from foxgeese.tournaments.errors import TournamentError
from foxgeese.tournaments.worker import GameJob, WorkerSetup, serve_pipe

Emit = Callable[[dict[str, Any]], None]
START_TIMEOUT_S = 120.0  # a worker process that has not said ready by then is broken


class WorkerLost(Exception):
    """The worker playing a game died before the game ended; the game is to be played again."""


class Slot:
    """One place where one game at a time is played (see the module doc)."""

    def where(self) -> dict[str, Any]:
        """Which worker plays this slot's games (host, pid; node id on Ray), for events."""
        raise NotImplementedError

    def play(self, job: GameJob, emit: Emit) -> dict[str, Any]:
        raise NotImplementedError

    def restart(self, give_up: Callable[[], bool]) -> bool:
        """Starts a new worker after a loss; False when `give_up()` came true first."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class Executor:
    """Makes the slots of one run and ends everything they started on `close`."""

    name = "?"

    def slots(self, count: int, setup: Callable[[int, int], WorkerSetup]) -> list[Slot]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalExecutor(Executor):
    """One worker process per slot on this machine."""

    name = "local"

    def __init__(self) -> None:
        self._slots: list[ProcessSlot] = []

    def slots(self, count: int, setup: Callable[[int, int], WorkerSetup]) -> list[Slot]:
        self._slots = [ProcessSlot(index, setup) for index in range(count)]
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


class ProcessSlot(Slot):
    """A worker process (spawned, so it shares no sockets or threads with the runner)."""

    def __init__(self, index: int, setup: Callable[[int, int], WorkerSetup]) -> None:
        self.index = index
        self.setup = setup
        self.generation = 0
        self.process: Any = None
        self.connection: Any = None
        self.bot_pids: list[int] = []
        self._where: dict[str, Any] = {}

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe(duplex=True)
        self.process = context.Process(target=serve_pipe, args=(theirs, self.setup(self.index, self.generation)),
                                       name=f"foxgeese-worker-{self.index}", daemon=True)
        self.process.start()
        theirs.close()
        self.connection = ours
        self.bot_pids = []

    def await_ready(self) -> None:
        message = self._receive(START_TIMEOUT_S)
        if message is None:
            raise TournamentError(f"worker {self.index} did not start (exit status {self.process.exitcode})")
        if message[0] == "error":
            raise TournamentError(f"worker {self.index} could not start: {message[1]}")
        self._where = {**message[1], "slot": self.index}

    def where(self) -> dict[str, Any]:
        return dict(self._where)

    def _receive(self, timeout: float | None = None) -> Any:
        """The next message, or None when the worker process died (its pipe closed)."""
        ready = wait([self.connection, self.process.sentinel], timeout)
        if self.connection in ready:
            try:
                return self.connection.recv()
            except (EOFError, OSError):
                return None
        return None

    def play(self, job: GameJob, emit: Emit) -> dict[str, Any]:
        try:
            self.connection.send(job)
        except (OSError, ValueError):
            raise WorkerLost(self._death()) from None
        while True:
            message = self._receive()
            if message is None:
                raise WorkerLost(self._death())
            kind = message[0]
            if kind == "events":
                for item in message[1]:
                    if isinstance(item, tuple):  # ("pids", [...]): the bots this worker runs now
                        self.bot_pids = item[1]
                    else:
                        emit(item)
            elif kind == "done":
                self.bot_pids = message[2]
                return message[1]
            elif kind == "error":
                raise TournamentError(f"game {job.game['id']}: {message[1]}")

    def _death(self) -> str:
        """Reaps a dead worker and ends the bots it leaves behind; says how it died."""
        self.process.join(5)
        code = self.process.exitcode
        self._end_orphans()
        if code is not None and code < 0:
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

    def close(self) -> None:
        """Asks the worker to quit (its referee ends its bots), then makes sure."""
        if self.process is None:
            return
        if self.process.is_alive():
            try:
                self.connection.send(None)
            except (OSError, ValueError):
                pass
            self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
            self._end_orphans()
        self.connection.close()
        self.process = None
