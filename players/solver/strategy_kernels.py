"""The compiled (numba) part of making a winner's strategy: moves on the 7x7 grid, table look-ups.

A node is a position with the winner to move, as one key `goose mask << 6 | fox grid bit`. For
a level of nodes, `choose` picks each node's move (by the bit tables: a move that keeps the
win) and counts the loser's replies after it; `replies` writes the nodes those replies reach.
Moves come from the layout's bitboards (`bitlayout`), which come from the engine's board, so a
strategy made here is then checked with the engine's own rules (`strategy.verify`).

Which winning move: one that ends the game at once if any; else, for the fox, the one that
captures most geese (fewer geese, fewer lines to answer); then the one that leaves the loser
the fewest replies (a smaller file).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from foxgeese.players.solver.kernels import goose_steps, pext, popcount

SIDE = 7
MIN_GEESE = 4
MOST_MOVES = 1 << 14  # fox moves: capture chains branch (201 seen on random 13-geese positions)
BLOCK = 256  # nodes per parallel task: the move buffers are made once per task


@njit(inline="always")
def geese_win(words, mask, fox, board, radix, row_rank, stride, block_word):
    """The geese-to-move bit of the strong solve: do the geese win with the fox on `fox`?"""
    k = popcount(mask)
    table = words[k - MIN_GEESE]
    code = np.int64(0)
    for r in range(SIDE):
        code += popcount((mask >> (SIDE * r)) & 127) * radix[r]
    index = np.int64(0)
    for r in range(SIDE):
        index += row_rank[r, (mask >> (SIDE * r)) & 127] * stride[code, r]
    empty = board & ~mask
    slot = popcount(empty & ((np.int64(1) << fox) - 1))
    bit = block_word[code] * 64 + index * (popcount(board) - k) + slot
    return (table[bit >> 6] >> (bit & 63)) & 1 == 1


@njit(inline="always")
def goose_moves(mask, fox, board, goose_shift, goose_from, out_mask, out_code):
    """Every goose step: the new goose mask and the move's code (from | to << 6); returns how many."""
    free = board & ~mask & ~(np.int64(1) << fox)
    n = goose_steps(mask, free, goose_shift, goose_from, out_code, out_mask)  # from points, to points
    for i in range(n):
        p = out_code[i]
        q = out_mask[i]
        out_mask[i] = mask ^ (np.int64(1) << p) ^ (np.int64(1) << q)
        out_code[i] = p | q << 6
    return n


@njit(inline="always")
def fox_moves(mask, fox, board, step_shift, step_from, jump_over, out_mask, out_fox, out_code):
    """Every fox move, steps and every capture chain (a chain may stop after any jump); returns
    how many. A move's code is its landing point | the captured geese as a subset of the
    position's geese in grid order << 6: what `strategy.move_code` computes from an engine move."""
    n = 0
    empty = board & ~mask
    for d in range(8):
        if (step_from[d] >> fox) & 1:
            t = fox + step_shift[d]
            if (empty >> t) & 1:
                out_mask[n] = mask
                out_fox[n] = t
                out_code[n] = t
                n += 1
    stack_at = np.empty(MOST_MOVES, dtype=np.int64)  # each jump pushes one: at most one entry per chain
    stack_mask = np.empty(MOST_MOVES, dtype=np.int64)
    stack_at[0] = fox
    stack_mask[0] = mask
    top = 1
    while top > 0:
        top -= 1
        at = stack_at[top]
        now = stack_mask[top]
        free = board & ~now
        for d in range(8):
            o = at + step_shift[d]
            if o < 0 or o >= SIDE * SIDE or not ((jump_over[d] >> o) & 1) or not ((now >> o) & 1):
                continue
            land = o + step_shift[d]
            if not ((free >> land) & 1):
                continue
            after = now ^ (np.int64(1) << o)
            subset = pext(mask & ~after, mask)  # the captured geese as a subset of the position's
            out_mask[n] = after
            out_fox[n] = land
            out_code[n] = land | subset << 6
            n += 1
            if n == MOST_MOVES:
                return -1  # too many chains to list: the caller gives up on this position
            stack_at[top] = land
            stack_mask[top] = after
            top += 1
    return n


@njit(inline="always")
def fox_to_move_fox_wins(mask, fox, words, board, radix, row_rank, stride, block_word, step_shift, step_from,
                         jump_over, scratch_mask, scratch_fox, scratch_code):
    n = fox_moves(mask, fox, board, step_shift, step_from, jump_over, scratch_mask, scratch_fox, scratch_code)
    if n < 0:
        return True  # cannot list them all: taken as a fox win, so the geese do not choose this move
    for i in range(n):
        if popcount(scratch_mask[i]) < MIN_GEESE or not geese_win(words, scratch_mask[i], scratch_fox[i], board,
                                                                    radix, row_rank, stride, block_word):
            return True
    return False


