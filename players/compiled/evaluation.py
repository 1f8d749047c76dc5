"""The static evaluation of players/evaluation.py, compiled, on the core's dense points.

Same terms, same weights (imported from the Python module), same centi-points from the side to
move's point of view, so a compiled search's values compare with the Python minimax's:
tests/test_compiled_alphabeta.py checks them equal on random positions of every variant. What the
Python code does with grid shifts (flood fills, the geese's cone, the points behind a goose) is
done here with per-point masks made once per variant (`eval_tables`).
"""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np
from numba import njit

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players import evaluation as weights
from foxgeese.players.compiled import bits, core
from foxgeese.players.compiled.bits import lowest, popcount
from foxgeese.players.compiled.tables import DenseBoard

NUMBA_DEPENDS = (core, bits, weights)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])

FOX_GEESE, HARE_HOUNDS = 0, 1
ONE = np.int64(1)


# Rows of the packed arrays (few arrays: a search passes every one on each recursive call).
CONE, BELOW = 0, 1  # points[...]: the points a prey there could ever stand on (itself included); the
#                     board's points in its column on lower rows
AHEAD, BEHIND = 0, 1  # lines[..., p, j]: per line through p, the point on one side (-1 pads) and the
#                       point on the other (a jump from ahead over p lands behind)
ROW, ABOVE, UNDER = 0, 1, 2  # rows[..., r]: the points of row r, of higher rows, of lower rows


class EvalTables(NamedTuple):
    kind: int  # FOX_GEESE or HARE_HOUNDS
    start_geese: int
    start_points: int  # dense mask of the prey's start points
    points: np.ndarray  # int64[2, n]: CONE, BELOW
    lines: np.ndarray  # int64[2, n, 8]: AHEAD, BEHIND
    rows: np.ndarray  # int64[3, rows]: ROW, ABOVE, UNDER
    top: int  # the board's top row
    offset: int  # the start position's fox score: scores count from the start


def eval_tables(board: DenseBoard) -> EvalTables:
    """The per-point masks of one variant's evaluation (and its start offset)."""
    t, variant = board.tables, board.variant
    n = t.n
    cone = np.zeros(n, np.int64)
    for p in range(n):
        reach = 1 << p
        while True:
            grown = reach
            for q in range(n):
                if reach >> q & 1:
                    grown |= int(t.prey_reach[q])
            if grown == reach:
                break
            reach = grown
        cone[p] = reach
    column = [g % 9 for g in board.grid]
    below = np.zeros(n, np.int64)
    ahead = np.full((n, 8), -1, np.int64)
    behind = np.full((n, 8), -1, np.int64)
    for p in range(n):
        for q in range(n):
            if column[q] == column[p] and t.row[q] < t.row[p]:
                below[p] |= 1 << q
        lines = [(int(t.ray[p, d]), int(t.ray[p, (d + 4) % 8])) for d in range(8)]
        for j, (a, b) in enumerate((a, b) for a, b in lines if a >= 0 and b >= 0):
            ahead[p, j], behind[p, j] = a, b
    rows = variant.board.rows
    row_mask = np.array([sum(1 << p for p in range(n) if t.row[p] == r) for r in range(rows)], np.int64)
    above = np.array([sum(1 << p for p in range(n) if t.row[p] > r) for r in range(rows)], np.int64)
    under = np.array([sum(1 << p for p in range(n) if t.row[p] < r) for r in range(rows)], np.int64)
    kind = FOX_GEESE if variant.captures else HARE_HOUNDS
    made = EvalTables(kind, variant.prey_start.bit_count(), board.mask(variant.prey_start), np.stack([cone, below]),
                      np.stack([ahead, behind]), np.stack([row_mask, above, under]), rows - 1, 0)
    if kind == FOX_GEESE:
        start = board.state(variant.start_position().state)
        made = made._replace(offset=int(fox_score(t, made, start[0], start[1], True)))
    return made


