"""Compiled negamax alpha-beta on the compiled rules core: the `minimax` player's search.

The same search as the Python reference (players/minimax.py `AlphaBeta`), node for node in what it
computes: principal-variation search with mate-distance pruning, a transposition table on the exact
position key (the stall counter included where it decides games), move ordering (table move,
long capture chains first, two killers per ply, history), the fox's captures searched past the
horizon to a quiet position (stand pat or a capture, answered by the evaluation), one more geese
move when a goose hangs at the horizon, repetition (a position met again on the game's or the
search's path scores as a draw) and the fifty-move counter (an ending of the core), and the
compiled copy of the static evaluation (evaluation.py). With the table's cut-offs off
(`tt_cutoffs=False`) both searches compute the same function of the position, so their values at a
fixed depth are equal whatever the move order: tests/test_compiled_alphabeta.py checks that.

Where a solved table exists its exact values replace the search's below the root (`probe`):
the Hare and Hounds solution (every state, distance to the end included), so the search plays the
shortest win and the longest loss.

Layout: `Searcher` (Python) owns every array: the move stack (a stretch per ply), the table
(bounded: `tt_bits`), killers, history, the path of keys, and `counters` (nodes, limits, flags).
Iterative deepening runs in Python, one compiled `search_root` call per depth; the clock is read in
compiled code (`bits.now_ns`) every `TIME_CHECK_NODES` nodes.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from foxgeese.players.compiled import core
from foxgeese.players.compiled.bits import now_ns, popcount
from foxgeese.players.compiled.evaluation import evaluate

WIN = 1_000_000  # as players/minimax.py: scores compare
MAX_PLY = 200
MATE_BOUND = WIN - 1_000
INFINITY = WIN + 1
EXACT, LOWER, UPPER = 0, 1, 2
TIME_CHECK_NODES = 512
STACK = 1 << 18  # moves on the stack, all plies together (capture chains branch)
PATH = 512  # keys on the path: the game's since its last irreversible move, then the search's

# counters[...]
NODES, MAX_NODES, DEADLINE, STOPPED, TIMED_OUT, NEXT_CHECK, EXTENSION_LIMIT, TT_CUTOFFS, PATH_LEN, OVERFLOW, \
    PROBE = range(11)
COUNTERS = 11

# Probe kinds
NO_TABLE, HARE_TABLE = 0, 1
TABLE_WIN = 32000  # players/solver/table_files.py WIN: a table score is TABLE_WIN - plies
# Arguments passed as typed values, not literals: a literal would give a recursive function a second
# compiled signature, and numba's cache cannot load recursive functions with more than one.
ONE_PLY, PREY_TO_MOVE, NO_STALL = np.int64(1), np.int64(core.PREY), np.int64(0)


class SearchArrays(NamedTuple):
    """Everything a search writes, owned by one `Searcher` (numba takes it as one argument)."""

    frm: np.ndarray
    to: np.ndarray
    taken: np.ndarray
    parent: np.ndarray
    rank: np.ndarray
    ply_start: np.ndarray  # [ply]: where that ply's moves start on the stack
    tt_key: np.ndarray  # -1: empty
    tt_move: np.ndarray
    tt_score: np.ndarray
    tt_depth: np.ndarray
    tt_flag: np.ndarray
    killers: np.ndarray  # [ply, 2] move codes
    history: np.ndarray  # [from * 64 + to]
    path: np.ndarray
    counters: np.ndarray
    noise: np.ndarray  # root ties: a permutation of the root moves (seeded play), else 0..n-1


class Probe(NamedTuple):
    """A solved table for the search to read (kind NO_TABLE: none)."""

    kind: int
    scores: np.ndarray  # int16: Hare and Hounds scores, flat [stall, side, hare, hound-set rank]
    choose: np.ndarray  # [n, 4]: C(p, k), for the colex rank of a hound set
    sets: int  # hound sets


def new_arrays(tt_bits: int) -> SearchArrays:
    size = 1 << tt_bits
    return SearchArrays(
        np.zeros(STACK, np.int64), np.zeros(STACK, np.int64), np.zeros(STACK, np.int64), np.zeros(STACK, np.int64),
        np.zeros(STACK, np.int64), np.zeros(MAX_PLY + 2, np.int64),
        np.full(size, -1, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int32), np.zeros(size, np.int16),
        np.zeros(size, np.int8), np.zeros((MAX_PLY + 2, 2), np.int64), np.zeros(64 * 64, np.int64),
        np.zeros(PATH, np.int64), np.zeros(COUNTERS, np.int64), np.zeros(STACK, np.int64),
    )


def no_probe() -> Probe:
    return Probe(NO_TABLE, np.zeros(1, np.int16), np.zeros((1, 4), np.int64), 0)


@njit(cache=True, inline="always")
def tt_index(s, tkey):
    mixed = np.uint64(tkey) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(mixed >> np.uint64(40)) & (s.tt_key.shape[0] - 1)


@njit(cache=True, inline="always")
def table_key(t, fox, prey, turn, stall):
    position = core.key(fox, prey, turn)
    return position * 16 + stall if t.checks_stalling else position


@njit(cache=True, inline="always")
def to_tt(score, ply):
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


@njit(cache=True, inline="always")
def from_tt(score, ply):
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


@njit(cache=True)
def tt_move_of(s, tkey):
    """The table's move for a key, or -1."""
    i = tt_index(s, tkey)
    return s.tt_move[i] if s.tt_key[i] == tkey else -1


