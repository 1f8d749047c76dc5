"""The compiled MCTS's tree: arrays of nodes, playouts, leaves for a Python evaluator, subtree reuse.

Node i is a row of the arrays in `tree` (mcts.py `Tree.columns`): its state (fox, prey, turn, quiet,
stall), visits, total (the playouts' value for the side that moved into it), implicit (the static
evaluation backed up by minimax), prior, solved (players/mcts.py's WON/LOST/0, or UNSOLVED), first
child and number of children (-1: not expanded). A node's children are one block, allocated after
it, so every child comes after its parent: the subtree kept between moves is one forward pass.
`meta[0]` is the next free row, `meta[1]` the rows an expansion wanted and did not find (the caller
grows the arrays), `meta[2]` the length of the log of expanded nodes that follows it (for a Python prior).

The search is players/mcts.py's, step by step: select (UCT, its implicit-minimax blend, or PUCT),
expand every child at once on a node's second visit, evaluate, back up with MCTS-Solver's proofs;
a position met again on the path from the game's start is a draw for good. `t` is the core's
CoreTables, `e` the evaluation's EvalTables; `moves` the arrays of mcts_rules.Moves; `work` the
expansion's scratch (values, weights, results, order) and the searcher's cache of static values.
Compiled as core.py is (`bits.kernel`: without reference counting; the kernels allocate nothing).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players.compiled import core, mcts_rules
from foxgeese.players.compiled.bits import kernel
from foxgeese.players.compiled.mcts_rules import DRAW, cached_value, children, rollout

NUMBA_DEPENDS = (core, mcts_rules)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])

UNSOLVED, WON, LOST, DRAWN = 2, 1, -1, 0
UCT, IMPLICIT_UCT, PUCT = 0, 1, 2  # selection rules (iparams[1])
ROLLOUT, LEAVES = 0, 1  # evaluators: compiled (rollout plies, 0: the static evaluation) or a Python one
MAX_PATH = 2048  # the deepest selection path followed; deeper, the leaf is evaluated where it stands
# fparams: c, implicit weight, epsilon, draw value; iparams: rollout plies, selection, evaluator, and
# whether the tree may still grow (then a descent that finds no room stops the call, so that the
# caller grows the arrays: the same playouts expand the same nodes however the calls are cut).
C, WEIGHT, EPSILON, DRAW_VALUE = range(4)
PLIES, SELECTION, EVALUATOR, GROWABLE = range(4)
NO_ROOM = -1  # descend's answer when the tree must grow first


@kernel()
def set_root(tree, meta, fox, prey, turn, quiet, stall):
    """A tree of one node, not expanded: the given state."""
    t_fox, t_prey, t_turn, t_quiet, t_stall, visits, total, implicit, prior, solved, first, count = tree
    t_fox[0], t_prey[0], t_turn[0], t_quiet[0], t_stall[0] = fox, prey, turn, quiet, stall
    visits[0], total[0], implicit[0], prior[0], solved[0], first[0], count[0] = 0, 0.0, 0.5, 1.0, UNSOLVED, 0, -1
    meta[0] = 1


@kernel()
def keep_subtree(tree, meta, root, marked, rank):
    """Moves the subtree of `root` to the front (root at 0), in order; returns its size."""
    t_fox, t_prey, t_turn, t_quiet, t_stall, visits, total, implicit, prior, solved, first, count = tree
    end = meta[0]
    marked[root:end] = 0
    marked[root] = 1
    for i in range(root, end):
        if marked[i] and count[i] > 0:
            marked[first[i]:first[i] + count[i]] = 1
    kept = 0
    for i in range(root, end):
        if marked[i]:
            rank[i] = kept
            kept += 1
    for i in range(root, end):
        if marked[i]:
            j = rank[i]
            t_fox[j], t_prey[j], t_turn[j], t_quiet[j], t_stall[j] = t_fox[i], t_prey[i], t_turn[i], t_quiet[i], \
                t_stall[i]
            visits[j], total[j], implicit[j], prior[j] = visits[i], total[i], implicit[i], prior[i]
            solved[j], first[j], count[j] = solved[i], first[i], count[i]
            if count[j] > 0:
                first[j] = rank[first[j]]
    meta[0] = kept
    return kept


@kernel(inline=True)
def state_of(tree, node):
    """A node's (fox, prey, turn, quiet, stall), as the core takes them."""
    return (np.int64(tree[0][node]), tree[1][node], np.int64(tree[2][node]), np.int64(tree[3][node]),
            np.int64(tree[4][node]))


