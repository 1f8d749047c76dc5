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
shortest win and the longest loss; in `standard` without sideways the strong solve's bit tables when
built (`foxgeese solve standard --geese N`: win or loss with the geese to move, no distance), read
where the geese are to move and few enough are left.

Layout: `Searcher` (Python) owns every array: the move stack (a stretch per ply), the table
(bounded: `tt_bits`), killers, history, the path of keys, and `counters` (nodes, limits, flags).
Iterative deepening runs in Python, one compiled `search_root` call per depth; the clock is read in
compiled code (`bits.now_ns`) every `TIME_CHECK_NODES` nodes. `negamax` allocates nothing and is
compiled without numba's reference counting (`bits.kernel`, as core.py: counting every array read
out of the tuples cost more than half its time); only the calls that take the probe's typed list
from Python or read it (`search_root`, `strong_geese_win`) keep it.
"""

from __future__ import annotations

import sys
import time
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numba.typed import List

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players.compiled import bits, core, evaluation
from foxgeese.players.compiled.bits import kernel, lowest, now_ns, popcount
from foxgeese.players.compiled.evaluation import evaluate
from foxgeese.players.solver import strategy_kernels
from foxgeese.players.solver.strategy_kernels import geese_win

NUMBA_DEPENDS = (core, bits, evaluation, strategy_kernels)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])

WIN = 1_000_000  # as players/minimax.py: scores compare
MAX_PLY = 200
MATE_BOUND = WIN - 1_000
INFINITY = WIN + 1
EXACT, LOWER, UPPER = 0, 1, 2
TIME_CHECK_NODES = 512
STACK = 1 << 18  # moves on the stack, all plies together (capture chains branch)
EVAL_BITS = 16  # remembered evaluations
PATH = 512  # keys on the path: the game's since its last irreversible move, then the search's

# The arrays are few and packed: numba passes each array of an argument as seven machine words, and
# a recursive call pays for every one (a namedtuple of 40 arrays: 90 ns a call).
# moves[row, i]: the move stack
FRM, TO, TAKEN, PARENT, RANK, NOISE = range(6)
# tt[i, field]: the transposition table
TT_KEY, TT_MOVE, TT_SCORE, TT_DEPTH, TT_FLAG = range(5)
# work[...]: the counters first, then the other small arrays
NODES, MAX_NODES, DEADLINE, STOPPED, TIMED_OUT, NEXT_CHECK, EXTENSION_LIMIT, TT_CUTOFFS, PATH_LEN, OVERFLOW, \
    PROBE, CONTEMPT, ROOT_TURN = range(13)
PLY_START = 16  # [ply]: where that ply's moves start on the stack
KILLERS = PLY_START + MAX_PLY + 2  # [2 * ply + k]: two killer move codes per ply
HISTORY = KILLERS + 2 * (MAX_PLY + 2)  # [from * 64 + to]
PATH_AT = HISTORY + 64 * 64  # the keys of the path
WORK = PATH_AT + PATH

# Probe kinds
NO_TABLE, HARE_TABLE, STRONG_TABLE = 0, 1, 2
TABLE_WIN = 32000  # players/solver/table_files.py WIN: a table score is TABLE_WIN - plies
# The strong solve's bit tables know win or loss, no distance: such a result scores KNOWN_WIN less
# the ply, above every evaluation and below every mate score.
KNOWN_WIN = MATE_BOUND - 1 - MAX_PLY
# Arguments passed as typed values, not literals: a literal would give a recursive function a second
# compiled signature, and numba's cache cannot load recursive functions with more than one.
ONE_PLY, PREY_TO_MOVE, NO_STALL = np.int64(1), np.int64(core.PREY), np.int64(0)


class SearchArrays(NamedTuple):
    """Everything a search writes, owned by one `Searcher` (numba takes it as one argument)."""

    moves: np.ndarray  # int64[6, STACK]: FRM, TO, TAKEN, PARENT, RANK, NOISE (root ties: a permutation)
    tt: np.ndarray  # int64[2**tt_bits, 5]: TT_KEY (-1: empty), TT_MOVE, TT_SCORE, TT_DEPTH, TT_FLAG
    evals: np.ndarray  # int64[2**EVAL_BITS, 2]: key (-1: empty), evaluation; searches meet positions again
    work: np.ndarray  # int64[WORK]: counters, ply starts, killers, history, path


class Probe(NamedTuple):
    """A solved table for the search to read (kind NO_TABLE: none): the Hare and Hounds solution or
    the standard game's strong-solve bit tables (`players/solver/strong.py`), in the solver's layouts."""

    kind: int
    scores: np.ndarray  # int16: Hare and Hounds scores, flat [stall, side, hare, hound-set rank]
    choose: np.ndarray  # [n, 4]: C(p, k), for the colex rank of a hound set
    sets: int  # hound sets
    words: Any  # numba.typed.List of read-only int64 arrays: the geese-to-move bits of 4.. geese
    #             (memory-mapped; a list is one pointer to pass, a tuple of arrays seven words each)
    top: int  # the most geese the bit tables cover (3: none)
    grid7: np.ndarray  # int64[n]: a dense point's bit on the strong solve's 7x7 grid
    board7: int
    radix: np.ndarray  # the bit layout's arrays (bitlayout.Layout)
    row_rank: np.ndarray
    stride: np.ndarray
    block_word: np.ndarray


def new_arrays(tt_bits: int) -> SearchArrays:
    tt = np.zeros((1 << tt_bits, 5), np.int64)
    tt[:, TT_KEY] = -1
    evals = np.zeros((1 << EVAL_BITS, 2), np.int64)
    evals[:, 0] = -1
    return SearchArrays(np.zeros((6, STACK), np.int64), tt, evals, np.zeros(WORK, np.int64))


def no_probe(kind: int = NO_TABLE, **fields: Any) -> Probe:
    """A probe with stand-ins for the tables it does not read (every probe has one numba type)."""
    blank = np.zeros(1, np.int64)
    unread = np.zeros(1, np.int64)
    unread.setflags(write=False)  # as the memory-mapped tables: one list type for every probe
    made = Probe(kind, np.zeros(1, np.int16), np.zeros((1, 4), np.int64), 0, List([unread]),
                 3, blank, 0, np.zeros(7, np.int64), np.zeros((7, 128), np.int64), np.zeros((1, 7), np.int64), blank)
    return made._replace(**fields)


@njit(cache=True, inline="always")
def tt_index(s, tkey):
    mixed = np.uint64(tkey) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(mixed >> np.uint64(40)) & (s.tt.shape[0] - 1)


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


@kernel()
def tt_move_of(s, tkey):
    """The table's move for a key, or -1."""
    i = tt_index(s, tkey)
    return s.tt[i, TT_MOVE] if s.tt[i, TT_KEY] == tkey else -1