@njit(cache=True, inline="always")
def store(s, tkey, depth, flag, score, move):
    i = tt_index(s, tkey)
    s.tt_key[i] = tkey
    s.tt_depth[i] = depth
    s.tt_flag[i] = flag
    s.tt_score[i] = score
    s.tt_move[i] = move


@njit(cache=True, inline="always")
def limits_hit(s):
    """Counts a node; True when the node budget or (checked every TIME_CHECK_NODES) the deadline ends the search."""
    c = s.counters
    c[NODES] += 1
    if c[MAX_NODES] >= 0 and c[NODES] >= c[MAX_NODES]:
        c[STOPPED] = 1
    elif c[NODES] >= c[NEXT_CHECK]:
        c[NEXT_CHECK] = c[NODES] + TIME_CHECK_NODES
        if c[DEADLINE] >= 0 and now_ns() >= c[DEADLINE]:
            c[STOPPED] = 1
            c[TIMED_OUT] = 1
    return c[STOPPED] != 0


@njit(cache=True, inline="always")
def on_path(s, position_key, quiet):
    """Whether the position occurred on the game's or the search's path (only the last `quiet`
    plies can hold it: an irreversible move changes the pieces for good; same side: every other ply)."""
    top = s.counters[PATH_LEN]
    back = 2
    while back <= quiet and top - back >= 0:
        if s.path[top - back] == position_key:
            return True
        back += 2
    return False


@njit(cache=True, inline="always")
def ending_score(code, turn, ply):
    winner = core.WINNER[code]
    if winner < 0:
        return 0
    return WIN - ply if winner == turn else ply - WIN


@njit(cache=True)
def probe_score(t, p, fox, prey, turn, stall, ply):
    """The exact score of a position from a solved table, in search units (mate distances from the
    root), or INFINITY where no table reaches."""
    if p.kind == HARE_TABLE and popcount(prey) == 3:
        rank = 0
        k = 1
        bits = prey
        while bits:
            low = bits & -bits
            d = popcount(low - 1)
            rank += p.choose[d, k]
            k += 1
            bits &= bits - 1
        flat = ((min(stall, 10) * 2 + turn) * t.n + fox) * p.sets + rank
        score = np.int64(p.scores[flat])
        if score > 0:
            return WIN - ply - (TABLE_WIN - score)
        if score < 0:
            return -(WIN - ply - (TABLE_WIN + score))
        return 0
    return INFINITY


