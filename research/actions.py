"""The fixed action enumeration and the observation planes shared by every environment.

An action is one *segment*: a step `(from, to)` between two joined points, a jump `(from, to)`
two points along a line (one capture), or STOP (end a capture chain). A whole engine move is one
step, or one or more jumps by the same player: after a jump the fox moves again while another
jump is possible, and may play STOP to end the chain there (every prefix of a chain is a move). The
enumeration is per variant and fixed: steps sorted by (from, to), then jumps sorted the same way,
then STOP (only in variants with captures). See docs/research.md for the planes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from foxgeese.engine import Side, Variant, get_variant
from foxgeese.engine.board import GRID_WIDTH, point_name
from foxgeese.engine.position import FIFTY_MOVE_PLIES, STALLING_MOVES

PLANES = ("mine", "theirs", "board", "to_move", "chain", "quiet", "stall")
"""Observation channels, in order (shape: channels x rows x columns, row 0 = the board's row 1)."""


@dataclass(frozen=True, eq=False)
class ActionSpace:
    """The discrete actions of one variant: `pairs[i]` is action i's (from, to), None for STOP;
    `board_plane` is the observation's board plane (read-only)."""

    variant: Variant
    steps: tuple[tuple[int, int], ...]
    jumps: tuple[tuple[int, int], ...]
    index: dict[tuple[int, int], int]
    board_plane: np.ndarray

    @property
    def size(self) -> int:
        return len(self.steps) + len(self.jumps) + (1 if self.variant.captures else 0)

    @property
    def stop(self) -> int | None:
        """The STOP action, or None where nobody captures."""
        return self.size - 1 if self.variant.captures else None

    def is_jump(self, action: int) -> bool:
        return len(self.steps) <= action < len(self.steps) + len(self.jumps)

    def pair(self, action: int) -> tuple[int, int] | None:
        if action < len(self.steps):
            return self.steps[action]
        if action < len(self.steps) + len(self.jumps):
            return self.jumps[action - len(self.steps)]
        return None

    def name(self, action: int) -> str:
        """`d4-d5`, `d4xd6` or `stop`."""
        pair = self.pair(action)
        if pair is None:
            return "stop"
        return f"{point_name(pair[0])}{'x' if self.is_jump(action) else '-'}{point_name(pair[1])}"

    def names(self) -> list[str]:
        return [self.name(action) for action in range(self.size)]


def action_space(variant: Variant | str, **options: Any) -> ActionSpace:
    """The variant's action enumeration (about 0.4 ms to make: an environment makes one and keeps it).

    `variant`: a `Variant`, or a variant id with its options (`action_space("standard", geese=17)`)."""
    if isinstance(variant, str):
        variant = get_variant(variant, **options)
    elif options:
        raise ValueError(f"options {sorted(options)} go with a variant id, not a Variant ({variant})")
    board = variant.board
    steps = tuple(sorted((p, q) for p in board.points for q in board.points if board.joined(p, q)))
    jumps: tuple[tuple[int, int], ...] = ()
    if variant.captures:
        jumps = tuple(sorted({(p, land) for p in board.points for _, land in board.jumps[p]}))
    index = {pair: i for i, pair in enumerate(steps)}
    index.update({pair: len(steps) + i for i, pair in enumerate(jumps)})
    return ActionSpace(variant, steps, jumps, index, _board_plane(variant))


def observation_shape(variant: Variant | str, **options: Any) -> tuple[int, int, int]:
    if isinstance(variant, str):
        variant = get_variant(variant, **options)
    return (len(PLANES), variant.board.rows, variant.board.columns)


def _board_plane(variant: Variant) -> np.ndarray:
    plane = np.zeros(variant.board.rows * GRID_WIDTH, dtype=np.float32)
    plane[list(variant.board.points)] = 1.0
    result = plane.reshape(variant.board.rows, GRID_WIDTH)[:, : variant.board.columns].copy()
    result.setflags(write=False)
    return result


def observe(actions: ActionSpace, role: Side, predator: int, prey: int, turn: Side, quiet: int, stall: int,
            chain: bool) -> np.ndarray:
    """The planes `PLANES` seen by `role` (float32 in [0, 1]), in the variant of `actions`."""
    variant = actions.variant
    rows, columns = variant.board.rows, variant.board.columns
    grid = np.zeros((2, rows * GRID_WIDTH), dtype=np.float32)
    grid[0, predator] = 1.0
    bits = prey
    while bits:
        low = bits & -bits
        grid[1, low.bit_length() - 1] = 1.0
        bits ^= low
    pieces = grid.reshape(2, rows, GRID_WIDTH)[:, :, :columns]
    out = np.empty((len(PLANES), rows, columns), dtype=np.float32)
    mine, theirs = (0, 1) if role == Side.PREDATOR else (1, 0)
    out[0] = pieces[mine]
    out[1] = pieces[theirs]
    out[2] = actions.board_plane
    out[3] = 1.0 if turn == role else 0.0
    out[4] = 0.0
    if chain:
        out[4, predator // GRID_WIDTH, predator % GRID_WIDTH] = 1.0
    out[5] = min(quiet, FIFTY_MOVE_PLIES) / FIFTY_MOVE_PLIES
    out[6] = min(stall, STALLING_MOVES) / STALLING_MOVES
    return out
