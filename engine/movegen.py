"""Move generation on raw integers: a predator point and a prey bitmask.

Prey steps are generated a whole direction at a time by shifting the prey bitmask; fox captures
by a depth-first walk over the per-point jump table. The `count_*` functions give the number of
moves without building them, which is what perft does at its last ply. Every step (predator or
prey) is a `Move` made once per variant and looked up by its target: the searches ask for move
lists at every node, and building a NamedTuple there cost a quarter of an MCTS playout.
"""

from __future__ import annotations

from dataclasses import dataclass

from foxgeese.engine.board import delta
from foxgeese.engine.move import Move
from foxgeese.engine.variants import Variant

# Per point: the (jumped point, landing point) pairs of the fox's jumps from there.
JumpTable = tuple[tuple[tuple[int, int], ...], ...]
# Per target point: the step onto it (None where no such step exists).
StepMoves = tuple[Move | None, ...]

_new_move = tuple.__new__  # Move(path, capture) without NamedTuple's Python-level __new__


@dataclass(frozen=True)
class MoveTables:
    board_mask: int
    neighbours: tuple[int, ...]
    jumps: JumpTable
    # Per allowed prey direction: (shift, points that can step that way, raises a row)
    prey_shifts: tuple[tuple[int, int, bool], ...]
    # The same directions with their steps: (shift, points that can step that way, steps by target)
    prey_steps: tuple[tuple[int, int, StepMoves], ...]
    # Per predator point: its steps by target
    predator_steps: tuple[StepMoves, ...]
    # The same directions with what a step does to the prey bitmask:
    # (shift, points that can step that way, raises a row, per target the bits of origin and target)
    prey_flips: tuple[tuple[int, int, bool, tuple[int, ...]], ...]
    # The same directions split by the way they shift, as (bits to shift by, points that can step):
    # up (towards higher points) and down, for the counts (no sign test per direction)
    prey_up: tuple[tuple[int, int], ...]
    prey_down: tuple[tuple[int, int], ...]


def build_tables(variant: Variant) -> MoveTables:
    """The variant's tables; its `Rules` (`Variant.rules`) makes them once and keeps them."""
    board = variant.board
    size = len(board.neighbours)
    shifts = tuple(
        (delta(d), board.step_sources[d], d[1] > 0) for d in variant.prey_directions if board.step_sources[d]
    )
    prey_steps = tuple(
        (shift, sources, _steps_onto(sources << shift if shift > 0 else sources >> -shift, -shift, size))
        for shift, sources, _ in shifts
    )
    predator_steps = tuple(
        tuple(Move((origin, to), False) if board.neighbours[origin] >> to & 1 else None for to in range(size))
        for origin in range(size)
    )
    prey_flips = tuple(
        (shift, sources, raises_row, tuple((1 << to | 1 << (to - shift)) if 0 <= to - shift < size else 0
                                           for to in range(size)))
        for shift, sources, raises_row in shifts
    )
    jumps = board.jumps if variant.captures else tuple(() for _ in board.jumps)
    up = tuple((shift, sources) for shift, sources, _ in shifts if shift > 0)
    down = tuple((-shift, sources) for shift, sources, _ in shifts if shift < 0)
    return MoveTables(board.mask, board.neighbours, jumps, shifts, prey_steps, predator_steps, prey_flips, up, down)


def _steps_onto(targets: int, back: int, size: int) -> StepMoves:
    """Per point of `targets`, the step onto it from `back` points away."""
    return tuple(Move((to + back, to), False) if targets >> to & 1 else None for to in range(size))


def prey_moves(tables: MoveTables, predator: int, prey: int) -> list[Move]:
    return prey_steps(tables, prey, tables.board_mask & ~prey & ~(1 << predator))


def prey_steps(tables: MoveTables, prey: int, empty: int) -> list[Move]:
    """The prey's steps onto the points of `empty`, in the order of `prey_moves`."""
    moves: list[Move] = []
    append = moves.append
    for shift, sources, steps in tables.prey_steps:
        movers = prey & sources
        targets = (movers << shift if shift > 0 else movers >> -shift) & empty
        while targets:
            low = targets & -targets
            append(steps[low.bit_length() - 1])  # type: ignore[arg-type]  # a target has its step
            targets ^= low
    return moves


def count_prey_moves(tables: MoveTables, predator: int, prey: int) -> int:
    empty = tables.board_mask & ~(prey | 1 << predator)
    total = 0
    for shift, sources in tables.prey_up:
        total += ((prey & sources) << shift & empty).bit_count()
    for shift, sources in tables.prey_down:
        total += ((prey & sources) >> shift & empty).bit_count()
    return total


def predator_moves(tables: MoveTables, predator: int, prey: int) -> list[Move]:
    """Its steps, then its capture chains: a list whose last move is no capture has none."""
    targets = tables.neighbours[predator] & ~prey
    steps = tables.predator_steps[predator]
    moves: list[Move] = []
    while targets:
        low = targets & -targets
        moves.append(steps[low.bit_length() - 1])  # type: ignore[arg-type]  # a neighbour has its step
        targets ^= low
    if tables.jumps[predator]:
        _add_chains(tables.jumps, predator, prey, (predator,), moves)
    return moves


def _add_chains(jumps: JumpTable, at: int, prey: int, path: tuple[int, ...], out: list[Move]) -> None:
    # The fox has left its start point, so a landing point is free unless a goose stands there.
    for over, land in jumps[at]:
        if prey >> over & 1 and not prey >> land & 1:
            chain = path + (land,)
            out.append(_new_move(Move, (chain, True)))
            _add_chains(jumps, land, prey ^ (1 << over), chain, out)


def count_predator_moves(tables: MoveTables, predator: int, prey: int) -> int:
    total = (tables.neighbours[predator] & ~prey).bit_count()
    if tables.jumps[predator]:
        total += _count_chains(tables.jumps, predator, prey)
    return total


def _count_chains(jumps: JumpTable, at: int, prey: int) -> int:
    total = 0
    for over, land in jumps[at]:
        if prey >> over & 1 and not prey >> land & 1:
            total += 1 + _count_chains(jumps, land, prey ^ (1 << over))
    return total


def has_jump(tables: MoveTables, predator: int, prey: int) -> bool:
    """Whether the fox standing on `predator` could capture right now."""
    for over, land in tables.jumps[predator]:  # a loop, not any(): this runs for every goose step in MCTS
        if prey >> over & 1 and not prey >> land & 1:
            return True
    return False


def has_predator_move(tables: MoveTables, predator: int, prey: int) -> bool:
    return bool(tables.neighbours[predator] & ~prey) or has_jump(tables, predator, prey)


def has_prey_move(tables: MoveTables, predator: int, prey: int) -> bool:
    empty = tables.board_mask & ~(prey | 1 << predator)
    for shift, sources in tables.prey_up:
        if (prey & sources) << shift & empty:
            return True
    for shift, sources in tables.prey_down:
        if (prey & sources) >> shift & empty:
            return True
    return False
