"""Retrograde analysis with move counters inside one level of the two-bit tables (numba kernels).

Inside a level (goose count k, row sum S) the only moves are fox steps (the goose set stays) and
sideways goose steps (the composition stays, one row's rank changes); both can be undone, and a
sideways step's reverse is a sideways step, so a position's predecessors in the level are found
with the same step tables as its children. `wdl_kernels.outside` has already folded every move that
leaves the level (forward steps, captures) into gw/gnl and cw/cnl.

- `seed` (both cores): per geese-to-move position, a counter of its sideways moves (one byte per
  goose set and point); a position with no sideways move and no non-losing move out of the level is
  lost; the fox planes follow from this set's geese planes (one adjacency look-up per byte).
- `propagate` (one core), in rounds: the goose sets whose fox planes gained bits in the last round
  (`pend_w`, `pend_l`: the new bits). For each predecessor set (one sideways goose step back): a new fox loss
  makes the geese there win at once; a new fox win takes one off each undecided position's counter,
  and a position whose counter reaches zero with no non-losing move out of the level is lost. A
  set whose geese planes changed gets its fox planes again, and its new bits wait on the stack.
  Each (position, move) pair is counted down once, so the work is proportional to the positions
  decided plus one pass over the level, not to a number of sweeps; what is never decided is a draw.
- `unpack` (resume): a level's fox planes from the packed table, for the level below it.

The result is the least fixpoint the sweeps of `wdl_kernels.sweep` reach; tests/test_solver_wdl.py
checks them equal on every position.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit, prange

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players.solver import kernels, wdl_kernels
from foxgeese.players.solver.kernels import popcount, read_bits
from foxgeese.players.solver.wdl_kernels import adjacent_to

NUMBA_DEPENDS = (kernels, wdl_kernels)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])


@njit(inline="always")
def fox_planes(empty, gw, gl, cw, cnl, adjacent):
    """The fox-to-move win and loss planes of one goose set from its geese-to-move planes."""
    win = cw | (adjacent_to(gl, adjacent) & empty)
    loss = empty & ~(cnl | (adjacent_to(empty & ~gw, adjacent) & empty))
    return win, loss


@njit(parallel=True, cache=True)
def seed(masks, board, sideways, adjacent, gw, gl, fw, fl, gnl, cw, cnl, counts):
    """Counters, the losses with no sideways move, and the fox planes they give, for every set of a level."""
    n = masks.shape[0]
    points = counts.shape[1]
    for ci in prange((n + 63) // 64):
        target = np.zeros(points, dtype=np.int64)
        for i in range(ci * 64, min(n, ci * 64 + 64)):
            mask = masks[i]
            if mask < 0:
                continue
            empty = board & ~mask
            target[:] = 0
            moves = 0
            movers = mask
            while movers:
                low = movers & -movers
                movers ^= low
                p = popcount(low - 1)
                for t in range(sideways.shape[1]):
                    q = sideways[p, t]
                    if q >= 0 and not (mask >> q) & 1:
                        moves += 1
                        target[q] += 1
            none_left = np.int64(0)
            for f in range(points):
                c = moves - target[f]  # the fox on f blocks the steps onto f
                counts[i, f] = c
                if c == 0:
                    none_left |= np.int64(1) << f
            gl[i] |= empty & ~gnl[i] & none_left  # |=: a resumed level keeps the losses it had
            fw[i], fl[i] = fox_planes(empty, gw[i], gl[i], cw[i], cnl[i], adjacent)


@njit(cache=True)
def propagate(masks, board, row_start, row_width, row_rank, row_count, row_of, sideways, adjacent,
              gw, gl, fw, fl, gnl, cw, cnl, counts, pend_w, pend_l, next_w, next_l, current, following,
              size, max_popped):
    """Decides what the level's known fox bits decide, in rounds; returns (sets taken, rounds, sets waiting).

    Round t takes the fox bits decided in round t - 1 (the seeds: round 0) and decides what they
    decide; those wait in next_w/next_l for round t + 1. So a win decided in round t is left (a
    forward step, a capture) or ended within 2 t + 2 plies whatever the loser does: the fifty-move
    counter's reach (docs/solver.md). `size` < 0: start, every set with fox bits waiting; else go on
    with `size` sets waiting in `current` (their bits in pend_w/pend_l). It returns at the end of the
    first round that brings the sets taken to `max_popped`, so the caller can checkpoint: after an
    odd number of rounds the caller swaps current/following and pend/next, as this did.
    """
    n = masks.shape[0]
    rows = row_start.shape[0]
    if size < 0:
        size = 0
        for i in range(n):
            if masks[i] >= 0 and (fw[i] | fl[i]):
                pend_w[i] = fw[i]
                pend_l[i] = fl[i]
                current[size] = i
                size += 1
    strides = np.zeros(rows, dtype=np.int64)
    popped = 0
    rounds = 0
    while size > 0 and popped < max_popped:
        rounds += 1
        following_size = 0
        for at in range(size):
            j = current[at]
            popped += 1
            new_w = pend_w[j]
            new_l = pend_l[j]
            pend_w[j] = 0
            pend_l[j] = 0
            mask = masks[j]
            stride = np.int64(1)
            for r in range(rows):
                strides[r] = stride
                stride *= row_count[r, popcount((mask >> row_start[r]) & ((np.int64(1) << row_width[r]) - 1))]
            movers = mask
            while movers:  # q: a goose of this set that a sideways step p -> q of a predecessor brought here
                qb = movers & -movers
                movers ^= qb
                q = popcount(qb - 1)
                r = row_of[q]
                row_mask = (np.int64(1) << row_width[r]) - 1
                before = (mask >> row_start[r]) & row_mask
                for t in range(sideways.shape[1]):
                    p = sideways[q, t]
                    if p < 0 or (mask >> p) & 1:
                        continue
                    pb = np.int64(1) << p
                    after = ((mask ^ qb ^ pb) >> row_start[r]) & row_mask
                    i = j + (row_rank[r, after] - row_rank[r, before]) * strides[r]
                    empty = board & ~(mask ^ qb ^ pb)
                    changed = False
                    won = new_l & ~pb & ~gw[i]  # the fox loses after p -> q: the geese win
                    if won:
                        gw[i] |= won
                        changed = True
                    down = new_w & ~pb & ~(gw[i] | gl[i] | gnl[i])  # the fox wins after p -> q: one move fewer
                    lost = np.int64(0)
                    while down:
                        fb = down & -down
                        down ^= fb
                        f = popcount(fb - 1)
                        counts[i, f] -= 1
                        if counts[i, f] == 0:
                            lost |= fb
                    if lost:
                        gl[i] |= lost
                        changed = True
                    if changed:
                        win, loss = fox_planes(empty, gw[i], gl[i], cw[i], cnl[i], adjacent)
                        more_w = win & ~fw[i]
                        more_l = loss & ~fl[i]
                        if more_w | more_l:
                            if not (next_w[i] | next_l[i]):
                                following[following_size] = i
                                following_size += 1
                            fw[i] |= more_w
                            fl[i] |= more_l
                            next_w[i] |= more_w
                            next_l[i] |= more_l
        current, following = following, current
        pend_w, next_w = next_w, pend_w
        pend_l, next_l = next_l, pend_l
        size = following_size
    return popped, rounds, size


@njit(parallel=True, cache=True)
def unpack(masks, board, packed, plane_words, first_word, width, planes, out):
    """The dense planes `planes` (plane numbers) of a level from a table's packed words (inverse of `pack`)."""
    n = masks.shape[0]
    for ci in prange((n + 63) // 64):
        for i in range(ci * 64, min(n, ci * 64 + 64)):
            mask = masks[i]
            if mask < 0:
                continue
            empty = board & ~mask
            for k in range(planes.shape[0]):
                base = planes[k] * plane_words + first_word
                bits = read_bits(packed[base:], i * width, width)
                value = np.int64(0)
                rest = empty
                b = 0
                while rest:
                    low = rest & -rest
                    rest ^= low
                    if (bits >> b) & 1:
                        value |= low
                    b += 1
                out[k, i] = value


@njit(parallel=True, cache=True)
def level_masks(codes, block_base, first, row_sub, row_count, row_width, radix, masks):
    """The goose set of every index of a level, as `wdl_kernels.level_masks` (same masks), block by block
    with an odometer over the rows' subset ranks: each set costs one row change, not a division per row."""
    rows = row_width.shape[0]
    for c in prange(codes.shape[0]):
        code = codes[c]
        base = block_base[code] - first
        n = np.zeros(rows, dtype=np.int64)
        digit = np.zeros(rows, dtype=np.int64)
        sets = np.int64(1)
        mask = np.int64(0)
        for r in range(rows):
            n[r] = (code // radix[r]) % (row_width[r] + 1)
            sets *= row_count[r, n[r]]
            mask |= row_sub[r, n[r], 0]
        for i in range(sets):
            masks[base + i] = mask
            r = 0
            while r < rows:  # the next index: row 0 fastest
                old = row_sub[r, n[r], digit[r]]
                digit[r] += 1
                if digit[r] < row_count[r, n[r]]:
                    mask ^= old ^ row_sub[r, n[r], digit[r]]
                    break
                digit[r] = 0
                mask ^= old ^ row_sub[r, n[r], 0]
                r += 1
