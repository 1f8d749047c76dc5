"""The `ray` executor: each game slot is a Ray actor holding a referee and its bots.

The actor runs on whichever node of the cluster has a free CPU (`ray.num_cpus` per slot), starts
the bots there (so they use that machine's cores), and keeps them between games like a local
worker. The config's folder (or `ray.working_dir`) travels to every node as the actors' Ray
runtime environment `working_dir`: relative bot paths and `cwd`s start in its copy of the
config's folder, as they start in the config's folder locally.

Before a slot plays, its actor starts every bot of the config and has it say hello (one ply per
pair, `GamePlayer.check_bots`). A node where a bot fails that check, or later fails to show up
for a game and then the check, or forfeits far more games than the other nodes, is taken out of
rotation (ray_nodes.NodeHealth): its actors are ended and placed again with a label selector that
excludes it, and its game is played elsewhere. A failed bot's log comes back to DIR/logs/.

Slots are placed by Ray: those that fit start at once, the others wait in Ray's queue and join
the run when CPUs free up or a node joins (`Executor.on_new_slot`); with `--concurrency auto`
the executor asks for one more slot whenever the cluster grows.

A game's moves stream back to the runner as the actor method's generator yields them. When an
actor dies (its process killed, its node removed) the generator raises, or, should it stay quiet,
the cluster reports the actor's node dead: the slot reports `WorkerLost` and starts a new actor;
the runner plays the game again, so it is journaled once.
"""

from __future__ import annotations

import logging
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from foxgeese.protocol.match import MoveEvent
from foxgeese.protocol.record import RefereeTermination
from foxgeese.tournaments.config import LoadedConfig, RayConfig
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.errors import TournamentError
from foxgeese.tournaments.executors import Emit, Executor, Slot, WorkerLost
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
)
from foxgeese.tournaments.ray_nodes import NodeHealth, RayLog, check_address
from foxgeese.tournaments.worker import EventBatches, GamePlayer, move_event, where

START_WAIT_S = 120.0  # a run none of whose slots found a place in the cluster by then is an error
SETTLE_S = 2.0  # after the first slot is ready, how long the others get before the run starts without them
POLL_S = 1.0  # how often waiting slots are looked at (and, with `auto`, the cluster's size)
CHECK_S = 120.0  # a check of the bots (a launch and a hello each) that takes longer is a lost worker
STREAM_CHECK_S = 2.0  # a game's stream quiet this long has its node's health looked at
MAX_SLOTS = 1024  # `--concurrency auto` never asks for more
NODE_LABEL = "ray.io/node-id"  # every node's own label (Ray >= 2.49)
# Games ended by a bot's death or absence: the actor checks its bots again before they count, since
# a node going down may end the bots before the actor that would report the node's loss.
MACHINE_SUSPECTS = frozenset({RefereeTermination.CRASH.value, RefereeTermination.NO_SHOW.value})


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise TournamentError("executor 'ray' needs Ray: pip install 'foxgeese[ray]'") from None
    return ray


class _Actor:
    """The body of the Ray actor (wrapped by `ray.remote` in `actor_class`)."""

    def __init__(self, setup: WorkerSetup) -> None:
        self.setup = setup
        self.player = GamePlayer(setup)

    def start_up(self) -> Ready:
        """Where this actor runs, and the bots that failed to start here (see the module doc)."""
        import ray

        check = self.setup.check_job
        place = msgspec.structs.replace(where(), node=ray.get_runtime_context().get_node_id())
        return Ready(place, self.player.check_bots(check) if check is not None else [])

    def check_bots(self) -> list[BotFailure]:
        check = self.setup.check_job
        return self.player.check_bots(check) if check is not None else []

    def play(self, job: GameJob) -> Iterator[FromWorker]:
        """Yields `Events` while the game runs, then `Done` (with the forfeiting bot's log by side)
        or `Failed`."""
        events: EventBatches[MoveEvent] = EventBatches()
        outcome: list[FromWorker] = []

        def run() -> None:
            try:
                entry = self.player.play(job, events.put)
                outcome.append(Done(entry, logs=self.player.forfeit_logs(entry)))
            except Exception as error:  # noqa: BLE001 - reported to the runner, which stops with it
                outcome.append(Failed(f"{type(error).__name__}: {error}"))
            finally:
                events.close()

        thread = threading.Thread(target=run, name=f"game-{job.game.id}", daemon=True)
        thread.start()
        while (batch := events.take()) is not None:
            yield Events([move_event(item) for item in batch])
            events.sent(batch)
        thread.join()
        yield outcome[0]

    def close(self) -> None:
        self.player.close()


