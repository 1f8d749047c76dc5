"""One level of an endgame table whose moves form cycles (sideways goose steps), solved backwards.

Inside a level (one row sum of the geese) the moves are fox steps and sideways goose steps; both
are reversible, so the predecessors of a position come from the same step tables as its
successors. Moves that leave the level (forward goose steps, captures) are already decided and
enter as one "outside" score per position.

Classic retrograde analysis with counters, vectorised over the positions decided at the same
distance: positions are decided in order of distance (a bucket per distance). A decided loss
makes every undecided predecessor a win one ply further; a decided win takes one open move off
each predecessor's counter, and a predecessor with no open move left is lost (at the distance of
its slowest move) or drawn (an outside draw). Positions never decided are draws: from them
either side can keep the game inside a cycle. Each move is looked at about once, unlike rounds
that rescan the whole level for every distance.
"""

from __future__ import annotations

import numpy as np

from foxgeese.engine import Side
from foxgeese.players.solver.tables import NO_MOVE, WIN

OPEN = -32767


def solve_level(step: np.ndarray, occupied: np.ndarray, outside: np.ndarray,
                inner: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, int]:
    """Scores (2, P, n) for a level, indexed by `Side`: [Side.PREY] geese to move, [Side.PREDATOR] fox to move.

    `step` (P, 8): fox steps; `occupied` (P, n): a goose on point p in column c; `outside`
    (2, P, n): best score over the moves leaving the level (NO_MOVE: none); `inner`: per
    sideways goose slot, (child column or -1, target point) per column. Returns the scores and
    the number of distances processed.
    """
    P, n = occupied.shape
    points = np.arange(P)
    valid = ~occupied
    size = P * n
    counter = np.zeros((2, P, n), dtype=np.int32)  # moves inside the level not yet decided
    for cols, target in inner:
        counter[Side.PREY] += ((cols >= 0)[None, :] & (target[None, :] != points[:, None]))
    for d in range(step.shape[1]):
        to = step[:, d]
        ok = to >= 0
        counter[Side.PREDATOR][ok] += ~occupied[to[ok]]
    counter[:, occupied] = 0
    value = np.full((2, P, n), OPEN, dtype=np.int32)
    candidate = np.full(2 * size, NO_MOVE, dtype=np.int32)  # best score known so far, by flat index
    best_inside = np.full(2 * size, NO_MOVE, dtype=np.int32)
    buckets: dict[int, list[np.ndarray]] = {}

    def schedule(flat: np.ndarray, scores: np.ndarray) -> None:
        np.maximum.at(candidate, flat, scores)
        distance = WIN - np.abs(scores)
        for dist in np.unique(distance):
            buckets.setdefault(int(dist), []).append(flat[distance == dist])

    flat_value = value.reshape(-1)
    flat_outside = outside.reshape(-1)
    flat_valid = np.concatenate([valid.reshape(-1), valid.reshape(-1)])
    # Seeds: no move inside the level (decided by the outside moves alone), and outside wins.
    closed = (counter.reshape(-1) == 0) & flat_valid
    idx = np.nonzero(closed)[0]
    seed = flat_outside[idx]
    seed = np.where(seed == NO_MOVE, -WIN, seed)  # no move at all: trapped / immobilized
    draws = seed == 0
    flat_value[idx[draws]] = 0
    schedule(idx[~draws], seed[~draws])
    wins = np.nonzero(~closed & flat_valid & (flat_outside > 0))[0]
    schedule(wins, flat_outside[wins])

    processed = 0
    while buckets:
        D = min(buckets)
        flat = np.unique(np.concatenate(buckets.pop(D)))
        flat = flat[flat_value[flat] == OPEN]
        if flat.size == 0:
            continue
        processed += 1
        scores = candidate[flat]
        flat_value[flat] = scores
        option = -scores + np.sign(scores)  # what each predecessor gets by moving here
        parents, parent_option = _predecessors(flat, option, step, occupied, inner, P, n)
        open_parent = flat_value[parents] == OPEN
        parents, parent_option = parents[open_parent], parent_option[open_parent]
        winning = parent_option > 0
        if winning.any():
            schedule(parents[winning], parent_option[winning])
        losing = ~winning
        if losing.any():
            lp, lo = parents[losing], parent_option[losing]
            np.subtract.at(counter.reshape(-1), lp, 1)
            np.maximum.at(best_inside, lp, lo)
            done = np.unique(lp[counter.reshape(-1)[lp] == 0])
            total = np.maximum(best_inside[done], flat_outside[done])
            flat_value[done[total == 0]] = 0  # an outside draw beats losing inside
            lost = total < 0
            schedule(done[lost], total[lost])
    value[value == OPEN] = 0  # never decided: a draw
    value[:, occupied] = NO_MOVE
    return value, processed


def _predecessors(flat, option, step, occupied, inner, P, n):
    """The positions with a move inside the level to each of `flat`, with that move's score."""
    side, rest = np.divmod(flat, P * n)
    point, column = np.divmod(rest, n)
    parents, options = [], []
    # Geese to move was reached by a fox step: the fox came from a neighbouring empty point.
    g = side == Side.PREY
    if g.any():
        p, c, o = point[g], column[g], option[g]
        for d in range(step.shape[1]):
            origin = step[p, d]
            ok = origin >= 0
            ok[ok] &= ~occupied[origin[ok], c[ok]]
            parents.append(Side.PREDATOR * P * n + origin[ok] * n + c[ok])
            options.append(o[ok])
    # Fox to move was reached by a sideways goose step, which a sideways step undoes.
    f = side == Side.PREDATOR
    if f.any():
        p, c, o = point[f], column[f], option[f]
        for cols, target in inner:
            back = cols[c]
            ok = (back >= 0) & (target[c] != p)
            parents.append(Side.PREY * P * n + p[ok] * n + back[ok])
            options.append(o[ok])
    if not parents:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    return np.concatenate(parents), np.concatenate(options).astype(np.int32)
