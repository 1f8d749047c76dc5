"""The compiled (numba) kernel that solves one level of the bit tables, both cores at once.

One call solves every goose set of a level (goose count k, row sum S), 64 sets per task so that
no two threads write one word. Per goose set it works on all fox points at once, as words of
`33 - k` bits (see `bitlayout`), and on the 7x7 grid as 49-bit masks in between (PEXT/PDEP move
a word between the two):

- geese to move (G): the geese win iff some goose step leads to a fox-to-move loss. A step
  p -> q lands in level S + 1, whose fox-to-move word (F) is spread onto the child's empty points
  (PDEP); its zeros there, the fox on q left out since q is a goose's point then, are the fox
  points where this step wins. One PEXT at the end brings the OR of them to this set's word.
- best capture chain (chain): the fox wins by a capture iff some jump over o lands on a point
  l where the (k-1)-geese *chain-or-stop* table X says so: X(l, set - o) = the geese to move
  there lose, or a further chain wins. The X word spread onto the grid, cut to the points a jump
  over o can land on, and mirrored through o gives every fox point that jump wins from, all
  directions at once. Fewer than four geese left: the fox has won.
- fox to move (F) = chain, or a step to an empty neighbour where G is a loss: one pass of
  bitboard shifts per direction.
- X = not G or chain, the table the next goose count reads.

No move at all falls out of the ORs: geese with no step lose (immobilized), a fox with no
move loses (trapped).

PEXT and PDEP are single instructions (BMI2) on the CPUs where they are fast (Intel since Haswell,
AMD since Zen 3); elsewhere the same functions are row-by-row table look-ups. The choice is made
once at import, from the CPU numba compiles for (its cache is kept per CPU too).
"""

from __future__ import annotations

import sys

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players.compiled import bits
from foxgeese.players.compiled.bits import lowest, popcount
from foxgeese.players.solver.bitlayout import Layout, row_bit_tables

NUMBA_DEPENDS = (bits,)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])

SIDE = 7
# CPUs with BMI2 whose PEXT/PDEP are microcoded (tens to hundreds of cycles): the tables are faster there.
SLOW_PEXT_CPUS = ("znver1", "znver2", "bdver4")


def _fast_pext() -> bool:
    return bool(llvm.get_host_cpu_features().get("bmi2")) and llvm.get_host_cpu_name() not in SLOW_PEXT_CPUS


FAST_PEXT = _fast_pext()


def _bmi2(name):
    @intrinsic
    def call(typingctx, x, m):
        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, name)
            return builder.call(fn, args)

        return types.int64(types.int64, types.int64), codegen

    return call


_pext_bmi2 = _bmi2("llvm.x86.bmi.pext.64")
_pdep_bmi2 = _bmi2("llvm.x86.bmi.pdep.64")


EXTRACT_ROWS, DEPOSIT_ROWS = row_bit_tables()  # the fallback's row tables


@njit(inline="always")
def _pext_rows(x, mask):
    out = np.int64(0)
    at = 0
    for r in range(SIDE):
        e = (mask >> (SIDE * r)) & 127
        out |= EXTRACT_ROWS[e, (x >> (SIDE * r)) & 127] << at
        at += popcount(e)
    return out


@njit(inline="always")
def _pdep_rows(y, mask):
    out = np.int64(0)
    at = 0
    for r in range(SIDE):
        e = (mask >> (SIDE * r)) & 127
        c = popcount(e)
        out |= DEPOSIT_ROWS[e, (y >> at) & ((np.int64(1) << c) - 1)] << (SIDE * r)
        at += c
    return out


_extract, _deposit = (_pext_bmi2, _pdep_bmi2) if FAST_PEXT else (_pext_rows, _pdep_rows)


@njit(inline="always")
def pext(x, mask):
    """The bits of x under `mask` (a 49-bit grid mask), packed to the low end."""
    return _extract(x, mask)


@njit(inline="always")
def pdep(y, mask):
    """The low bits of y spread onto the set bits of `mask`, in order."""
    return _deposit(y, mask)


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
    """ORs `value` (`width` bits) in at bit `offset`; touches the next word only when it must."""
    j = offset >> 6
    sh = offset & 63
    words[j] |= value << sh
    if sh + width > 64:
        words[j + 1] |= value >> (64 - sh)


