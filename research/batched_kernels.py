"""The batched environment's compiled kernels: N games stepped at once, one game per loop turn, the
games split between the cores (`prange`). Points are dense indices (every board has at most 45
points, so the prey are one uint64); the tables come from `batched.BatchTables`.

State per game: fox point, prey mask, side to move (0 predator, 1 prey), the fifty-move counter
(`quiet`), the stall counter, `chain` (1 while a capture chain is open), the actions played, and the
keys since the last irreversible move (for repetition). The rules are the engine's (rules.py), in
its order: captured, escaped, stalling, fifty moves, repetition, then no move for the side to move.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from foxgeese.players.solver.kernels import lowest, popcount

# Outcome codes of a finished game (`ended`): who won, or a draw; 0 while it goes on.
GOING, PREDATOR_WINS, PREY_WINS, DRAW, TRUNCATED = 0, 1, 2, 3, 4
HISTORY = 128  # keys kept since the last irreversible move: more than the 101 the fifty-move rule allows


@njit(inline="always")
def _fill_legal(i, fox, prey, turn, chain, step_from, jump_from, jump_over, prey_steps, action_to, stop,
                masks, legal, counts):
    """Writes game i's mask and legal action list; returns how many actions are legal. Only the
    previous legal actions are cleared: the rest of the row is zero already."""
    for k in range(counts[i]):
        masks[i, legal[i, k]] = 0
    n = 0
    one = np.uint64(1)
    if turn == 0:
        if chain == 0:
            for k in range(step_from.shape[1]):
                a = step_from[fox, k]
                if a < 0:
                    break
                if not (prey >> np.uint64(action_to[a])) & one:
                    masks[i, a] = 1
                    legal[i, n] = a
                    n += 1
        for k in range(jump_from.shape[1]):
            a = jump_from[fox, k]
            if a < 0:
                break
            if (prey >> np.uint64(jump_over[a])) & one and not (prey >> np.uint64(action_to[a])) & one:
                masks[i, a] = 1
                legal[i, n] = a
                n += 1
        if chain == 1:
            masks[i, stop] = 1
            legal[i, n] = stop
            n += 1
    else:
        occupied = prey | (one << np.uint64(fox))
        bits = prey
        while bits:
            d = lowest(bits)
            bits &= bits - one
            for k in range(prey_steps.shape[1]):
                a = prey_steps[d, k]
                if a < 0:
                    break
                if not (occupied >> np.uint64(action_to[a])) & one:
                    masks[i, a] = 1
                    legal[i, n] = a
                    n += 1
    counts[i] = n
    return n


@njit(inline="always")
def _restart(i, start_fox, start_prey, start_turn, fox, prey, turn, quiet, stall, chain, steps, history, history_len,
             step_from, jump_from, jump_over, prey_steps, action_to, stop, masks, legal, counts):
    """Puts game i back at the start (a reset, or the next game after one ends) and writes its mask."""
    fox[i], prey[i], turn[i] = start_fox, start_prey, start_turn
    quiet[i], stall[i], chain[i], steps[i] = 0, 0, 0, 0
    history[i, 0] = _key(start_fox, start_prey, start_turn)
    history_len[i] = 1
    _fill_legal(i, fox[i], prey[i], turn[i], chain[i], step_from, jump_from, jump_over, prey_steps,
                action_to, stop, masks, legal, counts)


def _reset_games(which, start_fox, start_prey, start_turn, fox, prey, turn, quiet, stall, chain, steps, history,
                history_len, step_from, jump_from, jump_over, prey_steps, action_to, stop, masks, legal, counts):
    """Puts every game with `which[i]` back at the start and writes its mask."""
    for i in prange(fox.shape[0]):
        if which[i]:
            _restart(i, start_fox, start_prey, start_turn, fox, prey, turn, quiet, stall, chain, steps, history,
                     history_len, step_from, jump_from, jump_over, prey_steps, action_to, stop, masks, legal, counts)


@njit(inline="always")
def _key(fox, prey, turn):
    return (prey << np.uint64(7)) | np.uint64(fox << 1 | turn)


def _step_games(actions, fox, prey, turn, quiet, stall, chain, steps, history, history_len,
               step_from, jump_from, jump_over, prey_steps, action_to, action_from, raises, stop, rows_up_to,
               rules, max_steps, start_fox, start_prey, start_turn, masks, legal, counts, ended, rewards):
    """One action in every game; a game that ends is reported in `ended`/`rewards` and starts again.

    `rules`: captures, escaped, stalling, fifty moves, repetition (0/1 each). `rewards[i]` is
    (predator, prey): +1 win, -1 loss, 0 draw or truncation. An action outside the mask loses.
    """
    one = np.uint64(1)
    for i in prange(fox.shape[0]):
        a = actions[i]
        ended[i] = GOING
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        mover = turn[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            ended[i] = PREY_WINS if mover == 0 else PREDATOR_WINS
        else:
            steps[i] += 1
            done_move = True
            if a == stop:
                chain[i] = 0
                quiet[i] = 0
                turn[i] = 1
            elif jump_over[a] >= 0:
                prey[i] ^= one << np.uint64(jump_over[a])
                fox[i] = action_to[a]
                chain[i] = 1
                quiet[i] = 0
                further = False
                for k in range(jump_from.shape[1]):
                    b = jump_from[fox[i], k]
                    if b < 0:
                        break
                    if (prey[i] >> np.uint64(jump_over[b])) & one and not (prey[i] >> np.uint64(action_to[b])) & one:
                        further = True
                        break
                if further:
                    done_move = False
                else:
                    chain[i] = 0
                    turn[i] = 1
            elif mover == 0:
                fox[i] = action_to[a]
                quiet[i] += 1
                turn[i] = 1
            else:
                prey[i] ^= (one << np.uint64(action_from[a])) | (one << np.uint64(action_to[a]))
                if raises[a]:
                    quiet[i] = 0
                    stall[i] = 0
                else:
                    quiet[i] += 1
                    if rules[2]:
                        stall[i] += 1
                turn[i] = 0
            if done_move:
                ended[i] = _ending(i, fox, prey, turn, quiet, stall, history, history_len, rows_up_to, rules)
        if ended[i] == GOING:
            n = _fill_legal(i, fox[i], prey[i], turn[i], chain[i], step_from, jump_from, jump_over, prey_steps,
                            action_to, stop, masks, legal, counts)
            if n == 0:
                ended[i] = PREY_WINS if turn[i] == 0 else PREDATOR_WINS
            elif steps[i] >= max_steps:
                ended[i] = TRUNCATED
        if ended[i] != GOING:
            if ended[i] == PREDATOR_WINS:
                rewards[i, 0], rewards[i, 1] = 1.0, -1.0
            elif ended[i] == PREY_WINS:
                rewards[i, 0], rewards[i, 1] = -1.0, 1.0
            _restart(i, start_fox, start_prey, start_turn, fox, prey, turn, quiet, stall, chain, steps, history,
                     history_len, step_from, jump_from, jump_over, prey_steps, action_to, stop, masks, legal, counts)


@njit(inline="always")
def _ending(i, fox, prey, turn, quiet, stall, history, history_len, rows_up_to, rules):
    """The engine's endings after a whole move (rules.py `outcome`, less "no move": the mask tells that)."""
    p = prey[i]
    if rules[0] and popcount(p) < 4:
        return PREDATOR_WINS
    if rules[1] and p != 0 and (p & rows_up_to[fox[i]]) == 0:
        return PREDATOR_WINS
    if rules[2] and stall[i] >= 10:
        return PREDATOR_WINS
    if rules[3] and quiet[i] >= 100:
        return DRAW
    if rules[4]:
        if quiet[i] == 0:
            history_len[i] = 0
        key = _key(fox[i], p, turn[i])
        seen = 1
        for k in range(history_len[i]):
            if history[i, k] == key:
                seen += 1
        if history_len[i] < history.shape[1]:
            history[i, history_len[i]] = key
            history_len[i] += 1
        if seen >= 3:
            return DRAW
    return GOING


def _random_actions(legal, counts, draws, out):
    """A uniformly random legal action per game, from `draws` (uniform floats in [0, 1))."""
    for i in prange(out.shape[0]):
        out[i] = legal[i, int(draws[i] * counts[i])]


def _observe_games(fox, prey, turn, quiet, stall, chain, role, cell_row, cell_column, board, out):
    """The planes of actions.py for `role` (0 predator, 1 prey) in every game: out[i, plane, row, column]."""
    one = np.uint64(1)
    for i in prange(fox.shape[0]):
        out[i, :, :, :] = 0.0
        mine, theirs = (0, 1) if role == 0 else (1, 0)
        out[i, mine, cell_row[fox[i]], cell_column[fox[i]]] = 1.0
        for d in range(cell_row.shape[0]):
            if (prey[i] >> np.uint64(d)) & one:
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
