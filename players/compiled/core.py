"""The compiled rules core: the engine's rules (engine/rules.py) as numba functions on dense points.

Everything here is a `bits.kernel` (`@njit(cache=True)`: compiled once per machine, kept in numba's
cache; without reference counting, which nothing here needs: it allocates nothing, and counting each
array read out of `t` cost more than the rules) and reads one `CoreTables` (tables.py, made from the
engine's `Variant`: `core_tables(variant)`). The Python engine stays the reference:
tests/test_compiled_core.py plays random games of every variant and option and compares moves,
positions and endings with it at every ply.

State (five scalars, the engine's `State` on dense points):
    fox: int64    the predator's dense point (0..n-1; dense order is the engine's grid order)
    prey: int64   bitmask of the prey's dense points (at most 45 bits)
    turn: int64   0 predator (fox, hare) to move, 1 prey (geese, hounds)
    quiet: int64  the fifty-move counter (plies with no capture and no row-raising step)
    stall: int64  the stalling counter (counted only where stalling ends games, as in the engine)

Moves go into four int64 arrays the caller owns (a search keeps one stack of them, a stretch per
ply): `frm`, `to`, `taken` (mask of the captured prey, 0 for a step) and `parent` (for a capture
chain the index of the chain it extends, -1 for its first jump or a step: `path` follows it back).
`generate(t, fox, prey, turn, frm, to, taken, parent, start)` writes the side to move's moves from
index `start` on (fox steps by target, then every capture chain, every stop included, depth first
in the board's jump order, as the engine; prey steps by prey, then by target: the engine's moves in
another order), and returns the end index, or -1 when the arrays are too short. A move as one int64 (for tables,
killers, the root's answer): `encode(frm, to, taken)`, `decode(code)`.

    end = generate(t, fox, prey, turn, frm, to, taken, parent, start)
    for i in range(start, end):
        f2, p2, t2, q2, s2 = play(t, fox, prey, turn, quiet, stall, frm[i], to[i], taken[i])
        ...                       # play is copy-make: the caller's five scalars are the undo
    fox, prey, turn, quiet, stall = undo(t, f2, p2, t2, q2, s2, frm[i], to[i], taken[i], quiet, stall)

Endings (`ENDING_*` codes, `WINNER` says who wins, -1 a draw), in the engine's order (rules.py
`outcome`): `ending(t, fox, prey, quiet, stall)` decides captured, escaped, stalling and fifty moves
from the pieces and counters; `outcome(t, fox, prey, turn, quiet, stall, history, count)` adds
repetition (`history[:count]` are the keys since the last irreversible move, the position itself
included; irreversible moves cannot be undone, so earlier positions never recur) and then trapped /
immobilized (no move for the side to move). `key(fox, prey, turn)` is the repetition key; `has_jump`,
`has_moves` and `count_moves` answer without writing moves; `generate_captures` writes only the fox's
capture chains (a search's quiescence).
"""

from __future__ import annotations

import sys

import numpy as np

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players.compiled import bits
from foxgeese.players.compiled.bits import kernel, lowest, popcount

NUMBA_DEPENDS = (bits,)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])

PREDATOR, PREY = 0, 1
MIN_GEESE = 4  # engine rules.py: fewer geese than this and the fox has won
STALLING_MOVES = 10
FIFTY_MOVE_PLIES = 100
REPETITION_COUNT = 3

# Ending codes, and per code the side that wins (-1: a draw).
GOING, CAPTURED, ESCAPED, STALLING, FIFTY_MOVES, REPETITION, TRAPPED, IMMOBILIZED = range(8)
WINNER = np.array([-1, PREDATOR, PREDATOR, PREDATOR, -1, -1, PREY, PREDATOR], np.int64)
ENDING_NAMES = ("going", "captured", "escaped", "stalling", "fifty-moves", "repetition", "trapped", "immobilized")

ONE = np.int64(1)


@kernel(inline=True)
def key(fox, prey, turn):
    """Pieces and side to move as one int64 (the engine's `Rules.key`, on dense points)."""
    return prey << 7 | fox << 1 | turn


@kernel(inline=True)
def encode(frm, to, taken):
    """A move as one int64: taken << 12 | to << 6 | from (a capture's path is not in it)."""
    return taken << 12 | to << 6 | frm


@kernel(inline=True)
def decode(code):
    """(from, to, taken) of `encode`."""
    return code & 63, code >> 6 & 63, code >> 12


@kernel(inline=True)
def can_jump(prey, over, land):
    return over >= 0 and (prey >> over) & 1 == 1 and (prey >> land) & 1 == 0


@kernel(inline=True)
def has_jump(t, fox, prey):
    """Whether the fox on `fox` could capture now (always False where nobody captures)."""
    for k in range(8):
        over = t.jump_over[fox, k]
        if over < 0:
            return False
        if can_jump(prey, over, t.jump_land[fox, k]):
            return True
    return False


@kernel()
def _chains(t, at, prey, taken, parent, origin, frm, to, took, up, n):
    """The capture chains from `at` (the geese left: `prey`), each written, then extended; the fox has
    left `origin`, so only a goose blocks a landing point. Returns the end index or -1 (full)."""
    for k in range(8):
        over = t.jump_over[at, k]
        if over < 0:
            break
        land = t.jump_land[at, k]
        if can_jump(prey, over, land):
            if n >= frm.shape[0]:
                return -1
            frm[n], to[n], took[n], up[n] = origin, land, taken | ONE << over, parent
            n = _chains(t, land, prey ^ (ONE << over), taken | ONE << over, n, origin, frm, to, took, up, n + 1)
            if n < 0:
                return -1
    return n


