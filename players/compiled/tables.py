"""A variant's board and rules as the dense-point arrays the compiled core reads (`CoreTables`).

Every board has at most 45 points, so a point is a dense index 0..n-1 (grid order: dense order is
the engine's grid order, so moves come out in the engine's order) and a set of prey is one int64
bitmask. The arrays are made from the engine's `Variant` (its board, prey directions and endings)
and owned by whoever asks for them (a searcher, an environment): nothing is kept at module level.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from foxgeese.engine import Move, Side, Termination, Variant
from foxgeese.engine.board import DIRECTIONS, GRID_WIDTH
from foxgeese.engine.rules import State

MAX_POINTS = 63  # dense indices must fit an int64 mask (the largest board has 45)


class CoreTables(NamedTuple):
    """What the core's functions read (numba takes a NamedTuple as one argument, fields by name)."""

    n: int  # points on the board
    grid: np.ndarray  # int64[n]: dense point -> grid point (row * 9 + column)
    neighbours: np.ndarray  # int64[n]: mask of the points joined to it
    ray: np.ndarray  # int64[n, 8]: the neighbour in each of board.DIRECTIONS, -1 where no line goes
    jump_over: np.ndarray  # int64[n, 8]: the fox's jumps from a point (board.jumps order), -1 pads
    jump_land: np.ndarray  # int64[n, 8]
    prey_reach: np.ndarray  # int64[n]: the points a prey there may step onto (empty or not)
    rows_up_to: np.ndarray  # int64[n]: the points on its row or a lower one
    row: np.ndarray  # int64[n]: a point's row
    board_mask: int  # all n points
    captures: bool  # the fox captures (jump tables filled)
    checks_captured: bool
    checks_escaped: bool
    checks_stalling: bool  # also: the stall counter counts (engine rules.py `counts_stall`)
    checks_fifty: bool
    checks_repetition: bool


def dense_points(variant: Variant) -> list[int]:
    """The board's grid points in dense order."""
    return sorted(variant.board.points)


def core_tables(variant: Variant) -> CoreTables:
    """The dense-point tables of one variant (build once per searcher or environment: ~1 ms)."""
    board = variant.board
    grid = dense_points(variant)
    n = len(grid)
    if n > MAX_POINTS:
        raise ValueError(f"{variant.id} has {n} points; the compiled core takes at most {MAX_POINTS}")
    dense = {g: d for d, g in enumerate(grid)}
    neighbours = np.zeros(n, np.int64)
    ray = np.full((n, 8), -1, np.int64)
    jump_over = np.full((n, 8), -1, np.int64)
    jump_land = np.full((n, 8), -1, np.int64)
    row = np.array([g // GRID_WIDTH for g in grid], np.int64)
    rows_up_to = np.zeros(n, np.int64)
    for d, g in enumerate(grid):
        for e, h in enumerate(grid):
            if board.neighbours[g] >> h & 1:
                neighbours[d] |= 1 << e
            if h // GRID_WIDTH <= g // GRID_WIDTH:
                rows_up_to[d] |= 1 << e
        for k, direction in enumerate(DIRECTIONS):
            q = board.neighbour(g, direction)
            ray[d, k] = -1 if q is None else dense[q]
        if variant.captures:
            for k, (over, land) in enumerate(board.jumps[g]):
                jump_over[d, k], jump_land[d, k] = dense[over], dense[land]
    directions = variant.prey_directions
    prey_to = np.full((len(directions), n), -1, np.int64)
    for k, direction in enumerate(directions):
        for d, g in enumerate(grid):
            q = board.neighbour(g, direction)
            if q is not None:
                prey_to[k, d] = dense[q]
    prey_reach = np.zeros(n, np.int64)
    for k in range(len(directions)):
        for d in range(n):
            if prey_to[k, d] >= 0:
                prey_reach[d] |= 1 << int(prey_to[k, d])
    endings = variant.endings
    return CoreTables(
        n, np.array(grid, np.int64), neighbours, ray, jump_over, jump_land, prey_reach, rows_up_to, row,
        (1 << n) - 1, variant.captures, Termination.CAPTURED in endings, Termination.ESCAPED in endings,
        Termination.STALLING in endings, Termination.FIFTY_MOVES in endings, Termination.REPETITION in endings,
    )


class DenseBoard:
    """A variant's `CoreTables` with the conversions between the engine's grid and dense points."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.tables = core_tables(variant)
        self.grid: list[int] = self.tables.grid.tolist()
        self.dense: dict[int, int] = {g: d for d, g in enumerate(self.grid)}

    def mask(self, grid_mask: int) -> int:
        """A grid bitmask (the engine's) as a dense one."""
        return sum(1 << d for d, g in enumerate(self.grid) if grid_mask >> g & 1)

    def grid_mask(self, dense_mask: int) -> int:
        """A dense bitmask as the engine's grid bitmask."""
        return sum(1 << g for d, g in enumerate(self.grid) if dense_mask >> d & 1)

    def state(self, state: State) -> tuple[int, int, int, int, int]:
        """The engine's state tuple as the core's five scalars."""
        predator, prey, turn, quiet, stall = state
        return self.dense[predator], self.mask(prey), int(turn), quiet, stall

    def engine_state(self, fox: int, prey: int, turn: int, quiet: int, stall: int) -> State:
        return self.grid[fox], self.grid_mask(prey), Side(turn), int(quiet), int(stall)

    def move_code(self, move: Move) -> tuple[int, int, int]:
        """(from, to, taken) of an engine move, on dense points."""
        path = move.path
        taken = 0
        if move.is_capture:
            for a, b in zip(path, path[1:]):
                taken |= 1 << self.dense[(a + b) >> 1]
        return self.dense[path[0]], self.dense[path[-1]], taken

    def move(self, points: list[int], capture: bool) -> Move:
        """The engine move through these dense points."""
        return Move(tuple(self.grid[p] for p in points), capture)