@njit(cache=True, inline="always")
def store(s, tkey, depth, flag, score, move):
    i = tt_index(s, tkey)
    s.tt[i, TT_KEY] = tkey
    s.tt[i, TT_MOVE] = move
    s.tt[i, TT_SCORE] = score
    s.tt[i, TT_DEPTH] = depth
    s.tt[i, TT_FLAG] = flag


@njit(cache=True, inline="always")
def limits_hit(w):
    """Counts a node; True when the node budget or (checked every TIME_CHECK_NODES) the deadline ends the search."""
    w[NODES] += 1
    if w[MAX_NODES] >= 0 and w[NODES] >= w[MAX_NODES]:
        w[STOPPED] = 1
    elif w[NODES] >= w[NEXT_CHECK]:
        w[NEXT_CHECK] = w[NODES] + TIME_CHECK_NODES
        if w[DEADLINE] >= 0 and now_ns() >= w[DEADLINE]:
            w[STOPPED] = 1
            w[TIMED_OUT] = 1
    return w[STOPPED] != 0


@njit(cache=True, inline="always")
def on_path(w, position_key, quiet):
    """Whether the position occurred on the game's or the search's path (only the last `quiet`
    plies can hold it: an irreversible move changes the pieces for good; same side: every other ply)."""
    top = PATH_AT + w[PATH_LEN]
    back = 2
    while back <= quiet and top - back >= PATH_AT:
        if w[top - back] == position_key:
            return True
        back += 2
    return False


@njit(cache=True, inline="always")
def draw_score(w, turn):
    """A draw (a repetition, the fifty-move rule) from the side to move's view: `contempt` less than
    0 for the side the search is for, as much more for its opponent (0 with no contempt)."""
    return -w[CONTEMPT] if turn == w[ROOT_TURN] else w[CONTEMPT]


@njit(cache=True, inline="always")
def ending_score(w, code, turn, ply):
    winner = core.WINNER[code]
    if winner < 0:
        return draw_score(w, turn)
    return WIN - ply if winner == turn else ply - WIN