@njit(cache=True, inline="always")
def rank_moves(s, base, end, first, ply):
    """players/minimax.py `_order`'s ranks: table move, captures by length, killers, history."""
    k0 = s.killers[ply, 0]
    k1 = s.killers[ply, 1]
    for i in range(base, end):
        code = core.encode(s.frm[i], s.to[i], s.taken[i])
        if code == first:
            s.rank[i] = np.int64(1) << 40
        elif s.taken[i]:
            s.rank[i] = (np.int64(1) << 30) + popcount(s.taken[i]) + 1
        elif code == k0:
            s.rank[i] = np.int64(1) << 25
        elif code == k1:
            s.rank[i] = (np.int64(1) << 25) - 1
        else:
            s.rank[i] = s.history[s.frm[i] * 64 + s.to[i]]


@njit(cache=True, inline="always")
def pick(s, i, end):
    """Brings the best-ranked move of [i, end) to i (ties: the earliest, as a stable sort)."""
    best = i
    for j in range(i + 1, end):
        if s.rank[j] > s.rank[best]:
            best = j
    if best != i:
        s.frm[i], s.frm[best] = s.frm[best], s.frm[i]
        s.to[i], s.to[best] = s.to[best], s.to[i]
        s.taken[i], s.taken[best] = s.taken[best], s.taken[i]
        s.rank[i], s.rank[best] = s.rank[best], s.rank[i]


@njit(cache=True)
def quiesce(t, e, s, fox, prey, turn, stall, alpha, beta, ply, base, end):
    """Stand pat, or the fox's captures (each answered by the evaluation), as `AlphaBeta._quiesce`."""
    stand = evaluate(t, e, fox, prey, turn, stall)
    if turn != core.PREDATOR or stand >= beta:
        return stand
    count = 0
    for i in range(base, end):
        if s.taken[i]:
            s.rank[i] = popcount(s.taken[i])
            count += 1
        else:
            s.rank[i] = -1
    if count == 0:
        return stand
    best = stand
    if stand > alpha:
        alpha = stand
    for i in range(base, end):
        pick(s, i, end)
        if s.rank[i] < 0:
            break
        child_prey = prey & ~s.taken[i]
        child_fox = s.to[i]
        s.counters[NODES] += 1
        code = core.ending(t, child_fox, child_prey, 0, 0)
        if code != core.GOING:
            score = ending_score(code, core.PREDATOR, ply + 1)
        elif not core.has_moves(t, child_fox, child_prey, core.PREY):
            score = WIN - ply - 1
        else:
            score = -evaluate(t, e, child_fox, child_prey, PREY_TO_MOVE, NO_STALL)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


