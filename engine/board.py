"""Boards as data: a set of points on a grid and the lines joining neighbouring points.

Every board lives on the same 9-column grid, so a point is the bit index `row * 9 + column`
whatever the variant. That lets a move name its points without knowing the board, makes the point
between two jump ends their average, and turns "every goose steps north-east" into one shift.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from foxgeese.engine.errors import InvalidMoveError
from foxgeese.engine.userinput import shown

GRID_WIDTH = 9
COLUMN_LETTERS = "abcdefghi"

# The eight directions as (column step, row step); "forward" for the prey is row + 1.
DIRECTIONS: tuple[tuple[int, int], ...] = (
    (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1),
)


def point_index(column: int, row: int) -> int:
    return row * GRID_WIDTH + column


POINT_NAMES: tuple[str, ...] = tuple(
    f"{COLUMN_LETTERS[index % GRID_WIDTH]}{index // GRID_WIDTH + 1}" for index in range(GRID_WIDTH * GRID_WIDTH)
)


def point_name(index: int) -> str:
    return POINT_NAMES[index]


def parse_point(text: str) -> int:
    """Reads `d4` (any case) as a grid index; raises InvalidMoveError for anything else.

    Only the canonical form: ASCII digits without leading zeros (`d٤` and `d04` are not `d4`).
    """
    cleaned = text.strip().lower()
    if _POINT.fullmatch(cleaned):
        return point_index(COLUMN_LETTERS.index(cleaned[0]), int(cleaned[1]) - 1)
    raise InvalidMoveError(f"bad point {shown(text.strip())}: expected a column letter a-i and a row 1-9, like d4")


_POINT = re.compile(r"[a-i][1-9]", re.ASCII)


def delta(direction: tuple[int, int]) -> int:
    column_step, row_step = direction
    return row_step * GRID_WIDTH + column_step


@dataclass(frozen=True, eq=False)  # one shared instance per id and options: identity is equality
class Board:
    """Points and lines, plus the per-point tables the move generator reads."""

    name: str
    columns: int
    rows: int
    points: frozenset[int]
    lines: frozenset[frozenset[int]]
    mask: int = field(init=False)
    neighbours: tuple[int, ...] = field(init=False)  # per point: bitmask of joined points
    step_sources: dict[tuple[int, int], int] = field(init=False)  # direction -> points with a line that way
    jumps: tuple[tuple[tuple[int, int], ...], ...] = field(init=False)  # per point: (over, landing) pairs

    def __post_init__(self) -> None:
        size = GRID_WIDTH * GRID_WIDTH
        neighbours = [0] * size
        for line in self.lines:
            a, b = tuple(line)
            neighbours[a] |= 1 << b
            neighbours[b] |= 1 << a
        sources = {d: 0 for d in DIRECTIONS}
        jumps: list[tuple[tuple[int, int], ...]] = [()] * size
        for p in self.points:
            hops = []
            for d in DIRECTIONS:
                q = self.neighbour(p, d)
                if q is None:
                    continue
                sources[d] |= 1 << p
                r = self.neighbour(q, d)
                if r is not None:
                    hops.append((q, r))
            jumps[p] = tuple(hops)
        object.__setattr__(self, "mask", sum(1 << p for p in self.points))
        object.__setattr__(self, "neighbours", tuple(neighbours))
        object.__setattr__(self, "step_sources", sources)
        object.__setattr__(self, "jumps", tuple(jumps))

    def neighbour(self, point: int, direction: tuple[int, int]) -> int | None:
        """The point one line-step away in `direction`, or None where no line goes that way."""
        column, row = point % GRID_WIDTH + direction[0], point // GRID_WIDTH + direction[1]
        if not (0 <= column < self.columns and 0 <= row < self.rows):
            return None
        target = point_index(column, row)
        return target if frozenset((point, target)) in self.lines else None

    def joined(self, a: int, b: int) -> bool:
        return bool(self.neighbours[a] >> b & 1)


def _grid_board(
    name: str,
    columns: int,
    rows: int,
    is_point: Callable[[int, int], bool],
    diagonal_through: Callable[[int, int], set[str]],
) -> Board:
    """Orthogonal lines between neighbouring points, plus the diagonals `diagonal_through` allows.

    `diagonal_through(c, r)` says which diagonals the unit square with lower-left corner (c, r)
    has when all four corners are points: a subset of {"up", "down"} ("up" joins (c, r) to
    (c+1, r+1); "down" joins (c, r+1) to (c+1, r)).
    """
    points = {point_index(c, r) for c in range(columns) for r in range(rows) if is_point(c, r)}
    lines: set[frozenset[int]] = set()
    for c in range(columns):
        for r in range(rows):
            if not is_point(c, r):
                continue
            if is_point(c + 1, r):
                lines.add(frozenset((point_index(c, r), point_index(c + 1, r))))
            if is_point(c, r + 1):
                lines.add(frozenset((point_index(c, r), point_index(c, r + 1))))
            if is_point(c + 1, r) and is_point(c, r + 1) and is_point(c + 1, r + 1):
                kinds = diagonal_through(c, r)
                if "up" in kinds:
                    lines.add(frozenset((point_index(c, r), point_index(c + 1, r + 1))))
                if "down" in kinds:
                    lines.add(frozenset((point_index(c, r + 1), point_index(c + 1, r))))
    return Board(name, columns, rows, frozenset(points), frozenset(lines))


def _cross(arm_low: int, arm_high: int, size: int) -> Callable[[int, int], bool]:
    def is_point(c: int, r: int) -> bool:
        inside = 0 <= c < size and 0 <= r < size
        return inside and (arm_low <= c <= arm_high or arm_low <= r <= arm_high)

    return is_point


def standard_board() -> Board:
    """33 points (a 7x7 cross); both diagonals in every unit square whose corners are all points."""
    return _grid_board("standard", 7, 7, _cross(2, 4, 7), lambda c, r: {"up", "down"})


def alternating_board() -> Board:
    """The standard 33 points with one diagonal per square, through its even corner (c + r even):
    diagonals run through alternate points only (the Alquerque pattern; Ludii's Fox and Geese board)."""

    def even_corner_diagonal(c: int, r: int) -> set[str]:
        return {"up"} if (c + r) % 2 == 0 else {"down"}

    return _grid_board("standard-alternating", 7, 7, _cross(2, 4, 7), even_corner_diagonal)


def great_cross_board() -> Board:
    """45 points (a 9x9 cross, arms three wide); one diagonal per square, through its odd corner."""

    def odd_corner_diagonal(c: int, r: int) -> set[str]:
        return {"up"} if (c + r) % 2 == 1 else {"down"}

    return _grid_board("great-cross", 9, 9, _cross(3, 5, 9), odd_corner_diagonal)


def hare_and_hounds_board() -> Board:
    """11 points: the square a2-c4 with both long diagonals through b3, and b1, b5 at the ends."""
    square = {point_index(c, r) for c in range(3) for r in range(1, 4)}
    points = square | {point_index(1, 0), point_index(1, 4)}
    lines: set[frozenset[int]] = set()
    for c in range(3):
        for r in range(1, 4):
            if c < 2:
                lines.add(frozenset((point_index(c, r), point_index(c + 1, r))))
            if r < 3:
                lines.add(frozenset((point_index(c, r), point_index(c, r + 1))))
    b1, b3, b5 = point_index(1, 0), point_index(1, 2), point_index(1, 4)
    for corner in (point_index(0, 1), point_index(2, 1), point_index(0, 3), point_index(2, 3)):
        lines.add(frozenset((corner, b3)))  # a2-b3-c4 and c2-b3-a4
    for p in (point_index(0, 1), point_index(1, 1), point_index(2, 1)):
        lines.add(frozenset((b1, p)))
    for p in (point_index(0, 3), point_index(1, 3), point_index(2, 3)):
        lines.add(frozenset((b5, p)))
    return Board("hare-and-hounds", 3, 5, frozenset(points), frozenset(lines))
