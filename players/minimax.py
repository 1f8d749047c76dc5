"""Negamax alpha-beta with iterative deepening: the classical engine for every variant.

Transposition table on the exact position key (plus the stalling counter where it decides games),
move ordering (table move, long capture chains, killers, history), a capture extension for the
fox (its jumps are searched past the horizon, and the geese get one more move when a goose hangs
at the horizon), mate-distance scores so faster wins are preferred, and repetition awareness
(a position seen before on the game or search path scores as a draw).
Works on the engine's rules core (`foxgeese.engine.rules`, plain-integer states) for speed.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from foxgeese.engine import Clock, Game, Move, Side, Variant
from foxgeese.engine.rules import PREDATOR, PREY, Rules, State, rules_for
from foxgeese.players.base import (
    Choice,
    Deadline,
    Player,
    combine_budgets,
    game_seed_material,
    safety_budget_ms,
    time_budget_ms,
)
from foxgeese.players.evaluation import Evaluation, evaluation_for
from foxgeese.players.score import Score

WIN = 1_000_000
MAX_PLY = 200
MATE_BOUND = WIN - 1_000  # |score| above this is a forced win or loss
INFINITY = WIN + 1
EXACT, LOWER, UPPER = 0, 1, 2
TT_LIMIT = 600_000  # entries before the table is cleared, checked with the clock (memory bound)
DEFAULT_DEPTH = 4  # when neither options nor the clock set a limit: at least this deep...
DEFAULT_SOFT_NODES = 3_000  # ...and deeper while the tree stays this small (Hare and Hounds)
TIME_CHECK_NODES = 512


class SearchStopped(Exception):
    """The node or time limit was reached inside an iteration."""


def history_keys(game: Game, rules: Rules) -> set[int]:
    """Keys of the positions already on the board in this game (for repetition awareness)."""
    keys: set[int] = set()
    if not rules.checks_repetition:
        return keys
    positions = getattr(game, "positions", None)
    if positions is None:
        start = getattr(game, "start", None) or getattr(game, "start_position", None)
        if callable(start):
            start = start()
        if start is None:
            return {game.position.key()}
        positions = [start]
        for move in game.moves:
            positions.append(positions[-1].play(move))
    for position in positions:
        keys.add(position.key())
    return keys


@dataclass
class SearchResult:
    move: Move
    score: int
    depth: int
    nodes: int
    pv: list[Move] = field(default_factory=list)
    time_ms: float = 0.0

    @property
    def mate(self) -> int | None:
        """Plies to the end of a forced game (negative: the mover loses), else None."""
        if abs(self.score) < MATE_BOUND:
            return None
        return WIN - self.score if self.score > 0 else -(WIN + self.score)

    def verdict(self, mover: Side) -> Score:
        """The result as a `Score` from the mover's point of view."""
        mate = self.mate
        if mate is None:
            return Score(mover, self.score)
        return Score.proven_win(mover, mate) if mate > 0 else Score.proven_loss(mover, -mate)