@njit(cache=True, inline="always")
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
    if p.kind == STRONG_TABLE and turn == core.PREY:
        if popcount(prey) <= p.top:
            return KNOWN_WIN - ply if strong_geese_win(p, fox, prey) else ply - KNOWN_WIN
    return INFINITY


@njit(cache=True, _nrt=True)  # type: ignore[call-overload]  # counted (the typed list needs it), not negamax's flags
def strong_geese_win(p, fox, prey):
    """The strong solve's bit tables: whether the geese to move win."""
    mask = np.int64(0)
    bits = prey
    while bits:
        mask |= np.int64(1) << p.grid7[lowest(bits)]
        bits &= bits - 1
    return geese_win(p.words, mask, p.grid7[fox], p.board7, p.radix, p.row_rank, p.stride, p.block_word)


@njit(cache=True, inline="always")
def evaluate_cached(t, e, s, fox, prey, turn, stall):
    """`evaluate`, remembered in a direct-mapped table (the evaluation is a function of the key and stall)."""
    code = core.key(fox, prey, turn) * 16 + stall
    i = np.int64((np.uint64(code) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - EVAL_BITS))
    if s.evals[i, 0] == code:
        return s.evals[i, 1]
    score = evaluate(t, e, fox, prey, turn, stall)
    s.evals[i, 0] = code
    s.evals[i, 1] = score
    return score


@njit(cache=True, inline="always")
def rank_moves(m, w, base, end, first, ply):
    """players/minimax.py `_order`'s ranks: table move, captures by length, killers, history."""
    k0 = w[KILLERS + 2 * ply]
    k1 = w[KILLERS + 2 * ply + 1]
    for i in range(base, end):
        code = core.encode(m[FRM, i], m[TO, i], m[TAKEN, i])
        if code == first:
            m[RANK, i] = np.int64(1) << 40
        elif m[TAKEN, i]:
            m[RANK, i] = (np.int64(1) << 30) + popcount(m[TAKEN, i]) + 1
        elif code == k0:
            m[RANK, i] = np.int64(1) << 25
        elif code == k1:
            m[RANK, i] = (np.int64(1) << 25) - 1
        else:
            m[RANK, i] = w[HISTORY + m[FRM, i] * 64 + m[TO, i]]


@njit(cache=True, inline="always")
def pick(m, i, end):
    """Brings the best-ranked move of [i, end) to i (ties: the earliest, as a stable sort)."""
    best = i
    for j in range(i + 1, end):
        if m[RANK, j] > m[RANK, best]:
            best = j
    if best != i:
        for row in range(NOISE + 1):
            m[row, i], m[row, best] = m[row, best], m[row, i]


@njit(cache=True, inline="always")
def quiesce(t, e, s, fox, prey, turn, stall, alpha, beta, ply, base):
    """Stand pat, or the fox's captures (each answered by the evaluation), as `AlphaBeta._quiesce`."""
    stand = evaluate_cached(t, e, s, fox, prey, turn, stall)
    if turn != core.PREDATOR or stand >= beta or not core.has_jump(t, fox, prey):
        return stand
    m = s.moves
    end = core.generate_captures(t, fox, prey, m[FRM], m[TO], m[TAKEN], m[PARENT], base)
    if end < 0:
        s.work[OVERFLOW] += 1
        return stand
    for i in range(base, end):
        m[RANK, i] = popcount(m[TAKEN, i])
    best = stand
    if stand > alpha:
        alpha = stand
    for i in range(base, end):
        pick(m, i, end)
        child_prey = prey & ~m[TAKEN, i]
        child_fox = m[TO, i]
        s.work[NODES] += 1
        code = core.ending(t, child_fox, child_prey, 0, 0)
        if code != core.GOING:
            score = ending_score(s.work, code, core.PREDATOR, ply + 1)
        elif not core.has_moves(t, child_fox, child_prey, core.PREY):
            score = WIN - ply - 1
        else:
            score = -evaluate_cached(t, e, s, child_fox, child_prey, PREY_TO_MOVE, NO_STALL)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