@kernel(inline=True)
def outcome(t, fox, prey, turn, quiet, stall):
    """core.outcome less repetition (the search knows the path): an ending code, or GOING."""
    ended = core.ending(t, fox, prey, quiet, stall)
    if ended != core.GOING:
        return ended
    if not core.has_moves(t, fox, prey, turn):
        return core.TRAPPED if turn == core.PREDATOR else core.IMMOBILIZED
    return core.GOING


@kernel(inline=True)
def expand(tree, meta, t, e, node, fparams, iparams, moves, work):
    """Every child of `node`, valued and sorted by (implicit, prior) as players/mcts.py `_expand`;
    False (nothing done) when the tree has no room left."""
    t_fox, t_prey, t_turn, t_quiet, t_stall, visits, total, implicit, prior, solved, first, count = tree
    start = meta[0]
    values, weights, wins, order, cache = work
    cf, cp, cq, cs, info = moves[4], moves[5], moves[6], moves[7], moves[8]
    fox, prey, turn, quiet, stall = state_of(tree, node)
    n = children(t, fox, prey, turn, quiet, stall, moves)
    if start + n > t_fox.shape[0]:
        meta[1] = n
        return False
    mover, weight, draw = turn, fparams[WEIGHT], fparams[DRAW_VALUE]
    for m in range(n):  # RolloutEvaluator.prior: a capture by its length, a safe goose step, a hound forward
        if turn == core.PREDATOR:
            weights[m] = 1.0 + (info[m] + 1 if info[m] > 0 else 0)
        elif t.captures:
            weights[m] = 1.0 if core.has_jump(t, fox, cp[m]) else 2.0
        else:
            weights[m] = 2.0 if info[m] else 1.0
        ended = outcome(t, cf[m], cp[m], 1 - turn, cq[m], cs[m])
        if ended == core.GOING:
            wins[m] = UNSOLVED
            if weight > 0.0:
                value = cached_value(t, e, cf[m], cp[m], 1 - turn, cs[m], cache)
                values[m] = value if mover == 0 else 1.0 - value
            else:
                values[m] = 0.5
        elif core.WINNER[ended] == DRAW:
            wins[m] = DRAWN
            values[m] = draw if mover == 0 else 1.0 - draw
        else:
            mover_won = core.WINNER[ended] == mover
            wins[m] = WON if mover_won else LOST
            values[m] = 1.0 if mover_won else 0.0
    if iparams[SELECTION] == PUCT and n > 0:
        scale = weights[:n].sum()
        for m in range(n):
            weights[m] /= scale
    for m in range(n):  # a stable insertion sort, best first
        order[m] = m
        j = m
        while j > 0 and (values[order[j - 1]] < values[m] or
                         values[order[j - 1]] == values[m] and weights[order[j - 1]] < weights[m]):
            order[j] = order[j - 1]
            j -= 1
        order[j] = m
    for k in range(n):
        m = order[k]
        c = start + k
        t_fox[c], t_prey[c], t_turn[c], t_quiet[c], t_stall[c] = cf[m], cp[m], 1 - turn, cq[m], cs[m]
        visits[c], total[c], implicit[c], prior[c], solved[c], first[c], count[c] = (
            0, 0.0, values[m], weights[m], wins[m], 0, -1)
    first[node], count[node] = start, n
    meta[0] = start + n
    if meta[2] < meta.shape[0] - 3:  # the nodes expanded since the log was emptied (for a Python prior)
        meta[3 + meta[2]] = node
        meta[2] += 1
    if n > 0:
        implicit[node] = 1.0 - implicit[start]
    return True


