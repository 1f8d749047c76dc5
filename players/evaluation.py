"""Static evaluation per variant, in centi-points from the point of view of the side to move.

Fox and geese (`standard`, `great-cross`): the fox wants geese off the board, room to run and
geese it can jump; the geese want a closed formation (a goose cannot be jumped when the point
behind it is occupied or off the board), a small fox region and to advance together, and above
all no point in the fox's reach that no goose can ever stand on again (geese never step back).
Hare and hounds: the hounds want the hare high up and hemmed in, with a hound at or below its row;
the hare wants room, to get level with or below the hounds, and the stalling counter to climb.
"""

from __future__ import annotations

from collections.abc import Callable

from foxgeese.engine.board import DIRECTIONS, GRID_WIDTH, delta
from foxgeese.engine.movegen import count_prey_moves
from foxgeese.engine.rules import PREDATOR, Rules, State

Evaluation = Callable[[State], int]

# Fox-and-geese weights (centi-points, fox's view).
GOOSE = 100
FOX_REGION = 6  # per empty point the fox can walk to
FOX_REGION_LOW = 4  # more per point for each row it lies below the top: a way down behind the geese
FOX_MOBILITY = 10  # per empty neighbour
WEAK_GOOSE = 22  # per goose the fox could reach and jump
THREAT_ON_MOVE = 45  # per jump available right now, when the fox is to move
GEESE_MOBILITY = 4  # per legal goose step: spare moves keep the geese from running out (immobilized)
ESCAPED = 300  # the fox reaches a point no goose can ever stand on again: the geese cannot trap it
FREE_POINT = 40  # per such point
BEHIND = 30  # per point the fox can reach that lies below a goose of its column (left behind for good)
PASSED_GOOSE = 30  # per goose above the lowest row the fox can reach: it can no longer hem the fox in
LONE_GOOSE = 30  # per goose off the start points with no goose on a point it could have come from

SCORE_CACHE_SIZE = 1 << 17  # remembered fox-and-geese scores (about 20 MB); emptied when full

# Hare-and-hounds weights (hare's view).
HARE_MOBILITY = 30
HARE_HEIGHT = 35  # per row the hare stands above the lowest hound
STALL = 30  # per step of the stalling counter
HARE_ROOM = 10  # per point the hare can walk to
WAY_PAST = 150  # the hare can walk to a point below every hound
HOUND_PASSED = 60  # per hound on a higher row than the hare: it can no longer block the way down


