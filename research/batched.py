"""A batched environment for self-play: N games of one variant stepped at once by compiled kernels.

    env = BatchedHuntEnv("standard", games=4096, seed=1)   # parallel=False: one core, no thread barrier
    masks = env.reset()                      # (N, actions) uint8: the legal actions of each game
    masks = env.reset(start=text)            # every game from one position (a text or a Position),
    masks = env.reset(start=[text, ...])     # or one per game; later games start there too
    actions = env.random_actions()           # or your policy's, one per game
    masks, rewards, ended = env.step(actions)  # rewards (N, 2): predator, prey; ended: outcome codes

Actions are the segments of actions.py (the same enumeration as every other environment); each
game's side to move is `env.turn` (0 predator, 1 prey), and `env.legal`/`env.counts` list the legal
actions. A game that ends (see `batched_kernels` for the codes) is reported once and starts again
at once (auto-reset) from that game's start; `outcome(game)` says how the last step ended it, in
the schema of every environment (`{"winner": ..., "termination": ...}`). `observations(role)` gives
the planes on demand (`role`: a Side or its name). `position(game)` is the engine's Position, its
counters and ply included. The rules are the engine's: tests/test_research_batched.py plays them side
by side on random games, from the start and from given positions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from foxgeese.engine import DEFAULT_VARIANT, Position, Side, Termination, Variant
from foxgeese.engine.board import GRID_WIDTH
from foxgeese.players.compiled import core
from foxgeese.players.compiled.tables import CoreTables, core_tables
from foxgeese.research import batched_kernels as kernels
from foxgeese.research.actions import PLANES, action_space
from foxgeese.research.hunt import max_actions, outcome_info, side_of, variant_of

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

    def __init__(self, variant: str | Variant = DEFAULT_VARIANT, *, games: int = 1024, geese: int | None = None,
                 sideways: bool | None = None, options: Mapping[str, Any] | None = None,
                 max_steps: int | None = None, seed: int | None = None,
                 parallel: bool = True, start: str | Position | Sequence[str | Position] | None = None) -> None:
        self.variant = variant_of(variant, options, geese=geese, sideways=sideways)
        self.tables = tables = BatchTables.for_variant(self.variant)
        self.actions = action_space(self.variant)
        self.games = games
        self.max_steps = max_steps if max_steps is not None else max_actions(self.variant)
        self.rng = np.random.default_rng(seed)
        pick = 0 if parallel else 1
        self._kernels = {name: forms[pick] for name, forms in kernels.KERNELS.items()}
        n = games
        self.start = np.zeros((n, 6), np.int64)  # per game: fox, prey, turn, quiet, stall, ply
        self.set_start(start)
        self.fox = np.zeros(n, np.int64)
        self.prey = np.zeros(n, np.int64)  # dense points, as the compiled core
        self.turn = np.zeros(n, np.int64)
        self.quiet = np.zeros(n, np.int64)
        self.stall = np.zeros(n, np.int64)
        self.chain = np.zeros(n, np.int64)
        self.steps = np.zeros(n, np.int64)
        self.ply = np.zeros(n, np.int64)
        self.history = np.zeros((n, kernels.HISTORY), np.int64)
        self.history_len = np.zeros(n, np.int64)
        self.masks = np.zeros((n, self.actions.size), np.uint8)
        self.legal = np.zeros((n, MAX_LEGAL), np.int16)  # small rows: the kernels touch them every step
        self.counts = np.zeros(n, np.int64)
        self.ended = np.zeros(n, np.int64)
        self.ending = np.zeros(n, np.int64)  # how: batched_kernels' ending codes
        self.rewards = np.zeros((n, 2), np.float32)
        self._draws = np.zeros(n, np.float64)
        self._chosen = np.zeros(n, np.int64)
        rows, columns = self.variant.board.rows, self.variant.board.columns
        self._cell_row = (tables.grid // GRID_WIDTH).astype(np.int64)
        self._cell_column = (tables.grid % GRID_WIDTH).astype(np.int64)
        self._board = np.ascontiguousarray(self.actions.board_plane)
        self.observation_shape = (len(PLANES), rows, columns)

    def set_start(self, start: str | Position | Sequence[str | Position] | None,
                   which: np.ndarray | None = None) -> None:
        """Each game's start (`which`: only those games) from one position or one per game: where
        `reset` and the next game after an ending put it (games in play go on)."""
        if start is None:
            start = self.variant.start_position()
        rows = np.flatnonzero(np.ones(self.games, np.bool_) if which is None else which)
        if isinstance(start, (str, Position)):
            self.start[rows] = self._start_row(start)
            return
        starts = list(start)
        if len(starts) != self.games:
            raise ValueError(f"start= gives {len(starts)} positions for {self.games} games: one, or one per game")
        for game in rows:
            self.start[game] = self._start_row(starts[game])

    def _start_row(self, start: str | Position) -> list[int]:
        position = Position.from_text(start) if isinstance(start, str) else start
        if position.variant is not self.variant:
            raise ValueError(f"start position {position.text()!r} is of {position.variant}, not {self.variant}")
        if position.outcome() is not None:
            raise ValueError(f"start position {position.text()!r} has ended: a game cannot start there")
        t = self.tables
        return [int(np.searchsorted(t.grid, position.predator)), t.dense_mask(position.prey), int(position.turn),
                position.quiet, position.stall, position.ply]

    def reset(self, which: np.ndarray | None = None,
              start: str | Position | Sequence[str | Position] | None = None) -> np.ndarray:
        """Every game (or those where `which` is true) back at its start; returns the masks.

        `start` (a position text or `Position`, or one per game) becomes those games' start first:
        counters and ply as the position says, repetition counted from it."""
        t = self.tables
        which = np.ones(self.games, np.bool_) if which is None else np.asarray(which, np.bool_)
        if start is not None:
            self.set_start(start, which)
        reset = self._kernels["reset_games"]
        reset(which, self.start, self.fox, self.prey, self.turn, self.quiet, self.stall, self.chain, self.steps,
              self.ply, self.history, self.history_len, t.core, t.action_of, t.stop, self.masks, self.legal,
              self.counts)
        return self.masks

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One action per game: (masks, rewards (N, 2), ended codes); ended games have started again."""
        t = self.tables
        step = self._kernels["step_games"]
        step(np.asarray(actions, np.int64), self.fox, self.prey, self.turn, self.quiet, self.stall,
             self.chain, self.steps, self.ply, self.history, self.history_len, t.core, t.action_of, t.action_from,
             t.action_to, t.jump_over, t.stop, self.max_steps, self.start, self.masks, self.legal, self.counts,
             self.ended, self.ending, self.rewards)
        return self.masks, self.rewards, self.ended

    def outcome(self, game: int) -> dict[str, Any] | None:
        """How the last step ended game `game`, in every environment's schema (hunt.outcome_info):
        `{"winner": "geese", "termination": "trapped"}`; an action outside the mask is
        `"illegal-move"`, a game cut at `max_steps` `{"winner": "draw", "termination": "truncated"}`;
        None if it goes on."""
        code = int(self.ending[game])
        if code == core.GOING:
            return None
        if code == kernels.TRUNCATION:
            return {"winner": "draw", "termination": "truncated"}
        if code == kernels.ILLEGAL_ACTION:
            winner = Side.PREDATOR if self.ended[game] == kernels.PREDATOR_WINS else Side.PREY
            return {"winner": self.variant.side_name(winner), "termination": "illegal-move"}
        ending = next(t for t in Termination if t.value == core.ENDING_NAMES[code])
        return outcome_info(self.variant.outcome(ending))

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per game (the benchmark's and a random agent's policy)."""
        self._draws[:] = self.rng.random(self.games)
        self._kernels["random_actions"](self.legal, self.counts, self._draws, self._chosen)
        return self._chosen

    def observations(self, role: Side | str) -> np.ndarray:
        """(N, planes, rows, columns) float32: actions.py's planes as `role` (a Side or its name:
        "fox", "geese", "hare", "hounds") sees each game."""
        role = side_of(self.variant, role)
        out = np.zeros((self.games, *self.observation_shape), np.float32)
        self._kernels["observe_games"](self.fox, self.prey, self.turn, self.quiet, self.stall, self.chain, int(role),
                              self._cell_row, self._cell_column, self._board, out)
        return out

    def position(self, game: int) -> Position:
        """Game `game`'s position as an engine Position (between whole moves; counters and ply included)."""
        t = self.tables
        return Position(self.variant, int(t.grid[self.fox[game]]), t.grid_mask(int(self.prey[game])),
                        Side(int(self.turn[game])), int(self.quiet[game]), int(self.stall[game]),
                        int(self.ply[game]))