@kernel(inline=True)
def update_solved(tree, node):
    solved, first, count = tree[9], tree[10], tree[11]
    if count[node] <= 0 or solved[node] != UNSOLVED:
        return
    every_lost = True
    for c in range(first[node], first[node] + count[node]):
        if solved[c] == WON:
            solved[node] = LOST
            return
        if solved[c] != LOST:
            every_lost = False
    if every_lost:
        solved[node] = WON


@kernel(inline=True)
def select(tree, node, fparams, iparams):
    """The child to follow (players/mcts.py `_select` with the selection rule of iparams)."""
    visits, total, implicit, prior, solved, first, count = tree[5], tree[6], tree[7], tree[8], tree[9], tree[10], \
        tree[11]
    c, weight, rule = fparams[C], fparams[WEIGHT], iparams[SELECTION]
    parent = max(visits[node], 1)
    log_parent, root_parent = math.log(parent), math.sqrt(parent)
    best, best_value = -1, -np.inf
    for child in range(first[node], first[node] + count[node]):
        if solved[child] == WON:
            return child
        if solved[child] == LOST:
            continue
        n = visits[child]
        if rule == PUCT:
            mean = total[child] / n if n else 0.5
            value = (1.0 - weight) * mean + weight * implicit[child] + c * prior[child] * root_parent / (1 + n)
        elif n == 0:
            value = 1e9 + implicit[child] + prior[child] * 1e-3 if rule == IMPLICIT_UCT else 1e9 + prior[child]
        else:
            mean = total[child] / n
            if rule == IMPLICIT_UCT:
                mean = (1.0 - weight) * mean + weight * implicit[child]
            value = mean + c * math.sqrt(log_parent / n)
        if value > best_value:
            best, best_value = child, value
    return best if best >= 0 else first[node]


@kernel(inline=True)
def key_of(tree, node):
    return core.key(np.int64(tree[0][node]), tree[1][node], np.int64(tree[2][node]))


@kernel(inline=True)
def descend(tree, meta, t, e, fparams, iparams, keys, seen_count, path, moves, work):
    """Selection (and expansion on a second visit) from the root to the node to evaluate; the path
    is in `path`, its length returned. `keys[:seen_count]` are the game's positions so far."""
    solved, t_turn, visits, count = tree[9], tree[2], tree[5], tree[11]
    repetition = t.checks_repetition
    node, length, known = 0, 1, seen_count
    path[0] = 0
    while solved[node] == UNSOLVED and length < path.shape[0]:
        if count[node] < 0:
            if not expand(tree, meta, t, e, node, fparams, iparams, moves, work):
                if iparams[GROWABLE]:
                    return NO_ROOM
                break
            update_solved(tree, node)
            if solved[node] != UNSOLVED or count[node] == 0:
                break
        elif count[node] == 0:
            break
        node = select(tree, node, fparams, iparams)
        path[length] = node
        length += 1
        if repetition:
            key = key_of(tree, node)
            again = False
            for k in range(known):
                if keys[k] == key:
                    again = True
                    break
            if again:  # met again: a draw for good (players/mcts.py `_mark_repetition`)
                solved[node] = DRAWN
                draw = fparams[DRAW_VALUE]
                tree[7][node] = draw if t_turn[node] == 1 else 1.0 - draw
                break
            if known < keys.shape[0]:
                keys[known] = key
                known += 1
        if visits[node] == 0:
            break
    return length


