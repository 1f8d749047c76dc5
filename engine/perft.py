"""Perft: the number of legal move sequences of a given length, the rules' ground truth.

It runs on the rules core (`foxgeese.engine.rules`) and counts the last ply without making the
moves. Where no ending depends on the path (no repetition or fifty-move rule), the last two plies
are counted at once (`Rules.count_replies`), or, with the table, counts of identical subtrees are
shared through a table keyed on the exact position key, the stall counter and the depth ("hash
perft").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from foxgeese.engine.game import Game
from foxgeese.engine.move import Move
from foxgeese.engine.position import Position
from foxgeese.engine.rules import REPETITION_COUNT, Rules, State, rules_for

STALL_BITS = 8  # the table's key holds the stall counter below the pieces: it must stay below 256


def perft(game: Game | Position, depth: int, *, use_hash: bool = True) -> int:
    """Counts the move sequences of `depth` plies from the game's current position."""
    if isinstance(game, Position):
        game = Game.from_position(game)
    return _Perft(game, use_hash).count(game.position.state, depth)


def divide(game: Game | Position, depth: int, *, use_hash: bool = True) -> list[tuple[Move, int]]:
    """The perft count below each legal first move (depth >= 1)."""
    if isinstance(game, Position):
        game = Game.from_position(game)
    counter = _Perft(game, use_hash)
    rules = counter.rules
    state = game.position.state
    result = []
    for move in game.legal_moves():
        child = rules.play(state, move)
        key = rules.key(child)
        counter.seen[key] += 1
        result.append((move, counter.count(child, depth - 1)))
        counter.seen[key] -= 1
    return result


class _Perft:
    def __init__(self, game: Game, use_hash: bool) -> None:
        self.rules = rules = rules_for(game.variant)
        self.path_dependent = rules.checks_repetition or rules.checks_fifty
        self.use_hash = use_hash and not self.path_dependent
        self.seen: Counter[int] = Counter(p.key() for p in game.positions)
        self.memo: list[dict[int, int]] = []  # per depth: subtree key -> count
        self._count_hashed = _hashed_counter(rules, self.memo)
        self._count_plain = _plain_counter(rules)

    def count(self, state: State, depth: int) -> int:
        if depth == 0:
            return 1
        if self.path_dependent:
            if self.rules.ending(state) is not None:
                return 0
            return self._count_on_path(state, depth)
        if depth == 1:
            return 0 if self.rules.ending(state) is not None else self.rules.count_moves(state)
        if not self.use_hash or state[4] + depth >= 1 << STALL_BITS:  # (such a stall: only from text)
            return self._count_plain(state, depth)
        while len(self.memo) <= depth:
            self.memo.append({})
        return self._count_hashed(state, depth)

    def _count_on_path(self, state: State, depth: int) -> int:
        """The count where repetition can end a game: the path's positions are tracked in `seen`."""
        rules, seen = self.rules, self.seen
        if rules.checks_repetition and seen[rules.key(state)] >= REPETITION_COUNT:
            return 0
        if depth == 1:
            return rules.count_moves(state)
        total = 0
        for child in rules.children(state):
            key = rules.key(child)
            seen[key] += 1
            total += self.count(child, depth - 1)
            seen[key] -= 1
        return total


def _plain_counter(rules: Rules) -> Callable[[State, int], int]:
    """The count below a state (depth >= 2) without a table where no ending depends on the path, as
    a closure; the last two plies are `Rules.count_replies` (perft spends its time there)."""
    ending, children, count_replies = rules.ending, rules.children, rules.count_replies

    def count_from(state: State, depth: int) -> int:
        if ending(state) is not None:
            return 0
        if depth == 2:
            return count_replies(state)
        below, total = depth - 1, 0
        for child in children(state):
            total += count_from(child, below)
        return total

    return count_from


def _hashed_counter(rules: Rules, memo: list[dict[int, int]]) -> Callable[[State, int], int]:
    """The count below a state (depth >= 2) where no ending depends on the path, with the subtree
    counts shared, as a closure. `memo`, one dict per depth up to the depth asked for, is keyed on
    one int of prey, stall (below 2**STALL_BITS), predator and side: what decides the subtree (the
    fifty-move counter decides nothing here). It is read before the ending is checked (it holds
    ended states too). The last two plies are `Rules.count_replies`: counting them at once costs
    less than a lookup per child."""
    ending, children, count_replies = rules.ending, rules.children, rules.count_replies

    def count_from(state: State, depth: int) -> int:
        table = memo[depth]
        memo_key = state[1] << 16 | state[4] << 8 | state[0] << 1 | state[2]
        cached = table.get(memo_key)
        if cached is not None:
            return cached
        total = 0
        if ending(state) is not None:
            pass
        elif depth == 2:
            total = count_replies(state)
        else:
            below = depth - 1
            for child in children(state):
                total += count_from(child, below)
        table[memo_key] = total
        return total

    return count_from
