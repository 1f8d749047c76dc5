"""The rules on plain integers: the one core that `Position`, perft and the searches all run on.

A state is `(predator, prey, turn, quiet, stall)`: the predator's grid point, the prey bitmask,
the side to move (a `Side`), the fifty-move counter and the stall counter of the position text.
Moves come from `movegen`; this module adds what a move does to the counters (`play`,
`children`), the endings (`ending`, `outcome`) and the repetition key. `Position` wraps a state
with its variant and ply, and `GameState` (a game in play: `Game`'s and the referee's) keeps one
field by field; perft and the searches use states directly, so a node costs a tuple.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from foxgeese.engine import movegen
from foxgeese.engine.board import GRID_WIDTH
from foxgeese.engine.move import Move
from foxgeese.engine.outcome import Side, Termination
from foxgeese.engine.variants import Variant

FIFTY_MOVE_PLIES = 100  # quiet plies that end a game drawn (where the fifty-move rule applies)
STALLING_MOVES = 10  # hound moves in a row without raising a row that end a game (hare wins)
REPETITION_COUNT = 3  # occurrences of a position that end a game drawn (where repetition applies)
MIN_GEESE = 4  # fewer geese than this: captured (the fox wins)

PREDATOR, PREY = Side.PREDATOR, Side.PREY
CAPTURED, ESCAPED, STALLING, FIFTY_MOVES = (
    Termination.CAPTURED, Termination.ESCAPED, Termination.STALLING, Termination.FIFTY_MOVES
)
REPETITION, TRAPPED, IMMOBILIZED = Termination.REPETITION, Termination.TRAPPED, Termination.IMMOBILIZED
_T = TypeVar("_T")

State = tuple[int, int, Side, int, int]


class Rules:
    """Moves, their effect and the endings of one variant, on `State` tuples (see `rules_for`).

    The functions a search calls at every node (`moves`, `play`, `children`, `ending`, `outcome`,
    `has_moves`, `has_jump`) are closures made for the variant in `__init__`: the variant's flags
    and tables are then cell reads, and a call is one Python call, not a method dispatch.
    """

    __slots__ = (
        "variant", "tables", "captures", "counts_stall", "checks_captured", "checks_escaped",
        "checks_stalling", "checks_fifty", "checks_repetition",
        "moves", "count_moves", "has_moves", "has_jump", "play", "children", "ending", "outcome",
        "count_replies",
    )

    moves: Callable[[State], list[Move]]
    """The moves of the side to move, not checking whether the game has ended (see `outcome`)."""
    count_moves: Callable[[State], int]
    """`len(moves(state))` without building the moves."""
    has_moves: Callable[[State], bool]
    """Whether the side to move has a move (cheaper than building the list)."""
    has_jump: Callable[[int, int], bool]
    """`has_jump(predator, prey)`: whether a fox there could capture now (False where nobody captures)."""
    play: Callable[[State, Move], State]
    """The state after a move, which must be legal in the state (not checked)."""
    children: Callable[[State], list[State]]
    """The states after every move, in the order of `moves` (for perft: no Move is built)."""
    ending: Callable[[State], Termination | None]
    """The ending that the pieces and counters alone decide (no move list, no history), if any."""
    outcome: Callable[..., Termination | None]
    """`outcome(state, repetitions=1, moves=None)`: every ending, in the spec's order; `repetitions`
    is how often the state's key has occurred; `moves`, the side to move's moves when the caller has
    them already (else the function finds whether there is one)."""
    count_replies: Callable[[State], int]
    """The replies to every move, summed over the children that `ending` does not end: perft's last
    two plies where no ending depends on the path (the state itself is not checked)."""

    def __init__(self, variant: Variant) -> None:
        endings = variant.endings
        self.variant = variant
        self.tables = tables = movegen.build_tables(variant)
        self.captures = variant.captures
        self.checks_captured = Termination.CAPTURED in endings
        self.checks_escaped = Termination.ESCAPED in endings
        self.checks_stalling = Termination.STALLING in endings
        self.checks_fifty = Termination.FIFTY_MOVES in endings
        self.checks_repetition = Termination.REPETITION in endings
        # The stall counter exists only where stalling ends games; elsewhere it stays what it is
        # (0, as the position text says), whatever the prey do.
        self.counts_stall = self.checks_stalling
        self.moves = _dispatch(tables, movegen.predator_moves, movegen.prey_moves)
        self.count_moves = _dispatch(tables, movegen.count_predator_moves, movegen.count_prey_moves)
        self.has_moves = _dispatch(tables, movegen.has_predator_move, movegen.has_prey_move)
        self.has_jump = functools.partial(movegen.has_jump, tables)
        self.play, self.children = _movers(tables, self.counts_stall)
        self.ending = _ending_check(
            self.checks_captured, self.checks_escaped, self.checks_stalling, self.checks_fifty
        )
        self.outcome = _outcome_check(self.ending, self.has_moves, self.checks_repetition)
        self.count_replies = _reply_counter(self)

    @staticmethod
    def key(state: State) -> int:
        """Pieces and side to move as one exact int: what repetition compares (counters excluded)."""
        return state[1] << 8 | state[0] << 1 | state[2]


def _prey_counters(counts_stall: bool, quiet: int, stall: int, raises_row: bool) -> tuple[int, int]:
    """The (quiet, stall) counters after a prey step: a step that raises a row resets both."""
    if not counts_stall:
        return (0 if raises_row else quiet + 1), stall
    return (0, 0) if raises_row else (quiet + 1, stall + 1)


def _dispatch(
    tables: movegen.MoveTables,
    predator_fn: Callable[[movegen.MoveTables, int, int], _T],
    prey_fn: Callable[[movegen.MoveTables, int, int], _T],
) -> Callable[[State], _T]:
    """A function of a state that asks `predator_fn` or `prey_fn`, by the side to move."""

    def by_turn(state: State) -> _T:
        if state[2] == PREDATOR:
            return predator_fn(tables, state[0], state[1])
        return prey_fn(tables, state[0], state[1])

    return by_turn


def _movers(
    tables: movegen.MoveTables, counts_stall: bool
) -> tuple[Callable[[State, Move], State], Callable[[State], list[State]]]:
    """`Rules.play` and `Rules.children` for one variant's tables and counters."""
    neighbours, jumps, board_mask, prey_flips = tables.neighbours, tables.jumps, tables.board_mask, tables.prey_flips

    def play(state: State, move: Move) -> State:
        predator, prey, turn, quiet, stall = state
        path = move[0]
        if turn == PREDATOR:
            if move[1]:  # a capture: every jumped goose is removed
                for a, b in zip(path, path[1:]):
                    prey ^= 1 << ((a + b) >> 1)
                return (path[-1], prey, PREY, 0, stall)
            return (path[-1], prey, PREY, quiet + 1, stall)
        origin, target = path
        quiet, stall = _prey_counters(counts_stall, quiet, stall, target > origin + 1)
        return (predator, prey ^ (1 << origin) ^ (1 << target), PREDATOR, quiet, stall)

    def children(state: State) -> list[State]:
        predator, prey, turn, quiet, stall = state
        result: list[State] = []
        append = result.append
        if turn == PREDATOR:
            targets = neighbours[predator] & ~prey
            quiet += 1
            while targets:
                low = targets & -targets
                append((low.bit_length() - 1, prey, PREY, quiet, stall))
                targets ^= low
            if jumps[predator]:
                for landing, remaining in _chain_ends(jumps, predator, prey):
                    append((landing, remaining, PREY, 0, stall))
            return result
        empty = board_mask & ~prey & ~(1 << predator)
        raised = _prey_counters(counts_stall, quiet, stall, True)
        level = _prey_counters(counts_stall, quiet, stall, False)
        for shift, sources, raises_row, flips in prey_flips:
            movers = prey & sources
            targets = (movers << shift if shift > 0 else movers >> -shift) & empty
            if not targets:
                continue
            after_quiet, after_stall = raised if raises_row else level
            while targets:
                low = targets & -targets
                append((predator, prey ^ flips[low.bit_length() - 1], PREDATOR, after_quiet, after_stall))
                targets ^= low
        return result

    return play, children