@kernel(inline=True)
def generate(t, fox, prey, turn, frm, to, taken, parent, start):
    """The side to move's moves from index `start` on (see the module's docstring); the end index, or -1."""
    n = start
    cap = frm.shape[0]
    if turn == PREDATOR:
        targets = t.neighbours[fox] & ~prey
        while targets:
            if n >= cap:
                return -1
            frm[n], to[n], taken[n], parent[n] = fox, lowest(targets), 0, -1
            targets &= targets - 1
            n += 1
        if has_jump(t, fox, prey):
            n = _chains(t, fox, prey, np.int64(0), np.int64(-1), fox, frm, to, taken, parent, n)
        return n
    empty = t.board_mask & ~prey & ~(ONE << fox)
    bits = prey
    while bits:
        p = lowest(bits)
        bits &= bits - 1
        targets = t.prey_reach[p] & empty
        while targets:
            if n >= cap:
                return -1
            frm[n], to[n], taken[n], parent[n] = p, lowest(targets), 0, -1
            targets &= targets - 1
            n += 1
    return n


@kernel(inline=True)
def generate_captures(t, fox, prey, frm, to, taken, parent, start):
    """Only the fox's capture chains (as `generate` lists them), from index `start`; the end, or -1."""
    return _chains(t, fox, prey, np.int64(0), np.int64(-1), fox, frm, to, taken, parent, start)


@kernel()
def _count_chains(t, at, prey):
    total = 0
    for k in range(8):
        over = t.jump_over[at, k]
        if over < 0:
            break
        land = t.jump_land[at, k]
        if can_jump(prey, over, land):
            total += 1 + _count_chains(t, land, prey ^ (ONE << over))
    return total


@kernel(inline=True)
def count_moves(t, fox, prey, turn):
    """How many moves `generate` would write."""
    if turn == PREDATOR:
        total = popcount(t.neighbours[fox] & ~prey)
        if t.captures:
            total += _count_chains(t, fox, prey)
        return total
    empty = t.board_mask & ~prey & ~(ONE << fox)
    total = 0
    bits = prey
    while bits:
        total += popcount(t.prey_reach[lowest(bits)] & empty)
        bits &= bits - 1
    return total


@kernel(inline=True)
def has_moves(t, fox, prey, turn):
    """Whether the side to move has a move."""
    if turn == PREDATOR:
        return (t.neighbours[fox] & ~prey) != 0 or has_jump(t, fox, prey)
    empty = t.board_mask & ~prey & ~(ONE << fox)
    bits = prey
    while bits:
        if t.prey_reach[lowest(bits)] & empty:
            return True
        bits &= bits - 1
    return False


@kernel(inline=True)
def prey_counters(t, quiet, stall, raises):
    """(quiet, stall) after a prey step (engine rules.py `_prey_counters`)."""
    if raises:
        return 0, (0 if t.checks_stalling else stall)
    return quiet + 1, (stall + 1 if t.checks_stalling else stall)


@kernel(inline=True)
def raises_row(t, frm, to):
    return t.row[to] > t.row[frm]


@kernel(inline=True)
def play(t, fox, prey, turn, quiet, stall, frm, to, taken):
    """The state after a move (legal in this state, not checked): (fox, prey, turn, quiet, stall)."""
    if turn == PREDATOR:
        if taken:
            return to, prey & ~taken, PREY, 0, stall
        return to, prey, PREY, quiet + 1, stall
    q, s = prey_counters(t, quiet, stall, raises_row(t, frm, to))
    return fox, prey ^ (ONE << frm) ^ (ONE << to), PREDATOR, q, s


@kernel(inline=True)
def undo(t, fox, prey, turn, quiet, stall, frm, to, taken, old_quiet, old_stall):
    """The state before a move, from the state after it, the move and the counters it replaced."""
    if turn == PREY:  # the predator moved
        return frm, prey | taken, PREDATOR, old_quiet, old_stall
    return fox, prey ^ (ONE << frm) ^ (ONE << to), PREY, old_quiet, old_stall


@kernel(inline=True)
def ending(t, fox, prey, quiet, stall):
    """What the pieces and counters alone decide (engine `Rules.ending`): GOING or an ending code."""
    if t.checks_captured and popcount(prey) < MIN_GEESE:
        return CAPTURED
    if t.checks_escaped and prey != 0 and (prey & t.rows_up_to[fox]) == 0:
        return ESCAPED
    if t.checks_stalling and stall >= STALLING_MOVES:
        return STALLING
    if t.checks_fifty and quiet >= FIFTY_MOVE_PLIES:
        return FIFTY_MOVES
    return GOING


@kernel()
def repetitions(history, count, position_key):
    """How often `position_key` occurs in `history[:count]`."""
    seen = 0
    for i in range(count):
        if history[i] == position_key:
            seen += 1
    return seen


@kernel()
def outcome(t, fox, prey, turn, quiet, stall, history, count):
    """Every ending in the engine's order (`Rules.outcome`); `history[:count]`: the keys since the last
    irreversible move, this position's included."""
    ended = ending(t, fox, prey, quiet, stall)
    if ended != GOING:
        return ended
    if t.checks_repetition and repetitions(history, count, key(fox, prey, turn)) >= REPETITION_COUNT:
        return REPETITION
    if not has_moves(t, fox, prey, turn):
        return TRAPPED if turn == PREDATOR else IMMOBILIZED
    return GOING


@kernel()
def path(frm, to, parent, i, out):
    """The points of move i (from, then every landing) into `out`; returns how many."""
    n = 0
    j = i
    while j >= 0:
        out[n] = to[j]
        n += 1
        j = parent[j]
    out[n] = frm[i]
    n += 1
    for a in range(n // 2):
        out[a], out[n - 1 - a] = out[n - 1 - a], out[a]
    return n