def actor_class() -> Any:
    """The Ray actor class of `_Actor` (each executor makes its own and keeps it)."""
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

    def __init__(self, loaded: LoadedConfig, address: str | None = None, directory: Path | None = None) -> None:
        ray = _ray()
        self.settings = loaded.config.ray or RayConfig()
        self.address = address or self.settings.address
        folder = loaded.base_dir / self.settings.working_dir if self.settings.working_dir else loaded.base_dir
        self.working_dir = folder.resolve()
        if not self.working_dir.is_dir():
            raise TournamentError(f"ray.working_dir {str(self.working_dir)!r} is not a folder")
        # Where relative bot folders start on a node: the config's folder inside the shipped copy
        # (the actor's current folder), or, outside it, the same absolute path on every machine.
        try:
            self.base_on_node = str(Path(".") / loaded.base_dir.resolve().relative_to(self.working_dir))
        except ValueError:
            self.base_on_node = str(loaded.base_dir.resolve())
        self.runtime_env: dict[str, Any] = {"working_dir": str(self.working_dir)}
        if self.settings.excludes:
            self.runtime_env["excludes"] = list(self.settings.excludes)
        self.actor_class = actor_class()
        self.health = NodeHealth(directory.resolve() / "logs" if directory is not None else None)
        self.log = RayLog(directory / "ray.log" if directory is not None else None)
        self._owns = not ray.is_initialized()  # else the caller's ray.init set the runtime environment
        if self._owns:
            check_address(self.address)
            self.log.start()
            on_sigterm = signal.getsignal(signal.SIGTERM)
            try:
                with self.log.quiet():  # a local cluster's start, or a connect, says much on stderr
                    # A local folder can travel only as the job's runtime environment, set here.
                    ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING,
                             namespace="foxgeese", runtime_env=self.runtime_env, configure_logging=False)
            except (ConnectionError, ValueError, RuntimeError) as error:
                self.log.close()
                raise TournamentError(f"cannot reach the Ray cluster at {self.address or 'RAY_ADDRESS/local'}: "
                                      f"{str(error).splitlines()[0]}; check the address (HEAD:6379, or auto on "
                                      "a node of the cluster)") from None
            finally:
                # Ray's own SIGTERM handler exits only after the games in progress (minutes); the
                # journal is durable game by game, so SIGTERM ends the runner at once, as locally.
                if threading.current_thread() is threading.main_thread() and on_sigterm is not None:
                    signal.signal(signal.SIGTERM, on_sigterm)
        self._slots: list[ActorSlot] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._watcher: threading.Thread | None = None
        self._setup: Callable[[int, int], WorkerSetup] | None = None
        # The cluster's live nodes as last looked at, shared by every slot whose stream is quiet.
        self._nodes_lock = threading.Lock()
        self._alive_nodes: set[str] = set()
        self._nodes_seen_at = -math.inf

    def auto_slots(self) -> int:
        return max(1, min(MAX_SLOTS, self._room()))

    def _room(self) -> int:
        """Slots the cluster's nodes in rotation hold in all."""
        cpus = sum(node.get("Resources", {}).get("CPU", 0) for node in _ray().nodes()
                   if node.get("Alive") and not self.health.is_out(node["NodeID"]))
        return math.floor(cpus / self.settings.num_cpus + 1e-9)

    def _node_setup(self, index: int, generation: int) -> WorkerSetup:
        # Bots are resolved from the shipped folder (the actor's cwd); their logs stay on that
        # machine, a failed bot's comes back (see the module doc).
        assert self._setup is not None
        base = self._setup(index, generation)
        return WorkerSetup(base.players, self.base_on_node, None, base.referee_options, base.check_job)

    def slots(self, count: int, setup: Callable[[int, int], WorkerSetup], grow: bool = False) -> list[Slot]:
        self._setup = setup
        try:
            for _ in range(count):
                self._new_slot()
            ready = self._first_ready(count)
        except BaseException:
            self.close()
            raise
        self._watcher = threading.Thread(target=self._watch, args=(grow,), name="ray-slots", daemon=True)
        self._watcher.start()
        return ready

    def _new_slot(self) -> ActorSlot:
        with self._lock:
            slot = ActorSlot(len(self._slots), self._node_setup, self)
            self._slots.append(slot)
        slot.start()
        return slot

    def _first_ready(self, count: int) -> list[Slot]:
        """The slots ready once the first is, and the others had SETTLE_S more; says when some wait."""
        started = time.monotonic()
        first = None
        while True:
            ready = [slot for slot in self._slots if slot.poll(0.0 if first else POLL_S / max(1, count))]
            now = time.monotonic()
            if ready and first is None:
                first = now
            if len(ready) == count or (first is not None and now - first >= SETTLE_S):
                break
            if first is None and now - started > START_WAIT_S:
                raise TournamentError(
                    f"the Ray cluster found no place for any of the {count} game slots within {START_WAIT_S:.0f}s "
                    f"(each needs {self.settings.num_cpus:g} CPU{self._out_text()}); add nodes or lower ray.num_cpus")
            if first is None and self._all_out():
                raise TournamentError("every node of the Ray cluster was taken out of rotation (see the lines above)")
            time.sleep(0.05)
        for slot in ready:
            slot.taken = True
        if len(ready) < count:
            print(f"foxgeese: the Ray cluster has room for {len(ready)} of the {count} game slots asked now (each "
                  f"needs {self.settings.num_cpus:g} CPU); playing on {len(ready)}, the others start when CPUs "
                  "free up or nodes join", file=sys.stderr)
        return list(ready)

    def _out_text(self) -> str:
        out = self.health.excluded()
        return f"; {len(out)} node(s) out of rotation" if out else ""

    def node_alive(self, node: str) -> bool:
        """Whether the cluster counts `node` alive. One look at its nodes serves every slot for
        STREAM_CHECK_S: quiet streams on hundreds of slots must not each ask the cluster."""
        with self._nodes_lock:
            now = time.monotonic()
            if now - self._nodes_seen_at >= STREAM_CHECK_S:
                self._alive_nodes = {entry["NodeID"] for entry in _ray().nodes() if entry.get("Alive")}
                self._nodes_seen_at = now
            return node in self._alive_nodes

    def _all_out(self) -> bool:
        alive = [node["NodeID"] for node in _ray().nodes() if node.get("Alive")]
        return bool(alive) and all(self.health.is_out(node) for node in alive)

    def _watch(self, grow: bool) -> None:
        """Hands slots that found a place later to the runner; with `grow`, asks for more as the
        cluster grows. Ends with the executor, or when the runner needs no more slots."""
        while not self._closing.wait(POLL_S):
            try:
                with self._lock:
                    waiting = [slot for slot in self._slots if not slot.taken and slot.actor is not None]
                for slot in waiting:
                    if self._closing.is_set() or not slot.poll(0.0):
                        continue
                    slot.taken = True
                    if self.on_new_slot is None or not self.on_new_slot(slot):
                        self._close_spare(slot)
                        return
                    print(f"foxgeese: game slot {slot.index + 1} joined on {slot.where().host} "
                          f"({str(slot.where().node)[:12]})", file=sys.stderr)
                if grow:
                    for _ in range(min(MAX_SLOTS, self._room()) - len(self._slots)):
                        self._new_slot()
            except TournamentError as error:
                print(f"foxgeese: {error}", file=sys.stderr)
                return
            except Exception as error:  # noqa: BLE001 - the cluster went away: the slots playing say so
                if self._closing.is_set():
                    return
                print(f"foxgeese: no more Ray game slots are started: {type(error).__name__}: {error}",
                      file=sys.stderr)
                return

    def _close_spare(self, refused: ActorSlot) -> None:
        """The runner needs no more slots: `refused` and every slot still waiting end now, so that
        their CPUs are free for a slot replacing a lost worker (else that one waits for ever)."""
        with self._lock:
            spare = [slot for slot in self._slots if slot is refused or not slot.taken]
        for slot in spare:
            slot.close()

    def abort(self) -> None:
        self._closing.set()
        for slot in list(self._slots):
            slot._kill()  # the bots see their referee gone and exit
        self.close()

    def close(self) -> None:
        self._closing.set()
        if self._watcher is not None and self._watcher is not threading.current_thread():
            self._watcher.join(15)
        for slot in list(self._slots):
            slot.close()
        self._slots = []
        if self._owns:
            with self.log.quiet():
                _ray().shutdown()
            self.log.close()
            self._owns = False


