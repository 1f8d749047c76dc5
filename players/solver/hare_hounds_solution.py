"""Hare and Hounds solved completely: the exact value of every state, in plain Python.

A state is (hare point, hound points, side to move, stall counter). The stall counter changes the
result (ten hound moves in a row without raising a row lose for the hounds), so it is part of the
state; the fifty-move and repetition rules do not apply to this variant. Stall 10 states exist
only as terminal ones (the hare has won).

The moves come from the engine's rules core (`rules_for`: `children`, `outcome`), so the solution
follows the rules exactly as the referee applies them. The graph has no cycles: a hound move
either raises a row or raises the stall counter, so every line ends and there are no draws. So
each state is scored once by memoised recursion (the fastest win, else the slowest loss over its
moves), the states reachable from the start first, then the rest — no move graph is stored.
Building takes about 0.06 s (29,040 states); the result is cached on disk, and loading it takes
milliseconds. No numpy, so that `foxgeese solve hare-and-hounds` starts fast; the file is an
ordinary table file (one int16 array, `table_files`).
"""

from __future__ import annotations

import sys
import time
import zlib
from array import array
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, NamedTuple

from foxgeese.engine import Move, Position, Side, Variant, movegen, rules, variants
from foxgeese.engine import board as board_module
from foxgeese.engine import position as position_module
from foxgeese.engine.board import point_name
from foxgeese.engine.rules import State, rules_for
from foxgeese.engine.variants import Tables, every_variant
from foxgeese.players.solver.table_files import (
    NO_MOVE,
    WIN,
    TableError,
    read_header,
    table_dir,
    table_path,
    to_parent,
    write_table,
)

HOUNDS = 3
STALL_STATES = 11  # 0..9 playable, 10 = the hounds have stalled (terminal)
SCORE_TYPE = ("h", "<i2")  # the scores' array type code and the file's dtype (int16, little-endian)
ON_PATH = NO_MOVE + 1  # a state being scored (below every score): met again, it would close a cycle



def solved_variant() -> Variant:
    """The variant this solution solves: the one the variants' table solves whole (Hare and Hounds)."""
    return next(variant for variant in every_variant() if variant.tables is Tables.SOLUTION)

class MoveScore(NamedTuple):
    """One move scored from the solution: what it is worth to the mover, and where it leads.

    `after_score` is the position after the move seen by its own side to move (what `foxgeese
    solve` prints); `score` is the same value seen by the mover (`to_parent(after_score)`), the
    one to maximise.
    """

    move: Move
    score: int
    after: Position
    after_score: int


class Points:
    """The board's points numbered densely (grid order) and the hound sets ranked in colex order:
    together the index of a state in the flat scores array [stall, side, hare, hound-set rank]."""

    def __init__(self) -> None:
        self.grid = sorted(solved_variant().board.points)
        self.size = len(self.grid)
        self.names = [point_name(g) for g in self.grid]
        hound_sets = sorted(combinations(self.grid, HOUNDS), key=lambda points: points[::-1])  # colex
        self.masks = [sum(1 << g for g in points) for points in hound_sets]
        self.rank = {mask: r for r, mask in enumerate(self.masks)}  # a dict look-up, not a rank sum per state
        self.shape = [STALL_STATES, 2, self.size, len(self.masks)]
        self.slots = STALL_STATES * 2 * self.size * len(self.masks)
        # flat = layer[stall][side] + at_hare[hare] + rank[hounds]: three look-ups (the build: per state and move)
        self.layer = [[(stall * 2 + side) * self.size * len(self.masks) for side in (0, 1)]
                      for stall in range(STALL_STATES)]
        self.at_hare = {g: i * len(self.masks) for i, g in enumerate(self.grid)}

    def flat(self, state: State) -> int:
        """The index of a rules `State` (hare, hounds, side, quiet, stall <= 10) in the flat scores array."""
        return self.layer[state[4]][state[2]] + self.at_hare[state[0]] + self.rank[state[1]]


@dataclass
class HareHoundsSolution:
    """Scores of every state (side-to-move view), flat in the order of `Points.flat`."""

    scores: array
    header: dict[str, Any]

    def __post_init__(self) -> None:
        self.variant = solved_variant()
        self.points = Points()

    def index(self, position: Position) -> int:
        hare, hounds, side, _, stall = position.state
        return self.points.flat((hare, hounds, side, 0, min(stall, STALL_STATES - 1)))

    def score(self, position: Position) -> int:
        """The score for the side to move: WIN - plies, -WIN + plies, or 0 for a draw."""
        if position.prey.bit_count() != HOUNDS:
            raise TableError(f"{self.variant.id} positions have {HOUNDS} hounds, not {position.prey.bit_count()}")
        return self.scores[self.index(position)]

    def move_scores(self, position: Position, moves: list[Move] | None = None) -> list[MoveScore]:
        """`moves` (default: every legal move) scored, best for the mover first.

        The one place Hare and Hounds moves are scored: the solver player picks among the best
        and `foxgeese solve` prints them all. The sort is stable, so equal moves keep the engine's
        order and a seeded solver draws the same move among them.
        """
        scored = []
        for move in position.legal_moves() if moves is None else moves:
            after = position.play(move)
            after_score = self.score(after)
            scored.append(MoveScore(move, int(to_parent(after_score)), after, after_score))
        return sorted(scored, key=lambda entry: -entry.score)


