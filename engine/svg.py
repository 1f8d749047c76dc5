"""Draws a position as SVG: a pure function from a position (and options) to a string.

Shaped like python-chess's `chess.svg.board`: the report and the web page reuse it, so every
board a user sees comes from here. The drawing has three layers, so a viewer that steps through a
game swaps only the middle one:

- the board (`board_parts`): the lines, the points and the coordinates of a variant;
- the overlay (`overlay_svg`): highlighted points, the last move (its path, a capture chain's
  jumped geese crossed out), and the pieces;
- the hit layer (end of `board_parts`): one transparent circle per point carrying
  `data-point="d4"`, topmost, which a page lights (`class="hit target"`) and listens on for clicks.

Output is deterministic: integer coordinates, points and lines in index order.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from foxgeese.engine.board import GRID_WIDTH, point_name
from foxgeese.engine.move import Move
from foxgeese.engine.position import Position
from foxgeese.engine.variants import Variant

STEP = 60  # distance between neighbouring points, in SVG units
MARGIN = 54  # room for the coordinates around the board
POINT_RADIUS = 5
PIECE_RADIUS = 19
HIT_RADIUS = 27
ORIGIN_RADIUS = 9  # where the last move came from: a filled dot, unlike the dashed ring of "this piece can move"
LABEL_GAP = 38  # row numbers sit this far left of column a: clear of a piece there (radius 19) and its ring

COLORS = {
    "background": "#f3e6c8",
    "line": "#6b5535",
    "point": "#6b5535",
    "coord": "#6b5535",
    "fox": "#d8641e",
    "hare": "#9b6b3c",
    "goose": "#fbfbf7",
    "hound": "#4d5a66",
    "piece_stroke": "#2b2118",
    "last_move": "#2f7fd0",
    "captured": "#c62828",
    "highlight": "#ffd54a",
}


def board_svg(
    position: Position,
    *,
    last_move: Move | None = None,
    highlights: Iterable[int] = (),
    size: int | None = None,
    coordinates: bool = True,
    flipped: bool = False,
) -> str:
    """The whole board as one standalone `<svg>` element.

    `last_move` is the move that led to `position` (drawn as its path; a capture chain's jumped
    geese crossed out where they stood); `highlights` are point indices to mark; `size` sets the
    width and height in pixels (default: scale with the page); `flipped` turns the board round so
    row 1 is at the top.
    """
    before, after = board_parts(position.variant, size=size, coordinates=coordinates, flipped=flipped)
    return before + overlay_svg(position, last_move=last_move, highlights=highlights, flipped=flipped) + after


def board_parts(
    variant: Variant, *, size: int | None = None, coordinates: bool = True, flipped: bool = False
) -> tuple[str, str]:
    """What comes before and after the overlay: the `<svg>` opening with the board, and the hit layer."""
    board = variant.board
    width, height = _extent(variant)
    sized = f' width="{size}" height="{size * height // width}"' if size else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="foxgeese-board" data-variant="{escape(variant.id)}"'
        f' viewBox="0 0 {width} {height}"{sized}>',
        _piece_defs(),
        f'<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="{COLORS["background"]}"/>',
        f'<g class="lines" stroke="{COLORS["line"]}" stroke-width="3" stroke-linecap="round">',
    ]
    for a, b in sorted(tuple(sorted(line)) for line in board.lines):
        (xa, ya), (xb, yb) = _xy(variant, a, flipped), _xy(variant, b, flipped)
        out.append(f'<line x1="{xa}" y1="{ya}" x2="{xb}" y2="{yb}"/>')
    out.append("</g>")
    out.append(f'<g class="points" fill="{COLORS["point"]}">')
    for point in sorted(board.points):
        x, y = _xy(variant, point, flipped)
        out.append(f'<circle cx="{x}" cy="{y}" r="{POINT_RADIUS}"/>')
    out.append("</g>")
    if coordinates:
        out.append(_coordinates(variant, flipped))
    before = "".join(out)
    hits = ['<g class="hits" fill="transparent">']
    for point in sorted(board.points):
        x, y = _xy(variant, point, flipped)
        hits.append(f'<circle class="hit" data-point="{point_name(point)}" cx="{x}" cy="{y}" r="{HIT_RADIUS}"/>')
    hits.append("</g></svg>")
    return before, "".join(hits)


def overlay_svg(
    position: Position, *, last_move: Move | None = None, highlights: Iterable[int] = (), flipped: bool = False
) -> str:
    """The part that changes from ply to ply: highlights, the last move and the pieces, as one `<g>`."""
    variant = position.variant
    out = ['<g class="overlay">']
    for point in sorted(set(highlights)):
        x, y = _xy(variant, point, flipped)
        out.append(f'<circle class="highlight" data-point="{point_name(point)}" cx="{x}" cy="{y}" '
                   f'r="{PIECE_RADIUS + 6}" fill="{COLORS["highlight"]}" opacity="0.7"/>')
    if last_move is not None:
        out.append(_last_move(variant, last_move, flipped))
    predator_kind = variant.predator_name
    prey_kind = "goose" if variant.prey_name == "geese" else "hound"
    for point in position.prey_points:
        out.append(_piece(variant, point, prey_kind, flipped))
    out.append(_piece(variant, position.predator, predator_kind, flipped))
    if last_move is not None:
        for point in last_move.captured_points():
            x, y = _xy(variant, point, flipped)
            arm = 11
            out.append(
                f'<g class="captured" data-point="{point_name(point)}" stroke="{COLORS["captured"]}" '
                f'stroke-width="5" stroke-linecap="round">'
                f'<circle cx="{x}" cy="{y}" r="{PIECE_RADIUS - 4}" fill="{COLORS["goose"]}" opacity="0.55" '
                f'stroke-width="2"/>'
                f'<line x1="{x - arm}" y1="{y - arm}" x2="{x + arm}" y2="{y + arm}"/>'
                f'<line x1="{x - arm}" y1="{y + arm}" x2="{x + arm}" y2="{y - arm}"/></g>'
            )
    out.append("</g>")
    return "".join(out)


def _last_move(variant: Variant, move: Move, flipped: bool) -> str:
    points = " ".join(f"{x},{y}" for x, y in (_xy(variant, p, flipped) for p in move.path))
    ox, oy = _xy(variant, move.origin, flipped)
    return (
        f'<g class="last-move" data-move="{move}">'
        f'<circle class="last-origin" cx="{ox}" cy="{oy}" r="{ORIGIN_RADIUS}" fill="{COLORS["last_move"]}" '
        f'opacity="0.55"/>'
        f'<polyline points="{points}" fill="none" stroke="{COLORS["last_move"]}" stroke-width="7" '
        f'stroke-linejoin="round" stroke-linecap="round" opacity="0.8"/></g>'
    )


def _piece(variant: Variant, point: int, kind: str, flipped: bool) -> str:
    x, y = _xy(variant, point, flipped)
    return f'<use class="piece {kind}" data-point="{point_name(point)}" href="#fg-{kind}" x="{x}" y="{y}"/>'


def _piece_defs() -> str:
    """One drawing per kind of piece, centred on (0, 0); pieces are `<use>`s of them (small output)."""
    out = ["<defs>"]
    for kind, letter in (("fox", "F"), ("hare", "H"), ("goose", ""), ("hound", "D")):
        out.append(f'<g id="fg-{kind}"><circle r="{PIECE_RADIUS}" fill="{COLORS[kind]}" '
                   f'stroke="{COLORS["piece_stroke"]}" stroke-width="2.5"/>')
        if letter:
            out.append(f'<text y="7" text-anchor="middle" font-family="sans-serif" font-size="20" '
                       f'font-weight="bold" fill="#ffffff">{letter}</text>')
        out.append("</g>")
    out.append("</defs>")
    return "".join(out)


def _coordinates(variant: Variant, flipped: bool) -> str:
    board = variant.board
    width, height = _extent(variant)
    out = [f'<g class="coords" fill="{COLORS["coord"]}" font-family="sans-serif" font-size="16" '
           f'text-anchor="middle">']
    for column in range(board.columns):
        x, _ = _xy(variant, column, flipped)
        out.append(f'<text x="{x}" y="{height - 14}">{"abcdefghi"[column]}</text>')
    for row in range(board.rows):
        _, y = _xy(variant, row * GRID_WIDTH, flipped)
        out.append(f'<text x="{MARGIN - LABEL_GAP}" y="{y + 6}">{row + 1}</text>')
    out.append("</g>")
    return "".join(out)


def _extent(variant: Variant) -> tuple[int, int]:
    board = variant.board
    return 2 * MARGIN + (board.columns - 1) * STEP, 2 * MARGIN + (board.rows - 1) * STEP


def _xy(variant: Variant, point: int, flipped: bool) -> tuple[int, int]:
    """SVG coordinates of a point: row 1 at the bottom (at the top when flipped)."""
    board = variant.board
    column, row = point % GRID_WIDTH, point // GRID_WIDTH
    if flipped:
        column, row = board.columns - 1 - column, board.rows - 1 - row
    return MARGIN + column * STEP, MARGIN + (board.rows - 1 - row) * STEP