class ActorSlot(Slot):
    def __init__(self, index: int, setup: Callable[[int, int], WorkerSetup], executor: RayExecutor) -> None:
        self.index = index
        self.setup = setup
        self.executor = executor
        self.health = executor.health
        self.generation = 0
        self.actor: Any = None
        self.taken = False  # handed to the runner
        self._ready: Any = None
        self._checked = False  # the actor of this generation is placed and its bots passed their check
        self._where = Where(host="?", pid=0, cwd="")

    def start(self) -> None:
        options: dict[str, Any] = {"num_cpus": self.executor.settings.num_cpus}
        out = self.health.excluded()
        if out:
            options["label_selector"] = {NODE_LABEL: f"!in({','.join(out)})"}
        self.actor = self.executor.actor_class.options(**options).remote(self.setup(self.index, self.generation))
        self._ready = self.actor.start_up.remote()
        self._checked = False

    def poll(self, timeout_s: float) -> bool:
        """True once the actor is placed and its bots passed their check; an actor on a node whose
        bots failed takes that node out of rotation and is placed again elsewhere."""
        ray = _ray()
        if self.actor is None:
            return False
        if self._checked:
            return True
        done, _ = ray.wait([self._ready], timeout=timeout_s)
        if not done:
            return False
        try:
            found = ray.get(self._ready)
        except _lost_errors():  # its node died as it started: place it again
            self._replace()
            return False
        self._where = msgspec.structs.replace(found.where, slot=self.index)
        if found.failures:
            self._take_out(found.failures)
            self._replace()
            return False
        self._checked = True
        return True

    def _take_out(self, failures: list[BotFailure], game_id: str | None = None) -> str:
        """Takes this slot's node out of rotation for its bots' failures; brings their logs home."""
        node, host = str(self._where.node), self._where.host
        failures = sorted(failures, key=lambda failure: failure.name)
        paths = [self.health.save_log(f"{game_id or 'check'}-{host}-{node[:8]}-{failure.name}.log", failure.log)
                 for failure in failures]
        names = " and ".join(repr(failure.name) for failure in failures)
        why = (f"bot {names} failed {'its' if len(failures) == 1 else 'their'} check there "
               f"({failures[0].reason[:200]})" + (f"; logs: {', '.join(map(str, paths))}" if paths[0] else ""))
        self.health.take_out(node, host, why)
        return why

    def _replace(self) -> None:
        self._kill()
        self.generation += 1
        self.start()

    def await_ready(self, give_up: Callable[[], bool]) -> bool:
        """Waits until the actor is placed and checked; False on `give_up()`. A cluster that has had
        no room for a slot at all (no live node in rotation with the CPUs) for START_WAIT_S is an error."""
        no_room_since: float | None = None
        while not self.poll(POLL_S):
            if give_up() or self.executor._closing.is_set():
                self._kill()
                return False
            if self.executor._room() > 0:
                no_room_since = None
                continue
            now = time.monotonic()
            no_room_since = now if no_room_since is None else no_room_since
            if now - no_room_since > START_WAIT_S:
                self._kill()
                raise TournamentError(
                    f"the Ray cluster has had no room for game slot {self.index + 1} for {START_WAIT_S:.0f}s (each "
                    f"needs {self.executor.settings.num_cpus:g} CPU{self.executor._out_text()}): add nodes, then "
                    "run the same command again to play the games left")
        return True

    def where(self) -> Where:
        return self._where

    def play(self, job: GameJob, emit: Emit) -> GameEntry:
        ray = _ray()
        stream = self.actor.play.remote(job)
        try:
            while True:
                # Never an unbounded wait on the stream: a stream whose actor's node died does not
                # always raise (Ray issue 47582), so a quiet stream has its node looked at.
                ready, _ = ray.wait([stream], timeout=STREAM_CHECK_S)
                if not ready:
                    self._check_node_alive()
                    continue
                try:
                    reference = next(stream)
                except StopIteration:
                    break
                message = ray.get(reference)
                if isinstance(message, Events):
                    emit(message.moves)
                elif isinstance(message, Done):
                    return self._judged(job, message.entry, message.logs)
                elif isinstance(message, Failed):
                    raise TournamentError(f"game {job.game.id}: {message.text}")
        except _lost_errors() as error:
            raise WorkerLost(f"Ray actor {self._where.pid} on node "
                             f"{str(self._where.node or '?')[:12]} died: {type(error).__name__}") from None
        raise WorkerLost(f"Ray actor {self._where.pid} ended the game without a result")

    def _check_node_alive(self) -> None:
        """Raises WorkerLost when the cluster says this slot's node is dead (or gone from its list)."""
        node = str(self._where.node)
        if self.executor.node_alive(node):
            return
        raise WorkerLost(f"Ray actor {self._where.pid} on node {node[:12]} died: its node is dead")

    def _judged(self, job: GameJob, entry: GameEntry, logs: dict[str, str]) -> GameEntry:
        """A finished game's entry, its forfeiting bot's log brought home; a game lost to a node
        that failed its bots (or forfeits far too often) is a lost game, played again elsewhere."""
        ray = _ray()
        game_id = job.game.id
        for side, text in logs.items():
            path = self.health.save_log(f"{game_id}-{side}.log", text)
            if path is not None and entry.record is not None:
                entry.record.bots[side].stderr = path
        node, host = str(self._where.node), self._where.host
        if entry.termination in MACHINE_SUSPECTS:  # a bot that died or did not start: is it this machine?
            try:
                failures = ray.get(self.actor.check_bots.remote(), timeout=CHECK_S)
            except (*_lost_errors(), ray.exceptions.GetTimeoutError):  # its node went down, the bots first
                raise WorkerLost(f"Ray actor {self._where.pid} on node {node[:12]} died right after "
                                 f"its game ended by {entry.termination} ({entry.reason})") from None
            if failures:
                why = self._take_out(failures, game_id)
                raise WorkerLost(f"Ray node {host} ({node[:12]}) out of rotation: {why}")
        anomaly = self.health.count(node, entry)
        if anomaly is not None:
            self.health.take_out(node, host, anomaly)
            raise WorkerLost(f"Ray node {host} ({node[:12]}) out of rotation: {anomaly}")
        return entry

    def restart(self, give_up: Callable[[], bool]) -> bool:
        self._replace()
        return self.await_ready(give_up)

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
        if self.taken:
            try:
                ray.get(self.actor.close.remote(), timeout=15)
            except Exception:  # noqa: BLE001 - a dead or hung actor: killed below
                pass
        self._kill()