@kernel(from_python=False)  # called from search_root only
def negamax(t, e, p, s, fox, prey, turn, quiet, stall, depth, alpha, beta, ply):
    """`AlphaBeta._negamax` on the core; returns 0 at once once the search is stopped."""
    w = s.work
    m = s.moves
    if limits_hit(w):
        return 0
    code = core.ending(t, fox, prey, quiet, stall)
    if code != core.GOING:
        return ending_score(w, code, turn, ply)
    position = core.key(fox, prey, turn)
    if t.checks_repetition and on_path(w, position, quiet):
        return draw_score(w, turn)
    if w[PROBE]:
        known = probe_score(t, p, fox, prey, turn, stall, ply)
        if known != INFINITY:
            return known
    base = w[PLY_START + ply]
    if depth <= 0:  # the horizon: no move list unless the fox can capture (quiesce) or the geese get one more
        if not core.has_moves(t, fox, prey, turn):
            return ply - WIN
        if turn == core.PREY and ply < w[EXTENSION_LIMIT] and t.captures and core.has_jump(t, fox, prey):
            depth = 1
        else:
            return quiesce(t, e, s, fox, prey, turn, stall, alpha, beta, ply, base)
    end = core.generate(t, fox, prey, turn, m[FRM], m[TO], m[TAKEN], m[PARENT], base)
    if end < 0 or ply >= MAX_PLY:  # no room for the moves (never seen): a leaf
        w[OVERFLOW] += 1
        return evaluate_cached(t, e, s, fox, prey, turn, stall)
    if end == base:
        return ply - WIN
    if alpha < ply - WIN:
        alpha = ply - WIN
    if beta > WIN - ply - 1:
        beta = WIN - ply - 1
    if alpha >= beta:
        return alpha
    tkey = table_key(t, fox, prey, turn, stall)
    i = tt_index(s, tkey)
    first = -1
    if s.tt[i, TT_KEY] == tkey:
        first = s.tt[i, TT_MOVE]
        if w[TT_CUTOFFS] and s.tt[i, TT_DEPTH] >= depth:
            score = from_tt(s.tt[i, TT_SCORE], ply)
            flag = s.tt[i, TT_FLAG]
            if flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha):
                return score
    original_alpha = alpha
    best_score = -INFINITY
    best_move = np.int64(-1)
    w[PLY_START + ply + 1] = end
    if end - base > 1:
        rank_moves(m, w, base, end, first, ply)
    w[PATH_AT + w[PATH_LEN]] = position
    w[PATH_LEN] += 1
    for index in range(base, end):
        if end - base > 1:
            pick(m, index, end)
        frm, to, taken = m[FRM, index], m[TO, index], m[TAKEN, index]
        f2, p2, t2, q2, s2 = core.play(t, fox, prey, turn, quiet, stall, frm, to, taken)
        if index == base:
            score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -beta, -alpha, ply + 1)
        else:
            score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -alpha - 1, -alpha, ply + 1)
            if alpha < score < beta:
                score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -beta, -alpha, ply + 1)
        if w[STOPPED]:
            w[PATH_LEN] -= 1
            return 0
        if score > best_score:
            best_score = score
            best_move = core.encode(frm, to, taken)
            if score > alpha:
                alpha = score
                if score >= beta:
                    if taken == 0:
                        if w[KILLERS + 2 * ply] != best_move:
                            w[KILLERS + 2 * ply + 1] = w[KILLERS + 2 * ply]
                            w[KILLERS + 2 * ply] = best_move
                        w[HISTORY + frm * 64 + to] += depth * depth
                    break
    w[PATH_LEN] -= 1
    if best_score <= original_alpha:
        flag = UPPER
    elif best_score >= beta:
        flag = LOWER
    else:
        flag = EXACT
    store(s, tkey, depth, flag, to_tt(best_score, ply), best_move)
    return best_score


