"""The compiled (numba) kernel that solves one level of the bit tables, both cores at once.

One call solves every goose set of a level (goose count k, row sum S), 64 sets per task so that
no two threads write one word. Per goose set it works on all fox points at once, as words of
`33 - k` bits (see `bitlayout`):

- geese to move (G): the geese win iff some goose step leads to a fox-to-move loss. A step
  p -> q lands in level S + 1, whose fox-to-move word (F) is re-indexed to this set's empty
  points with three masks (p becomes a goose's point, q an empty one), and the fox on q is
  excluded.
- best capture chain (chain): the fox wins by a capture iff some jump over o lands on a point
  l where the (k-1)-geese *chain-or-stop* table X says so: X(l, set - o) = the geese to move
  there lose, or a further chain wins. Fewer than four geese left: the fox has won.
- fox to move (F) = chain, or a step to an empty neighbour where G is a loss: one pass of
  bitboard shifts per direction.
- X = not G or chain, the table the next goose count reads.

No move at all falls out of the ORs: geese with no step lose (immobilized), a fox with no
move loses (trapped).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

SIDE = 7


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@njit(inline="always")
def popcount(x):
    return _ctpop(x)


@njit(inline="always")
def read_bits(words, offset, width):
    """`width` (< 64) bits of a word array starting at bit `offset`; branch-free (two loads, the
    second clamped to the array), since the offsets are as good as random."""
    j = offset >> 6
    sh = np.uint64(offset & 63)
    lo = np.uint64(words[j])
    hi = np.uint64(words[min(j + 1, words.shape[0] - 1)])
    value = (lo >> sh) | ((hi << np.uint64(1)) << (np.uint64(63) - sh))
    return np.int64(value & ((np.uint64(1) << np.uint64(width)) - np.uint64(1)))


@njit(inline="always")
def write_bits(words, offset, width, value):
    j = offset >> 6
    sh = offset & 63
    words[j] |= value << sh
    if sh + width > 64:
        words[j + 1] |= value >> (64 - sh)


@njit(inline="always")
def pext(x, empty, table):
    out = np.int64(0)
    at = 0
    for r in range(SIDE):
        e = (empty >> (SIDE * r)) & 127
        out |= table[e, (x >> (SIDE * r)) & 127] << at
        at += popcount(e)
    return out


@njit(inline="always")
def pdep(y, empty, table):
    out = np.int64(0)
    at = 0
    for r in range(SIDE):
        e = (empty >> (SIDE * r)) & 127
        c = popcount(e)
        out |= table[e, (y >> at) & ((np.int64(1) << c) - 1)] << (SIDE * r)
        at += c
    return out


@njit(inline="always")
def set_index(mask, code, row_rank, stride):
    index = np.int64(0)
    for r in range(SIDE):
        index += row_rank[r, (mask >> (SIDE * r)) & 127] * stride[code, r]
    return index


@njit(inline="always")
def shift(x, s):
    """x moved by -s grid bits (bit p + s lands on p); s may be negative."""
    if s > 0:
        return x >> s
    return x << -s


@njit(parallel=True, cache=True)
def solve_level(chunk_code, chunk_start, geese, board, row_sub, row_count, row_rank, radix, code_rows, stride,
                block_word, block_sets, goose_shift, goose_from, jump_shift, jump_over, step_shift, step_from,
                pext_table, pdep_table, f_above, above_base, x_below, below_is_captured, g_in, compute_g, out_base,
                g_out, f_out, x_out):
    """Solves the chunks (code, first set) of one level into g_out / f_out / x_out (level-local words).

    `f_above` holds the level above (its first word `above_base`), `x_below` the whole X array of
    geese - 1 (unused when `below_is_captured`: three geese left means the fox has won).
    Without `compute_g`, G is read from `g_in` (a level already on disk, when a build resumes).

    The index of a set a move or a capture leads to is a dot product of the row ranks with the
    strides of the child's block; the 6 move blocks and 7 capture blocks are fixed per chunk, so
    the 13 dot products are kept up to date as the odometer turns (mostly one row changes).
    """
    width = popcount(board) - geese
    full = (np.int64(1) << width) - 1
    order = np.array([3, 2, 4, 1, 5, 0, 6])
    for ci in prange(chunk_code.shape[0]):
        code = chunk_code[ci]
        start = chunk_start[ci]
        count = min(64, block_sets[code] - start)
        rank = np.zeros(SIDE, dtype=np.int64)
        rows = np.zeros(SIDE, dtype=np.int64)
        # child blocks: j < 6 a goose step from row j to j + 1, j >= 6 a capture in row j - 6
        child_code = np.full(13, -1, dtype=np.int64)
        child_word = np.zeros(13, dtype=np.int64)
        child_stride = np.zeros((13, SIDE), dtype=np.int64)
        dot = np.zeros(13, dtype=np.int64)
        jumps = np.zeros(8, dtype=np.int64)  # per direction: the geese the fox can jump that way
        for j in range(13):
            if j < 6:
                if code_rows[code, j] == 0 or code_rows[code, j + 1] >= popcount((board >> (SIDE * (j + 1))) & 127):
                    continue
                cc = code - radix[j] + radix[j + 1]
                child_word[j] = (block_word[cc] - above_base) * 64
            else:
                if code_rows[code, j - 6] == 0 or below_is_captured:
                    continue
                cc = code - radix[j - 6]
                child_word[j] = block_word[cc] * 64
            child_code[j] = cc
            for r in range(SIDE):
                child_stride[j, r] = stride[cc, r]
        rest = start
        mask = np.int64(0)
        for t in range(SIDE):
            r = order[t]
            n = code_rows[code, r]
            c = row_count[r, n]
            rank[r] = rest % c
            rest //= c
            rows[r] = row_sub[r, n, rank[r]]
            mask |= rows[r]
        for j in range(13):
            if child_code[j] >= 0:
                for r in range(SIDE):
                    dot[j] += rank[r] * child_stride[j, r]
        base = (block_word[code] - out_base) * 64 + start * width
        for i in range(count):
            empty = board & ~mask
            free = empty  # a goose may step onto the fox's point; that fox is left out below
            offset = base + i * width
            # -- geese to move --
            if compute_g:
                g = np.int64(0)
                for t in range(goose_shift.shape[0]):
                    s = goose_shift[t]
                    movers = mask & goose_from[t] & (free >> s)
                    while movers:
                        low = movers & -movers
                        movers ^= low
                        p = popcount(low - 1)
                        q = p + s
                        rp = p // SIDE
                        rq = q // SIDE
                        child = mask ^ low ^ (np.int64(1) << q)
                        index = dot[rp] \
                            + (row_rank[rp, (child >> (SIDE * rp)) & 127] - rank[rp]) * child_stride[rp, rp] \
                            + (row_rank[rq, (child >> (SIDE * rq)) & 127] - rank[rq]) * child_stride[rp, rq]
                        w = read_bits(f_above, child_word[rp] + index * width, width)
                        a = popcount(empty & (low - 1))
                        b = popcount(empty & ((np.int64(1) << q) - 1))
                        low_a = (np.int64(1) << a) - 1
                        low_b = (np.int64(1) << b) - 1
                        moved = (w & low_a) | ((w >> 1) & (low_b ^ low_a)) | (w & ~((low_b << 1) | 1))
                        g |= ~moved & ~(np.int64(1) << b)
                g &= full
            else:
                g = read_bits(g_in, offset, width)
            # -- capture chains --
            chain = np.int64(0)
            jumped = np.int64(0)
            for d in range(8):
                s = jump_shift[d]
                jumps[d] = mask & jump_over[d] & shift(empty, -s) & shift(empty, s)
                jumped |= jumps[d]
            while jumped:
                low = jumped & -jumped
                jumped ^= low
                o = popcount(low - 1)
                ro = o // SIDE
                if below_is_captured:
                    x = np.int64(-1)
                else:
                    smaller = mask ^ low
                    index = dot[6 + ro] + (row_rank[ro, (smaller >> (SIDE * ro)) & 127] - rank[ro]) * \
                        child_stride[6 + ro, ro]
                    x = read_bits(x_below, child_word[6 + ro] + index * (width + 1), width + 1)
                wider = empty | low
                for d in range(8):
                    s = jump_shift[d]
                    f = (o - s) & 63
                    land = (o + s) & 63
                    hit = (jumps[d] >> o) & (x >> popcount(wider & ((np.int64(1) << land) - 1))) & 1
                    chain |= hit << popcount(empty & ((np.int64(1) << f) - 1))
            # -- fox to move --
            not_g = pdep(~g & full, empty, pdep_table)
            steps = np.int64(0)
            for d in range(8):
                steps |= shift(not_g, step_shift[d]) & step_from[d]
            fox = pext(steps & empty, empty, pext_table) | chain
            write_bits(g_out, offset, width, g)
            write_bits(f_out, offset, width, fox)
            write_bits(x_out, offset, width, (~g & full) | chain)
            # -- next goose set: the odometer over the row ranks, and the dot products with it --
            for t in range(SIDE):
                r = order[t]
                n = code_rows[code, r]
                old = rank[r]
                rank[r] += 1
                if rank[r] == row_count[r, n]:
                    rank[r] = 0
                rows[r] = row_sub[r, n, rank[r]]
                change = rank[r] - old
                for j in range(13):
                    dot[j] += change * child_stride[j, r]
                if rank[r] != 0:
                    break
            mask = np.int64(0)
            for r in range(SIDE):
                mask |= rows[r]
