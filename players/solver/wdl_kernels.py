"""The compiled (numba) kernels that solve one level of the two-bit (win/draw/loss) tables.

A level (goose count k, row sum S) is held in memory as one 64-bit word per goose set and plane,
a bit per dense board point (the fox there): gw/gl = geese to move win/lose, fw/fl = fox to move
wins/loses; a position in neither plane of its side is (so far) undecided.

- `outside` reads the moves that leave the level once: forward goose steps (the level S + 1, fox
  to move, already solved) into gw and gnl ("some move that does not lose"), and the fox's capture
  chains (one jump, then X of the k - 1 table: stop there or jump on) into cw and cnl.
- `sweep` goes once over the level, in place: a sideways goose step keeps the composition, so its
  child is in the same block (one row's rank changes); a fox step keeps the goose set, so the fox
  planes come from this set's geese planes by one adjacency look-up per byte. Wins and losses only
  grow, so sweeping until nothing changes reaches the least fixpoint; what is left is a draw.
- `pack` writes a dense plane into the tables' slot order (bit i = the fox on the i-th empty point).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit, prange

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players.solver import kernels
from foxgeese.players.solver.kernels import popcount, write_bits

NUMBA_DEPENDS = (kernels,)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])


@njit(inline="always")
def adjacent_to(x, adjacent):
    """The points one fox step from any point of x."""
    out = np.int64(0)
    for b in range(adjacent.shape[0]):
        out |= adjacent[b, (x >> (8 * b)) & 255]
    return out


@njit(inline="always")
def goose_step(win, nonloss, fox_wins, fox_loses, target):
    """Adds a goose step to `target` whose child (fox to move) has these planes: the geese win where
    the fox loses there, and do not lose where it does not win; not with the fox on the target."""
    return win | (fox_loses & ~target), nonloss | (~fox_wins & ~target)


@njit(inline="always")
def index_of(mask, row_start, row_width, row_rank, row_count, radix, block_base):
    """The set index of a goose set within its goose count (block base + mixed-radix row ranks)."""
    index = np.int64(0)
    stride = np.int64(1)
    code = np.int64(0)
    for r in range(row_start.shape[0]):
        value = (mask >> row_start[r]) & ((np.int64(1) << row_width[r]) - 1)
        n = popcount(value)
        code += n * radix[r]
        index += row_rank[r, value] * stride
        stride *= row_count[r, n]
    return block_base[code] + index


@njit(parallel=True, cache=True)
def level_masks(codes, block_base, first, row_sub, row_count, row_width, radix, masks):
    """The goose set of every index of a level (masks[i] for set first + i; padding stays -1)."""
    rows = row_width.shape[0]
    for c in prange(codes.shape[0]):
        code = codes[c]
        base = block_base[code] - first
        sets = np.int64(1)
        for r in range(rows):
            sets *= row_count[r, (code // radix[r]) % (row_width[r] + 1)]
        for i in range(sets):
            rest = i
            mask = np.int64(0)
            for r in range(rows):
                n = (code // radix[r]) % (row_width[r] + 1)
                count = row_count[r, n]
                mask |= row_sub[r, n, rest % count]
                rest //= count
            masks[base + i] = mask


@njit(parallel=True, cache=True)
def outside(masks, board, row_start, row_width, row_rank, row_count, radix, block_base, forward, jump_from, jump_to,
            above_fw, above_fl, above_first, x_below, below_plane, below_captured, gw, gnl, cw, cnl):
    """The moves leaving the level: forward goose steps into gw/gnl, capture chains into cw/cnl."""
    n = masks.shape[0]
    points = popcount(board)
    for ci in prange((n + 63) // 64):
        for i in range(ci * 64, min(n, ci * 64 + 64)):
            mask = masks[i]
            if mask < 0:
                continue
            empty = board & ~mask
            width = points - popcount(mask)
            win = nonloss = chain_win = chain_nonloss = np.int64(0)
            movers = mask
            while movers:
                low = movers & -movers
                movers ^= low
                p = popcount(low - 1)
                for t in range(forward.shape[1]):
                    q = forward[p, t]
                    if q < 0 or (mask >> q) & 1:
                        continue
                    qb = np.int64(1) << q
                    j = index_of(mask ^ low ^ qb, row_start, row_width, row_rank, row_count, radix,
                                 block_base) - above_first
                    win, nonloss = goose_step(win, nonloss, above_fw[j], above_fl[j], qb)
            gw[i] = win & empty
            gnl[i] = nonloss & empty
            jumped = mask
            while jumped:  # the capture chains, per goose the fox could jump
                ob = jumped & -jumped
                o = popcount(ob - 1)
                jumped ^= ob
                smaller = np.int64(-1)
                for t in range(jump_from.shape[1]):
                    f = jump_from[o, t]
                    if f < 0:
                        break
                    to = jump_to[o, t]
                    if not (empty >> f) & 1 or not (empty >> to) & 1:
                        continue
                    fb = np.int64(1) << f
                    if below_captured:  # three geese left: the fox has won
                        chain_win |= fb
                        chain_nonloss |= fb
                        continue
                    if smaller < 0:
                        smaller = index_of(mask ^ ob, row_start, row_width, row_rank, row_count, radix,
                                           block_base) * (width + 1)
                    at = smaller + popcount((empty | ob) & ((np.int64(1) << to) - 1))
                    if (x_below[at >> 6] >> (at & 63)) & 1:
                        chain_win |= fb
                    if not (x_below[below_plane + (at >> 6)] >> (at & 63)) & 1:
                        chain_nonloss |= fb
            cw[i] = chain_win
            cnl[i] = chain_nonloss


@njit(parallel=True, cache=True)
def sweep(masks, board, row_start, row_width, row_rank, row_count, row_of, sideways, adjacent,
          gw, gl, fw, fl, gnl, cw, cnl):
    """One in-place pass over the level; returns how many goose sets changed."""
    n = masks.shape[0]
    rows = row_start.shape[0]
    changed = 0
    for ci in prange((n + 63) // 64):
        strides = np.zeros(rows, dtype=np.int64)
        local = 0
        for i in range(ci * 64, min(n, ci * 64 + 64)):
            mask = masks[i]
            if mask < 0:
                continue
            empty = board & ~mask
            stride = np.int64(1)
            for r in range(rows):
                strides[r] = stride
                stride *= row_count[r, popcount((mask >> row_start[r]) & ((np.int64(1) << row_width[r]) - 1))]
            win = gw[i]
            nonloss = gnl[i]
            movers = mask
            while movers:
                low = movers & -movers
                movers ^= low
                p = popcount(low - 1)
                r = row_of[p]
                for t in range(sideways.shape[1]):
                    q = sideways[p, t]
                    if q < 0 or (mask >> q) & 1:
                        continue
                    qb = np.int64(1) << q
                    row_mask = (np.int64(1) << row_width[r]) - 1
                    before = (mask >> row_start[r]) & row_mask
                    after = ((mask ^ low ^ qb) >> row_start[r]) & row_mask
                    j = i + (row_rank[r, after] - row_rank[r, before]) * strides[r]
                    win, nonloss = goose_step(win, nonloss, fw[j], fl[j], qb)
            win &= empty
            loss = empty & ~nonloss
            fox_win = cw[i] | (adjacent_to(loss, adjacent) & empty)
            fox_loss = empty & ~(cnl[i] | (adjacent_to(empty & ~win, adjacent) & empty))
            if win != gw[i] or loss != gl[i] or fox_win != fw[i] or fox_loss != fl[i]:
                gw[i] = win
                gl[i] = loss
                fw[i] = fox_win
                fl[i] = fox_loss
                local += 1
        changed += local
    return changed


@njit(parallel=True, cache=True)
def pack(masks, board, row_start, row_width, row_pext, planes, out):
    """Dense planes (planes, sets) of a level into slot order (`out`: (planes, the level's words), zeroed)."""
    n = masks.shape[0]
    for ci in prange((n + 63) // 64):
        for i in range(ci * 64, min(n, ci * 64 + 64)):
            mask = masks[i]
            if mask < 0:
                continue
            empty = board & ~mask
            width = popcount(empty)
            for p in range(planes.shape[0]):
                value = planes[p, i]
                packed = np.int64(0)
                at = 0
                for r in range(row_start.shape[0]):
                    row_mask = (np.int64(1) << row_width[r]) - 1
                    e = (empty >> row_start[r]) & row_mask
                    packed |= row_pext[e, (value >> row_start[r]) & row_mask] << at
                    at += popcount(e)
                write_bits(out[p], i * width, width, packed)