@njit(cache=True)  # counts references: unboxing the probe's typed list needs them
def search_root(t, e, p, s, fox, prey, turn, quiet, stall, depth, previous_best):
    """One iteration at the root (`AlphaBeta._root`): (best move code, its score, status); status 0:
    done, 1: stopped after the first move (the best so far stands), 2: stopped before that."""
    w = s.work
    m = s.moves
    w[EXTENSION_LIMIT] = depth + 6
    end = core.generate(t, fox, prey, turn, m[FRM], m[TO], m[TAKEN], m[PARENT], 0)
    w[PLY_START + 1] = end
    rank_moves(m, w, 0, end, previous_best, 0)
    for i in range(end):  # ties in the order the noise gives (a stable sort of a shuffled list)
        m[RANK, i] = m[RANK, i] * 65536 + (65535 - m[NOISE, i])
    alpha, beta = -INFINITY, INFINITY
    best_move = core.encode(m[FRM, 0], m[TO, 0], m[TAKEN, 0])
    best_score = -INFINITY
    for index in range(end):
        pick(m, index, end)
        frm, to, taken = m[FRM, index], m[TO, index], m[TAKEN, index]
        if index == 0:
            best_move = core.encode(frm, to, taken)
        f2, p2, t2, q2, s2 = core.play(t, fox, prey, turn, quiet, stall, frm, to, taken)
        if index == 0:
            score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -beta, -alpha, ONE_PLY)
        else:
            score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -alpha - 1, -alpha, ONE_PLY)
            if score > alpha and not w[STOPPED]:
                score = -negamax(t, e, p, s, f2, p2, t2, q2, s2, depth - 1, -beta, -alpha, ONE_PLY)
        if w[STOPPED]:
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
    With `whole_time` a budget is spent to its end (a time a move that cannot be saved for later):
    the last iteration is cut by the deadline, and its result stands once it has searched the
    previous best move (as a stopped iteration's always does).
    `contempt` (centi-points) scores a draw that much below 0 for the side the search is for, so a
    player ahead or level plays on rather than repeat; 0 (the default) is the reference's search.
    """

    def __init__(self, tables: Any, evals: Any, *, tt_bits: int = 20, probe: Probe | None = None,
                 tt_cutoffs: bool = True, contempt: int = 0) -> None:
        self.tables, self.evals = tables, evals
        self.arrays = new_arrays(tt_bits)
        self.probe = probe or no_probe()
        self.tt_cutoffs = tt_cutoffs
        self.contempt = contempt
        self.root_turn = -1  # the side the last search was for: the table's draw scores are for it

    def clear(self) -> None:
        """Forget the table, killers and history (a new game)."""
        a = self.arrays
        a.tt[:, TT_KEY] = -1
        a.evals[:, 0] = -1
        a.work[KILLERS:PATH_AT] = 0

    def root_moves(self, state: tuple[int, int, int, int, int]) -> list[tuple[int, int, int]]:
        """(from, to, taken) of every root move, in the core's order."""
        a = self.arrays
        m = a.moves
        end = core.generate(self.tables, state[0], state[1], state[2], m[FRM], m[TO], m[TAKEN], m[PARENT], 0)
        return [(int(m[FRM, i]), int(m[TO, i]), int(m[TAKEN, i])) for i in range(end)]

    def search(self, state: tuple[int, int, int, int, int], history: list[int], *, depth: int | None = None,
               nodes: int | None = None, time_ms: float | None = None, soft_nodes: int | None = None,
               time_is_budget: bool = True, whole_time: bool = False,
               noise: list[int] | None = None) -> RootResult:
        started = time.monotonic()
        fox, prey, turn, quiet, stall = state
        a, t, e = self.arrays, self.tables, self.evals
        if self.contempt and turn != self.root_turn:
            self.clear()  # the table's draws were scored for the other side
        self.root_turn = turn
        c = a.work
        c[:PLY_START] = 0
        c[CONTEMPT] = self.contempt
        c[ROOT_TURN] = turn
        c[MAX_NODES] = -1 if nodes is None else nodes
        c[DEADLINE] = -1 if time_ms is None else time.monotonic_ns() + int(time_ms * 1e6)
        c[NEXT_CHECK] = TIME_CHECK_NODES
        c[TT_CUTOFFS] = int(self.tt_cutoffs)
        c[PROBE] = int(self.probe.kind != NO_TABLE)
        kept = history[-(PATH // 2):]
        c[PATH_AT: PATH_AT + len(kept)] = kept
        c[PATH_LEN] = len(kept)
        moves = self.root_moves(state)
        if not moves or core.ending(t, fox, prey, quiet, stall) != core.GOING:
            raise ValueError("the game is over: no move to search")
        order = noise if noise is not None else list(range(len(moves)))
        a.moves[NOISE, : len(moves)] = order
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
            if time_is_budget and time_ms is not None and not whole_time:
                left = time_ms - (time.monotonic() - started) * 1000.0
                if left < time_ms * 0.55:
                    break  # the next iteration would not finish
        return best._replace(nodes=int(c[NODES]), timed_out=bool(c[TIMED_OUT]),
                             time_ms=(time.monotonic() - started) * 1000.0)

    def table_move(self, state: tuple[int, int, int, int, int]) -> int:
        """The table's move for a state (a move code), or -1: for the principal variation."""
        fox, prey, turn, _, stall = state
        return int(tt_move_of(self.arrays, table_key(self.tables, fox, prey, turn, stall)))
