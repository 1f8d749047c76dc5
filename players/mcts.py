"""Monte-Carlo tree search (UCT) with MCTS-Solver backups and tree reuse between moves.

Shaped like OpenSpiel's `mcts.py`: the leaf evaluator is an object (`RolloutEvaluator`: playouts
guided by a cheap heuristic, cut off by the static evaluation) and the child selection function
is pluggable (`uct_value`, `puct_value`). Proven wins and losses are stored on nodes, propagated
upward and preferred when choosing. Values are in [0, 1]; a node's `total` is from the point of
view of the side that moved into it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any, Protocol, TypedDict, cast

from foxgeese.engine import Clock, Game, Move, Side, Variant
from foxgeese.engine.board import GRID_WIDTH
from foxgeese.engine.rules import PREDATOR, Rules, State, rules_for
from foxgeese.players.base import (
    Choice,
    Deadline,
    Player,
    combine_budgets,
    reseed,
    safety_budget_ms,
    time_budget_ms,
)
from foxgeese.players.evaluation import Evaluation, evaluation_for
from foxgeese.players.minimax import history_keys
from foxgeese.players.score import Score

WON, LOST = 1, -1  # proven results, from the view of the side that moved into the node
DEFAULT_PLAYOUTS = 1000
SCORE_SCALE = 150.0  # centi-points that make a 73% expectation in the cut-off evaluation
TIME_CHECK_PLAYOUTS = 16
DEFAULT_CONTEMPT = 0.3  # a draw is worth 0.2 to the player (see MctsPlayer): it plays on for the win
DEFAULT_IMPLICIT = 0.5  # the implicit-minimax share of a child's value in selection (ImplicitUCT)
DEFAULT_ROLLOUT = 8  # playout plies before the static evaluation cuts in


class VariantDefaults(TypedDict, total=False):
    """What a variant sets differently from `DEFAULT_ROLLOUT` and `DEFAULT_IMPLICIT`."""

    rollout: int
    implicit: float


def variant_defaults(variant: Variant) -> VariantDefaults:
    """Defaults that differ by variant, measured against a random fox (docs/players.md): the variant's
    table row holds them (`VariantSpec.tuning["mcts"]`: in great-cross, playouts make the geese
    cautious, so the search there leans on the static evaluation and its minimax backup)."""
    return cast(VariantDefaults, dict(variant.row.tuning.get("mcts", {})))


class Node:
    __slots__ = ("move", "mover", "state", "children", "visits", "total", "solved", "prior", "implicit")

    def __init__(self, move: Move | None, mover: Side, state: State, prior: float = 1.0) -> None:
        self.move = move
        self.mover = mover  # the side that played `move` into this node
        self.state = state
        self.children: list[Node] | None = None
        self.visits = 0
        self.total = 0.0
        self.solved: int | None = None
        self.prior = prior
        # Implicit minimax value (Lanctot et al. 2014): the static evaluation backed up by minimax
        # over the expanded tree, in [0, 1] from the mover's point of view.
        self.implicit = 0.5

    def value(self) -> float:
        return self.total / self.visits if self.visits else 0.5

    def __repr__(self) -> str:
        return f"Node({self.move}, visits={self.visits}, value={self.value():.3f}, solved={self.solved})"


SelectionFn = Callable[[Node, int, float], float]


def uct_value(child: Node, parent_visits: int, c: float) -> float:
    """UCB1: mean value plus c·sqrt(ln N / n); unvisited children first (by prior)."""
    if child.visits == 0:
        return 1e9 + child.prior
    return child.total / child.visits + c * math.sqrt(math.log(parent_visits) / child.visits)


class ImplicitUCT:
    """UCB1 on a blend of the playout mean and the implicit minimax value: (1-a)·mean + a·minimax.

    Playouts in hunt games are noisy (random geese always lose); the backed-up static evaluation
    gives the tree a minimax backbone. Unvisited children go in order of their evaluation.
    """

    def __init__(self, weight: float = DEFAULT_IMPLICIT) -> None:
        self.weight = weight

    def __call__(self, child: Node, parent_visits: int, c: float) -> float:
        if child.visits == 0:
            return 1e9 + child.implicit + child.prior * 1e-3
        mean = child.total / child.visits
        blended = (1.0 - self.weight) * mean + self.weight * child.implicit
        return blended + c * math.sqrt(math.log(parent_visits) / child.visits)


def puct_value(child: Node, parent_visits: int, c: float) -> float:
    """AlphaZero-style PUCT using the evaluator's prior."""
    mean = child.total / child.visits if child.visits else 0.5
    return mean + c * child.prior * math.sqrt(parent_visits) / (1 + child.visits)


