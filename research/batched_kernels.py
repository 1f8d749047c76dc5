"""The batched environment's compiled kernels: N games stepped at once, one game per loop turn, the
games split between the cores (`prange`). The rules are the compiled core's (foxgeese.players.compiled.core,
itself checked against the engine): these kernels only map its moves onto the environment's actions
(segments: a step, one jump of a chain, STOP) and keep each game's arrays.

State per game: fox point, prey mask (dense points, as the core), side to move (0 predator, 1 prey), the
fifty-move counter (`quiet`), the stall counter, `chain` (1 while a capture chain is open), the actions
played, the plies (whole moves) since the game's start, and the keys since the last irreversible move
(for repetition). Each game has its own start (`start[i]`: fox, prey, turn, quiet, stall, ply), where a
reset and the next game after an ending put it. The tables come from
`batched.BatchTables` (`core`: the core's `CoreTables`; `action_of[from, to]`: the action of a segment).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit, prange

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players.compiled import bits, core
from foxgeese.players.compiled.bits import lowest

NUMBA_DEPENDS = (core, bits)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])

# Outcome codes of a finished game (`ended`): who won, or a draw; 0 while it goes on.
GOING, PREDATOR_WINS, PREY_WINS, DRAW, TRUNCATED = 0, 1, 2, 3, 4
# How it ended (`ending`): the core's ending codes (core.CAPTURED ... core.IMMOBILIZED), and these two.
ILLEGAL_ACTION, TRUNCATION = 8, 9
HISTORY = 128  # keys kept since the last irreversible move: more than the 101 the fifty-move rule allows


@njit(inline="always")
def _mark(i, a, masks, legal, n):
    masks[i, a] = 1
    legal[i, n] = a
    return n + 1


@njit(inline="always")
def _fill_legal(i, fox, prey, turn, chain, t, action_of, stop, masks, legal, counts):
    """Writes game i's mask and legal action list (the core's moves, as segments); returns how many
    actions are legal. Only the previous legal actions are cleared: the rest of the row is zero already."""
    for k in range(counts[i]):
        masks[i, legal[i, k]] = 0
    n = 0
    if turn == 0:
        if chain == 0:
            targets = t.neighbours[fox] & ~prey
            while targets:
                n = _mark(i, action_of[fox, lowest(targets)], masks, legal, n)
                targets &= targets - 1
        for k in range(8):
            over = t.jump_over[fox, k]
            if over < 0:
                break
            if core.can_jump(prey, over, t.jump_land[fox, k]):
                n = _mark(i, action_of[fox, t.jump_land[fox, k]], masks, legal, n)
        if chain == 1:
            n = _mark(i, stop, masks, legal, n)
    else:
        empty = t.board_mask & ~prey & ~(np.int64(1) << fox)
        bits = prey
        while bits:
            p = lowest(bits)
            bits &= bits - 1
            targets = t.prey_reach[p] & empty
            while targets:
                n = _mark(i, action_of[p, lowest(targets)], masks, legal, n)
                targets &= targets - 1
    counts[i] = n
    return n


@njit(inline="always")
def _restart(i, start, fox, prey, turn, quiet, stall, chain, steps, ply, history, history_len, t, action_of, stop,
             masks, legal, counts):
    """Puts game i back at its start (a reset, or the next game after one ends) and writes its mask;
    its repetition history is the start alone (as the engine's `Game.from_position`)."""
    fox[i], prey[i], turn[i] = start[i, 0], start[i, 1], start[i, 2]
    quiet[i], stall[i], ply[i], chain[i], steps[i] = start[i, 3], start[i, 4], start[i, 5], 0, 0
    history[i, 0] = core.key(fox[i], prey[i], turn[i])
    history_len[i] = 1
    _fill_legal(i, fox[i], prey[i], turn[i], chain[i], t, action_of, stop, masks, legal, counts)


def _reset_games(which, start, fox, prey, turn, quiet, stall, chain, steps, ply, history, history_len, t, action_of,
                 stop, masks, legal, counts):
    """Puts every game with `which[i]` back at its start and writes its mask."""
    for i in prange(fox.shape[0]):
        if which[i]:
            _restart(i, start, fox, prey, turn, quiet, stall, chain, steps, ply, history, history_len, t, action_of,
                     stop, masks, legal, counts)


def _step_games(actions, fox, prey, turn, quiet, stall, chain, steps, ply, history, history_len, t, action_of,
                action_from, action_to, jump_over, stop, max_steps, start, masks, legal, counts, ended, ending,
                rewards):
    """One action in every game; a game that ends is reported in `ended`/`ending`/`rewards` and starts again.

    `rewards[i]` is (predator, prey): +1 win, -1 loss, 0 draw or truncation. An action outside the mask loses.
    """
    for i in prange(fox.shape[0]):
        a = actions[i]
        ended[i] = GOING
        ending[i] = core.GOING
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        mover = turn[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            ended[i] = PREY_WINS if mover == 0 else PREDATOR_WINS
            ending[i] = ILLEGAL_ACTION
        else:
            steps[i] += 1
            done_move = True
            if a == stop:
                chain[i] = 0
                quiet[i] = 0
                turn[i] = 1
            elif jump_over[a] >= 0:  # one jump of a chain: the core's move, one segment at a time
                prey[i] &= ~(np.int64(1) << jump_over[a])
                fox[i] = action_to[a]
                quiet[i] = 0
                if core.has_jump(t, fox[i], prey[i]):
                    chain[i] = 1
                    done_move = False
                else:
                    chain[i] = 0
                    turn[i] = 1
            else:
                fox[i], prey[i], turn[i], quiet[i], stall[i] = core.play(
                    t, fox[i], prey[i], mover, quiet[i], stall[i], action_from[a], action_to[a], 0)
            if done_move:
                ply[i] += 1
                ending[i] = _ending(i, fox, prey, turn, quiet, stall, history, history_len, t)
                ended[i] = _result(ending[i])
        if ended[i] == GOING:
            n = _fill_legal(i, fox[i], prey[i], turn[i], chain[i], t, action_of, stop, masks, legal, counts)
            if n == 0:
                ending[i] = core.TRAPPED if turn[i] == 0 else core.IMMOBILIZED
                ended[i] = _result(ending[i])
            elif steps[i] >= max_steps:
                ended[i] = TRUNCATED
                ending[i] = TRUNCATION
        if ended[i] != GOING:
            if ended[i] == PREDATOR_WINS:
                rewards[i, 0], rewards[i, 1] = 1.0, -1.0
            elif ended[i] == PREY_WINS:
                rewards[i, 0], rewards[i, 1] = -1.0, 1.0
            _restart(i, start, fox, prey, turn, quiet, stall, chain, steps, ply, history, history_len, t, action_of,
                     stop, masks, legal, counts)


@njit(inline="always")
def _ending(i, fox, prey, turn, quiet, stall, history, history_len, t):
    """The core's ending code after a whole move, repetition included ("no move": the mask tells that)."""
    code = core.ending(t, fox[i], prey[i], quiet[i], stall[i])
    if code == core.GOING and t.checks_repetition:
        if quiet[i] == 0:
            history_len[i] = 0  # an irreversible move: no earlier position can come back
        if history_len[i] < history.shape[1]:
            history[i, history_len[i]] = core.key(fox[i], prey[i], turn[i])
            history_len[i] += 1
        if core.repetitions(history[i], history_len[i], core.key(fox[i], prey[i], turn[i])) >= core.REPETITION_COUNT:
            code = core.REPETITION
    return code


@njit(inline="always")
def _result(code):
    """The outcome code (`ended`) of a core ending code."""
    if code == core.GOING:
        return GOING
    winner = core.WINNER[code]
    return DRAW if winner < 0 else (PREDATOR_WINS if winner == core.PREDATOR else PREY_WINS)


def _random_actions(legal, counts, draws, out):
    """A uniformly random legal action per game, from `draws` (uniform floats in [0, 1))."""
    for i in prange(out.shape[0]):
        out[i] = legal[i, int(draws[i] * counts[i])]


def _observe_games(fox, prey, turn, quiet, stall, chain, role, cell_row, cell_column, board, out):
    """The planes of actions.py for `role` (0 predator, 1 prey) in every game: out[i, plane, row, column]."""
    for i in prange(fox.shape[0]):
        out[i, :, :, :] = 0.0
        mine, theirs = (0, 1) if role == 0 else (1, 0)
        out[i, mine, cell_row[fox[i]], cell_column[fox[i]]] = 1.0
        for d in range(cell_row.shape[0]):
            if (prey[i] >> d) & 1:
                out[i, theirs, cell_row[d], cell_column[d]] = 1.0
        out[i, 2, :, :] = board
        if turn[i] == role:
            out[i, 3, :, :] = 1.0
        if chain[i]:
            out[i, 4, cell_row[fox[i]], cell_column[fox[i]]] = 1.0
        out[i, 5, :, :] = min(quiet[i], 100) / 100.0
        out[i, 6, :, :] = min(stall[i], 10) / 10.0


def _both(function):
    """(parallel, serial) compiled forms of one kernel: `prange` splits the games between the cores,
    or runs as `range` (one core; on a machine busy with other work the threads' barrier costs more
    than it gains)."""
    return njit(parallel=True, cache=True)(function), njit(cache=True)(function)


KERNELS = {
    name: _both(function)
    for name, function in (("reset_games", _reset_games), ("step_games", _step_games),
                           ("random_actions", _random_actions), ("observe_games", _observe_games))
}