@njit(cache=True, inline="always")
def region(t, start, empty):
    """The points a piece on `start` can walk to over `empty` (its own point included)."""
    reach = ONE << start
    frontier = reach
    while frontier:
        grown = np.int64(0)
        while frontier:
            grown |= t.neighbours[lowest(frontier)]
            frontier &= frontier - 1
        frontier = grown & empty & ~reach
        reach |= frontier
    return reach


@njit(cache=True, inline="always")
def fox_score(t, e, fox, geese, fox_to_move):
    """players.evaluation.FoxGeeseEvaluation.fox_score, on dense points."""
    empty = t.board_mask & ~geese & ~(ONE << fox)
    reach = region(t, fox, empty)
    cone = np.int64(0)
    one_step = np.int64(0)
    behind = np.int64(0)
    weak = 0
    mobility = 0
    bits = geese
    while bits:
        g = lowest(bits)
        bits &= bits - 1
        cone |= e.points[CONE, g]
        one_step |= t.prey_reach[g]
        behind |= e.points[BELOW, g]
        mobility += popcount(t.prey_reach[g] & empty)
        for j in range(8):  # goose g is weak when the fox's region holds one end of a line through it, the other empty
            a = e.lines[AHEAD, g, j]
            if a < 0:
                break
            if (reach >> a) & 1 and (empty >> e.lines[BEHIND, g, j]) & 1:
                weak += 1
                break
    free = reach & ~cone
    threats = 0
    for k in range(8):
        over = t.jump_over[fox, k]
        if over < 0:
            break
        if (geese >> over) & 1 and (empty >> t.jump_land[fox, k]) & 1:
            threats += 1
    lowest_row = t.row[lowest(reach)]
    depth = 0
    for r in range(e.rows.shape[1]):
        depth += (e.top - r) * popcount(reach & e.rows[ROW, r])
    lone = geese & ~one_step & ~e.start_points
    score = (
        weights.GOOSE * (e.start_geese - popcount(geese))
        + weights.FOX_REGION * (popcount(reach) - 1)
        + weights.FOX_REGION_LOW * depth
        + weights.FOX_MOBILITY * popcount(t.neighbours[fox] & empty)
        + weights.WEAK_GOOSE * weak
        + weights.BEHIND * popcount(reach & behind)
        + weights.PASSED_GOOSE * popcount(geese & e.rows[ABOVE, lowest_row])
        + weights.LONE_GOOSE * popcount(lone)
    )
    if free:
        score += weights.ESCAPED + weights.FREE_POINT * popcount(free)
    score -= weights.GEESE_MOBILITY * mobility
    if fox_to_move:
        score += weights.THREAT_ON_MOVE * threats
    return score - e.offset


@njit(cache=True, inline="always")
def hare_score(t, e, hare, hounds, stall):
    """players.evaluation.HareHoundsEvaluation, from the hare's point of view."""
    empty = t.board_mask & ~hounds & ~(ONE << hare)
    lowest_row = t.row[lowest(hounds)] if hounds else -1
    hare_row = t.row[hare]
    room = region(t, hare, empty)
    way_past = lowest_row > 0 and (room & e.rows[UNDER, lowest_row]) != 0
    return (
        weights.HOUND_PASSED * popcount(hounds & e.rows[ABOVE, hare_row])
        + weights.HARE_MOBILITY * popcount(t.neighbours[hare] & empty)
        + weights.HARE_ROOM * (popcount(room) - 1)
        + (weights.WAY_PAST if way_past else 0)
        - weights.HARE_HEIGHT * (hare_row - lowest_row)
        + weights.STALL * stall
    )


@njit(cache=True, inline="always")
def evaluate(t, e, fox, prey, turn, stall):
    """The static evaluation in centi-points from the side to move's point of view."""
    if e.kind == FOX_GEESE:
        score = fox_score(t, e, fox, prey, turn == core.PREDATOR)
    else:
        score = hare_score(t, e, fox, prey, stall)
    return score if turn == core.PREDATOR else -score