class Evaluator(Protocol):
    def evaluate(self, state: State) -> float:
        """Expected result for the predator, in [0, 1]."""

    def prior(self, state: State, moves: list) -> list[float]:
        """A weight per move (higher = try first)."""

    def static_value(self, state: State) -> float:
        """A quick estimate for the predator, in [0, 1] (no playout)."""

    draw_value: float  # what a drawn ending is worth to the predator, in [0, 1]


class RolloutEvaluator:
    """Epsilon-greedy playouts: the fox takes its longest capture, the geese step where no goose
    can be jumped at once (forward when one can), the hare heads down, the hounds go forward; cut off
    after `max_plies` by the static evaluation squashed into [0, 1]."""

    def __init__(
        self,
        rules: Rules,
        rng: random.Random,
        *,
        max_plies: int = 8,
        epsilon: float = 0.1,
        evaluation: Evaluation | None = None,
    ) -> None:
        self.rules = rules
        self.rng = rng
        self.max_plies = max_plies
        self.epsilon = epsilon
        self.evaluation = evaluation or evaluation_for(rules)
        self.jumps = rules.tables.jumps
        self.has_jump = rules.has_jump
        self.captures = rules.variant.captures
        self.draw_value = 0.5  # what a draw is worth to the predator; MctsPlayer shifts it by its contempt

    def result_value(self, winner: Side | None) -> float:
        """What an ended game is worth to the predator; `winner` None is a draw."""
        return self.draw_value if winner is None else (1.0 if winner == PREDATOR else 0.0)

    def static_value(self, state: State) -> float:
        score = self.evaluation(state)
        if state[2] != PREDATOR:
            score = -score
        return 1.0 / (1.0 + math.exp(-score / SCORE_SCALE))

    def evaluate(self, state: State) -> float:
        rules, rng = self.rules, self.rng
        for _ in range(self.max_plies):
            end = rules.ending(state)
            if end is not None:
                return self.result_value(end.winner)
            moves = rules.moves(state)
            if not moves:
                return 0.0 if state[2] == PREDATOR else 1.0
            if rng.random() < self.epsilon:
                move = rng.choice(moves)
            else:
                move = self.policy_move(state, moves)
            state = rules.play(state, move)
        end = rules.ending(state)
        if end is not None:
            return self.result_value(end.winner)
        return self.static_value(state)

    def policy_move(self, state: State, moves: list[Move]) -> Move:
        rng = self.rng
        if state[2] == PREDATOR:
            if self.captures:
                best = None
                for move in moves:
                    if move[1] and (best is None or len(move[0]) > len(best[0])):
                        best = move
                if best is not None:
                    return best
                return rng.choice(moves)
            lowest = min(move[0][-1] // GRID_WIDTH for move in moves)  # the hare heads down
            return rng.choice([m for m in moves if m[0][-1] // GRID_WIDTH == lowest])
        if not self.captures:
            forward = [m for m in moves if m[0][1] - m[0][0] >= GRID_WIDTH - 1]
            return rng.choice(forward or moves)
        start = rng.randrange(len(moves))
        sideways = None
        for index in range(len(moves)):
            move = moves[(start + index) % len(moves)]
            if self.is_safe(state, move):
                if move[0][1] - move[0][0] >= GRID_WIDTH - 1:
                    return move  # a safe step forward: progress
                if sideways is None:
                    sideways = move
        return sideways if sideways is not None else moves[start]

    def is_safe(self, state: State, move: Move) -> bool:
        """After this goose step, the fox (where it stands) has no jump."""
        origin, target = move[0]
        return not self.has_jump(state[0], state[1] ^ (1 << origin) ^ (1 << target))

    def prior(self, state: State, moves: list) -> list[float]:
        if state[2] == PREDATOR:
            return [1.0 + len(m[0]) if m[1] else 1.0 for m in moves]
        if self.captures:
            return [2.0 if self.is_safe(state, m) else 1.0 for m in moves]
        return [2.0 if m[0][1] - m[0][0] >= GRID_WIDTH - 1 else 1.0 for m in moves]


class MCTS:
    """The search: select with `selection`, expand all children at once, evaluate, back up."""

    def __init__(
        self,
        rules: Rules,
        evaluator: Evaluator,
        *,
        c: float = 1.4,
        selection: SelectionFn | None = None,
        solve: bool = True,
        implicit: float = DEFAULT_IMPLICIT,
    ) -> None:
        """`implicit` is the weight of the implicit minimax value in the default selection; 0 turns
        the implicit values off (plain UCT)."""
        self.rules = rules
        self.evaluator = evaluator
        self.c = c
        self.selection = selection or (ImplicitUCT(implicit) if implicit else uct_value)
        self.solve = solve
        self.implicit = implicit
        self.timed_out = False  # the last `run` was stopped by its deadline

    def new_root(self, state: State) -> Node:
        turn = Side(state[2])  # a hand-made root state may carry a plain int
        return Node(None, turn.other, (state[0], state[1], turn, state[3], state[4]))

    def _expand(self, node: Node) -> None:
        rules = self.rules
        state = node.state
        moves = rules.moves(state)
        priors = self.evaluator.prior(state, moves)
        mover = state[2]
        children = []
        for move, prior in zip(moves, priors):
            child = Node(move, mover, rules.play(state, move), prior)
            end = rules.outcome(child.state)  # repetition is the playout's business (it knows the path)
            winner = None if end is None else end.winner
            if winner is not None and self.solve:
                child.solved = WON if winner == mover else LOST
                child.implicit = 1.0 if winner == mover else 0.0
            elif end is not None:
                child.solved = 0 if winner is None else None
                draw = self.evaluator.draw_value if mover == PREDATOR else 1.0 - self.evaluator.draw_value
                child.implicit = draw if winner is None else (1.0 if winner == mover else 0.0)
            elif self.implicit:
                value = self.evaluator.static_value(child.state)
                child.implicit = value if mover == PREDATOR else 1.0 - value
            children.append(child)
        children.sort(key=lambda n: (n.implicit, n.prior), reverse=True)
        node.children = children
        node.implicit = 1.0 - children[0].implicit if children else node.implicit

    def _leaf_value(self, node: Node) -> float:
        """Value for the predator of a node reached for the first time."""
        if node.solved is not None:
            if node.solved == 0:
                return self.evaluator.draw_value
            winner = node.mover if node.solved == WON else node.mover.other
            return 1.0 if winner == PREDATOR else 0.0
        return self.evaluator.evaluate(node.state)

    def _select(self, node: Node) -> Node:
        children = node.children
        assert children is not None, "selecting below a node not expanded yet"
        best, best_value = None, -math.inf
        selection, c, visits = self.selection, self.c, node.visits or 1
        for child in children:
            if child.solved == WON:
                return child
            if child.solved == LOST:
                continue
            value = selection(child, visits, c)
            if value > best_value:
                best, best_value = child, value
        return best if best is not None else children[0]

    def _update_solved(self, node: Node) -> None:
        children = node.children
        if not children or node.solved is not None:
            return
        if any(child.solved == WON for child in children):
            node.solved = LOST  # the side to move here wins, so the mover into `node` lost
        elif all(child.solved == LOST for child in children):
            node.solved = WON

    def playout(self, root: Node, seen: set[int] | None = None) -> None:
        """One selection-expansion-evaluation-backup pass. `seen`: keys of the game's earlier
        positions; in variants with the repetition rule a position met again scores as a draw."""
        path = [root]
        node = root
        keys = set(seen) if seen else None
        while node.solved is None:
            if node.children is None:
                self._expand(node)
                if self.solve:
                    self._update_solved(node)
                if node.solved is not None or not node.children:
                    break
            node = self._select(node)
            path.append(node)
            if keys is not None:
                key = self.rules.key(node.state)
                if key in keys:
                    self._mark_repetition(node)
                    break
                keys.add(key)
            if node.visits == 0:
                break
        value = self._leaf_value(node)
        for item in reversed(path):
            item.visits += 1
            item.total += value if item.mover == PREDATOR else 1.0 - value
            if item.children:
                if self.implicit:
                    item.implicit = 1.0 - max(child.implicit for child in item.children)
                if self.solve and item.solved is None:
                    self._update_solved(item)

    def _mark_repetition(self, node: Node) -> None:
        """A position met again on the way from the game's start is a draw, for good: the path to a
        node never changes, and neither do the game's earlier positions when the tree is reused.
        The implicit value says so too; otherwise a search that leans on it walks into repetitions
        (MCTS geese in great-cross drew 3/20 against a random fox that way)."""
        node.solved = 0
        draw = self.evaluator.draw_value
        node.implicit = draw if node.mover == PREDATOR else 1.0 - draw

    def run(self, root: Node, *, playouts: int | None, deadline: Deadline, seen: set[int] | None = None) -> int:
        """Playouts until a limit or until the root is solved; returns how many were made."""
        done = 0
        self.timed_out = False
        while root.solved is None:
            if playouts is not None and done >= playouts:
                break
            if done % TIME_CHECK_PLAYOUTS == 0 and deadline.passed():
                self.timed_out = True
                break
            self.playout(root, seen)
            done += 1
            if root.children is not None and any(child.solved == WON for child in root.children):
                break
        if root.children is None:
            self._expand(root)
        return done

    @staticmethod
    def best_child(root: Node) -> Node:
        """A proven win if there is one; else the most visited child not proven lost."""
        children = root.children or []
        won = [child for child in children if child.solved == WON]
        if won:
            return max(won, key=lambda n: n.visits)
        alive = [child for child in children if child.solved != LOST] or children
        return max(alive, key=lambda n: (n.visits, n.value()))


def validate_options(*, playouts: int | None, time: float | None, c: float, rollout: int | None, epsilon: float,
                     contempt: float, implicit: float | None) -> None:
    """A ValueError naming the first option out of range (the compiled `mcts` shares these options)."""
    for label, value in (("playouts", playouts), ("time", time)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
            raise ValueError(f"{label} must be a positive number, not {value!r}")
    if not isinstance(c, (int, float)) or c < 0:
        raise ValueError(f"c must be a non-negative number, not {c!r}")
    if rollout is not None and (isinstance(rollout, bool) or not isinstance(rollout, int) or rollout < 0):
        raise ValueError(f"rollout must be a whole number of plies, not {rollout!r}")
    if not isinstance(epsilon, (int, float)) or not 0 <= epsilon <= 1:
        raise ValueError(f"epsilon must be between 0 and 1, not {epsilon!r}")
    if isinstance(contempt, bool) or not isinstance(contempt, (int, float)) or not 0 <= contempt < 0.5:
        raise ValueError(f"contempt must be a number from 0 to below 0.5, not {contempt!r}")
    if implicit is not None and (
        isinstance(implicit, bool) or not isinstance(implicit, (int, float)) or not 0 <= implicit <= 1
    ):
        raise ValueError(f"implicit must be a weight from 0 to 1, not {implicit!r}")


class MctsPlayer(Player):
    """UCT player. Limits: `playouts` and/or `time` (ms per move); the clock caps the time.
    `c` is the exploration constant, `rollout` the playout length before the static evaluation
    cuts it off, `epsilon` the chance of a random playout move; `seed` makes it reproducible.
    `contempt` is how much less than half a point a draw (repetition, fifty moves) is worth to the
    player, so that it plays on for a win instead of settling for a repetition. `implicit` is the
    share of the implicit minimax value in selection (0: plain UCT on the playout mean).
    `rollout` and `implicit` left unset take the variant's defaults (`variant_defaults`)."""

    name = "mcts"

    def __init__(
        self,
        *,
        playouts: int | None = None,
        time: float | None = None,
        c: float = 1.4,
        rollout: int | None = None,
        epsilon: float = 0.1,
        seed: int | None = None,
        reuse: bool = True,
        contempt: float = DEFAULT_CONTEMPT,
        implicit: float | None = None,
    ) -> None:
        validate_options(playouts=playouts, time=time, c=c, rollout=rollout, epsilon=epsilon, contempt=contempt,
                         implicit=implicit)
        self.playouts = None if playouts is None else int(playouts)
        self.time = time
        self.c = float(c)
        self.rollout = rollout
        self.epsilon = float(epsilon)
        self.seed = seed
        self.reuse = reuse
        self.contempt = float(contempt)
        self.implicit = None if implicit is None else float(implicit)
        self.rng = random.Random(seed)
        self._search: MCTS | None = None
        self._variant_key: tuple[str, tuple[tuple[str, Any], ...]] | None = None
        self._root: Node | None = None
        self._root_moves = 0  # len(game.moves) at the root

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        super().new_game(variant, side, seed)
        reseed(self.rng, self.seed, seed)  # in place: the cached search's evaluator shares self.rng
        self._root = None

    def search_for(self, variant: Variant) -> MCTS:
        key = (variant.id, variant.options)
        if self._search is None or self._variant_key != key:
            rules = rules_for(variant)
            defaults = variant_defaults(variant)
            rollout = self.rollout if self.rollout is not None else defaults.get("rollout", DEFAULT_ROLLOUT)
            implicit = self.implicit if self.implicit is not None else defaults.get("implicit", DEFAULT_IMPLICIT)
            evaluator = RolloutEvaluator(rules, self.rng, max_plies=rollout, epsilon=self.epsilon)
            self._search = MCTS(rules, evaluator, c=self.c, implicit=implicit)
            self._variant_key = key
            self._root = None
        return self._search

    def _reused_root(self, game: Game, state: State) -> Node | None:
        """The subtree of the moves played since the last search, if it is still in memory."""
        node = self._root
        if node is None or not self.reuse or len(game.moves) < self._root_moves:
            return None
        for move in game.moves[self._root_moves:]:
            if node.children is None:
                return None
            node = next((child for child in node.children if child.move == move), None)
            if node is None:
                return None
        return node if node.state == state else None

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        started = time.monotonic()
        search = self.search_for(game.position.variant)
        state = game.position.state
        draw_value = 0.5 - self.contempt if state[2] == PREDATOR else 0.5 + self.contempt
        if search.evaluator.draw_value != draw_value:  # a kept tree was valued with other draws
            search.evaluator.draw_value = draw_value
            self._root = None
        root = self._reused_root(game, state) or search.new_root(state)
        reused = root.visits
        fixed = self.playouts is not None  # the clock is then a safety limit only
        budget = combine_budgets(self.time, safety_budget_ms(clock) if fixed else time_budget_ms(clock))
        playouts = self.playouts
        if playouts is None and budget is None:
            playouts = DEFAULT_PLAYOUTS
        seen = history_keys(game, search.rules) if search.rules.checks_repetition else None
        done = search.run(root, playouts=playouts, deadline=Deadline(budget), seen=seen)
        if not root.children:
            raise ValueError("the game is over: no move to choose")
        best = search.best_child(root)
        self._root = best
        self._root_moves = len(game.moves) + 1
        info = {
            **self.score_of(best).info(),
            "playouts": done,
            "reused": reused,
            "nodes": root.visits,
            "pv": [str(m) for m in self.principal_variation(root)],
            "time_ms": int((time.monotonic() - started) * 1000.0),
        }
        if fixed and search.timed_out:
            info["cut"] = True
        return Choice(best.move, info)

    @staticmethod
    def score_of(node: Node) -> Score:
        """The verdict for the side that moved into `node`: proven, or the logit of its value in centi-points."""
        if node.solved == WON:
            return Score.proven_win(node.mover)
        if node.solved == LOST:
            return Score.proven_loss(node.mover)
        if node.solved == 0:
            return Score.proven_draw(node.mover)
        value = min(max(node.value(), 1e-4), 1 - 1e-4)
        return Score(node.mover, int(round(SCORE_SCALE * math.log(value / (1.0 - value)))))

    @staticmethod
    def principal_variation(root: Node, limit: int = 8) -> list[Move | None]:
        line: list[Move | None] = []
        node = root
        while node.children and len(line) < limit:
            node = MCTS.best_child(node)
            if node.visits == 0 and node.solved is None:
                break
            line.append(node.move)
        return line
