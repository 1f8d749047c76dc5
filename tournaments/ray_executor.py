"""The `ray` executor: each game slot is a Ray actor holding a referee and its bots.

The actor runs on whichever node of the cluster has a free CPU (`ray.num_cpus` per slot), starts
the bots there (so they use that machine's cores), and keeps them between games like a local
worker. The config's folder (or `ray.working_dir`) travels to every node as the actors' Ray
runtime environment `working_dir`: relative bot paths and `cwd`s work there as they do here.

A game's moves stream back to the runner as the actor method's generator yields them. When an
actor dies (its process killed, its node removed) the generator raises: the slot reports
`WorkerLost` and starts a new actor; the runner plays the game again, so it is journaled once.
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from foxgeese.tournaments.config import LoadedConfig, RayConfig
from foxgeese.tournaments.errors import TournamentError
from foxgeese.tournaments.executors import Emit, Executor, Slot, WorkerLost
from foxgeese.tournaments.worker import EventBatches, GameJob, GamePlayer, WorkerSetup, move_event, where

START_WAIT_S = 120.0  # a slot whose actor has no place in the cluster by then is an error at start
NOTICE_EVERY_S = 30.0  # how often a slot waiting for a place says so


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise TournamentError("executor 'ray' needs Ray: pip install 'foxgeese[ray]'") from None
    return ray


class _Actor:
    """The body of the Ray actor (wrapped by `ray.remote` in `actor_class`)."""

    def __init__(self, setup: WorkerSetup) -> None:
        self.player = GamePlayer(setup)

    def where(self) -> dict[str, Any]:
        import ray

        return {**where(), "node": ray.get_runtime_context().get_node_id()}

    def play(self, job: GameJob) -> Any:
        """Yields ("events", [move events]) while the game runs, then ("done", entry) or ("error", text)."""
        events = EventBatches()
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["done"] = self.player.play(job, events.put)
            except Exception as error:  # noqa: BLE001 - reported to the runner, which stops with it
                outcome["error"] = f"{type(error).__name__}: {error}"
            finally:
                events.close()

        thread = threading.Thread(target=run, name=f"game-{job.game['id']}", daemon=True)
        thread.start()
        while (batch := events.take()) is not None:
            yield ("events", [move_event(item) for item in batch])
            events.sent(batch)
        thread.join()
        yield next(iter(outcome.items()))

    def close(self) -> None:
        self.player.close()


@lru_cache(maxsize=1)
def actor_class() -> Any:
    ray = _ray()
    # No restarts and no retries: a lost game is the runner's to replay, on any slot.
    return ray.remote(max_restarts=0, max_task_retries=0)(_Actor)


def _lost_errors() -> tuple[type[BaseException], ...]:
    """The exceptions by which Ray says an actor or its node is gone."""
    from ray import exceptions

    names = ("RayActorError", "ActorDiedError", "ActorUnavailableError", "WorkerCrashedError",
             "NodeDiedError", "OwnerDiedError", "ObjectLostError")
    return tuple(getattr(exceptions, name) for name in names if hasattr(exceptions, name))


class RayExecutor(Executor):
    """Connects to the cluster (or starts a local one), ships the working folder, makes actors."""

    name = "ray"

    def __init__(self, loaded: LoadedConfig, address: str | None = None) -> None:
        ray = _ray()
        self.settings = loaded.config.ray or RayConfig()
        self.address = address or self.settings.address
        folder = loaded.base_dir / self.settings.working_dir if self.settings.working_dir else loaded.base_dir
        self.working_dir = folder.resolve()
        if not self.working_dir.is_dir():
            raise TournamentError(f"ray.working_dir {str(self.working_dir)!r} is not a folder")
        self.runtime_env: dict[str, Any] = {"working_dir": str(self.working_dir)}
        if self.settings.excludes:
            self.runtime_env["excludes"] = list(self.settings.excludes)
        # Where relative bot folders start on a node: the config's folder inside the shipped copy
        # (the actor's current folder), or, outside it, the same absolute path on every machine.
        try:
            self.base_on_node = str(Path(".") / loaded.base_dir.resolve().relative_to(self.working_dir))
        except ValueError:
            self.base_on_node = str(loaded.base_dir.resolve())
        self._owns = not ray.is_initialized()  # else the caller's ray.init set the runtime environment
        if self._owns:
            _check_reachable(self.address)
            try:
                # A local folder can travel only as the job's runtime environment, set here.
                ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING,
                         namespace="foxgeese", runtime_env=self.runtime_env)
            except (ConnectionError, ValueError, RuntimeError) as error:
                raise TournamentError(f"cannot reach the Ray cluster at {self.address or 'RAY_ADDRESS/local'}: "
                                      f"{str(error).splitlines()[0]}; check the address (HEAD:6379, or auto on "
                                      "a node of the cluster)") from None
        self._slots: list[ActorSlot] = []

    def slots(self, count: int, setup: Callable[[int, int], WorkerSetup]) -> list[Slot]:
        def ray_setup(index: int, generation: int) -> WorkerSetup:
            # Bots are resolved from the shipped folder (the actor's cwd); logs stay on that machine.
            base = setup(index, generation)
            return WorkerSetup(base.players, self.base_on_node, None, base.referee_options)

        self._slots = [ActorSlot(index, ray_setup, self) for index in range(count)]
        try:
            for slot in self._slots:
                slot.start()
            for slot in self._slots:
                if not slot.await_ready(START_WAIT_S, lambda: False):
                    raise TournamentError(
                        f"the Ray cluster found no place for game slot {slot.index + 1} of {count} within "
                        f"{START_WAIT_S:.0f}s (each needs {self.settings.num_cpus:g} CPU); lower --concurrency")
        except BaseException:
            self.close()
            raise
        return list(self._slots)

    def abort(self) -> None:
        for slot in self._slots:
            slot._kill()  # the bots see their referee gone and exit
        self.close()

    def close(self) -> None:
        for slot in self._slots:
            slot.close()
        self._slots = []
        if self._owns:
            _ray().shutdown()
            self._owns = False


def _check_reachable(address: str | None) -> None:
    """Ray retries an unreachable head for minutes: a HOST:PORT that refuses is an error at once."""
    if not address or address in ("auto", "local") or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise TournamentError(f"Ray address {address!r}: give HOST:PORT of the cluster's head (e.g. 10.0.0.5:6379) "
                              "or auto")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as error:
        raise TournamentError(f"cannot reach the Ray cluster's head at {address} ({error.strerror or error}); "
                              "start it with `ray start --head` or check the address") from None


class ActorSlot(Slot):
    def __init__(self, index: int, setup: Callable[[int, int], WorkerSetup], executor: RayExecutor) -> None:
        self.index = index
        self.setup = setup
        self.executor = executor
        self.generation = 0
        self.actor: Any = None
        self._ready: Any = None
        self._where: dict[str, Any] = {}

    def start(self) -> None:
        self.actor = actor_class().options(num_cpus=self.executor.settings.num_cpus).remote(
            self.setup(self.index, self.generation))
        self._ready = self.actor.where.remote()

    def await_ready(self, limit_s: float | None, give_up: Callable[[], bool]) -> bool:
        """Waits for the actor to be placed and started; False on `limit_s` or `give_up()`."""
        ray = _ray()
        started = time.monotonic()
        noticed = started
        while True:
            done, _ = ray.wait([self._ready], timeout=1.0)
            if done:
                try:
                    self._where = {**ray.get(self._ready), "slot": self.index}
                except _lost_errors() as error:
                    raise TournamentError(f"Ray game slot {self.index} could not start: "
                                          f"{str(error).splitlines()[0]}") from None
                return True
            now = time.monotonic()
            if give_up() or (limit_s is not None and now - started > limit_s):
                self._kill()
                return False
            if now - noticed > NOTICE_EVERY_S:
                noticed = now
                print(f"foxgeese: game slot {self.index} is waiting for a free CPU in the Ray cluster",
                      file=sys.stderr)

    def where(self) -> dict[str, Any]:
        return dict(self._where)

    def play(self, job: GameJob, emit: Emit) -> dict[str, Any]:
        ray = _ray()
        try:
            for reference in self.actor.play.remote(job):
                kind, payload = ray.get(reference)
                if kind == "events":
                    emit(payload)
                elif kind == "done":
                    return payload
                else:
                    raise TournamentError(f"game {job.game['id']}: {payload}")
        except _lost_errors() as error:
            raise WorkerLost(f"Ray actor {self._where.get('pid')} on node "
                             f"{str(self._where.get('node', '?'))[:12]} died: {type(error).__name__}") from None
        raise WorkerLost(f"Ray actor {self._where.get('pid')} ended the game without a result")

    def restart(self, give_up: Callable[[], bool]) -> bool:
        self._kill()
        self.generation += 1
        self.start()
        return self.await_ready(None, give_up)

    def _kill(self) -> None:
        if self.actor is not None:
            try:
                _ray().kill(self.actor, no_restart=True)
            except Exception:  # noqa: BLE001 - already gone with its node
                pass
            self.actor = None

    def close(self) -> None:
        """Lets the actor's referee end its bots, then ends the actor."""
        if self.actor is None:
            return
        ray = _ray()
        try:
            ray.get(self.actor.close.remote(), timeout=15)
        except Exception:  # noqa: BLE001 - a dead or hung actor: killed below
            pass
        self._kill()