@kernel(inline=True)
def leaf_value(tree, t, e, rng, node, fparams, iparams, moves, work):
    """What a node reached for the first time is worth to the predator."""
    solved = tree[9][node]
    mover = 1 - tree[2][node]
    if solved == DRAWN:
        return fparams[DRAW_VALUE]
    if solved == WON or solved == LOST:
        return 1.0 if (solved == WON) == (mover == 0) else 0.0
    fox, prey, turn, quiet, stall = state_of(tree, node)
    return rollout(t, e, rng, fox, prey, turn, quiet, stall, iparams[PLIES], fparams[EPSILON], fparams[DRAW_VALUE],
                   moves, work[4])


@kernel(inline=True)
def backup(tree, path, length, value, weight):
    t_turn, visits, total, implicit, solved, first, count = tree[2], tree[5], tree[6], tree[7], tree[9], \
        tree[10], tree[11]
    for k in range(length - 1, -1, -1):
        node = path[k]
        visits[node] += 1
        total[node] += value if t_turn[node] == 1 else 1.0 - value  # the mover into it is the predator
        if count[node] > 0:
            if weight > 0.0:
                best = implicit[first[node]]
                for c in range(first[node] + 1, first[node] + count[node]):
                    best = max(best, implicit[c])
                implicit[node] = 1.0 - best
            if solved[node] == UNSOLVED:
                update_solved(tree, node)


@kernel()
def root_won(tree):
    """The root is proven, or one of its moves wins: nothing more to search (players/mcts.py `run`)."""
    solved, first, count = tree[9], tree[10], tree[11]
    if solved[0] != UNSOLVED:
        return True
    for c in range(first[0], first[0] + max(count[0], 0)):
        if solved[c] == WON:
            return True
    return False


@kernel()
def run_playouts(tree, meta, t, e, rng, fparams, iparams, keys, seen_count, playouts, path, moves, work):
    """Up to `playouts` playouts with the compiled evaluator; returns how many were made."""
    done = 0
    weight = fparams[WEIGHT]
    while done < playouts and not root_won(tree):
        length = descend(tree, meta, t, e, fparams, iparams, keys, seen_count, path, moves, work)
        if length == NO_ROOM:
            break
        value = leaf_value(tree, t, e, rng, path[length - 1], fparams, iparams, moves, work)
        backup(tree, path, length, value, weight)
        done += 1
    return done


@kernel()
def collect_leaves(tree, meta, t, e, fparams, iparams, keys, seen_count, paths, lengths, leaves, wanted, solved_out,
                   moves, work):
    """Up to `wanted` playouts for a Python evaluator: paths to distinct leaves, each given a virtual
    loss (a visit worth nothing to its mover) so that the next descent looks elsewhere; returns how
    many. A solved leaf needs no evaluator: it is backed up at once and counted in `solved_out[0]`."""
    visits = tree[5]
    got = 0
    solved_out[0] = 0
    while got + solved_out[0] < wanted and not root_won(tree):
        length = descend(tree, meta, t, e, fparams, iparams, keys, seen_count, paths[got], moves, work)
        if length == NO_ROOM:
            break
        leaf = paths[got, length - 1]
        if tree[9][leaf] != UNSOLVED:
            backup(tree, paths[got], length, solved_value(tree, leaf, fparams), fparams[WEIGHT])
            solved_out[0] += 1
            continue
        for k in range(length):
            visits[paths[got, k]] += 1  # virtual loss: total unchanged
        lengths[got] = length
        leaves[got] = leaf
        got += 1
    return got


@kernel(inline=True)
def solved_value(tree, node, fparams):
    solved = tree[9][node]
    if solved == DRAWN:
        return fparams[DRAW_VALUE]
    return 1.0 if (solved == WON) == (tree[2][node] == 1) else 0.0


@kernel()
def apply_values(tree, paths, lengths, got, values, weight):
    """Backs up the Python evaluator's values (for the predator) of the leaves `collect_leaves` gave,
    taking their virtual losses back."""
    visits = tree[5]
    for i in range(got):
        for k in range(lengths[i]):
            visits[paths[i, k]] -= 1
        backup(tree, paths[i], lengths[i], values[i], weight)