@njit(parallel=True)
def choose(keys, fox_wins, words, board, radix, row_rank, stride, block_word, goose_shift, goose_from,
           step_shift, step_from, jump_over, codes, after, reply_count):
    """For each node: the winner's move code, the key after it (winner moved) and the loser's reply count.

    A reply count of -1 means the move ends the game; -2 means no winning move (the tables disagree);
    -3 means more fox moves than `MOST_MOVES` (capture chains) somewhere.
    """
    for task in prange((keys.shape[0] + BLOCK - 1) // BLOCK):
        m_mask = np.empty(MOST_MOVES, dtype=np.int64)
        m_fox = np.empty(MOST_MOVES, dtype=np.int64)
        m_code = np.empty(MOST_MOVES, dtype=np.int64)
        r_mask = np.empty(MOST_MOVES, dtype=np.int64)
        r_fox = np.empty(MOST_MOVES, dtype=np.int64)
        r_code = np.empty(MOST_MOVES, dtype=np.int64)
        s_mask = np.empty(MOST_MOVES, dtype=np.int64)
        s_fox = np.empty(MOST_MOVES, dtype=np.int64)
        s_code = np.empty(MOST_MOVES, dtype=np.int64)
        for i in range(task * BLOCK, min(keys.shape[0], (task + 1) * BLOCK)):
            choose_one(i, keys, fox_wins, words, board, radix, row_rank, stride, block_word, goose_shift, goose_from,
                       step_shift, step_from, jump_over, codes, after, reply_count, m_mask, m_fox, m_code, r_mask,
                       r_fox, r_code, s_mask, s_fox, s_code)


@njit
def choose_one(i, keys, fox_wins, words, board, radix, row_rank, stride, block_word, goose_shift, goose_from,
               step_shift, step_from, jump_over, codes, after, reply_count, m_mask, m_fox, m_code, r_mask, r_fox,
               r_code, s_mask, s_fox, s_code):
    mask = keys[i] >> 6
    fox = keys[i] & 63
    best = -1
    best_rank = np.int64(1) << 60
    if fox_wins:
        n = fox_moves(mask, fox, board, step_shift, step_from, jump_over, m_mask, m_fox, m_code)
        if n < 0:
            reply_count[i] = -3
            return
        for j in range(n):
            k = popcount(m_mask[j])
            if k < MIN_GEESE:
                rank = -(np.int64(1) << 40)  # captured: the game is over
            elif geese_win(words, m_mask[j], m_fox[j], board, radix, row_rank, stride, block_word):
                continue
            else:
                replies = goose_moves(m_mask[j], m_fox[j], board, goose_shift, goose_from, r_mask, r_code)
                rank = -(np.int64(1) << 40) if replies == 0 else (k << 20) + replies
            if rank < best_rank:
                best, best_rank = j, rank
    else:
        n = goose_moves(mask, fox, board, goose_shift, goose_from, m_mask, m_code)
        for j in range(n):
            m_fox[j] = fox
            replies = fox_moves(m_mask[j], fox, board, step_shift, step_from, jump_over, r_mask, r_fox, r_code)
            if replies < 0:
                reply_count[i] = -3
                return
            if replies == 0:
                rank = np.int64(-1)  # the fox is trapped
            elif fox_to_move_fox_wins(m_mask[j], fox, words, board, radix, row_rank, stride, block_word,
                                      step_shift, step_from, jump_over, s_mask, s_fox, s_code):
                continue
            else:
                rank = np.int64(replies)
            if rank < best_rank:
                best, best_rank = j, rank
    if best < 0:
        reply_count[i] = -2
        return
    codes[i] = m_code[best]
    after[i] = m_mask[best] << 6 | m_fox[best]
    reply_count[i] = -1 if best_rank < 0 else best_rank & ((1 << 20) - 1)  # the fox's rank: geese << 20 | replies


@njit(parallel=True)
def replies(after, fox_wins, first, board, goose_shift, goose_from, step_shift, step_from, jump_over, out):
    """Writes, from `first[i]` on, the nodes (winner to move again) the loser's replies reach from `after[i]`."""
    for task in prange((after.shape[0] + BLOCK - 1) // BLOCK):
        r_mask = np.empty(MOST_MOVES, dtype=np.int64)
        r_fox = np.empty(MOST_MOVES, dtype=np.int64)
        r_code = np.empty(MOST_MOVES, dtype=np.int64)
        for i in range(task * BLOCK, min(after.shape[0], (task + 1) * BLOCK)):
            if first[i + 1] == first[i]:
                continue
            mask = after[i] >> 6
            fox = after[i] & 63
            at = first[i]
            if fox_wins:
                n = goose_moves(mask, fox, board, goose_shift, goose_from, r_mask, r_code)
                for j in range(n):
                    out[at + j] = r_mask[j] << 6 | fox
            else:
                n = fox_moves(mask, fox, board, step_shift, step_from, jump_over, r_mask, r_fox, r_code)
                for j in range(n):
                    out[at + j] = r_mask[j] << 6 | r_fox[j]
