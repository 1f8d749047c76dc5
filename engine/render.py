"""Draws a position as text: points, the lines between them, and the pieces."""

from __future__ import annotations

from foxgeese.engine.board import COLUMN_LETTERS, GRID_WIDTH
from foxgeese.engine.position import Position

EMPTY = "."
PREDATOR_MARK = {"fox": "F", "hare": "H"}
PREY_MARK = {"geese": "G", "hounds": "D"}


def draw_board(position: Position) -> str:
    """A diagram with row numbers on the left and column letters below; the side to move under it.

    Points sit four characters apart across and two down, so each unit square has one middle
    cell where its diagonals (`/`, `\\` or both as `X`) are drawn.
    """
    variant = position.variant
    board = variant.board
    width, height = 4 * (board.columns - 1) + 1, 2 * (board.rows - 1) + 1
    canvas = [[" "] * width for _ in range(height)]

    def cell(point: int) -> tuple[int, int]:
        """Canvas (line, character) of a point."""
        return 2 * (board.rows - 1 - point // GRID_WIDTH), 4 * (point % GRID_WIDTH)

    for line in board.lines:
        a, b = sorted(line)
        (ya, xa), (yb, xb) = cell(a), cell(b)
        if ya == yb:
            for x in range(xa + 1, xb):
                canvas[ya][x] = "-"
        elif xa == xb:
            canvas[(ya + yb) // 2][xa] = "|"
        else:
            y, x = (ya + yb) // 2, (xa + xb) // 2
            mark = "/" if (xb > xa) == (yb < ya) else "\\"
            canvas[y][x] = "X" if canvas[y][x] not in (" ", mark) else mark
    for point in board.points:
        y, x = cell(point)
        canvas[y][x] = EMPTY
    for point in position.prey_points:
        y, x = cell(point)
        canvas[y][x] = PREY_MARK[variant.prey_name]
    y, x = cell(position.predator)
    canvas[y][x] = PREDATOR_MARK[variant.predator_name]

    lines = []
    for y, row in enumerate(canvas):
        label = f"{board.rows - y // 2:>2} " if y % 2 == 0 else "   "
        lines.append((label + "".join(row)).rstrip())
    lines.append("   " + "   ".join(COLUMN_LETTERS[: board.columns]))
    legend = (
        f"{PREDATOR_MARK[variant.predator_name]} {variant.predator_name}, "
        f"{PREY_MARK[variant.prey_name]} {variant.prey_name}; {variant.side_name(position.turn)} to move"
    )
    lines.append(legend)
    return "\n".join(lines)
