"""Perft: the number of legal move sequences of a given length, the rules' ground truth.

The last ply is counted without making the moves. Where no ending depends on the path (no
repetition or fifty-move rule), counts of identical subtrees are shared through a table keyed on
the exact position key, the stall counter and the depth ("hash perft").
"""

from __future__ import annotations

from collections import Counter

from foxgeese.engine import movegen
from foxgeese.engine.board import GRID_WIDTH
from foxgeese.engine.game import Game
from foxgeese.engine.move import Move
from foxgeese.engine.outcome import Side, Termination
from foxgeese.engine.position import MIN_GEESE, STALLING_MOVES, Position


def perft(game: Game | Position, depth: int, *, use_hash: bool = True) -> int:
    """Counts the move sequences of `depth` plies from the game's current position."""
    if isinstance(game, Position):
        game = Game.from_position(game)
    counter = _Perft(game, use_hash)
    if counter.path_dependent:
        return counter.count(game.position, depth)
    position = game.position
    return counter.count_raw(position.predator, position.prey, int(position.turn), position.stall, depth)


def divide(game: Game | Position, depth: int, *, use_hash: bool = True) -> list[tuple[Move, int]]:
    """The perft count below each legal first move (depth >= 1)."""
    if isinstance(game, Position):
        game = Game.from_position(game)
    counter = _Perft(game, use_hash)
    result = []
    for move in game.legal_moves():
        child = game.position.play(move)
        counter.seen[child.key()] += 1
        result.append((move, counter.count(child, depth - 1)))
        counter.seen[child.key()] -= 1
    return result


class _Perft:
    def __init__(self, game: Game, use_hash: bool) -> None:
        endings = game.variant.endings
        self.path_dependent = Termination.REPETITION in endings or Termination.FIFTY_MOVES in endings
        self.use_hash = use_hash and not self.path_dependent
        self.seen: Counter[int] = Counter(p.key() for p in game.positions)
        self.memo: dict[tuple[int, int, int], int] = {}
        self.tables = movegen.tables_for(game.variant)
        self.checks_captured = Termination.CAPTURED in endings
        self.checks_escaped = Termination.ESCAPED in endings
        self.counts_stall = Termination.STALLING in endings

    def _over(self, position: Position) -> bool:
        if position.is_over_by_counters():
            return True
        return self.path_dependent and position.outcome(self.seen[position.key()]) is not None

    def count(self, position: Position, depth: int) -> int:
        if depth == 0:
            return 1
        if self._over(position):
            return 0
        tables = self.tables
        if depth == 1:
            if position.turn == Side.PREDATOR:
                return movegen.count_predator_moves(tables, position.predator, position.prey)
            return movegen.count_prey_moves(tables, position.predator, position.prey)
        if self.use_hash:
            memo_key = (position.key(), position.stall, depth)
            cached = self.memo.get(memo_key)
            if cached is not None:
                return cached
        total = 0
        seen = self.seen
        for move in position.pseudo_moves():
            child = position.play(move)
            if self.path_dependent:
                key = child.key()
                seen[key] += 1
                total += self.count(child, depth - 1)
                seen[key] -= 1
            else:
                total += self.count(child, depth - 1)
        if self.use_hash:
            self.memo[memo_key] = total
        return total

    def count_raw(self, predator: int, prey: int, turn: int, stall: int, depth: int) -> int:
        """The same count on bare integers, for variants whose endings do not depend on the path."""
        if depth == 0:
            return 1
        if self.checks_captured and prey.bit_count() < MIN_GEESE:
            return 0
        if self.checks_escaped and predator // GRID_WIDTH < ((prey & -prey).bit_length() - 1) // GRID_WIDTH:
            return 0
        if self.counts_stall and stall >= STALLING_MOVES:
            return 0
        tables = self.tables
        if depth == 1:
            if turn == 0:
                return movegen.count_predator_moves(tables, predator, prey)
            return movegen.count_prey_moves(tables, predator, prey)
        if self.use_hash:
            memo_key = (prey << 8 | predator << 1 | turn, stall, depth)
            cached = self.memo.get(memo_key)
            if cached is not None:
                return cached
        total = 0
        below = depth - 1
        if turn == 0:
            targets = tables.neighbours[predator] & ~prey
            while targets:
                low = targets & -targets
                total += self.count_raw(low.bit_length() - 1, prey, 1, stall, below)
                targets ^= low
            if tables.jumps[predator]:
                for landing, remaining in _chain_ends(tables.jumps, predator, prey):
                    total += self.count_raw(landing, remaining, 1, stall, below)
        else:
            empty = tables.board_mask & ~prey & ~(1 << predator)
            for shift, sources, raises_row in tables.prey_shifts:
                movers = prey & sources
                targets = (movers << shift if shift > 0 else movers >> -shift) & empty
                next_stall = 0 if raises_row or not self.counts_stall else stall + 1
                while targets:
                    low = targets & -targets
                    origin = low << -shift if shift < 0 else low >> shift
                    total += self.count_raw(predator, prey ^ low ^ origin, 0, next_stall, below)
                    targets ^= low
        if self.use_hash:
            self.memo[memo_key] = total
        return total


def _chain_ends(jumps, at: int, prey: int):
    """(landing point, geese left) after every capture chain from `at`."""
    for over, land in jumps[at]:
        if prey >> over & 1 and not prey >> land & 1:
            remaining = prey ^ (1 << over)
            yield land, remaining
            yield from _chain_ends(jumps, land, remaining)
