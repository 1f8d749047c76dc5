"""Solved tables on disk: scores, the file format, where the files live, and numpy board tables.

A *score* is one int16 from the point of view of the side to move: `WIN - d` means "wins in d
plies", `-WIN + d` "loses in d plies", 0 a draw. Higher is better for the mover, so a parent's
score is the maximum over its moves of `to_parent(child)` — winning fastest and losing slowest
fall out of the ordering. `NO_MOVE` marks "no such move" and states that cannot occur.

File format (version `FORMAT_VERSION`): the magic line, a 4-byte little-endian header length,
a JSON header (variant key, goose count, point names, arrays with dtype/shape/offset, build
figures), then the raw arrays, each 64-byte aligned — so a table is memory-mapped, not read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from foxgeese.engine import Position, Side
from foxgeese.engine.board import DIRECTIONS, point_name
from foxgeese.engine.position import MIN_GEESE  # fewer geese than this: the fox has won (captured)
from foxgeese.engine.variants import Variant
from foxgeese.files import atomic_write
from foxgeese.players.score import Score
from foxgeese.players.solver.fileheader import FileKind, pack_header
from foxgeese.players.solver.fileheader import read_header as read_file_header

FORMAT_VERSION = 1
MAGIC = b"FOXGEESE-TABLE\n"
WIN = 32000
NO_MOVE = -32768
SCORE_DTYPE = np.int16


class TableError(Exception):
    """A table that is missing, of another format version, or does not match the variant."""


TABLE_FILE = FileKind(MAGIC, FORMAT_VERSION, "table file", TableError, "; rebuild it")


# -- scores ---------------------------------------------------------------------------------------


def to_parent(child: Any) -> Any:
    """The mover's score for a move leading to a position whose mover (the opponent) has `child`.

    Works on ints and on numpy arrays (compute in int32: `-NO_MOVE` does not fit int16).
    """
    return -child + np.sign(child)


def describe(score: int) -> tuple[str, int | None]:
    """("win", plies) / ("loss", plies) / ("draw", None) for the side to move."""
    score = int(score)
    if score == NO_MOVE:
        raise ValueError("no score: the state cannot occur")
    if score > 0:
        return "win", WIN - score
    if score < 0:
        return "loss", score + WIN
    return "draw", None


def to_score(score: int, mover: Side) -> Score:
    """A table score (the side to move's point of view) as the searches' shared `Score`."""
    kind, plies = describe(score)
    if kind == "draw":
        return Score.proven_draw(mover)
    return Score.proven_win(mover, plies) if kind == "win" else Score.proven_loss(mover, plies)


def winner_text(score: int, mover: str, other: str) -> str:
    """`hounds win in 11 plies` / `draw` for a score seen by `mover`."""
    kind, plies = describe(score)
    if kind == "draw":
        return "draw"
    winner = mover if kind == "win" else other
    verb = "wins" if winner in ("fox", "hare") else "win"
    return f"{winner} {verb} in {plies} plies"


# -- where tables live ----------------------------------------------------------------------------


def table_dir(override: str | os.PathLike | None = None) -> Path:
    """`override`, else $FOXGEESE_TABLES, else ~/.cache/foxgeese/tables (created on demand)."""
    if override is not None:
        return Path(override)
    env = os.environ.get("FOXGEESE_TABLES")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "foxgeese" / "tables"


def variant_key(variant: Variant) -> str:
    """The part of a file name that says which rules a table solves (the start's goose count does not matter)."""
    if variant.id == "standard":
        return f"standard-sideways{int(dict(variant.options)['sideways'])}"
    return variant.id


def table_path(directory: Path, variant: Variant, geese: int | None) -> Path:
    name = variant_key(variant) if geese is None else f"{variant_key(variant)}-{geese}geese"
    return directory / f"{name}.fgt"


# -- file format ----------------------------------------------------------------------------------


def save_table(path: Path, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Writes header + arrays atomically (a temp file renamed), so a reader never sees half a table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    layout: dict[str, dict[str, Any]] = {}
    offset = 0
    for name, array in arrays.items():
        offset = (offset + 63) // 64 * 64
        layout[name] = {"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset}
        offset += array.nbytes
    head = pack_header(TABLE_FILE, dict(header, arrays=layout))
    data_start = _data_start(len(head))
    with atomic_write(path, "wb") as out:
        out.write(head)
        out.write(b"\0" * (data_start - out.tell()))
        for name, array in arrays.items():
            out.seek(data_start + layout[name]["offset"])
            out.write(np.ascontiguousarray(array).tobytes())


def _data_start(header_end: int) -> int:
    return (header_end + 63) // 64 * 64


def read_header(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as stream:
            header, end = read_file_header(stream, path, TABLE_FILE)
    except FileNotFoundError:
        raise TableError(f"no table {path.name} in {path.parent}; build it with `foxgeese solve --build`") from None
    header["data_start"] = _data_start(end)
    return header


def load_table(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and memory-mapped (read-only) arrays of a table file."""
    header = read_header(path)
    arrays: dict[str, np.ndarray] = {
        name: np.memmap(path, dtype=np.dtype(spec["dtype"]), mode="r", shape=tuple(spec["shape"]),
                        offset=header["data_start"] + spec["offset"])
        for name, spec in header["arrays"].items()
    }
    return header, arrays


# -- the board as numpy tables --------------------------------------------------------------------


class Geometry:
    """A variant's board renumbered densely (0..P-1 in grid order) with numpy step tables.

    Everything comes from the engine's `Board` and `Variant`: `step[p, d]` is the point one
    line-step from p in engine direction `DIRECTIONS[d]` (-1 where no line goes), a jump in
    direction d goes over `step[p, d]` to `step[step[p, d], d]`, and `prey_dirs` are the
    directions the variant lets the geese or hounds step in.
    """
    def __init__(self, variant: Variant) -> None:
        board = variant.board
        self.grid = np.array(sorted(board.points), dtype=np.int64)
        self.dense = {int(g): i for i, g in enumerate(self.grid)}
        self.size = len(self.grid)
        self.rows = (self.grid // 9).astype(np.int64)
        self.names = [point_name(int(g)) for g in self.grid]
        step = np.full((self.size, len(DIRECTIONS)), -1, dtype=np.int64)
        for p, g in enumerate(self.grid):
            for d, direction in enumerate(DIRECTIONS):
                q = board.neighbour(int(g), direction)
                if q is not None:
                    step[p, d] = self.dense[q]
        self.step = step
        self.prey_dirs = [DIRECTIONS.index(d) for d in variant.prey_directions]
        self.captures = bool(variant.captures)
        land = np.full_like(step, -1)
        has = step >= 0
        land[has] = step[step[has], np.nonzero(has)[1]]
        self.land = land  # jump landing point per (point, direction), -1 where none

    def dense_points(self, bitmask: int) -> list[int]:
        """Dense indices of the grid points set in an engine bitmask, ascending."""
        out = []
        while bitmask:
            low = bitmask & -bitmask
            out.append(self.dense[low.bit_length() - 1])
            bitmask ^= low
        return out


# -- combinations ---------------------------------------------------------------------------------


def binomials(n: int, k: int) -> np.ndarray:
    """`B[m, j]` = C(m, j) for m <= n, j <= k (int64)."""
    table = np.zeros((n + 1, k + 2), dtype=np.int64)
    table[:, 0] = 1
    for m in range(1, n + 1):
        table[m, 1:] = table[m - 1, 1:] + table[m - 1, :-1]
    return table


def colex(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) as sorted rows, in colexicographic order: row r has rank r."""
    rows = np.zeros((1, 0), dtype=np.int8)
    for j in range(1, k + 1):
        B = binomials(n, j)
        parts = [
            np.hstack([rows[: B[m, j - 1]], np.full((B[m, j - 1], 1), m, dtype=np.int8)])
            for m in range(j - 1, n)
        ]
        rows = np.vstack(parts) if parts else np.zeros((0, j), dtype=np.int8)
    return rows


def rank(points: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Colex rank of sorted rows of points (shape (..., k)): sum_j C(p_j, j + 1)."""
    k = points.shape[-1]
    total = np.zeros(points.shape[:-1], dtype=np.int64)
    for j in range(k):
        total += B[points[..., j].astype(np.int64), j + 1]
    return total


def rank_of(points: list[int], B: np.ndarray) -> int:
    return int(sum(int(B[p, j + 1]) for j, p in enumerate(sorted(points))))


# -- looking positions up -------------------------------------------------------------------------


class TableSet:
    """The endgame tables of one fox variant in a directory, each memory-mapped on first use."""

    def __init__(self, variant: Variant, directory: str | os.PathLike | None = None) -> None:
        self.variant = variant
        self.directory = table_dir(directory)
        self.geometry = Geometry(variant)
        self.binom = binomials(self.geometry.size, 24)
        self._loaded: dict[int, dict[str, np.ndarray]] = {}
        self.headers: dict[int, dict[str, Any]] = {}

    def available(self) -> int:
        """The largest k such that the tables for 4..k geese are all on disk (3: none)."""
        k = MIN_GEESE - 1
        while table_path(self.directory, self.variant, k + 1).exists():
            k += 1
        return k

    def _arrays(self, geese: int) -> dict[str, np.ndarray] | None:
        if geese not in self._loaded:
            path = table_path(self.directory, self.variant, geese)
            if not path.exists():
                return None
            header, arrays = load_table(path)
            if header.get("points") != self.geometry.names:
                raise TableError(f"{path} was built for another board; rebuild it")
            self.headers[geese] = header
            self._loaded[geese] = arrays
        return self._loaded[geese]

    def score(self, position: Position) -> int | None:
        """The table score for the side to move, or None when no table holds the position."""
        geese = position.prey.bit_count()
        if geese < MIN_GEESE:  # captured: the game is over and the fox has won
            return WIN if position.turn == Side.PREDATOR else -WIN
        arrays = self._arrays(geese)
        if arrays is None:
            return None
        points = self.geometry.dense_points(position.prey)
        array = arrays["fox"] if position.turn == Side.PREDATOR else arrays["prey"]
        return int(array[self.geometry.dense[position.predator], rank_of(points, self.binom)])
