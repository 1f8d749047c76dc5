"""A batched environment for self-play: N games of one variant stepped at once by compiled kernels.

    env = BatchedHuntEnv("standard", games=4096, seed=1)   # parallel=False: one core, no thread barrier
    masks = env.reset()                      # (N, actions) uint8: the legal actions of each game
    actions = env.random_actions()           # or your policy's, one per game
    masks, rewards, ended = env.step(actions)  # rewards (N, 2): predator, prey; ended: outcome codes

Actions are the segments of actions.py (the same enumeration as every other environment); each
game's side to move is `env.turn` (0 predator, 1 prey), and `env.legal`/`env.counts` list the legal
actions. A game that ends (see `batched_kernels` for the codes) is reported once and starts again
at once (auto-reset). `observations(role)` gives the planes on demand. The rules are the engine's:
tests/test_research_batched.py plays them side by side on random games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from foxgeese.engine import Position, Side, Variant, get_variant
from foxgeese.engine.board import GRID_WIDTH
from foxgeese.players.compiled.tables import CoreTables, core_tables
from foxgeese.research import batched_kernels as kernels
from foxgeese.research.actions import PLANES, action_space
from foxgeese.research.hunt import max_actions

MAX_LEGAL = 96  # more than any side ever has: 17 geese x 5 directions, or a fox's 8 steps, 8 jumps and STOP


@dataclass(frozen=True)
class BatchTables:
    """A variant's rules (the compiled core's tables) and actions as dense-point arrays (-1 pads)."""

    core: CoreTables  # the rules: moves, endings (foxgeese.players.compiled)
    grid: np.ndarray  # dense point -> grid point
    action_of: np.ndarray  # [from, to]: the action of that segment (a step or a jump), -1 where none
    action_from: np.ndarray
    action_to: np.ndarray
    jump_over: np.ndarray  # per action: the jumped point, -1 for steps and STOP
    stop: int

    @classmethod
    def for_variant(cls, variant: Variant) -> BatchTables:
        actions = action_space(variant)
        rules = core_tables(variant)
        grid = rules.grid
        dense = {int(g): d for d, g in enumerate(grid)}
        size = actions.size
        action_of = np.full((len(grid), len(grid)), -1, np.int64)
        action_from = np.full(size, -1, np.int64)
        action_to = np.full(size, -1, np.int64)
        jump_over = np.full(size, -1, np.int64)
        for action in range(size):
            pair = actions.pair(action)
            if pair is None:
                continue
            a, b = pair
            action_from[action], action_to[action] = dense[a], dense[b]
            action_of[dense[a], dense[b]] = action
            if actions.is_jump(action):
                jump_over[action] = dense[(a + b) >> 1]
        return cls(rules, grid, action_of, action_from, action_to, jump_over,
                   actions.stop if actions.stop is not None else -1)

    def dense_mask(self, grid_mask: int) -> int:
        return sum(1 << d for d, g in enumerate(self.grid) if grid_mask >> int(g) & 1)

    def grid_mask(self, dense_mask: int) -> int:
        return sum(1 << int(g) for d, g in enumerate(self.grid) if dense_mask >> d & 1)


class BatchedHuntEnv:
    """N games of one variant; see the module docstring."""

    def __init__(self, variant: str = "standard", *, games: int = 1024, geese: int | None = None,
                 sideways: bool | None = None, max_steps: int | None = None, seed: int | None = None,
                 parallel: bool = True) -> None:
        self.variant = get_variant(variant, geese=geese, sideways=sideways)
        self.tables = tables = BatchTables.for_variant(self.variant)
        self.actions = action_space(self.variant)
        self.games = games
        self.max_steps = max_steps if max_steps is not None else max_actions(self.variant)
        self.rng = np.random.default_rng(seed)
        pick = 0 if parallel else 1
        self._kernels = {name: forms[pick] for name, forms in kernels.KERNELS.items()}
        start = self.variant.start_position()
        self.start = (int(np.searchsorted(tables.grid, start.predator)), tables.dense_mask(start.prey),
                      int(start.turn))
        n = games
        self.fox = np.zeros(n, np.int64)
        self.prey = np.zeros(n, np.int64)  # dense points, as the compiled core
        self.turn = np.zeros(n, np.int64)
        self.quiet = np.zeros(n, np.int64)
        self.stall = np.zeros(n, np.int64)
        self.chain = np.zeros(n, np.int64)
        self.steps = np.zeros(n, np.int64)
        self.history = np.zeros((n, kernels.HISTORY), np.int64)
        self.history_len = np.zeros(n, np.int64)
        self.masks = np.zeros((n, self.actions.size), np.uint8)
        self.legal = np.zeros((n, MAX_LEGAL), np.int16)  # small rows: the kernels touch them every step
        self.counts = np.zeros(n, np.int64)
        self.ended = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, 2), np.float32)
        self._draws = np.zeros(n, np.float64)
        self._chosen = np.zeros(n, np.int64)
        rows, columns = self.variant.board.rows, self.variant.board.columns
        self._cell_row = (tables.grid // GRID_WIDTH).astype(np.int64)
        self._cell_column = (tables.grid % GRID_WIDTH).astype(np.int64)
        self._board = np.ascontiguousarray(self.actions.board_plane)
        self.observation_shape = (len(PLANES), rows, columns)

    def reset(self, which: np.ndarray | None = None) -> np.ndarray:
        """Every game (or those where `which` is true) back at the start; returns the masks."""
        t = self.tables
        which = np.ones(self.games, np.bool_) if which is None else np.asarray(which, np.bool_)
        reset = self._kernels["reset_games"]
        reset(which, *self.start, self.fox, self.prey, self.turn, self.quiet, self.stall, self.chain,
              self.steps, self.history, self.history_len, t.core, t.action_of, t.stop, self.masks, self.legal,
              self.counts)
        return self.masks

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One action per game: (masks, rewards (N, 2), ended codes); ended games have started again."""
        t = self.tables
        step = self._kernels["step_games"]
        step(np.asarray(actions, np.int64), self.fox, self.prey, self.turn, self.quiet, self.stall,
             self.chain, self.steps, self.history, self.history_len, t.core, t.action_of, t.action_from,
             t.action_to, t.jump_over, t.stop, self.max_steps, *self.start, self.masks, self.legal, self.counts,
             self.ended, self.rewards)
        return self.masks, self.rewards, self.ended

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per game (the benchmark's and a random agent's policy)."""
        self._draws[:] = self.rng.random(self.games)
        self._kernels["random_actions"](self.legal, self.counts, self._draws, self._chosen)
        return self._chosen

    def observations(self, role: Side) -> np.ndarray:
        """(N, planes, rows, columns) float32: actions.py's planes as `role` sees each game."""
        out = np.zeros((self.games, *self.observation_shape), np.float32)
        self._kernels["observe_games"](self.fox, self.prey, self.turn, self.quiet, self.stall, self.chain, int(role),
                              self._cell_row, self._cell_column, self._board, out)
        return out

    def position(self, game: int) -> Position:
        """Game `game`'s position as an engine Position (between whole moves; counters included)."""
        t = self.tables
        return Position(self.variant, int(t.grid[self.fox[game]]), t.grid_mask(int(self.prey[game])),
                        Side(int(self.turn[game])), int(self.quiet[game]), int(self.stall[game]))
