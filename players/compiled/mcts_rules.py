"""The compiled MCTS's playouts on the compiled rules core: children as states, the rollout policy.

`t` is the core's `CoreTables`, `e` the compiled evaluation's `EvalTables`. The moves, their effect
and the endings are the core's (core.py); the static evaluation is evaluation.py's; what is here is
players/mcts.py's RolloutEvaluator exactly (its policy, its cut-off value) on top of them. Compiled
as core.py is: `bits.kernel`, without reference counting (nothing here allocates).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players import mcts as python_mcts
from foxgeese.players.compiled import bits, core, evaluation
from foxgeese.players.compiled.bits import kernel, popcount
from foxgeese.players.compiled.evaluation import evaluate
from foxgeese.players.mcts import SCORE_SCALE

NUMBA_DEPENDS = (core, bits, evaluation, python_mcts)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])

# The most moves kept per position: every stop of every capture chain is a move, and a fox among a
# lattice of geese has hundreds (one random-play position of standard has over 500). Past this the
# chains are cut off: a limit of the compiled search, in positions no game reaches in earnest.
MAX_MOVES = 8192
DRAW = -1  # core.WINNER's code for a draw


class Moves:
    """The arrays one position's moves and children are written to (owned by a searcher)."""

    def __init__(self, size: int = MAX_MOVES) -> None:
        self.arrays = tuple(np.zeros(size, np.int64) for _ in range(9))


@kernel(inline=True)
def children(t, fox, prey, turn, quiet, stall, moves):
    """The states after every move, in the engine's order: moves[4..7] get (fox, prey, quiet, stall)
    (the side to move is the other one), moves[8] the captured geese of a fox's move or, for a prey
    step, 1 when it goes forward. Returns how many (at most MAX_MOVES)."""
    frm, to, taken, parent, cf, cp, cq, cs, info = moves
    n = core.generate(t, fox, prey, turn, frm, to, taken, parent, 0)
    if n < 0:  # more moves than room: keep the first ones
        n = frm.shape[0]
    for i in range(n):
        cf[i], cp[i], _, cq[i], cs[i] = core.play(t, fox, prey, turn, quiet, stall, frm[i], to[i], taken[i])
        info[i] = popcount(taken[i]) if turn == core.PREDATOR else core.raises_row(t, frm[i], to[i])
    return n


@kernel(inline=True)
def next_random(rng):
    """A uniform float in [0, 1) from the searcher's own generator (splitmix64; `rng` is its state)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel(inline=True)
def below(rng, n):
    """A uniform whole number in [0, n)."""
    return min(int(next_random(rng) * n), n - 1)


@kernel(inline=True)
def _nth(flags, n, pick):
    """The index of the pick-th set flag among the first n."""
    for m in range(n):
        if flags[m]:
            if pick == 0:
                return m
            pick -= 1
    return 0


@kernel(inline=True)
def moves_only(t, fox, prey, turn, moves):
    """children() less the states: the moves and their `info`, for a playout that plays one of them."""
    frm, to, taken, parent, info = moves[0], moves[1], moves[2], moves[3], moves[8]
    n = core.generate(t, fox, prey, turn, frm, to, taken, parent, 0)
    if n < 0:
        n = frm.shape[0]
    for i in range(n):
        info[i] = popcount(taken[i]) if turn == core.PREDATOR else core.raises_row(t, frm[i], to[i])
    return n


@kernel(inline=True)
def policy_move(t, rng, fox, prey, turn, n, moves):
    """RolloutEvaluator.policy_move: the fox's longest capture (the first of the longest), else any
    move; the hare heads down; the hounds go forward; the geese step where the fox cannot jump at
    once, forward first."""
    frm, to, info = moves[0], moves[1], moves[8]
    if turn == core.PREDATOR:
        if t.captures:
            best = -1
            for m in range(n):
                if info[m] > 0 and (best < 0 or info[m] > info[best]):
                    best = m
            return best if best >= 0 else below(rng, n)
        low = t.row[to[0]]
        for m in range(n):
            low = min(low, t.row[to[m]])
        many = 0
        for m in range(n):
            many += t.row[to[m]] == low
        pick = below(rng, many)
        for m in range(n):
            if t.row[to[m]] == low:
                if pick == 0:
                    return m
                pick -= 1
        return 0
    if not t.captures:
        forward = 0
        for m in range(n):
            forward += info[m]
        return _nth(info, n, below(rng, forward)) if forward else below(rng, n)
    start = below(rng, n)
    sideways = -1
    one = np.int64(1)
    for index in range(n):
        m = (start + index) % n
        if not core.has_jump(t, fox, prey ^ (one << frm[m]) ^ (one << to[m])):
            if info[m]:
                return m
            if sideways < 0:
                sideways = m
    return sideways if sideways >= 0 else start


@kernel(inline=True)
def result_value(ended, draw_value):
    """What an ending (a core code) is worth to the predator."""
    winner = core.WINNER[ended]
    if winner == DRAW:
        return draw_value
    return 1.0 if winner == core.PREDATOR else 0.0


@kernel(inline=True)
def static_value(t, e, fox, prey, turn, stall):
    """RolloutEvaluator.static_value: the evaluation for the predator squashed into [0, 1]."""
    score = evaluate(t, e, fox, prey, turn, stall)
    if turn != core.PREDATOR:
        score = -score
    return 1.0 / (1.0 + math.exp(-score / SCORE_SCALE))


@kernel(inline=True)
def cached_value(t, e, fox, prey, turn, stall, cache):
    """static_value through the searcher's cache of them (`cache`: keys, values; a slot per hash,
    the newest wins): searches meet the same positions again (siblings' children, playouts), and
    an evaluation costs far more than a look-up. The values are exact, so the search is the same."""
    keys, values = cache
    full = (core.key(fox, prey, turn) << 4 | min(stall, 15)) + 1
    slot = np.int64((np.uint64(full) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & (keys.shape[0] - 1)
    if keys[slot] == full:
        return values[slot]
    value = static_value(t, e, fox, prey, turn, stall)
    keys[slot], values[slot] = full, value
    return value


@kernel(inline=True)
def rollout(t, e, rng, fox, prey, turn, quiet, stall, plies, epsilon, draw_value, moves, cache):
    """RolloutEvaluator.evaluate: `plies` epsilon-greedy moves, then the static evaluation; in [0, 1]
    for the predator. Endings are the core's `ending` (no history: a playout ignores repetition)."""
    for _ in range(plies):
        ended = core.ending(t, fox, prey, quiet, stall)
        if ended != core.GOING:
            return result_value(ended, draw_value)
        n = moves_only(t, fox, prey, turn, moves)
        if n == 0:
            return 0.0 if turn == core.PREDATOR else 1.0
        if next_random(rng) < epsilon:
            m = below(rng, n)
        else:
            m = policy_move(t, rng, fox, prey, turn, n, moves)
        fox, prey, turn, quiet, stall = core.play(t, fox, prey, turn, quiet, stall, moves[0][m], moves[1][m],
                                                  moves[2][m])
    ended = core.ending(t, fox, prey, quiet, stall)
    if ended != core.GOING:
        return result_value(ended, draw_value)
    return cached_value(t, e, fox, prey, turn, stall, cache)