@njit(cache=True)
def negamax(t, e, p, s, fox, prey, turn, quiet, stall, depth, alpha, beta, ply):
    """`AlphaBeta._negamax` on the core; returns 0 at once once the search is stopped."""
    if limits_hit(s):
        return 0
    code = core.ending(t, fox, prey, quiet, stall)
    if code != core.GOING:
        return ending_score(code, turn, ply)
    position = core.key(fox, prey, turn)
    if t.checks_repetition and on_path(s, position, quiet):
        return 0
    if s.counters[PROBE]:
        known = probe_score(t, p, fox, prey, turn, stall, ply)
        if known != INFINITY:
            return known
    base = s.ply_start[ply]
    end = core.generate(t, fox, prey, turn, s.frm, s.to, s.taken, s.parent, base)
    if end < 0 or ply >= MAX_PLY:  # no room for the moves (never seen): a leaf
        s.counters[OVERFLOW] += 1
        return evaluate(t, e, fox, prey, turn, stall)
    if end == base:
        return ply - WIN
    if depth <= 0:
        if turn == core.PREY and ply < s.counters[EXTENSION_LIMIT] and t.captures and core.has_jump(t, fox, prey):
            depth = 1
        else:
            return quiesce(t, e, s, fox, prey, turn, stall, alpha, beta, ply, base, end)
    if alpha < ply - WIN:
        alpha = ply - WIN
    if beta > WIN - ply - 1:
        beta = WIN - ply - 1
    if alpha >= beta:
        return alpha
    tkey = table_key(t, fox, prey, turn, stall)
    i = tt_index(s, tkey)
    first = -1
    if s.tt_key[i] == tkey:
        first = s.tt_move[i]
        if s.counters[TT_CUTOFFS] and s.tt_depth[i] >= depth:
            score = from_tt(np.int64(s.tt_score[i]), ply)
            flag = s.tt_flag[i]
            if flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha):
                return score
    original_alpha = alpha
    best_score = -INFINITY
    best_move = np.int64(-1)
    s.ply_start[ply + 1] = end
    if end - base > 1:
        rank_moves(s, base, end, first, ply)
    s.path[s.counters[PATH_LEN]] = position
    s.counters[PATH_LEN] += 1
    for index in range(base, end):
        if end - base > 1:
            pick(s, index, end)
        frm, to, taken = s.frm[index], s.to[index], s.taken[index]
        f2, p2, t2, q2, s2 = core.play(t, fox, prey, turn, quiet, stall, frm, to, taken)
        if index == base:
            score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -beta, -alpha, ply + 1)
        else:
            score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -alpha - 1, -alpha, ply + 1)
            if alpha < score < beta:
                score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -beta, -alpha, ply + 1)
        if s.counters[STOPPED]:
            s.counters[PATH_LEN] -= 1
            return 0
        if score > best_score:
            best_score = score
            best_move = core.encode(frm, to, taken)
            if score > alpha:
                alpha = score
                if score >= beta:
                    if taken == 0:
                        if s.killers[ply, 0] != best_move:
                            s.killers[ply, 1] = s.killers[ply, 0]
                            s.killers[ply, 0] = best_move
                        s.history[frm * 64 + to] += depth * depth
                    break
    s.counters[PATH_LEN] -= 1
    if best_score <= original_alpha:
        flag = UPPER
    elif best_score >= beta:
        flag = LOWER
    else:
        flag = EXACT
    store(s, tkey, depth, flag, to_tt(best_score, ply), best_move)
    return best_score


@njit(cache=True)
def search_root(t, e, p, s, fox, prey, turn, quiet, stall, depth, previous_best):
    """One iteration at the root (`AlphaBeta._root`): (best move code, its score, status); status 0:
    done, 1: stopped after the first move (the best so far stands), 2: stopped before that."""
    s.counters[EXTENSION_LIMIT] = depth + 6
    end = core.generate(t, fox, prey, turn, s.frm, s.to, s.taken, s.parent, 0)
    s.ply_start[1] = end
    rank_moves(s, 0, end, previous_best, 0)
    for i in range(end):  # ties in the order the noise gives (a stable sort of a shuffled list)
        s.rank[i] = s.rank[i] * 65536 + (65535 - s.noise[i])
    alpha, beta = -INFINITY, INFINITY
    best_move = core.encode(s.frm[0], s.to[0], s.taken[0])
    best_score = -INFINITY
    for index in range(end):
        pick(s, index, end)
        frm, to, taken = s.frm[index], s.to[index], s.taken[index]
        if index == 0:
            best_move = core.encode(frm, to, taken)
        f2, p2, t2, q2, s2 = core.play(t, fox, prey, turn, quiet, stall, frm, to, taken)
        if index == 0:
            score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -beta, -alpha, ONE_PLY)
        else:
            score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -alpha - 1, -alpha, ONE_PLY)
            if score > alpha and not s.counters[STOPPED]:
                score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -beta, -alpha, ONE_PLY)
        if s.counters[STOPPED]:
            return best_move, best_score, 1 if index > 0 else 2
        if score > best_score:
            best_move, best_score = core.encode(frm, to, taken), score
            if score > alpha:
                alpha = score
    store(s, table_key(t, fox, prey, turn, stall), depth, EXACT, to_tt(best_score, 0), best_move)
    return best_move, best_score, 0


class RootResult(NamedTuple):
    move: int  # core.encode code of the best move
    score: int
    depth: int
    nodes: int
    timed_out: bool
    time_ms: float = 0.0