class AlphaBeta:
    """One search engine per game and side: keeps its table, killers and history between moves."""

    def __init__(self, rules: Rules, evaluate: Evaluation | None = None, rng: random.Random | None = None):
        self.rules = rules
        self.evaluate = evaluate or evaluation_for(rules)
        self.rng = rng
        self.tt: dict[int, tuple] = {}
        self.history: dict = {}
        self.killers: list[list] = [[None, None] for _ in range(MAX_PLY + 2)]
        self.nodes = 0
        self.next_check = TIME_CHECK_NODES
        self.max_nodes: int | None = None
        self.deadline = Deadline(None)
        self.timed_out = False  # the last search was stopped by its deadline
        self.path: set[int] = set()
        self.stall_in_key = rules.checks_stalling
        self.check_repetition = rules.checks_repetition
        self.extension_limit = 0
        # False: the table orders moves but never ends a node, so a fixed-depth value is a function of
        # the position alone, whatever the move order (what the compiled search is compared with).
        self.tt_cutoffs = True

    # -- keys and table ------------------------------------------------------------------
    def tt_key(self, state: State) -> int:
        key = self.rules.key(state)
        return key * 16 + state[4] if self.stall_in_key else key

    @staticmethod
    def _to_tt(score: int, ply: int) -> int:
        if score >= MATE_BOUND:
            return score + ply
        if score <= -MATE_BOUND:
            return score - ply
        return score

    @staticmethod
    def _from_tt(score: int, ply: int) -> int:
        if score >= MATE_BOUND:
            return score - ply
        if score <= -MATE_BOUND:
            return score + ply
        return score

    # -- search --------------------------------------------------------------------------
    def search(
        self,
        state: State,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        time_ms: float | None = None,
        seen: set[int] | None = None,
        soft_nodes: int | None = None,
        time_is_budget: bool = True,
    ) -> SearchResult:
        """Iterative deepening until a limit; returns the best move of the deepest finished work.

        `soft_nodes`: once `depth` is reached, keep deepening while fewer nodes than this were spent
        (no iteration is cut short by it, so the result stays deterministic). `time_is_budget`
        False: `time_ms` is only a safety limit, so no iteration is skipped for want of time
        (`timed_out` tells whether it bound)."""
        started = time.monotonic()
        self.timed_out = False
        if len(self.tt) > TT_LIMIT:
            self.tt.clear()
        self.nodes = 0
        self.next_check = TIME_CHECK_NODES
        self.max_nodes = nodes
        self.deadline = Deadline(time_ms)
        self.path = set(seen or ())
        max_depth = depth if depth is not None and soft_nodes is None else MAX_PLY // 2 - 2
        moves = self.rules.moves(state)
        if self.rules.ending(state) is not None or not moves:
            raise ValueError("the game is over: no move to search")
        if self.rng is not None:
            self.rng.shuffle(moves)
        best = SearchResult(moves[0], 0, 0, 0)
        for current in range(1, max_depth + 1):
            self.extension_limit = current + 6
            try:
                move, score = self._root(state, moves, current, best.move)
            except SearchStopped as stop:
                partial = stop.args[0] if stop.args else None
                if partial is not None:  # the iteration already proved a move at least as good
                    best = SearchResult(partial[0], partial[1], current, self.nodes)
                break
            best = SearchResult(move, score, current, self.nodes)
            if abs(score) >= MATE_BOUND and best.mate is not None and abs(best.mate) <= current:
                break  # a forced result within the horizon: deeper search cannot change it
            if len(moves) == 1 and current >= 2:
                break
            if soft_nodes is not None and current >= (depth or 1) and self.nodes >= soft_nodes:
                break
            left = self.deadline.left_ms()
            if time_is_budget and time_ms is not None and left is not None and left < time_ms * 0.55:
                break  # the next iteration would not finish
        best.nodes = self.nodes
        best.time_ms = (time.monotonic() - started) * 1000.0
        best.pv = self.principal_variation(state, best.move, best.depth)
        return best

    def _root(self, state: State, moves: list[Move], depth: int, previous_best: Move | None) -> tuple:
        alpha, beta = -INFINITY, INFINITY
        ordered = self._order(moves, state, 0, previous_best)
        best_move, best_score = ordered[0], -INFINITY
        root_key = self.rules.key(state)
        self.path.add(root_key)
        try:
            for index, move in enumerate(ordered):
                child = self.rules.play(state, move)
                try:
                    if index == 0:
                        score = -self._negamax(child, depth - 1, -beta, -alpha, 1)
                    else:
                        score = -self._negamax(child, depth - 1, -alpha - 1, -alpha, 1)
                        if score > alpha:
                            score = -self._negamax(child, depth - 1, -beta, -alpha, 1)
                except SearchStopped:
                    done = (best_move, best_score) if index > 0 else None
                    raise SearchStopped(done) from None
                if score > best_score:
                    best_move, best_score = move, score
                    if score > alpha:
                        alpha = score
        finally:
            self.path.discard(root_key)
        self.tt[self.tt_key(state)] = (depth, EXACT, self._to_tt(best_score, 0), best_move)
        return best_move, best_score

    def _check_limits(self) -> None:
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise SearchStopped()
        if self.nodes >= self.next_check:
            self.next_check = self.nodes + TIME_CHECK_NODES
            if self.deadline.passed():
                self.timed_out = True
                raise SearchStopped()
            if len(self.tt) > TT_LIMIT:  # a long search must not grow the table without bound
                self.tt.clear()

    def _negamax(self, state: State, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        self._check_limits()
        rules = self.rules
        end = rules.ending(state)
        if end is not None:
            winner = end.winner
            if winner is None:
                return 0
            return WIN - ply if winner == state[2] else ply - WIN
        key = rules.key(state)
        if self.check_repetition and key in self.path:
            return 0  # a repetition: the game would end drawn if this went on
        moves = rules.moves(state)
        if not moves:
            return ply - WIN  # trapped or immobilized: the side to move loses
        if depth <= 0:
            if state[2] == PREY and ply < self.extension_limit and self._fox_threatens(state):
                depth = 1  # a goose hangs at the horizon: let the geese answer
            else:
                return self._quiesce(state, alpha, beta, ply, moves)
        # mate-distance pruning
        if alpha < ply - WIN:
            alpha = ply - WIN
        if beta > WIN - ply - 1:
            beta = WIN - ply - 1
        if alpha >= beta:
            return alpha
        tkey = key * 16 + state[4] if self.stall_in_key else key
        entry = self.tt.get(tkey)
        tt_move = None
        if entry is not None:
            e_depth, flag, e_score, tt_move = entry
            if e_depth >= depth and self.tt_cutoffs:
                score = self._from_tt(e_score, ply)
                if flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha):
                    return score
        original_alpha = alpha
        best_score, best_move = -INFINITY, None
        ordered = self._order(moves, state, ply, tt_move) if len(moves) > 1 else moves
        self.path.add(key)
        try:
            for index, move in enumerate(ordered):
                child = rules.play(state, move)
                if index == 0:
                    score = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
                else:
                    score = -self._negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
                if score > best_score:
                    best_score, best_move = score, move
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            if not move[1]:
                                killers = self.killers[ply]
                                if killers[0] != move:
                                    killers[1] = killers[0]
                                    killers[0] = move
                                self.history[move] = self.history.get(move, 0) + depth * depth
                            break
        finally:
            self.path.discard(key)
        if best_score <= original_alpha:
            flag = UPPER
        elif best_score >= beta:
            flag = LOWER
        else:
            flag = EXACT
        self.tt[tkey] = (depth, flag, self._to_tt(best_score, ply), best_move)
        return best_score

    def _fox_threatens(self, state: State) -> bool:
        """Whether the fox (not to move) has a jump ready right now."""
        return self.rules.captures and self.rules.has_jump(state[0], state[1])

    def _quiesce(self, state: State, alpha: int, beta: int, ply: int, moves: list) -> int:
        """Stand pat, or let the fox play out its captures (geese answer with stand pat)."""
        stand = self.evaluate(state)
        if state[2] != PREDATOR or stand >= beta:
            return stand
        captures = [m for m in moves if m[1]]
        if not captures:
            return stand
        best = stand
        if stand > alpha:
            alpha = stand
        captures.sort(key=lambda m: len(m[0]), reverse=True)
        rules = self.rules
        for move in captures:
            child = rules.play(state, move)
            self.nodes += 1
            end = rules.ending(child)
            if end is not None:
                winner = end.winner
                score = 0 if winner is None else (WIN - ply - 1 if winner == PREDATOR else ply + 1 - WIN)
            elif not rules.has_moves(child):
                score = WIN - ply - 1  # the geese cannot move: immobilized
            else:
                score = -self.evaluate(child)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    def _order(self, moves: list[Move], state: State, ply: int, first: Move | None) -> list[Move]:
        killers = self.killers[ply]
        history = self.history

        def rank(move: Move) -> int:
            if move == first:
                return 1 << 40
            if move[1]:
                return (1 << 30) + len(move[0])
            if move == killers[0]:
                return 1 << 25
            if move == killers[1]:
                return (1 << 25) - 1
            return history.get(move, 0)

        return sorted(moves, key=rank, reverse=True)

    def principal_variation(self, state: State, first: Move, depth: int) -> list[Move]:
        """The expected line: the best move, then table moves while they stay legal."""
        line: list[Move] = []
        seen: set[int] = set()
        move: Move | None = first
        for _ in range(max(depth, 1)):
            if move is None or move not in self.rules.moves(state):
                break
            line.append(move)
            state = self.rules.play(state, move)
            key = self.tt_key(state)
            if key in seen or self.rules.ending(state) is not None:
                break
            seen.add(key)
            entry = self.tt.get(key)
            move = entry[3] if entry else None
        return line


