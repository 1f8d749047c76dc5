"""Where every position of a board up to 64 points lives in the two-bit (win/draw/loss) tables.

`bitlayout.Layout` packs `standard` onto a 7x7 grid mask; `great-cross` has 45 points on a 9x9
grid (81 bits), so these tables number the points densely instead (`tables.Geometry`: grid order,
row by row), one bit a point. A goose set's *composition* (geese per row) picks a block; inside
a block the index is mixed-radix over the rows' subset ranks (row 0 fastest). Blocks are ordered
by goose count, then row sum, then composition; every level (goose count, row sum) starts on a set
index that is a multiple of 64, so each level's bits start on a word in every plane and runs of 64
sets never share a word. Inside a set's run of `points - k` bits, bit i is the fox on the i-th
empty point. Everything geometric comes from the engine (via `Geometry`), never from a copy.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from math import comb

import numpy as np

from foxgeese.engine.variants import Variant
from foxgeese.players.solver.bitlayout import unbuilt_table
from foxgeese.players.solver.tables import Geometry

WDL_LAYOUT_VERSION = 1
MAX_ROW = 9  # the widest row of any fox board


@dataclass
class WdlLevel:
    geese: int
    row_sum: int
    codes: np.ndarray  # the compositions of this level, in index order
    first_set: int  # a multiple of 64
    sets: int  # goose sets (without the padding to the next multiple of 64)

    @property
    def padded(self) -> int:
        return (self.sets + 63) // 64 * 64


@dataclass
class WdlLayout:
    """Index tables for the two-bit tables of one variant (any board with rows of up to 9 points)."""

    variant: Variant
    geometry: Geometry
    row_start: np.ndarray = field(default_factory=unbuilt_table)  # (rows,) first dense point of each row
    row_width: np.ndarray = field(default_factory=unbuilt_table)  # (rows,)
    row_of: np.ndarray = field(default_factory=unbuilt_table)  # (points,) the row of each dense point
    # (rows, 10, 126) i-th subset of n points of row r, dense mask
    row_sub: np.ndarray = field(default_factory=unbuilt_table)
    # (rows, 512) rank of a row value among the subsets of its size
    row_rank: np.ndarray = field(default_factory=unbuilt_table)
    row_count: np.ndarray = field(default_factory=unbuilt_table)  # (rows, 10) C(width, n)
    radix: np.ndarray = field(default_factory=unbuilt_table)  # (rows,) composition code = sum n_r * radix[r]
    # (codes,) first set index of the block in its count, -1: unused
    block_base: np.ndarray = field(default_factory=unbuilt_table)
    forward: np.ndarray = field(default_factory=unbuilt_table)  # (points, 3) goose steps one row up (-1: none)
    sideways: np.ndarray = field(default_factory=unbuilt_table)  # (points, 2) goose steps along the row (-1: none)
    # (bytes, 256) the points one fox step from a byte's points
    adjacent: np.ndarray = field(default_factory=unbuilt_table)
    # (512, 512) a row value's bits under a row mask, packed
    row_pext: np.ndarray = field(default_factory=unbuilt_table)
    # (points, 8) per jumped point, the fox's origin (-1: none)
    jump_from: np.ndarray = field(default_factory=unbuilt_table)
    jump_to: np.ndarray = field(default_factory=unbuilt_table)  # (points, 8) ... and its landing point
    levels: dict[int, list[WdlLevel]] = field(default_factory=dict)
    sets: dict[int, int] = field(default_factory=dict)  # goose count -> padded sets of that count

    @classmethod
    def for_variant(cls, variant: Variant, max_geese: int) -> WdlLayout:
        layout = cls(variant, Geometry(variant))
        layout._build(max_geese)
        return layout

    @property
    def points(self) -> int:
        return self.geometry.size

    @property
    def board(self) -> int:
        return (1 << self.points) - 1

    def slots(self, geese: int) -> int:
        return self.points - geese

    def plane_words(self, geese: int) -> int:
        return self.sets[geese] * self.slots(geese) // 64

    def _build(self, max_geese: int) -> None:
        g = self.geometry
        if g.size > 63:
            raise ValueError("the two-bit tables need a board of at most 63 points")
        rows = [int(r) for r in g.rows]
        if rows != sorted(rows):
            raise ValueError("the two-bit tables need the points numbered row by row")
        row_ids = sorted(set(rows))
        dense_row = {r: i for i, r in enumerate(row_ids)}
        row_of = np.array([dense_row[r] for r in rows], dtype=np.int64)
        n_rows = len(row_ids)
        self.row_of = row_of
        self.row_start = np.array([rows.index(r) for r in row_ids], dtype=np.int64)
        self.row_width = np.array([rows.count(r) for r in row_ids], dtype=np.int64)
        if self.row_width.max() > MAX_ROW:
            raise ValueError(f"the two-bit tables need rows of at most {MAX_ROW} points")
        self.row_sub = np.zeros((n_rows, MAX_ROW + 1, comb(MAX_ROW, MAX_ROW // 2)), dtype=np.int64)
        self.row_rank = np.full((n_rows, 1 << MAX_ROW), -1, dtype=np.int64)
        self.row_count = np.zeros((n_rows, MAX_ROW + 1), dtype=np.int64)
        for r in range(n_rows):
            width = int(self.row_width[r])
            for n in range(width + 1):
                self.row_count[r, n] = comb(width, n)
                of_size = sorted((s for s in range(1 << width) if bin(s).count("1") == n),
                                 key=lambda s: [b for b in range(width - 1, -1, -1) if s >> b & 1])
                for i, s in enumerate(of_size):
                    self.row_sub[r, n, i] = s << int(self.row_start[r])
                    self.row_rank[r, s] = i
        self.row_pext = np.zeros((1 << MAX_ROW, 1 << MAX_ROW), dtype=np.int64)
        for m in range(1 << MAX_ROW):
            where = [b for b in range(MAX_ROW) if m >> b & 1]
            for i, b in enumerate(where):
                self.row_pext[m, (np.arange(1 << MAX_ROW) >> b) & 1 == 1] |= 1 << i
        self.radix = np.ones(n_rows, dtype=np.int64)
        for r in range(1, n_rows):
            self.radix[r] = self.radix[r - 1] * (self.row_width[r - 1] + 1)
        self._blocks(max_geese)
        self._moves(row_of)

    def _blocks(self, max_geese: int) -> None:
        total_codes = int(self.radix[-1] * (self.row_width[-1] + 1))
        self.block_base = np.full(total_codes, -1, dtype=np.int64)
        for k in range(3, max_geese + 1):  # 3: a capture's child when 4 geese is the fewest solved
            self.add_count(k)

    def add_count(self, k: int) -> None:
        """The levels and block bases of goose count k (each count is laid out on its own)."""
        if k in self.levels:
            return
        blocks = []
        for counts in _compositions([int(w) for w in self.row_width], k):
            code = sum(n * int(self.radix[r]) for r, n in enumerate(counts))
            row_sum = sum(n * r for r, n in enumerate(counts))
            sets = 1
            for r, n in enumerate(counts):
                sets *= int(self.row_count[r, n])
            blocks.append((row_sum, code, sets))
        blocks.sort()
        base = 0
        levels: list[WdlLevel] = []
        for row_sum in sorted({b[0] for b in blocks}):
            members = [b for b in blocks if b[0] == row_sum]
            level = WdlLevel(k, row_sum, np.array([b[1] for b in members], dtype=np.int64), base,
                             sum(b[2] for b in members))
            offset = base
            for _, code, sets in members:
                self.block_base[code] = offset
                offset += sets
            levels.append(level)
            base += level.padded
        self.levels[k] = levels
        self.sets[k] = base

    def _moves(self, row_of: np.ndarray) -> None:
        g = self.geometry
        self.forward = np.full((g.size, 3), -1, dtype=np.int64)
        self.sideways = np.full((g.size, 2), -1, dtype=np.int64)
        for p in range(g.size):
            ahead, along = [], []
            for d in g.prey_dirs:
                q = int(g.step[p, d])
                if q < 0:
                    continue
                if row_of[q] == row_of[p] + 1:
                    ahead.append(q)
                elif row_of[q] == row_of[p]:
                    along.append(q)
                else:
                    raise ValueError("the two-bit tables need every goose step to go one row up or along its row")
            self.forward[p, : len(ahead)] = ahead
            self.sideways[p, : len(along)] = along
        self.jump_from = np.full((g.size, 8), -1, dtype=np.int64)
        self.jump_to = np.full((g.size, 8), -1, dtype=np.int64)
        filled = np.zeros(g.size, dtype=np.int64)
        for f, d in zip(*np.nonzero(g.land >= 0), strict=True):
            over = int(g.step[f, d])
            self.jump_from[over, filled[over]] = f
            self.jump_to[over, filled[over]] = g.land[f, d]
            filled[over] += 1
        n_bytes = (g.size + 7) // 8
        self.adjacent = np.zeros((n_bytes, 256), dtype=np.int64)
        for byte in range(n_bytes):
            for value in range(256):
                out = 0
                for b in range(8):
                    p = byte * 8 + b
                    if value >> b & 1 and p < g.size:
                        for q in g.step[p]:
                            if q >= 0:
                                out |= 1 << int(q)
                self.adjacent[byte, value] = out

    # -- figures and identity -----------------------------------------------------------------

    def goose_sets(self, geese: int) -> int:
        return sum(level.sets for level in self.levels[geese])

    def fingerprint(self) -> str:
        """Changes whenever a position would live elsewhere: files built otherwise are refused."""
        text = json.dumps({"version": WDL_LAYOUT_VERSION, "points": self.geometry.names,
                           "step": self.geometry.step.tolist(), "prey": self.geometry.prey_dirs})
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # -- one position -------------------------------------------------------------------------

    def dense_mask(self, engine_mask: int) -> int:
        return sum(1 << p for p in self.geometry.dense_points(engine_mask))

    def set_index(self, mask: int) -> int:
        index, stride, code = 0, 1, 0
        for r in range(len(self.row_start)):
            value = (mask >> int(self.row_start[r])) & ((1 << int(self.row_width[r])) - 1)
            n = bin(value).count("1")
            code += n * int(self.radix[r])
            index += int(self.row_rank[r, value]) * stride
            stride *= int(self.row_count[r, n])
        return int(self.block_base[code]) + index

    def bit_of(self, mask: int, fox: int) -> int:
        """The bit (within one plane of its goose count) of the fox on dense point `fox` with geese `mask`."""
        empty = self.board & ~mask
        return self.set_index(mask) * self.slots(bin(mask).count("1")) + bin(empty & ((1 << fox) - 1)).count("1")


def _compositions(widths: list[int], geese: int) -> list[tuple[int, ...]]:
    """Every way to put exactly `geese` geese on rows of these widths (geese per row)."""
    if not widths:
        return [()] if geese == 0 else []
    if geese > sum(widths):
        return []
    return [(n, *rest) for n in range(min(widths[0], geese) + 1) for rest in _compositions(widths[1:], geese - n)]