@njit(inline="always")
def or_bits(words, offset, value):
    """ORs `value` (< 2**63) in at bit `offset`, branch-free: the word after is always touched, so
    `words` needs one spare word at the end (a task's own buffer, never a word another task writes)."""
    j = offset >> 6
    sh = np.uint64(offset & 63)
    v = np.uint64(value)
    words[j] |= np.int64(v << sh)
    words[j + 1] |= np.int64((v >> np.uint64(1)) >> (np.uint64(63) - sh))


@njit(inline="always")
def goose_steps(mask, free, goose_shift, goose_from, out_from, out_to):
    """Every goose step of the geese `mask` onto a point of `free`: from and to grid bits; returns how many."""
    n = 0
    for t in range(goose_shift.shape[0]):
        s = goose_shift[t]
        movers = mask & goose_from[t] & (free >> s)
        while movers:
            p = lowest(movers)
            movers &= movers - 1
            out_from[n] = p
            out_to[n] = p + s
            n += 1
    return n


@njit(inline="always")
def step_child(p, q, mask, dot, rank, row_rank, child_stride):
    """The step p -> q: its child block (the row of p) and the child's index there, from the dot
    products of this set's row ranks (only the rows of p and q change)."""
    rp = p // SIDE
    rq = q // SIDE
    child = mask ^ (np.int64(1) << p) ^ (np.int64(1) << q)
    return rp, dot[rp] \
        + (row_rank[rp, (child >> (SIDE * rp)) & 127] - rank[rp]) * child_stride[rp, rp] \
        + (row_rank[rq, (child >> (SIDE * rq)) & 127] - rank[rq]) * child_stride[rp, rq]


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


def jump_lands(layout: Layout) -> np.ndarray:
    """Per grid point o, the points a fox jumping over o can land on (a mask symmetric about o)."""
    lands = np.zeros(SIDE * SIDE, dtype=np.int64)
    for o in range(SIDE * SIDE):
        for land in layout.jump_to[o]:
            if land >= 0:
                lands[o] |= np.int64(1) << np.int64(land)
    return lands


def _mirrors() -> np.ndarray:
    """[n, v]: the n low bits of v in reverse order (a point reflection of n points sorted by grid bit)."""
    out = np.zeros((9, 256), dtype=np.int64)
    for n in range(9):
        for v in range(1 << n):
            out[n, v] = sum(1 << (n - 1 - i) for i in range(n) if v >> i & 1)
    return out


MIRRORS = _mirrors()