class MinimaxPlayer(Player):
    """Alpha-beta searcher. Limits: `depth` (plies), `nodes`, `time` (ms per move); the clock
    caps the time too. With no limit at all it searches `DEFAULT_DEPTH` plies, deeper while the
    tree stays under `DEFAULT_SOFT_NODES` nodes (deterministic either way)."""

    name = "minimax"

    def __init__(
        self,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        time: float | None = None,
        seed: int | None = None,
    ) -> None:
        for label, value in (("depth", depth), ("nodes", nodes), ("time", time)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(f"{label} must be a positive number, not {value!r}")
        self.depth = None if depth is None else int(depth)
        self.nodes = None if nodes is None else int(nodes)
        self.time = time
        self.seed = seed
        self.rng = random.Random(seed) if seed is not None else None
        self._engines: dict = {}

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        super().new_game(variant, side, seed)
        # Unseeded, minimax breaks no ties at random: its games depend on no seed at all. Seeded,
        # it shuffles equal moves with this game's own generator (the engines are rebuilt below).
        material = game_seed_material(self.seed, seed) if self.seed is not None else None
        if material is not None:
            self.rng = random.Random(material)
        self._engines.clear()

    def engine_for(self, variant: Variant) -> AlphaBeta:
        key = (variant.id, variant.options)
        engine = self._engines.get(key)
        if engine is None:
            engine = self._engines[key] = AlphaBeta(rules_for(variant), rng=self.rng)
        return engine

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        position = game.position
        engine = self.engine_for(position.variant)
        rules = engine.rules
        fixed = self.depth is not None or self.nodes is not None  # the clock is then a safety limit only
        budget = combine_budgets(self.time, safety_budget_ms(clock) if fixed else time_budget_ms(clock))
        depth, soft_nodes = self.depth, None
        if depth is None and self.nodes is None and budget is None:
            depth, soft_nodes = DEFAULT_DEPTH, DEFAULT_SOFT_NODES
        result = engine.search(
            position.state,
            depth=depth,
            nodes=self.nodes,
            time_ms=budget,
            seen=history_keys(game, rules),
            soft_nodes=soft_nodes,
            time_is_budget=not fixed or self.time is not None,
        )
        info = {
            **result.verdict(position.turn).info(),
            "depth": result.depth,
            "nodes": result.nodes,
            "pv": [str(m) for m in result.pv],
            "time_ms": int(result.time_ms),
        }
        if fixed and engine.timed_out:
            info["cut"] = True
        return Choice(result.move, info)
