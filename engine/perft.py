"""Perft: the number of legal move sequences of a given length, the rules' ground truth.

It runs on the rules core (`foxgeese.engine.rules`) and counts the last ply without making the
moves. Where no ending depends on the path (no repetition or fifty-move rule), counts of
identical subtrees are shared through a table keyed on the exact position key, the stall counter
and the depth ("hash perft").
"""

from __future__ import annotations

from collections import Counter

from foxgeese.engine import movegen
from foxgeese.engine.game import Game
from foxgeese.engine.move import Move
from foxgeese.engine.position import Position
from foxgeese.engine.rules import PREDATOR, REPETITION_COUNT, State, rules_for


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
        # (predator, prey, turn, stall, depth) -> count; the fifty-move counter decides nothing here.
        self.memo: dict[tuple[int, int, int, int, int], int] = {}

    def count(self, state: State, depth: int) -> int:
        if depth == 0:
            return 1
        if self.path_dependent:
            if self.rules.ending(state) is not None:
                return 0
            return self._count_on_path(state, depth)
        if depth == 1:
            return 0 if self.rules.ending(state) is not None else self.rules.count_moves(state)
        return self._count_from(state, depth)

    def _count_from(self, state: State, depth: int) -> int:
        """The count below `state` (depth >= 2) where no ending depends on the path. The table is read
        before the ending is checked (it holds ended states too), and the last ply's endings are
        checked in the loop: perft spends its time in the last two plies."""
        if self.use_hash:
            memo_key = (state[0], state[1], state[2], state[4], depth)
            cached = self.memo.get(memo_key)
            if cached is not None:
                return cached
        rules = self.rules
        ending = rules.ending
        total = 0
        if ending(state) is not None:
            pass
        elif depth == 2:
            # Every child has the other side to move: pick its move counter once.
            tables = rules.tables
            count = movegen.count_prey_moves if state[2] == PREDATOR else movegen.count_predator_moves
            for child in rules.children(state):
                if ending(child) is None:
                    total += count(tables, child[0], child[1])
        else:
            below = depth - 1
            for child in rules.children(state):
                total += self._count_from(child, below)
        if self.use_hash:
            self.memo[memo_key] = total
        return total

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