def solve() -> tuple[array, dict[str, Any]]:
    """Scores every state by memoised recursion over its moves; returns the scores and figures.

    A state's score is the best `to_parent` of its children's: the fastest win, else the slowest
    loss, exactly what backward induction from the terminal states finds. The graph has no cycles
    (see the module docstring; its longest line is 161 plies, so the recursion stays shallow), and
    a cycle would be reported, not looped on. The start is scored first: the states scored by then
    are the ones its games reach. Then every other state, so that any legal position (a record's
    custom start) is in the table.
    """
    started = time.perf_counter()
    variant = solved_variant()
    rules = rules_for(variant)
    points = Points()
    outcome, children, flat = rules.outcome, rules.children, points.flat
    scores = [NO_MOVE] * points.slots  # NO_MOVE stays where the hare would stand on a hound
    states = edges = 0

    def score(state: State) -> int:
        nonlocal states, edges
        index = flat(state)
        best = scores[index]
        if best == ON_PATH:
            raise AssertionError(f"a cycle through {state}: Hare and Hounds has none under these rules")
        if best != NO_MOVE:
            return best
        states += 1
        ended = outcome(state)
        if ended is not None:
            best = WIN if ended.winner == state[2] else -WIN
        else:
            scores[index] = ON_PATH
            moves = children(state)
            edges += len(moves)
            best = -WIN
            for child in moves:
                option = to_parent(score(child))
                if option > best:
                    best = option
        scores[index] = best
        return best

    score(variant.start_position().state)
    reachable_from_start = states
    for stall in range(STALL_STATES):
        for side in (Side.PREDATOR, Side.PREY):
            for hare in points.grid:
                for mask in points.masks:
                    if not mask >> hare & 1:
                        score((hare, mask, side, 0, stall))
    figures = {
        "variant": solved_variant().id,
        "points": points.names,
        "states": states,
        "edges": edges,
        "draws": scores.count(0),
        "reachable_from_start": reachable_from_start,
        "build_seconds": round(time.perf_counter() - started, 3),
    }
    return array(SCORE_TYPE[0], scores), figures


def rules_fingerprint() -> str:
    """A checksum of the engine's rule modules: a cached solution built under other rules is rebuilt.

    CRC-32, not SHA-256: it only has to notice an edit, and hashlib (OpenSSL) would add a few
    milliseconds to every cold `foxgeese solve hare-and-hounds`."""
    checksum = 0
    for module in (board_module, movegen, position_module, rules, variants):
        assert module.__file__ is not None, module  # the engine is installed as files
        checksum = zlib.crc32(Path(module.__file__).read_bytes(), checksum)
    return f"crc32-{checksum:08x}"


def load_solution(directory: str | Path | None = None, *, rebuild: bool = False) -> HareHoundsSolution:
    """The cached solution (built and saved on first use, when `rebuild`, or when the rules changed)."""
    variant = solved_variant()
    path = table_path(table_dir(directory), variant, None)
    fingerprint = rules_fingerprint()
    if not rebuild:
        try:
            header = read_header(path)
            if header.get("rules") == fingerprint:
                return HareHoundsSolution(_read_scores(path, header), header)
        except TableError as error:
            if path.exists():  # a missing file is the normal first run; anything else is worth a word
                _warn(f"{error}; solving again")
    scores, header = solve()
    data = _little_endian(scores).tobytes()
    header.update(rules=fingerprint, scores_crc32=zlib.crc32(data))
    try:  # not fsynced: a file a power cut leaves short or torn fails the checksum, and is built again
        write_table(path, header, {"scores": (SCORE_TYPE[1], Points().shape, data)}, durable=False)
    except OSError as error:  # a read-only cache is no reason to fail: the solution is in memory
        _warn(f"could not save the Hare and Hounds solution to {path} ({error}); it is solved again next time")
    return HareHoundsSolution(scores, header)


def _read_scores(path: Path, header: dict[str, Any]) -> array:
    """The scores array of a saved solution (80 KB: read, not mapped), checked against its CRC-32."""
    spec = header.get("arrays", {}).get("scores", {})
    if spec.get("dtype") != SCORE_TYPE[1] or spec.get("shape") != Points().shape:
        raise TableError(f"{path} does not hold the Hare and Hounds scores this build expects; rebuild it")
    scores = array(SCORE_TYPE[0])
    with open(path, "rb") as stream:
        stream.seek(header["data_start"] + spec["offset"])
        data = stream.read()
    count = 1
    for extent in spec["shape"]:
        count *= extent
    if len(data) < count * scores.itemsize:
        raise TableError(f"{path} is truncated; rebuild it")
    data = data[:count * scores.itemsize]
    if zlib.crc32(data) != header.get("scores_crc32"):
        raise TableError(f"{path} is damaged (its scores fail their checksum); rebuild it")
    scores.frombytes(data)
    return _little_endian(scores)


def _little_endian(scores: array) -> array:
    """The file's byte order from the machine's and back (a no-op on little-endian machines)."""
    if sys.byteorder == "big":
        scores = array(scores.typecode, scores)
        scores.byteswap()
    return scores


def _warn(text: str) -> None:
    print(f"foxgeese solver: {text}", file=sys.stderr, flush=True)


def reachable(start: Position, sol: HareHoundsSolution) -> int:
    """How many states can occur in games from `start` (forward search)."""
    seen = {sol.index(start)}
    frontier = [start]
    while frontier:
        position = frontier.pop()
        for move in position.legal_moves():
            child = position.play(move)
            key = sol.index(child)
            if key not in seen:
                seen.add(key)
                frontier.append(child)
    return len(seen)
