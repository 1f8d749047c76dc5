"""The arena at work: workers' threads that claim pairs, play them on their slot and commit them.

Each slot of an executor (local worker processes by default, tournaments/executors.py; Ray actors
with `ray_address`, tournaments/ray_executor.py) gets one thread here. The thread asks the
scheduler (`next_work`) for a pair: a queued one first (re-queued after a restart or a worker taken
out), else a new pair for whichever running test or ladder has the lowest share of workers per
unit of priority (fishtest's rule: the test with the fewest workers for its priority gets the next
one; each variant's ladder is one entry with `ladder_priority`). It plays the pair's two games on
its slot (the same `GamePlayer` a tournament uses, so a game is the same wherever it is played),
checks them (health.py), and commits both in one transaction (db.py). Then the test's verdict and
the workers' health are looked at; a worker that fails is taken out and its games replayed.

A slot's bots are fixed when its worker starts, so a pair naming a bot registered later restarts
the worker first (rare: bots are registered once).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import msgspec

from foxgeese.engine import DEFAULT_VARIANT, Side, get_variant
from foxgeese.players.solver.analyse import Judge, analyse_record
from foxgeese.protocol.botconfig import CMD_PREFIX
from foxgeese.tournaments.config import RayConfig
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.errors import TournamentError
from foxgeese.tournaments.executors import Executor, LocalExecutor, Slot, WorkerLost
from foxgeese.tournaments.messages import GameJob, PlayerDef, WorkerSetup
from foxgeese.tournaments.schedule import ScheduledGame, random_opening
from foxgeese.tournaments.worker import game_seed
from foxgeese.web.arena import health, ladder, testqueue
from foxgeese.web.arena.db import ArenaDB, Pair

DEFAULT_TC = "10+0.1"
OPENING_PLIES = 2
IDLE_WAIT_S = 0.5  # a worker with nothing to play looks again this often (bots and tests come from the CLI too)
READY_TIMEOUT_S = 20.0  # a bot's first `ready` after its launch, on a loaded machine (the protocol's default is 5 s)
HEALTH_WINDOW = 4000  # the newest games the residual and forfeit checks read
# The fixed rungs a new arena's ladder starts with: built-in bots from random to a deep search.
RUNGS = (("random", "random"), ("minimax-1", "minimax:depth=1"), ("minimax-2", "minimax:depth=2"),
         ("minimax-4", "minimax:depth=4"), ("mcts-200", "mcts:playouts=200"))


def bot_kind(spec: str) -> str:
    """`cmd` (a program, run in the sandbox), `remote` (through the Bot API) or `builtin`."""
    spec = spec.strip()
    if spec.startswith(CMD_PREFIX):
        return "cmd"
    if spec.startswith("remote:"):
        return "remote"
    return "builtin"


class Arena:
    """The arena of one server (see the module doc): `start()` in its lifespan, `stop()` after."""

    def __init__(self, db: ArenaDB, *, workers: int = 2, executor: Executor | None = None,
                 ray_address: str | None = None, variants: tuple[str, ...] = (DEFAULT_VARIANT,), tc: str = DEFAULT_TC,
                 ladder_priority: float = 1.0, base_dir: Path | None = None, log_dir: Path | None = None,
                 judge: bool = True, tables: str | None = None, sandbox: bool = True,
                 rungs: tuple[tuple[str, str], ...] = RUNGS, max_plies: int | None = None) -> None:
        self.db = db
        self.workers = workers
        self.executor = executor
        self.ray_address = ray_address
        self.variants = variants
        self.tc = tc
        self.ladder_priority = ladder_priority
        self.base_dir = (base_dir or Path.cwd()).resolve()
        self.log_dir = log_dir
        self.sandbox = sandbox
        self.rungs = rungs
        self.max_plies = max_plies
        self.judge = Judge(tables) if judge else None
        self.judge_lock = threading.Lock()
        self.schedule_lock = threading.Lock()
        self.wakeup = threading.Condition()
        self.changed = threading.Condition()  # told after every commit, test end and take-out
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.slot_bots: dict[int, set[str]] = {}  # the bots each slot's worker was set up with
        self.out: set[str] = set()  # workers taken out while running
        self.versions: dict[str, int] = {}  # per variant: bumped by each ladder commit
        self.cached: dict[str, tuple[int, ladder.Standings]] = {}
        self.recovered: dict[str, int] = {}
        self.problem = ""  # why no worker plays, if none could start
        self.starter: threading.Thread | None = None
        # The Bot API's hub (web/botapi.py's BotHub, `server.botapi`) when the server has one: remote
        # bots play through it; without it they wait (docs/arena.md).
        self.hub: Any = None

    # -- starting and stopping ----------------------------------------------------------------

    def start(self) -> None:
        """Recovers what a killed server left, seeds the rungs of a new arena, starts the workers
        (in a thread of their own: worker processes take seconds to start)."""
        self.recovered = self.db.recover()
        if not self.db.has_bots():
            for name, spec in self.rungs:
                self.db.add_bot(name, spec, bot_kind(spec), list(self.variants), rung=True)
            self.db.line(f"new arena: the ladder's fixed rungs are {', '.join(name for name, _ in self.rungs)}")
        self.starter = threading.Thread(target=self._start_workers, name="arena-start", daemon=True)
        self.starter.start()

    def _start_workers(self) -> None:
        try:
            if self.log_dir is not None:
                self.log_dir.mkdir(parents=True, exist_ok=True)
            if self.executor is None:
                self.executor = self._ray() if self.ray_address else LocalExecutor()
            self.executor.on_new_slot = self._adopt
            slots = self.executor.slots(self.workers, self.setup, grow=False)
        except (TournamentError, OSError) as error:
            self.db.line(f"the arena's workers did not start: {error}")
            self.problem = f"the arena's workers did not start: {error}"
            self._changed()
            return
        for slot in slots:
            self._adopt(slot)

    def _adopt(self, slot: Slot) -> bool:
        if self.stopping.is_set():
            return False
        thread = threading.Thread(target=self._work, args=(slot,), name="arena-worker", daemon=True)
        self.threads.append(thread)
        thread.start()
        return True

    def _ray(self) -> Executor:
        from foxgeese.tournaments.ray_executor import RayExecutor

        place = SimpleNamespace(config=SimpleNamespace(ray=RayConfig(address=self.ray_address)),
                                base_dir=self.base_dir)
        return RayExecutor(cast(Any, place), self.ray_address, self.log_dir)

    def stop(self) -> None:
        """Ends the workers at once: the pairs they were playing go back to the queue (as after a kill)."""
        self.stopping.set()
        with self.wakeup:
            self.wakeup.notify_all()
        if self.starter is not None:
            self.starter.join(30)
        if self.executor is not None:
            self.executor.abort()
        for thread in self.threads:
            thread.join(60)
        if self.executor is not None:
            self.executor.close()

    def wait_until(self, done: Callable[[], bool], timeout_s: float) -> bool:
        """Waits (at most `timeout_s`) until `done()` is true, looking after each change of the arena;
        False at once when the workers could not start (`problem` says why)."""
        deadline = time.monotonic() + timeout_s
        with self.changed:
            while not done():
                if self.problem:
                    return False
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.changed.wait(min(left, 1.0))
        return True

    def _changed(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def wake(self) -> None:
        """Something to play appeared (a test, a bot): idle workers look now."""
        with self.wakeup:
            self.wakeup.notify_all()

    # -- workers ---------------------------------------------------------------------------------

    def setup(self, index: int, generation: int) -> WorkerSetup:
        """A worker's bots: every registered bot; a remote one as the Bot API's bridge (a launched
        process that relays its games to the hub over loopback: local workers only)."""
        players = []
        for bot in self.db.bots():
            if bot["kind"] != "remote":
                players.append(PlayerDef(bot["name"], spec=bot["spec"], sandbox=self.sandbox and bot["kind"] == "cmd"))
            elif self.hub is not None and not self.ray_address:
                remote = bot["spec"].split(":", 1)[1]
                try:
                    env = self.hub.bridge_env(remote)
                except ValueError:  # not registered with the Bot API (yet): it waits
                    continue
                players.append(PlayerDef(bot["name"], command=tuple(self.hub.bridge_command(remote)),
                                         env=tuple(env.items())))
        self.slot_bots[index] = {player.name for player in players}
        log_dir = str(self.log_dir / f"worker-{index}") if self.log_dir is not None else None
        return WorkerSetup(players, str(self.base_dir), log_dir, {"ready_timeout_s": READY_TIMEOUT_S})

    def worker_id(self, slot: Slot, index: int) -> str:
        place = slot.where()
        if place.node is not None:
            return f"ray/{place.node[:12]}/{index}"
        return f"{place.host or socket.gethostname()}/local-{index}"

    def usable(self) -> set[str]:
        """The bots a pair may name now: every registered one, a remote one while its event stream is open."""
        names = set()
        for bot in self.db.bots():
            if bot["kind"] != "remote":
                names.add(bot["name"])
            elif self.hub is not None and not self.ray_address and self.hub.online(bot["spec"].split(":", 1)[1]):
                names.add(bot["name"])
        return names

    def worker_id_of(self, index: int) -> str:
        """The id of this machine's local worker `index` (stable across restarts: a worker taken out stays out)."""
        return f"{socket.gethostname()}/local-{index}"

    def _work(self, slot: Slot) -> None:
        place = slot.where()
        index = int(getattr(slot, "index", place.slot or 0))
        worker = self.worker_id(slot, index)
        kind = "ray" if place.node is not None else "local"
        if self.db.worker_started(worker, kind, msgspec.to_builtins(place)) == "out":
            self.db.line(f"worker {worker} stays out of rotation (an earlier run took it out)")
            slot.close()
            return
        try:
            while not self.stopping.is_set() and worker not in self.out:
                usable = self.usable()
                pair = self.next_work(worker, usable)
                if pair is None:
                    with self.wakeup:
                        self.wakeup.wait(IDLE_WAIT_S)
                    continue
                if not {pair.first, pair.second} <= self.slot_bots.get(index, set()) and \
                        not self._restart(slot, worker, pair.id):
                    return
                if not self._play(slot, worker, pair):
                    return
        finally:
            self.db.worker_stopped(worker)
            slot.close()

    def _restart(self, slot: Slot, worker: str, pair_id: int | None = None) -> bool:
        """A new worker process (or actor) for the slot; False (the pair queued again, a line said)
        when it cannot start: the slot's thread ends."""
        try:
            slot.restart(self.stopping.is_set)
            return True
        except (TournamentError, OSError) as error:
            if pair_id is not None:
                self.db.release(pair_id, worker)
            self.db.line(f"worker {worker} could not start again ({error}); it plays no more this run")
            return False

    def _play(self, slot: Slot, worker: str, pair: Pair) -> bool:
        """Plays and commits one pair; False when the slot's worker is gone for good."""
        entries = []
        try:
            for number, (predator, prey) in enumerate(((pair.first, pair.second), (pair.second, pair.first))):
                game_id = f"p{pair.id}.{number}"
                game = ScheduledGame(id=game_id, round=0, variant_index=0, variant_id=pair.variant, variant_options={},
                                     predator=predator, prey=prey, opening=tuple(pair.opening),
                                     twin=f"p{pair.id}.{1 - number}")
                job = GameJob(game, game_seed(pair.seed, game_id), pair.tc, self.max_plies, "arena")
                entries.append(entry_row(slot.play(job, lambda batch: None)))
        except (WorkerLost, TournamentError) as error:
            self.db.release(pair.id, worker)
            if self.stopping.is_set():
                return False
            self.db.line(f"worker {worker} lost pair {pair.id} ({error}); the pair is queued again")
            return self._restart(slot, worker)
        problem = health.inconsistency(entries)
        if problem is not None:
            self.db.release(pair.id, worker)
            self.take_out(worker, f"its results fail the consistency check: {problem}")
            self._changed()
            return False
        games = [self.summary(entry) for entry in entries]
        if not self.db.commit(pair, worker, games):
            self.db.line(f"pair {pair.id} from {worker} refused: it is no longer that worker's claim, or is stored")
            return True
        self.after_commit(pair)
        return True

    def summary(self, entry: dict[str, Any]) -> dict[str, Any]:
        """The row of a game: the entry's summary, its record, and each side's accuracy where tables know."""
        judged: dict[str, dict[str, int]] = {}
        if self.judge is not None:
            with self.judge_lock:
                found = analyse_record(entry["record"], self.judge)
            variant = get_variant(entry["variant"], **dict(entry.get("options") or {}))
            for side_name, side in found.sides.items():
                role = "predator" if side_name == variant.side_name(Side.PREDATOR) else "prey"
                judged[role] = {"judged": side.judged, "mistakes": side.mistakes}
        keys = ("id", "predator", "prey", "variant", "winner", "predator_score", "termination", "reason", "plies",
                "forfeit", "record")
        return {**{key: entry[key] for key in keys}, "slot": int(entry["id"].rsplit(".", 1)[1]), "judged": judged}

    def after_commit(self, pair: Pair) -> None:
        """The workers' health first (a worker taken out voids its games), then the test's verdict."""
        recent = self.db.games(limit=HEALTH_WINDOW)
        outlier = health.forfeit_outlier(recent) or health.residual_outlier(recent)
        if outlier is not None:
            self.take_out(*outlier)
        if pair.test is None:
            self.versions[pair.variant] = self.versions.get(pair.variant, 0) + 1
        else:
            test = self.db.test(pair.test)
            if test is not None and test["status"] == "running":
                said = testqueue.verdict(test, testqueue.figures(test, self.db.games(test=pair.test)))
                if said is not None:
                    self.db.end_test(pair.test, "done", said)
        self._changed()

    def take_out(self, worker: str, reason: str) -> None:
        if worker in self.out:
            return
        self.out.add(worker)
        self.db.take_out(worker, reason)
        for variant in list(self.versions) + list(self.variants):
            self.versions[variant] = self.versions.get(variant, 0) + 1
        self.wake()

    # -- scheduling ------------------------------------------------------------------------------

    def standings(self, variant: str) -> ladder.Standings:
        version = self.versions.get(variant, 0)
        cached = self.cached.get(variant)
        if cached is None or cached[0] != version:
            cached = (version, ladder.standings(variant, self.db.bots(variant),
                                                self.db.games(variant=variant, ladder=True)))
            self.cached[variant] = cached
        return cached[1]

    def next_work(self, worker: str, usable: set[str]) -> Pair | None:
        """The pair `worker` plays next (claimed for it), or None: nothing to play (see the module doc)."""
        with self.schedule_lock:
            queued = self.db.claim_queued(worker, usable)
            if queued is not None:
                return queued
            inflight = self.db.inflight()
            candidates: list[tuple[float, int, Callable[[], Pair | None]]] = []
            for test in self.db.tests("running"):
                if not {test["first"], test["second"]} <= usable:
                    continue
                mine = [p for p in inflight if p["test"] == test["id"]]
                if test["kind"] == "pairs":
                    done = len({g["pair"] for g in self.db.games(test=test["id"])})
                    if done + len(mine) >= test["pairs"]:
                        continue
                candidates.append((len(mine) / test["priority"], 0,
                                   partial(self._new_pair, worker, test["id"], test["variant"], test["first"],
                                           test["second"], test["tc"])))
            for variant in self.variants:
                bots = [bot["name"] for bot in self.db.bots(variant) if bot["name"] in usable]
                if len(bots) < 2 or self.ladder_priority <= 0:
                    continue
                mine = [p for p in inflight if p["test"] is None and p["variant"] == variant]
                candidates.append((len(mine) / self.ladder_priority, 1,
                                   partial(self._ladder_pair, worker, variant, mine, set(bots))))
            for _, _, make in sorted(candidates, key=lambda c: (c[0], c[1])):
                pair = make()
                if pair is not None:
                    return pair
        return None

    def _ladder_pair(self, worker: str, variant: str, inflight: list[dict[str, Any]], usable: set[str]) -> Pair | None:
        table = self.standings(variant)
        table = ladder.Standings(table.variant, [row for row in table.rows if row.name in usable], table.ratings,
                                 table.meetings, table.problem)
        chosen = ladder.next_pair(table, [(p["first"], p["second"]) for p in inflight])
        if chosen is None:
            return None
        return self._new_pair(worker, None, variant, chosen[0], chosen[1], self.tc)

    def _new_pair(self, worker: str, test: int | None, variant: str, first: str, second: str, tc: str) -> Pair:
        number = sum(self.db.pair_counts().values()) + 1
        seed = game_seed(self.db.seed, f"pair-{number}")
        opening = random_opening(variant, {}, OPENING_PLIES, f"arena/{seed}")
        return self.db.create_claimed(worker, test, variant, first, second, opening, seed, tc)


def entry_row(entry: GameEntry) -> dict[str, Any]:
    """A worker's typed game entry as the arena's rows keep it (JSON in SQLite), its record as
    `GameRecord.to_dict()` writes it."""
    row: dict[str, Any] = msgspec.to_builtins(entry)
    if entry.record is not None:
        row["record"] = entry.record.to_dict()
    return row
