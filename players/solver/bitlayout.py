"""Where every `standard` position (no sideways) lives in the bit tables: the layout the kernels index.

A goose set is a 49-bit mask on the 7x7 grid (bit `row * 7 + column`), split into its seven rows.
Its *composition* (geese per row) picks a block; inside a block the set's index is mixed-radix
over the per-row subset ranks (row 4 fastest, so the sets a move or a capture leads to from
neighbouring sets are neighbours too). Blocks are ordered by row sum, so every level (goose
count, row sum) is one contiguous run of 64-bit words, each block starting on a word.

Inside a set's run of `33 - k` bits, bit i is the fox on the i-th empty point in grid order:
no bit is spent on a fox standing on a goose. Everything geometric (lines, goose directions,
jumps) comes from the engine's `Board` and `Variant`, never from a copy of the rules.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from foxgeese.engine.board import DIRECTIONS, GRID_WIDTH, point_index, point_name
from foxgeese.engine.variants import Tables, Variant

SIDE = 7  # the standard board fits a 7x7 grid: 49 bits
ROW_ORDER = (3, 2, 4, 1, 5, 0, 6)  # mixed-radix digits, fastest first
LAYOUT_VERSION = 1


def unbuilt_table() -> np.ndarray:
    """An index table before `_build` fills it."""
    return np.zeros(0, dtype=np.int64)


def grid_bit(engine_point: int) -> int:
    return (engine_point // GRID_WIDTH) * SIDE + engine_point % GRID_WIDTH


def engine_point(bit: int) -> int:
    return point_index(bit % SIDE, bit // SIDE)


def mask_of(engine_mask: int) -> int:
    """An engine prey bitmask (9-wide grid) as a 49-bit grid mask."""
    out = 0
    while engine_mask:
        low = engine_mask & -engine_mask
        out |= 1 << grid_bit(low.bit_length() - 1)
        engine_mask ^= low
    return out


@dataclass
class Level:
    geese: int
    row_sum: int
    codes: np.ndarray  # the compositions of this level, in file order
    start_word: int
    end_word: int
    sets: int


@dataclass
class Layout:
    """Index tables for the bit tables of one variant (`standard` without sideways, any board)."""

    variant: Variant
    board: int = 0
    points: int = 0
    # (7, 8, 35) int64: i-th subset of n points of row r, as a grid mask
    row_sub: np.ndarray = field(default_factory=unbuilt_table)
    # (7, 128) int64: rank of a row's 7-bit mask among its size
    row_rank: np.ndarray = field(default_factory=unbuilt_table)
    row_count: np.ndarray = field(default_factory=unbuilt_table)  # (7, 8) int64: C(width, n)
    radix: np.ndarray = field(default_factory=unbuilt_table)  # (7,) int64: composition code = sum n_r * radix[r]
    # (codes, 7) int64: geese per row (-1: not a composition)
    code_rows: np.ndarray = field(default_factory=unbuilt_table)
    stride: np.ndarray = field(default_factory=unbuilt_table)  # (codes, 7) int64
    # (codes,) int64: first word of the block in its k file
    block_word: np.ndarray = field(default_factory=unbuilt_table)
    block_sets: np.ndarray = field(default_factory=unbuilt_table)  # (codes,) int64
    targets: np.ndarray = field(default_factory=unbuilt_table)  # (49, 3) int64: goose step targets (-1: none)
    # (49, 8) int64: per jumped point, the fox's origin (-1: none)
    jump_from: np.ndarray = field(default_factory=unbuilt_table)
    jump_to: np.ndarray = field(default_factory=unbuilt_table)  # (49, 8) int64: ... and its landing point
    goose_shift: np.ndarray = field(default_factory=unbuilt_table)  # (3,) int64: grid-bit delta of each goose direction
    goose_from: np.ndarray = field(default_factory=unbuilt_table)  # (3,) int64: points with a line that way
    # (8,) int64: points a fox can jump over in each direction
    jump_over: np.ndarray = field(default_factory=unbuilt_table)
    # (8,) int64: grid-bit delta of a fox step per direction
    step_shift: np.ndarray = field(default_factory=unbuilt_table)
    step_from: np.ndarray = field(default_factory=unbuilt_table)  # (8,) int64: points with a line that way
    levels: dict[int, list[Level]] = field(default_factory=dict)  # geese -> levels by row sum ascending
    words: dict[int, int] = field(default_factory=dict)  # geese -> words in one array of that count

    @classmethod
    def for_variant(cls, variant: Variant) -> Layout:
        if variant.tables is not Tables.BITS or variant.board.columns > SIDE or variant.board.rows > SIDE:
            raise ValueError(f"the bit tables solve fox variants without draws on a {SIDE}x{SIDE} grid, not {variant}")
        layout = cls(variant)
        layout._build()
        return layout

    def _build(self) -> None:
        board = self.variant.board
        bits = sorted(grid_bit(p) for p in board.points)
        self.board = sum(1 << b for b in bits)
        self.points = len(bits)
        row_masks = [(self.board >> (SIDE * r)) & 127 for r in range(SIDE)]
        widths = [bin(m).count("1") for m in row_masks]
        self.row_sub = np.zeros((SIDE, 8, 35), dtype=np.int64)
        self.row_rank = np.full((SIDE, 128), -1, dtype=np.int64)
        self.row_count = np.zeros((SIDE, 8), dtype=np.int64)
        for r, m in enumerate(row_masks):
            subsets = [s for s in range(128) if s & ~m == 0]
            for n in range(widths[r] + 1):
                self.row_count[r, n] = comb(widths[r], n)
                of_size = sorted((s for s in subsets if bin(s).count("1") == n), key=_colex_key)
                for i, s in enumerate(of_size):
                    self.row_sub[r, n, i] = s << (SIDE * r)
                    self.row_rank[r, s] = i
        self.radix = np.zeros(SIDE, dtype=np.int64)
        total = 1
        for r in range(SIDE):
            self.radix[r] = total
            total *= widths[r] + 1
        codes = np.arange(total, dtype=np.int64)
        self.code_rows = np.stack([(codes // self.radix[r]) % (widths[r] + 1) for r in range(SIDE)], axis=1)
        self.stride = np.zeros((total, SIDE), dtype=np.int64)
        size = np.ones(total, dtype=np.int64)
        for r in ROW_ORDER:
            self.stride[:, r] = size
            size = size * self.row_count[r, self.code_rows[:, r]]
        self.block_sets = size
        geese = self.code_rows.sum(axis=1)
        row_sums = (self.code_rows * np.arange(SIDE)).sum(axis=1)
        self.block_word = np.full(total, -1, dtype=np.int64)
        order = np.lexsort((codes, row_sums, geese))  # by goose count, then row sum, then code
        words = (self.block_sets[order] * (self.points - geese[order]) + 63) // 64
        for k in np.unique(geese):
            in_k = order[geese[order] == k]
            ends = np.cumsum(words[geese[order] == k])
            self.block_word[in_k] = ends - words[geese[order] == k]
            self.words[int(k)] = int(ends[-1])
            level_sums = row_sums[in_k]
            for row_sum in np.unique(level_sums):
                members = in_k[level_sums == row_sum]
                first, last = members[0], members[-1]
                end_word = int(self.block_word[last] + (self.block_sets[last] * (self.points - k) + 63) // 64)
                self.levels.setdefault(int(k), []).append(Level(int(k), int(row_sum), members.astype(np.int64),
                                                                int(self.block_word[first]), end_word,
                                                                int(self.block_sets[members].sum())))
        self._moves(board)

    def _moves(self, board: Any) -> None:
        self.targets = np.full((SIDE * SIDE, 3), -1, dtype=np.int64)
        for p in board.points:
            found = [board.neighbour(p, d) for d in self.variant.prey_directions]
            found = [grid_bit(q) for q in found if q is not None]
            if any(q // SIDE != grid_bit(p) // SIDE + 1 for q in found):
                raise ValueError("the bit tables need every goose step to raise a row")
            self.targets[grid_bit(p), : len(found)] = found
        self.jump_from = np.full((SIDE * SIDE, 8), -1, dtype=np.int64)
        self.jump_to = np.full((SIDE * SIDE, 8), -1, dtype=np.int64)
        filled = np.zeros(SIDE * SIDE, dtype=np.int64)
        for f in sorted(board.points):
            for over, land in board.jumps[f]:
                o = grid_bit(over)
                self.jump_from[o, filled[o]] = grid_bit(f)
                self.jump_to[o, filled[o]] = grid_bit(land)
                filled[o] += 1
        self.step_shift = np.zeros(len(DIRECTIONS), dtype=np.int64)
        self.step_from = np.zeros(len(DIRECTIONS), dtype=np.int64)
        self.jump_over = np.zeros(len(DIRECTIONS), dtype=np.int64)
        for d, direction in enumerate(DIRECTIONS):
            self.step_shift[d] = direction[1] * SIDE + direction[0]
            for p in board.points:
                over = board.neighbour(p, direction)
                if over is not None:
                    self.step_from[d] |= 1 << grid_bit(p)
                    if (over, board.neighbour(over, direction)) in board.jumps[p]:
                        self.jump_over[d] |= 1 << grid_bit(over)
        directions = list(self.variant.prey_directions)
        self.goose_shift = np.array([d[1] * SIDE + d[0] for d in directions], dtype=np.int64)
        self.goose_from = np.zeros(len(directions), dtype=np.int64)
        for t, direction in enumerate(directions):
            for p in board.points:
                if board.neighbour(p, direction) is not None:
                    self.goose_from[t] |= 1 << grid_bit(p)

    # -- figures and identity -----------------------------------------------------------------

    def slots(self, geese: int) -> int:
        return self.points - geese

    def goose_sets(self, geese: int) -> int:
        return sum(level.sets for level in self.levels[geese])

    def fingerprint(self) -> str:
        """Changes whenever the layout would put a position elsewhere: files built otherwise are refused."""
        text = json.dumps({"version": LAYOUT_VERSION, "order": ROW_ORDER, "board": self.board,
                           "targets": self.targets.tolist(), "jumps": self.jump_to.tolist()})
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def point_names(self) -> list[str]:
        return [point_name(engine_point(b)) for b in range(SIDE * SIDE) if self.board >> b & 1]

    # -- one position -----------------------------------------------------------------------------

    def code_of(self, mask: int) -> int:
        return sum(bin((mask >> (SIDE * r)) & 127).count("1") * int(self.radix[r]) for r in range(SIDE))

    def set_index(self, mask: int, code: int) -> int:
        return sum(int(self.row_rank[r, (mask >> (SIDE * r)) & 127]) * int(self.stride[code, r]) for r in range(SIDE))

    def bit_of(self, mask: int, fox_bit: int) -> int:
        """The bit (within its goose count's array) of the fox on `fox_bit` with geese `mask`."""
        code = self.code_of(mask)
        geese = bin(mask).count("1")
        empty = self.board & ~mask
        slot = bin(empty & ((1 << fox_bit) - 1)).count("1")
        return int(self.block_word[code]) * 64 + self.set_index(mask, code) * self.slots(geese) + slot

    def bits_of(self, masks: np.ndarray, fox_bits: np.ndarray) -> np.ndarray:
        """`bit_of` for arrays of goose masks and fox grid bits (numpy, for tests and analyses)."""
        masks = np.asarray(masks, dtype=np.int64)
        fox_bits = np.asarray(fox_bits, dtype=np.int64)
        codes = np.zeros(masks.shape, dtype=np.int64)
        index = np.zeros(masks.shape, dtype=np.int64)
        rows = [(masks >> (SIDE * r)) & 127 for r in range(SIDE)]
        for r in range(SIDE):
            codes += _pop(rows[r]) * self.radix[r]
        for r in range(SIDE):
            index += self.row_rank[r, rows[r]] * self.stride[codes, r]
        empty = self.board & ~masks
        slots = _pop(empty & ((np.int64(1) << fox_bits) - 1))
        return self.block_word[codes] * 64 + index * (self.points - _pop(masks)) + slots



def row_bit_tables() -> tuple[np.ndarray, np.ndarray]:
    """PEXT and PDEP of a 7-bit row value under a 7-bit row mask, as (128, 128) tables [mask, value]:
    what the kernels use on CPUs without fast PEXT/PDEP instructions."""
    extract = np.zeros((128, 128), dtype=np.int64)
    deposit = np.zeros((128, 128), dtype=np.int64)
    for m in range(128):
        where = [b for b in range(7) if m >> b & 1]
        for v in range(128):
            extract[m, v] = sum(1 << i for i, b in enumerate(where) if v >> b & 1)
            if v < 1 << len(where):
                deposit[m, v] = sum(1 << b for i, b in enumerate(where) if v >> i & 1)
    return extract, deposit


def _pop(values: np.ndarray) -> np.ndarray:
    return np.bitwise_count(values.astype(np.uint64)).astype(np.int64)


def _colex_key(subset: int) -> tuple[int, ...]:
    return tuple(sorted((b for b in range(7) if subset >> b & 1), reverse=True))