class FoxGeeseEvaluation:
    """Containment first: the fox's region (steps and jumps), points of it no goose can ever
    reach again, geese it can jump, then material, mobility and the geese's spare moves."""

    def __init__(self, rules: Rules) -> None:
        board = rules.variant.board
        self.mask = board.mask
        self.neighbours = board.neighbours
        self.start_geese = rules.variant.prey_start.bit_count()  # material counts from the start
        self.jumps = rules.tables.jumps
        self.tables = rules.tables
        self.steps = tuple((delta(d), board.step_sources[d]) for d in DIRECTIONS if board.step_sources[d])
        # Per direction d: (shift of d, points with a line along d, points with a line along -d).
        self.lines = tuple(
            (delta(d), board.step_sources[d], board.step_sources[(-d[0], -d[1])])
            for d in DIRECTIONS
            if board.step_sources[d]
        )
        self.prey_steps = tuple((shift, sources) for shift, sources, _ in rules.tables.prey_shifts)
        self.start_points = rules.variant.prey_start
        self.rows = tuple(
            sum(1 << p for p in board.points if p // GRID_WIDTH == r) for r in range(board.rows)
        )
        # Scores count from the start position, so 0 (a draw) means "as good as the start".
        self.offset = 0
        self.offset = self.fox_score(rules.variant.predator_start, rules.variant.prey_start, True)
        # Searches meet the same positions again (iterative deepening, transpositions, MCTS
        # expanding siblings): a quarter to nearly half of the calls repeat an earlier one.
        self._scores: dict[tuple[int, int, bool], int] = {}

    def region(self, fox: int, empty: int) -> int:
        """Points the fox can walk to (its own point included), by flood fill over empty points.
        (Counting jump landings too made depth-3 geese win 6/100 instead of 64/100: every hanging
        goose then floods the region and the geese's moves all look alike.)"""
        region = 1 << fox
        steps = self.steps
        while True:
            grown = region
            for shift, sources in steps:
                moved = region & sources
                grown |= (moved << shift if shift > 0 else moved >> -shift) & empty
            if grown == region:
                return region
            region = grown

    def one_step(self, geese: int) -> int:
        """Points a goose of `geese` steps onto in one move, empty or not."""
        reached = 0
        for shift, sources in self.prey_steps:
            moved = geese & sources
            reached |= moved << shift if shift > 0 else moved >> -shift
        return reached & self.mask

    def cone(self, geese: int) -> int:
        """Points some goose could still stand on: the geese and everything forward of them.
        Geese never move back, so the fox owns every other point for good."""
        cone = geese
        while True:
            grown = cone | self.one_step(cone)
            if grown == cone:
                return cone
            cone = grown

    def lone(self, geese: int) -> int:
        """Geese that went ahead alone: off the start points, with no goose on any point from which a
        goose steps onto theirs. The points behind them are empty landing points for the fox, and
        only a goose from further back can fill them (minimax geese at depth 5 against a random fox:
        181/200 wins without this term, 195/200 with it)."""
        return geese & ~self.one_step(geese) & ~self.start_points

    def fox_score(self, fox: int, geese: int, fox_to_move: bool) -> int:
        empty = self.mask & ~geese & ~(1 << fox)
        region = self.region(fox, empty)
        cone = self.cone(geese)
        free = region & ~cone
        weak = 0
        for shift, along, back in self.lines:
            # goose g is weak along d when g+d is reachable by the fox and g-d is empty
            reach = along & (region >> shift if shift > 0 else region << -shift)
            behind = back & (empty << shift if shift > 0 else empty >> -shift)
            weak |= reach & behind
        weak &= geese
        threats = 0
        for over, land in self.jumps[fox]:
            if geese >> over & 1 and empty >> land & 1:
                threats += 1
        behind, shifted = 0, geese
        while shifted:
            shifted >>= GRID_WIDTH
            behind |= shifted
        passed = depth = 0
        lowest = ((region & -region).bit_length() - 1) // GRID_WIDTH  # lowest row the fox reaches
        top = len(self.rows) - 1
        for row, bits in enumerate(self.rows):
            if row > lowest:
                passed += (geese & bits).bit_count()
            depth += (top - row) * (region & bits).bit_count()
        score = (
            GOOSE * (self.start_geese - geese.bit_count())
            + FOX_REGION * (region.bit_count() - 1)
            + FOX_REGION_LOW * depth
            + FOX_MOBILITY * (self.neighbours[fox] & empty).bit_count()
            + WEAK_GOOSE * weak.bit_count()
            + BEHIND * (region & behind).bit_count()
            + PASSED_GOOSE * passed
            + LONE_GOOSE * self.lone(geese).bit_count()
        )
        if free:
            score += ESCAPED + FREE_POINT * free.bit_count()
        if GEESE_MOBILITY:
            score -= GEESE_MOBILITY * count_prey_moves(self.tables, fox, geese)
        if fox_to_move:
            score += THREAT_ON_MOVE * threats
        return score - self.offset

    def __call__(self, state: State) -> int:
        fox_to_move = state[2] == PREDATOR
        key = (state[0], state[1], fox_to_move)
        score = self._scores.get(key)
        if score is None:
            if len(self._scores) >= SCORE_CACHE_SIZE:
                self._scores.clear()
            score = self._scores[key] = self.fox_score(state[0], state[1], fox_to_move)
        return score if fox_to_move else -score


class HareHoundsEvaluation:
    """Hare mobility and room, a way past the hounds, the hare's height above the lowest hound,
    hounds that have passed the hare, the stalling counter."""

    def __init__(self, rules: Rules) -> None:
        board = rules.variant.board
        self.mask = board.mask
        self.neighbours = board.neighbours
        self.points = tuple(sorted(board.points))

    def room(self, hare: int, empty: int) -> int:
        """Points the hare can walk to (its own included), by flood fill over empty points."""
        region = frontier = 1 << hare
        neighbours = self.neighbours
        while frontier:
            grown = 0
            while frontier:
                low = frontier & -frontier
                grown |= neighbours[low.bit_length() - 1]
                frontier ^= low
            frontier = grown & empty & ~region
            region |= frontier
        return region

    def __call__(self, state: State) -> int:
        hare, hounds, turn, _, stall = state
        empty = self.mask & ~hounds & ~(1 << hare)
        lowest_row = ((hounds & -hounds).bit_length() - 1) // GRID_WIDTH
        hare_row = hare // GRID_WIDTH
        passed = (hounds >> ((hare_row + 1) * GRID_WIDTH)).bit_count()
        room = self.room(hare, empty)
        way_past = room & ((1 << (lowest_row * GRID_WIDTH)) - 1)  # points below every hound
        score = (
            HOUND_PASSED * passed
            + HARE_MOBILITY * (self.neighbours[hare] & empty).bit_count()
            + HARE_ROOM * (room.bit_count() - 1)
            + (WAY_PAST if way_past else 0)
            - HARE_HEIGHT * (hare_row - lowest_row)
            + STALL * stall
        )
        return score if turn == PREDATOR else -score


def evaluation_for(rules: Rules) -> Evaluation:
    """The evaluation function that fits the rules' variant."""
    if rules.variant.captures:
        return FoxGeeseEvaluation(rules)
    return HareHoundsEvaluation(rules)