def _reply_counter(rules: Rules) -> Callable[[State], int]:
    """`Rules.count_replies` for one variant. A step leaves all but one piece where it stood, so
    the replies to all of a side's steps are counted at once, per direction, not per child:
    - after the predator's steps the prey reach the points they reach now, once per step, less
      the steps onto such a point (the predator stands there then);
    - after the prey's steps (where the predator cannot capture) the predator has its steps of
      now, once per prey step, plus the steps onto a point a prey left, less those onto one a prey
      reached. A prey step keeps the number of prey, so only its counters or an escape can end the
      game; an escape needs a lone prey on the predator's row or below, else every child is
      checked."""
    tables, children, ending = rules.tables, rules.children, rules.ending
    counts_stall, checks_escaped = rules.counts_stall, rules.checks_escaped
    neighbours, jumps, board_mask = tables.neighbours, tables.jumps, tables.board_mask
    prey_up, prey_down, prey_shifts = tables.prey_up, tables.prey_down, tables.prey_shifts
    count_prey, count_predator = movegen.count_prey_moves, movegen.count_predator_moves

    def count_replies(state: State) -> int:
        predator, prey = state[0], state[1]
        total = 0
        if state[2] == PREDATOR:
            stepped = 0  # the points of the steps after which the game goes on
            for child in children(state):
                if ending(child) is None:
                    if child[1] == prey:
                        stepped |= 1 << child[0]
                    else:  # a capture
                        total += count_prey(tables, child[0], child[1])
            if stepped:
                steps, free = stepped.bit_count(), board_mask & ~prey
                for shift, sources in prey_up:
                    reached = (prey & sources) << shift & free
                    total += steps * reached.bit_count() - (reached & stepped).bit_count()
                for shift, sources in prey_down:
                    reached = (prey & sources) >> shift & free
                    total += steps * reached.bit_count() - (reached & stepped).bit_count()
            return total
        # The children's endings: a prey step keeps the number of prey and (see above) mostly
        # cannot escape, so the state's pieces with a step's counters tell them.
        quiet, stall = state[3], state[4]
        raised = ending((predator, prey, PREDATOR, *_prey_counters(counts_stall, quiet, stall, True)))
        level = ending((predator, prey, PREDATOR, *_prey_counters(counts_stall, quiet, stall, False)))
        lowest = prey & _ROWS_UP_TO[predator]
        if checks_escaped and not lowest & (lowest - 1) or jumps[predator] and (raised or level):
            for child in children(state):
                if ending(child) is None:
                    total += count_predator(tables, predator, child[1])
            return total
        if jumps[predator]:  # every child goes on
            for child in children(state):
                total += count_predator(tables, predator, child[1])
            return total
        around = neighbours[predator]
        now = (around & ~prey).bit_count()
        empty = board_mask & ~prey & ~(1 << predator)
        for shift, sources, raises_row in prey_shifts:
            movers = prey & sources
            if shift > 0:
                reached = movers << shift & empty
                left = reached >> shift
            else:
                reached = movers >> -shift & empty
                left = reached << -shift
            if reached and (raised if raises_row else level) is None:
                total += reached.bit_count() * now + (left & around).bit_count() - (reached & around).bit_count()
        return total

    return count_replies


