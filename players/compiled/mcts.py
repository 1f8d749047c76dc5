"""The compiled MCTS: players/mcts.py's search (UCT with the implicit-minimax blend, MCTS-Solver
proofs, tree reuse, contempt, repetition) on numba kernels, plus PUCT and a pluggable evaluator.

    search = CompiledMCTS(variant, seed=1)            # the variant's default rollout, UCT
    search.set_root(state); search.run(playouts=10_000, deadline=Deadline(None), seen=keys)
    move = search.best_move()

The tree's arrays belong to the searcher (`Tree`), bounded by `capacity` nodes (they grow from a
small start; a full tree stops expanding and keeps refining its statistics). Evaluators:

- `"rollout"` (default): compiled playouts of `rollout` epsilon-greedy plies, then the static
  evaluation (mcts_rules.rollout: RolloutEvaluator's policy exactly; 0 plies in great-cross);
- `"static"`: the static evaluation at the leaf (a rollout of 0 plies);
- a `LeafEvaluator` object (mcts_learned.py): a learned value function, called from Python on
  batches of leaves between compiled calls.

The reference stays players/mcts.py (SPEC `mcts-py`): the tests play both on the same positions.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from foxgeese.engine import DEFAULT_VARIANT, Clock, Game, Move, Side, Variant, get_variant
from foxgeese.engine.board import GRID_WIDTH
from foxgeese.engine.rules import PREDATOR, State
from foxgeese.players.base import (
    Choice,
    Deadline,
    Player,
    combine_budgets,
    game_seed_material,
    safety_budget_ms,
    time_budget_ms,
)
from foxgeese.players.compiled import mcts_kernels as k
from foxgeese.players.compiled.evaluation import eval_tables
from foxgeese.players.compiled.mcts_learned import LeafBatch, LeafEvaluator, load_evaluator
from foxgeese.players.compiled.mcts_rules import Moves
from foxgeese.players.compiled.tables import DenseBoard
from foxgeese.players.mcts import (
    DEFAULT_CONTEMPT,
    DEFAULT_IMPLICIT,
    DEFAULT_PLAYOUTS,
    DEFAULT_ROLLOUT,
    SCORE_SCALE,
    validate_options,
    variant_defaults,
)
from foxgeese.players.minimax import history_keys
from foxgeese.players.score import Score

DEFAULT_CAPACITY = 4_000_000  # nodes (about 45 bytes each): a second of great-cross search fills it
START_CAPACITY = 1 << 16
FIRST_CHUNK = 16  # playouts of the first compiled call; later calls last about CHUNK_MS
CHUNK_MS = 4.0
DEFAULT_BATCH = 32
CACHE_SIZE = 1 << 16  # static values remembered (a power of two; 1.5 MB)  # leaves per call of a Python evaluator
SELECTIONS = ("uct", "puct")
EVALUATORS = ("rollout", "static", "learned")
_DTYPES = (np.int8, np.int64, np.int8, np.int16, np.int8, np.int32, np.float64, np.float32, np.float32, np.int8,
           np.int32, np.int16)


class Tree:
    """The node arrays (mcts_kernels' layout) and the scratch the kernels work in."""

    def __init__(self, capacity: int) -> None:
        self.limit = capacity
        size = min(START_CAPACITY, capacity)
        self.columns = tuple(np.zeros(size, dtype) for dtype in _DTYPES)
        self.meta = np.zeros(3 + 4096, np.int64)  # next free row, rows missing, the log of expanded nodes
        self.marked = np.zeros(size, np.uint8)
        self.rank = np.zeros(size, np.int32)
        self.moves = Moves().arrays
        n = len(self.moves[0])
        cache = (np.zeros(CACHE_SIZE, np.int64), np.zeros(CACHE_SIZE, np.float64))  # mcts_rules.cached_value
        self.work = (np.zeros(n, np.float64), np.zeros(n, np.float64), np.zeros(n, np.int8), np.zeros(n, np.int64),
                     cache)
        self.path = np.zeros(k.MAX_PATH, np.int64)

    @property
    def size(self) -> int:
        return int(self.meta[0])

    @property
    def capacity(self) -> int:
        return len(self.columns[0])

    def room(self) -> bool:
        """Whether the expansion that last found no room (it wanted `meta[1]` rows) now fits, growing
        the arrays up to the limit; False: the tree is full for good."""
        wanted = self.size + int(self.meta[1])
        self.meta[1] = 0
        if wanted <= self.capacity:
            return True
        if wanted > self.limit:
            return False
        size = self.capacity
        while size < wanted:
            size = min(self.limit, size * 2)
        self.columns = tuple(_grown(column, size) for column in self.columns)
        self.marked, self.rank = np.zeros(size, np.uint8), np.zeros(size, np.int32)
        return True

    def children(self, node: int) -> range:
        count = int(self.columns[11][node])
        first = int(self.columns[10][node])
        return range(first, first + max(count, 0))


def _row_sum(grid_mask: int) -> int:
    return sum(point // GRID_WIDTH for point in range(grid_mask.bit_length()) if grid_mask >> point & 1)


def _uniform(parents: LeafBatch, children: LeafBatch, offsets: np.ndarray) -> np.ndarray:
    return np.ones(len(children))


def _grown(column: np.ndarray, size: int) -> np.ndarray:
    grown = np.zeros(size, column.dtype)
    grown[: len(column)] = column
    return grown


@dataclass(frozen=True)
class SearchOptions:
    """What the searcher's kernels read (see `CompiledMCTS`)."""

    c: float = 1.4
    rollout: int = DEFAULT_ROLLOUT
    epsilon: float = 0.1
    implicit: float = DEFAULT_IMPLICIT
    selection: str = "uct"
    draw_value: float = 0.5


class CompiledMCTS:
    """One variant's search and its tree. `evaluator`: "rollout", "static" or a `LeafEvaluator`;
    `selection`: "uct" (with the implicit-minimax blend when `implicit` > 0, as players/mcts.py) or
    "puct" (AlphaZero's rule on normalised priors: the playout policy's, or the evaluator's)."""

    def __init__(self, variant: Variant, options: SearchOptions | None = None, *, seed: int | str | None = None,
                 evaluator: str | LeafEvaluator = "rollout", capacity: int = DEFAULT_CAPACITY,
                 batch: int = DEFAULT_BATCH) -> None:
        self.variant = variant
        self.rules = variant.rules
        self.board = DenseBoard(variant)
        self.t = self.board.tables
        self.e = eval_tables(self.board)
        self.tree = Tree(capacity)
        self.rng = np.zeros(1, np.uint64)
        self.seed(seed)
        self.evaluator = evaluator
        self.batch = batch
        self.options = options or SearchOptions()
        self.timed_out = False
        self.root_state: State | None = None

    @property
    def options(self) -> SearchOptions:
        return self._options

    @options.setter
    def options(self, options: SearchOptions) -> None:
        self._options = options
        plies = 0 if self.evaluator == "static" else options.rollout
        rule = k.PUCT if options.selection == "puct" else k.IMPLICIT_UCT if options.implicit else k.UCT
        self.fparams = np.array([options.c, options.implicit, options.epsilon, options.draw_value], np.float64)
        self.iparams = np.array([plies, rule, k.ROLLOUT if isinstance(self.evaluator, str) else k.LEAVES, 1], np.int64)

    def seed(self, material: int | str | None) -> None:
        """Re-seeds the playouts' generator (a str as random.Random would: a stable hash of it)."""
        self.rng[0] = np.uint64(random.Random(material).getrandbits(64))

    def set_root(self, state: State) -> None:
        """A fresh tree at `state`."""
        fox, prey, turn, quiet, stall = self.board.state(state)
        k.set_root(self.tree.columns, self.tree.meta, fox, prey, turn, quiet, stall)
        self.root_state = state

    def reuse(self, states: list[State]) -> bool:
        """Walks the tree down the positions reached since the root (each after one move) and keeps
        the subtree of the last; False (tree unchanged) when one is not in the tree."""
        node = 0
        for state in states:
            target = self.board.state(state)
            node = next((c for c in self.tree.children(node) if self._state_of(c) == target), -1)
            if node < 0:
                return False
        if node:
            k.keep_subtree(self.tree.columns, self.tree.meta, node, self.tree.marked, self.tree.rank)
        self.root_state = states[-1] if states else self.root_state
        return True

    def _state_of(self, node: int) -> tuple[int, int, int, int, int]:
        c = self.tree.columns
        return int(c[0][node]), int(c[1][node]), int(c[2][node]), int(c[3][node]), int(c[4][node])

    def run(self, *, playouts: int | None, deadline: Deadline, seen: set[int] | None = None) -> int:
        """Playouts until `playouts`, the deadline or a proven root; returns how many were made."""
        earlier = self._dense_keys(self._may_recur(seen or set()))
        keys = np.zeros(len(earlier) + k.MAX_PATH, np.int64)
        keys[: len(earlier)] = earlier
        seen_count = len(earlier)
        tree = self.tree
        done, chunk = 0, FIRST_CHUNK
        self.timed_out = False
        while playouts is None or done < playouts:
            if deadline.passed():
                self.timed_out = True
                break
            if k.root_won(tree.columns):
                break
            self.iparams[k.GROWABLE] = tree.room()  # False: full for good, playouts go on without expanding
            want = chunk if playouts is None else min(chunk, playouts - done)
            started = time.perf_counter()
            if isinstance(self.evaluator, str):
                got = k.run_playouts(tree.columns, tree.meta, self.t, self.e, self.rng, self.fparams, self.iparams,
                                     keys, seen_count, want, tree.path, tree.moves, tree.work)
            else:
                got = want = self._run_leaves(playouts - done if playouts is not None else self.batch, keys, seen_count)
            done += got
            spent = time.perf_counter() - started
            if got == want and spent > 0:
                chunk = max(1, min(chunk * 4, int(want * CHUNK_MS / 1000.0 / spent)))
        if tree.columns[11][0] < 0:
            tree.room()
            k.expand(tree.columns, tree.meta, self.t, self.e, 0, self.fparams, self.iparams, tree.moves, tree.work)
        return done

    def _may_recur(self, seen: set[int]) -> list[int]:
        """The earlier positions the search could meet again: those with the root's number of prey and
        sum of their rows (prey never step back and captures are for good, so no other one can come
        back), in a fixed order; the kernels compare each step of a descent with every one."""
        if self.root_state is None:
            return sorted(seen)
        prey = self.root_state[1]
        count, rows = prey.bit_count(), _row_sum(prey)
        return sorted(key for key in seen if (key >> 8).bit_count() == count and _row_sum(key >> 8) == rows)

    def _dense_keys(self, seen: list[int]) -> list[int]:
        """The engine's repetition keys (Rules.key: prey << 8 | predator << 1 | turn, grid points) as
        the core's (core.key, dense points)."""
        board = self.board
        return [board.mask(key >> 8) << 7 | board.dense[key >> 1 & 0x7F] << 1 | key & 1 for key in seen]

    def _run_leaves(self, want: int, keys: np.ndarray, seen_count: int) -> int:
        """Playouts valued by the Python evaluator, `batch` leaves per call."""
        tree, evaluator = self.tree, self.evaluator
        assert not isinstance(evaluator, str)
        size = min(self.batch, want)  # not the chunk's: batches must not depend on the clock
        paths = np.zeros((size, k.MAX_PATH), np.int64)
        lengths = np.zeros(size, np.int32)
        leaves = np.zeros(size, np.int32)
        solved = np.zeros(1, np.int64)
        tree.meta[2] = 0
        got = k.collect_leaves(tree.columns, tree.meta, self.t, self.e, self.fparams, self.iparams, keys, seen_count,
                               paths, lengths, leaves, size, solved, tree.moves, tree.work)
        if got:
            values = np.asarray(evaluator.values(self._batch(leaves[:got])), np.float64)
            k.apply_values(tree.columns, paths, lengths, got, values, self.fparams[k.WEIGHT])
        priors = getattr(evaluator, "priors", None)
        if priors is None and self.options.selection == "puct":
            priors = _uniform  # PUCT with an evaluator that gives no priors: every move alike
        if priors is not None and tree.meta[2]:
            self._set_priors(priors, tree.meta[3:3 + tree.meta[2]].copy())
        return got + int(solved[0])

    def _set_priors(self, priors: Any, nodes: np.ndarray) -> None:
        c = self.tree.columns
        blocks = [self.tree.children(int(n)) for n in nodes]
        flat = np.array([i for block in blocks for i in block], np.int64)
        offsets = np.cumsum([0] + [len(b) for b in blocks])
        weights = np.asarray(priors(self._batch(nodes), self._batch(flat), offsets), np.float64)
        for index, block in enumerate(blocks):
            part = weights[offsets[index]:offsets[index + 1]]
            total = part.sum()
            if total > 0:
                c[8][block.start:block.stop] = part / total

    def _batch(self, nodes: np.ndarray) -> LeafBatch:
        c = self.tree.columns
        return LeafBatch(self.board, c[0][nodes].astype(np.int64), c[1][nodes], c[2][nodes].astype(np.int64),
                         c[3][nodes].astype(np.int64), c[4][nodes].astype(np.int64))

    # What the tree says about the root's moves.

    def best_child(self, node: int = 0) -> int:
        """A proven win if there is one; else the most visited child not proven lost (players/mcts.py)."""
        c = self.tree.columns
        block = self.tree.children(node)
        won = [i for i in block if c[9][i] == k.WON]
        if won:
            return max(won, key=lambda i: c[5][i])
        alive = [i for i in block if c[9][i] != k.LOST] or list(block)
        return max(alive, key=lambda i: (c[5][i], self.value(i)))

    def value(self, node: int) -> float:
        c = self.tree.columns
        return float(c[6][node] / c[5][node]) if c[5][node] else 0.5

    def visits(self, node: int = 0) -> int:
        return int(self.tree.columns[5][node])

    def move_to(self, node: int, state: State | None = None) -> Move:
        """The engine move from the root state (or `state`) that leads to child `node`."""
        state = state or self.root_state
        assert state is not None, "no root"
        target = self._state_of(node)
        for move in self.rules.moves(state):
            if self.board.state(self.rules.play(state, move)) == target:
                return move
        raise AssertionError("a child the engine has no move to")

    def principal_variation(self, limit: int = 8) -> list[Move]:
        line: list[Move] = []
        node, state = 0, self.root_state
        c = self.tree.columns
        while state is not None and c[11][node] > 0 and len(line) < limit:
            node = self.best_child(node)
            if c[5][node] == 0 and c[9][node] == k.UNSOLVED:
                break
            move = self.move_to(node, state)
            line.append(move)
            state = self.rules.play(state, move)
        return line

    def score_of(self, node: int) -> Score:
        """The verdict for the side that moved into `node` (players/mcts.py `MctsPlayer.score_of`)."""
        c = self.tree.columns
        mover = Side(1 - int(c[2][node]))
        solved = int(c[9][node])
        if solved == k.WON:
            return Score.proven_win(mover)
        if solved == k.LOST:
            return Score.proven_loss(mover)
        if solved == k.DRAWN:
            return Score.proven_draw(mover)
        value = min(max(self.value(node), 1e-4), 1 - 1e-4)
        return Score(mover, int(round(SCORE_SCALE * math.log(value / (1.0 - value)))))

    def warm(self) -> None:
        """Runs every kernel once on the start position, so no compilation (or cache load) reaches a
        clock; the generator is left as it was."""
        state = self.variant.start_position().state
        kept = self.rng.copy()
        self.set_root(state)
        self.run(playouts=64, deadline=Deadline(None), seen={self.rules.key(state)} if self.rules.checks_repetition
                 else None)
        if self.tree.columns[11][0] > 0:
            k.keep_subtree(self.tree.columns, self.tree.meta, int(self.tree.columns[10][0]), self.tree.marked,
                           self.tree.rank)
        self.set_root(state)
        self.rng[:] = kept


class MctsPlayer(Player):
    """The `mcts` SPEC on the compiled search: players/mcts.py's options and meaning (`playouts`,
    `time`, `c`, `rollout`, `implicit`, `epsilon`, `seed`, `reuse`, `contempt`), plus `selection`
    (uct or puct), `evaluator` (rollout, static, or learned with `weights=PATH`) and `tree` (the
    most nodes kept)."""

    name = "mcts"

    def __init__(
        self,
        *,
        playouts: int | None = None,
        time: float | None = None,
        c: float = 1.4,
        rollout: int | None = None,
        epsilon: float = 0.1,
        seed: int | None = None,
        reuse: bool = True,
        contempt: float = DEFAULT_CONTEMPT,
        implicit: float | None = None,
        selection: str = "uct",
        evaluator: str = "rollout",
        weights: str = "",
        tree: int = DEFAULT_CAPACITY,
    ) -> None:
        validate_options(playouts=playouts, time=time, c=c, rollout=rollout, epsilon=epsilon, contempt=contempt,
                         implicit=implicit)
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}, not {selection!r}")
        if evaluator not in EVALUATORS:
            raise ValueError(f"evaluator must be one of {', '.join(EVALUATORS)}, not {evaluator!r}")
        if (evaluator == "learned") != bool(weights):
            raise ValueError("evaluator=learned needs weights=PATH (and weights= needs evaluator=learned)")
        if isinstance(tree, bool) or not isinstance(tree, int) or tree < 1000:
            raise ValueError(f"tree must be a whole number of nodes, at least 1000, not {tree!r}")
        self.playouts = None if playouts is None else int(playouts)
        self.time = time
        self.c = float(c)
        self.rollout = rollout
        self.epsilon = float(epsilon)
        self.seed = seed
        self.reuse = reuse
        self.contempt = float(contempt)
        self.implicit = None if implicit is None else float(implicit)
        self.selection = selection
        self.evaluator = load_evaluator(weights) if evaluator == "learned" else evaluator
        self.capacity = tree
        self._search: CompiledMCTS | None = None
        self._root_moves = -1  # len(game.moves) at the kept root; -1: no tree to reuse
        self._warm: set[tuple[str, Any]] = set()

    @staticmethod
    def warm() -> None:
        """Compiles (the first time on a machine: a minute) or loads the search's code: `registry.warm`
        calls it before any game, so compiling never falls in a bot's `ready` window."""
        CompiledMCTS(get_variant(DEFAULT_VARIANT), capacity=1 << 14).warm()

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        super().new_game(variant, side, seed)
        search = self.search_for(variant)
        if (variant.id, variant.options) not in self._warm:
            search.warm()  # compiled (or loaded from numba's cache) now, not on the first move's clock
            self._warm.add((variant.id, variant.options))
        material = game_seed_material(self.seed, seed)
        if material is not None:  # as players/mcts.py's reseed: no game seed, the generator runs on
            search.seed(material)
        self._root_moves = -1

    def options_for(self, variant: Variant, draw_value: float = 0.5) -> SearchOptions:
        defaults = variant_defaults(variant)
        rollout = self.rollout if self.rollout is not None else defaults.get("rollout", DEFAULT_ROLLOUT)
        implicit = self.implicit if self.implicit is not None else defaults.get("implicit", DEFAULT_IMPLICIT)
        return SearchOptions(self.c, rollout, self.epsilon, implicit, self.selection, draw_value)

    def search_for(self, variant: Variant) -> CompiledMCTS:
        if self._search is None or self._search.variant is not variant:
            self._search = CompiledMCTS(variant, self.options_for(variant), seed=self.seed, evaluator=self.evaluator,
                                        capacity=self.capacity)
            self._root_moves = -1
        return self._search

    def _reused(self, search: CompiledMCTS, game: Game) -> bool:
        """Keeps the subtree of the moves played since the last search (ours and the reply), if the
        tree has them."""
        state = search.root_state
        if not self.reuse or self._root_moves < 0 or len(game.moves) < self._root_moves or state is None:
            return False
        states = []
        for move in game.moves[self._root_moves:]:
            state = search.rules.play(state, move)
            states.append(state)
        return state == game.position.state and search.reuse(states)

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        started = time.monotonic()
        search = self.search_for(game.position.variant)
        state = game.position.state
        draw_value = 0.5 - self.contempt if state[2] == PREDATOR else 0.5 + self.contempt
        if search.options.draw_value != draw_value:  # a kept tree was valued with other draws
            search.options = self.options_for(game.position.variant, draw_value)
            self._root_moves = -1
        fixed = self.playouts is not None  # the clock is then a safety limit only
        budget = combine_budgets(self.time, safety_budget_ms(clock) if fixed else time_budget_ms(clock))
        deadline = Deadline(budget)  # before the reuse: keeping a large subtree takes milliseconds
        if not self._reused(search, game):
            search.set_root(state)
        reused = search.visits()
        playouts = self.playouts
        if playouts is None and budget is None:
            playouts = DEFAULT_PLAYOUTS
        seen = history_keys(game, search.rules) if search.rules.checks_repetition else None
        done = search.run(playouts=playouts, deadline=deadline, seen=seen)
        if search.tree.columns[11][0] <= 0:
            raise ValueError("the game is over: no move to choose")
        best = search.best_child()
        move = search.move_to(best)
        info = {
            **search.score_of(best).info(),
            "playouts": done,
            "reused": reused,
            "nodes": search.visits(),
            "pv": [str(m) for m in search.principal_variation()],
            "time_ms": int((time.monotonic() - started) * 1000.0),
        }
        if fixed and search.timed_out:
            info["cut"] = True
        self._root_moves = len(game.moves)  # the next search starts below this root, if it can
        return Choice(move, info)