@njit(parallel=True, cache=True)
def solve_level(chunk_code, chunk_start, geese, board, row_sub, row_count, row_rank, radix, code_rows, stride,
                block_word, block_sets, goose_shift, goose_from, jump_shift, jump_over, step_shift, step_from,
                jump_land, mirrors, f_above, above_base, x_below, below_is_captured, g_in, compute_g, out_base,
                g_out, f_out, x_out):
    """Solves the chunks (code, first set) of one level into g_out / f_out / x_out (level-local words).

    `f_above` holds the level above (its first word `above_base`), `x_below` the whole X array of
    geese - 1 (unused when `below_is_captured`: three geese left means the fox has won).
    Without `compute_g`, G is read from `g_in` (a level already on disk, when a build resumes).
    `jump_land` is `jump_lands(layout)`, `mirrors` is `MIRRORS`.

    The index of a set a move or a capture leads to is a dot product of the row ranks with the
    strides of the child's block; the 6 move blocks and 7 capture blocks are fixed per chunk, so
    the 13 dot products are kept up to date as the odometer turns (mostly one row changes).
    """
    width = popcount(board) - geese
    full = (np.int64(1) << width) - 1
    order = np.array([3, 2, 4, 1, 5, 0, 6])
    fast = order[0]  # the fastest digit: its stride is 1 in every block
    # Steps that neither leave nor enter the fastest row lead to the same child block
    # for a whole turn of that row, at consecutive indices: they are listed once per turn.
    inner_rows = (np.int64(127) << (SIDE * (fast - 1))) | (np.int64(127) << (SIDE * fast))
    for ci in prange(chunk_code.shape[0]):
        code = chunk_code[ci]
        start = chunk_start[ci]
        count = min(64, block_sets[code] - start)
        rank = np.zeros(SIDE, dtype=np.int64)
        rows = np.zeros(SIDE, dtype=np.int64)
        step_from_at = np.zeros(3 * SIDE * SIDE, dtype=np.int64)
        step_to_at = np.zeros(3 * SIDE * SIDE, dtype=np.int64)
        outer_at = np.zeros(3 * SIDE * SIDE, dtype=np.int64)  # the steps listed for this turn: child bit offset
        outer_moved = np.zeros(3 * SIDE * SIDE, dtype=np.int64)  # ... and the two points of the step
        outer = 0
        turned = True  # a row other than the fastest changed: list the outer steps again
        g_buf = np.zeros(width + 1, dtype=np.int64)  # this task's words (64 sets: `width` words), one spare
        f_buf = np.zeros(width + 1, dtype=np.int64)
        x_buf = np.zeros(width + 1, dtype=np.int64)
        # child blocks: j < 6 a goose step from row j to j + 1, j >= 6 a capture in row j - 6
        child_code = np.full(13, -1, dtype=np.int64)
        child_word = np.zeros(13, dtype=np.int64)
        child_stride = np.zeros((13, SIDE), dtype=np.int64)
        dot = np.zeros(13, dtype=np.int64)
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
        first_word = block_word[code] - out_base + start * width // 64  # 64 sets fill `width` words
        for i in range(count):
            empty = board & ~mask
            offset = i * width
            # -- geese to move: per step, the child's fox-to-move losses on the grid --
            if compute_g:
                if turned:
                    outer = goose_steps(mask & ~inner_rows, empty, goose_shift, goose_from, step_from_at, step_to_at)
                    for t in range(outer):
                        p = step_from_at[t]
                        q = step_to_at[t]
                        rp, index = step_child(p, q, mask, dot, rank, row_rank, child_stride)
                        outer_at[t] = child_word[rp] + (index - rank[fast]) * width
                        outer_moved[t] = (np.int64(1) << p) | (np.int64(1) << q)
                    turned = False
                wins = np.int64(0)  # grid: fox points where some step wins for the geese (goose points: junk)
                along = rank[fast] * width
                for t in range(outer):
                    w = read_bits(f_above, outer_at[t] + along, width)
                    child_empty = empty ^ outer_moved[t]
                    wins |= child_empty & ~pdep(w, child_empty)
                steps = goose_steps(mask & inner_rows, empty, goose_shift, goose_from, step_from_at, step_to_at)
                for t in range(steps):
                    p = step_from_at[t]
                    q = step_to_at[t]
                    rp, index = step_child(p, q, mask, dot, rank, row_rank, child_stride)
                    w = read_bits(f_above, child_word[rp] + index * width, width)
                    child_empty = empty ^ (np.int64(1) << p) ^ (np.int64(1) << q)
                    wins |= child_empty & ~pdep(w, child_empty)
                g = pext(wins, empty)
            else:
                g = read_bits(g_in, first_word * 64 + offset, width)
            # -- capture chains: per jumped goose, the fox points that jump wins from, on the grid --
            chain_grid = np.int64(0)
            jumped = np.int64(0)
            for d in range(8):
                s = jump_shift[d]
                jumped |= jump_over[d] & shift(empty, -s) & shift(empty, s)
            jumped &= mask
            while jumped:
                o = lowest(jumped)
                low = np.int64(1) << o
                jumped &= jumped - 1
                if below_is_captured:
                    x = np.int64(-1)
                else:
                    ro = o // SIDE
                    smaller = mask ^ low
                    index = dot[6 + ro] + (row_rank[ro, (smaller >> (SIDE * ro)) & 127] - rank[ro]) * \
                        child_stride[6 + ro, ro]
                    x = read_bits(x_below, child_word[6 + ro] + index * (width + 1), width + 1)
                lands = jump_land[o]
                landing = pext(pdep(x, empty | low) & empty, lands)
                chain_grid |= pdep(mirrors[popcount(lands), landing], lands)
            chain = pext(chain_grid, empty)
            # -- fox to move --
            not_g = pdep(~g & full, empty)
            moves = np.int64(0)
            for d in range(8):
                moves |= shift(not_g, step_shift[d]) & step_from[d]
            fox = pext(moves, empty) | chain
            or_bits(g_buf, offset, g)
            or_bits(f_buf, offset, fox)
            or_bits(x_buf, offset, (~g & full) | chain)
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
                turned = True
            mask = np.int64(0)
            for r in range(SIDE):
                mask |= rows[r]
        for j in range((count * width + 63) // 64):
            g_out[first_word + j] = g_buf[j]
            f_out[first_word + j] = f_buf[j]
            x_out[first_word + j] = x_buf[j]