def _outcome_check(
    ending: Callable[[State], Termination | None], has_moves: Callable[[State], bool], repetition: bool
) -> Callable[..., Termination | None]:
    """`Rules.outcome` for one variant's endings."""

    def outcome(state: State, repetitions: int = 1, moves: list[Move] | None = None) -> Termination | None:
        ended = ending(state)
        if ended is not None:
            return ended
        if repetition and repetitions >= REPETITION_COUNT:
            return REPETITION
        if not (moves if moves is not None else has_moves(state)):
            return TRAPPED if state[2] == PREDATOR else IMMOBILIZED
        return None

    return outcome


def _ending_check(
    captured: bool, escaped: bool, stalling: bool, fifty: bool
) -> Callable[[State], Termination | None]:
    """`Rules.ending` for one variant's endings: a closure, since perft and the searches call it at
    every node (its flags are then cell reads, not attribute look-ups)."""

    def ending(state: State) -> Termination | None:
        """The ending that the pieces and counters alone decide (no move list, no history), if any."""
        if captured and state[1].bit_count() < MIN_GEESE:
            return CAPTURED
        # Escaped: the predator is below every prey, i.e. no prey on its row or a lower one.
        if escaped and state[1] and not state[1] & _ROWS_UP_TO[state[0]]:
            return ESCAPED
        if stalling and state[4] >= STALLING_MOVES:
            return STALLING
        if fifty and state[3] >= FIFTY_MOVE_PLIES:
            return FIFTY_MOVES
        return None

    return ending


# Per grid point: every point on its row or a lower one (one AND tells whether prey stand there).
_ROWS_UP_TO = tuple((1 << (GRID_WIDTH * (point // GRID_WIDTH + 1))) - 1 for point in range(GRID_WIDTH * GRID_WIDTH))


def rules_for(variant: Variant) -> Rules:
    """The shared `Rules` of a variant (the variant owns it: `Variant.rules`)."""
    return variant.rules


def _chain_ends(jumps: movegen.JumpTable, at: int, prey: int) -> list[tuple[int, int]]:
    """(landing point, prey left) after every capture chain from `at`, in `movegen`'s order."""
    ends = []
    for over, land in jumps[at]:
        if prey >> over & 1 and not prey >> land & 1:
            remaining = prey ^ (1 << over)
            ends.append((land, remaining))
            ends.extend(_chain_ends(jumps, land, remaining))
    return ends