class Searcher:
    """One compiled alpha-beta per game and side: keeps its table, killers and history between moves.

    `search` takes the core's state and the game's keys since its last irreversible move (oldest
    first, the position itself last) and runs iterative deepening as `AlphaBeta.search` does:
    `depth`, `nodes`, `time_ms` (a budget when `time_is_budget`, else only a safety limit),
    `soft_nodes`, and `noise` (a permutation of the root moves: ties are broken in its order).
    """

    def __init__(self, tables: Any, evals: Any, *, tt_bits: int = 20, probe: Probe | None = None,
                 tt_cutoffs: bool = True) -> None:
        self.tables, self.evals = tables, evals
        self.arrays = new_arrays(tt_bits)
        self.probe = probe or no_probe()
        self.tt_cutoffs = tt_cutoffs

    def clear(self) -> None:
        """Forget the table, killers and history (a new game)."""
        a = self.arrays
        a.tt_key[:] = -1
        a.killers[:] = 0
        a.history[:] = 0

    def root_moves(self, state: tuple[int, int, int, int, int]) -> list[tuple[int, int, int]]:
        """(from, to, taken) of every root move, in the core's order."""
        a = self.arrays
        end = core.generate(self.tables, state[0], state[1], state[2], a.frm, a.to, a.taken, a.parent, 0)
        return [(int(a.frm[i]), int(a.to[i]), int(a.taken[i])) for i in range(end)]

    def search(self, state: tuple[int, int, int, int, int], history: list[int], *, depth: int | None = None,
               nodes: int | None = None, time_ms: float | None = None, soft_nodes: int | None = None,
               time_is_budget: bool = True, noise: list[int] | None = None) -> RootResult:
        started = time.monotonic()
        fox, prey, turn, quiet, stall = state
        a, t, e = self.arrays, self.tables, self.evals
        c = a.counters
        c[:] = 0
        c[MAX_NODES] = -1 if nodes is None else nodes
        c[DEADLINE] = -1 if time_ms is None else time.monotonic_ns() + int(time_ms * 1e6)
        c[NEXT_CHECK] = TIME_CHECK_NODES
        c[TT_CUTOFFS] = int(self.tt_cutoffs)
        c[PROBE] = int(self.probe.kind != NO_TABLE)
        kept = history[-(PATH // 2):]
        a.path[: len(kept)] = kept
        c[PATH_LEN] = len(kept)
        moves = self.root_moves(state)
        if not moves or core.ending(t, fox, prey, quiet, stall) != core.GOING:
            raise ValueError("the game is over: no move to search")
        order = noise if noise is not None else list(range(len(moves)))
        a.noise[: len(moves)] = order
        first = order.index(0)  # the first move of the shuffled list: the first iteration's "best"
        best = RootResult(int(core.encode(*moves[first])), 0, 0, 0, False)
        max_depth = depth if depth is not None and soft_nodes is None else MAX_PLY // 2 - 2
        for current in range(1, max_depth + 1):
            move, score, status = search_root(t, e, self.probe, a, fox, prey, turn, quiet, stall, current, best.move)
            if status:
                if status == 1:  # the iteration already proved a move at least as good
                    best = RootResult(int(move), int(score), current, int(c[NODES]), False)
                break
            best = RootResult(int(move), int(score), current, int(c[NODES]), False)
            if abs(score) >= MATE_BOUND and WIN - abs(score) <= current:
                break  # a forced result within the horizon: deeper search cannot change it
            if len(moves) == 1 and current >= 2:
                break
            if soft_nodes is not None and current >= (depth or 1) and c[NODES] >= soft_nodes:
                break
            if time_is_budget and time_ms is not None:
                left = time_ms - (time.monotonic() - started) * 1000.0
                if left < time_ms * 0.55:
                    break  # the next iteration would not finish
        return best._replace(nodes=int(c[NODES]), timed_out=bool(c[TIMED_OUT]),
                             time_ms=(time.monotonic() - started) * 1000.0)

    def table_move(self, state: tuple[int, int, int, int, int]) -> int:
        """The table's move for a state (a move code), or -1: for the principal variation."""
        fox, prey, turn, _, stall = state
        return int(tt_move_of(self.arrays, table_key(self.tables, fox, prey, turn, stall)))
