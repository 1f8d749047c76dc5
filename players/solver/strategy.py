"""The winner's strategy from the start, shipped in the package: perfect play without a multi-GB build.

A strategy file holds every position the winner can meet when it follows the strategy (the loser
playing anything), each with the winner's move; `foxgeese solve verify` checks it with the
engine's rules alone: at each of the winner's positions the file has a legal move, every reply
of the loser is followed, and every line ends in the winner's win. Without sideways steps every
line ends, so the check is finite.

Made from the bit tables (`make_strategy`, compiled in `strategy_kernels`), level by level: the
winner takes a move that ends the game at once if there is one, else (the fox) the winning move
that captures most, then the one that leaves the loser the fewest replies — a smaller file.

File format (version `STRATEGY_FORMAT_VERSION`): the magic line, a 4-byte little-endian JSON
length, the JSON header (goose count, winner, positions), then an lzma stream of the sorted keys
delta-coded (uint64; a key is the geese's 7x7 grid mask << 6 | the fox's grid bit) and one uint32
per key: the move's code (`move_code`: for the fox its landing point and the geese it takes, for
the geese the step's two points), matched against the engine's legal moves when played.
"""

from __future__ import annotations

import io
import lzma
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import numpy as np

from foxgeese.engine import Move, Position, Side
from foxgeese.engine.position import MIN_GEESE
from foxgeese.files import atomic_write
from foxgeese.players.solver.bitlayout import grid_bit, mask_of
from foxgeese.players.solver.compiled import kernels as compiled_kernels
from foxgeese.players.solver.fileheader import FileKind, pack_header
from foxgeese.players.solver.fileheader import read_header as read_file_header
from foxgeese.players.solver.strong import KEY
from foxgeese.players.solver.tables import TableError
from foxgeese.usage import fail

STRATEGY_FORMAT_VERSION = 2
MAGIC = b"FOXGEESE-STRATEGY\n"
SHIPPED = Path(__file__).parent / "strategies"
COUNTS = (13, 15, 17)


class StrategyError(ValueError):
    """A strategy file that is missing, damaged, or fails its check."""


STRATEGY_FILE = FileKind(MAGIC, STRATEGY_FORMAT_VERSION, "strategy file", StrategyError)


def strategy_path(geese: int, directory: Path = SHIPPED) -> Path:
    return directory / f"standard-{geese}geese.fgs"


def key_of(position: Position) -> int:
    """The pieces as one 55-bit key: the geese as a 7x7 grid mask, then the fox's grid bit."""
    return mask_of(position.prey) << 6 | grid_bit(position.predator)


def move_code(position: Position, move: Move) -> int:
    """What `strategy_kernels` calls a move: the fox's landing point | the geese it takes (as a subset of
    the position's geese in grid order) << 6; a goose step's from | to << 6 (grid bits)."""
    if position.turn == Side.PREY:
        return grid_bit(move.path[0]) | grid_bit(move.path[-1]) << 6
    taken = position.prey & ~position.play(move).prey
    subset, i, rest = 0, 0, position.prey
    while rest:
        low = rest & -rest
        rest ^= low
        if taken & low:
            subset |= 1 << i
        i += 1
    return grid_bit(move.path[-1]) | subset << 6


class Strategy:
    def __init__(self, header: dict[str, Any], keys: np.ndarray, moves: np.ndarray) -> None:
        self.header = header
        self.keys = keys
        self.moves = moves
        self.winner = Side.PREDATOR if header["winner"] == "fox" else Side.PREY

    def move(self, position: Position) -> Move | None:
        """The strategy's move here, or None when the position is not in it."""
        key = key_of(position)
        at = int(np.searchsorted(self.keys, key))
        if at >= len(self.keys) or int(self.keys[at]) != key:
            return None
        code = int(self.moves[at])
        for move in position.legal_moves():
            if move_code(position, move) == code:
                return move
        return None


def save_strategy(path: Path, header: dict[str, Any], keys: np.ndarray, codes: np.ndarray) -> int:
    """Writes the file (keys sorted); returns its size in bytes."""
    keys = np.asarray(keys, dtype="<u8")
    body = np.diff(keys, prepend=np.uint64(0)).astype("<u8").tobytes() + np.asarray(codes, dtype="<u4").tobytes()
    data = pack_header(STRATEGY_FILE, dict(header, positions=len(keys))) + lzma.compress(body, preset=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, "wb") as out:
        out.write(data)
    return len(data)


def load_strategy(path: Path) -> Strategy:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise StrategyError(f"no strategy {path.name} in {path.parent}") from None
    header, end = read_file_header(io.BytesIO(data), path, STRATEGY_FILE)
    try:
        n = header["positions"]
        body = lzma.decompress(data[end:])
        keys = np.cumsum(np.frombuffer(body, dtype="<u8", count=n), dtype=np.uint64)
        moves = np.frombuffer(body, dtype="<u4", count=n, offset=8 * n)
    except (ValueError, KeyError, TypeError, lzma.LZMAError) as error:
        raise StrategyError(f"{path} is damaged ({error})") from None
    return Strategy(header, keys, moves)


class ShippedStrategies:
    """The strategies shipped in `directory` (the package's by default), each read at its first use:
    at most one per goose count of `COUNTS`, kept by their owner (a solver player)."""

    def __init__(self, directory: Path = SHIPPED) -> None:
        self.directory = directory
        self._read: dict[int, Strategy | None] = {}  # goose count -> its strategy, None: not shipped

    def strategy(self, geese: int) -> Strategy | None:
        if geese not in self._read:
            path = strategy_path(geese, self.directory)
            self._read[geese] = load_strategy(path) if path.exists() else None
        return self._read[geese]

    def move(self, position: Position) -> Move | None:
        """The shipped strategy's move in a position of standard (no sideways) it covers, else None."""
        geese = position.variant.option("geese")
        if geese not in COUNTS or position.variant.table_key != KEY:  # made for the default variant's rules
            return None
        strategy = self.strategy(geese)  # made from the start with that many geese: a key is the pieces alone
        if strategy is None or position.turn != strategy.winner:
            return None
        return strategy.move(position)


# -- making one from the tables -------------------------------------------------------------------


def level_of(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(geese, row sum) of each key: a node's moves lead to fewer geese or a higher row sum."""
    masks = keys >> 6
    geese = np.bitwise_count(masks.astype(np.uint64)).astype(np.int64)
    row_sum = np.zeros_like(geese)
    for r in range(7):
        row_sum += r * np.bitwise_count(((masks >> (7 * r)) & 127).astype(np.uint64)).astype(np.int64)
    return geese, row_sum


def make_strategy(start: Position, tables: Any, *, limit: int = 20_000_000,
                  progress: Callable[[str], None] | None = None) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The winner's strategy from `start` (a `standard` position, no sideways), from StrongTables.

    Level by level (geese down, row sum up: every move leads to a later level), in the compiled
    kernels of `strategy_kernels`. Returns (header, sorted keys, move codes). Raises
    StrategyError when it passes `limit` positions of the winner (the shipped files must stay small).
    """
    try:  # numba loads here: playing a shipped strategy does not need it
        strategy_kernels = compiled_kernels("strategy_kernels", "making a strategy")
    except TableError as error:
        raise StrategyError(str(error)) from None
    from numba.typed import List

    geese = start.prey.bit_count()
    top = tables.available()
    if top < geese:
        raise StrategyError(f"making the {geese}-geese strategy needs the bit tables up to {geese} geese "
                            f"(on disk: up to {top}); build them with `foxgeese solve standard --geese {geese}`")
    words = List()
    for k in range(MIN_GEESE, geese + 1):
        words.append(tables.words(k))
    fox_wins = not tables.geese_win(start)
    layout = tables.layout
    winner = Side.PREDATOR if fox_wins else Side.PREY
    starts = [start] if start.turn == winner else [start.play(m) for m in start.legal_moves()]
    first = np.unique(np.array([key_of(p) for p in starts if p.outcome() is None], dtype=np.int64))
    pending: dict[tuple[int, int], list[np.ndarray]] = {}
    for key, k, s in zip(first, *level_of(first)):
        pending.setdefault((int(k), int(s)), []).append(first[first == key])
    found_keys, found_codes = [], []
    positions = 0
    while pending:
        level = min(pending, key=lambda at: (-at[0], at[1]))
        keys = np.unique(np.concatenate(pending.pop(level)))
        codes, after, count = (np.zeros(len(keys), dtype=np.int64) for _ in range(3))
        strategy_kernels.choose(keys, fox_wins, words, layout.board, layout.radix, layout.row_rank, layout.stride,
                                layout.block_word, layout.goose_shift, layout.goose_from, layout.step_shift,
                                layout.step_from, layout.jump_over, codes, after, count)
        if (count == -2).any():
            raise StrategyError(f"{keys[count == -2][0]}: the winner has no winning move; the tables are wrong")
        if (count == -3).any():
            raise StrategyError(f"{keys[count == -3][0]}: more capture chains than the kernel lists")
        found_keys.append(keys)
        found_codes.append(codes)
        positions += len(keys)
        if positions > limit:
            raise StrategyError(f"the {geese}-geese strategy passes {limit:,} positions of the winner "
                                f"({positions:,} at {level[0]} geese, row sum {level[1]})")
        counts = np.maximum(count, 0)
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        reached = np.zeros(int(offsets[-1]), dtype=np.int64)
        strategy_kernels.replies(after, fox_wins, offsets, layout.board, layout.goose_shift, layout.goose_from,
                                 layout.step_shift, layout.step_from, layout.jump_over, reached)
        reached = np.unique(reached)
        kk, ss = level_of(reached)
        order = np.lexsort((ss, kk))
        reached, kk, ss = reached[order], kk[order], ss[order]
        bounds = np.flatnonzero((np.diff(kk) != 0) | (np.diff(ss) != 0)) + 1
        for part in np.split(np.arange(len(reached)), bounds):
            if len(part):
                pending.setdefault((int(kk[part[0]]), int(ss[part[0]])), []).append(reached[part])
        if progress:
            progress(f"{geese} geese: {level[0]} geese, row sum {level[1]}: {len(keys):,} positions of the "
                     f"winner ({positions:,} so far)")
    keys = np.concatenate(found_keys)
    codes = np.concatenate(found_codes)
    order = np.argsort(keys)
    header = {"start": start.text(), "geese": geese, "winner": "fox" if fox_wins else "geese"}
    return header, keys[order], codes[order]


# -- checking one with the engine alone -----------------------------------------------------------


def verify(strategy: Strategy) -> dict[str, int]:
    """Follows every line of the loser against the strategy from its start, with the engine's rules alone."""
    start = Position.from_text(strategy.header["start"])
    winner_name = start.variant.side_name(strategy.winner)
    seen: set[int] = set()
    stack = [start]
    checked = ends = 0
    while stack:
        position = stack.pop()
        key = key_of(position) << 1 | int(position.turn)
        if key in seen:
            continue
        seen.add(key)
        ended = position.outcome()
        if ended is not None:
            if ended.winner.value != winner_name:
                raise StrategyError(f"{position.text()}: the line ends in {ended}, not a {winner_name} win")
            ends += 1
            continue
        if position.turn == strategy.winner:
            move = strategy.move(position)
            if move is None:
                raise StrategyError(f"{position.text()}: the strategy has no move for the {winner_name} here")
            checked += 1
            stack.append(position.play(move))
        else:
            stack.extend(position.play(move) for move in position.legal_moves())
    if checked != len(strategy.keys):
        raise StrategyError(f"the strategy holds {len(strategy.keys):,} positions but the lines reach {checked:,}")
    return {"winner_positions": checked, "positions": len(seen), "endings": ends}


def verify_command(tables: str | None) -> None:
    """The body of `foxgeese solve verify`."""
    found = [geese for geese in COUNTS if strategy_path(geese).exists()]
    if not found:
        fail(f"no strategy is shipped in {SHIPPED} (the fox's 13-geese strategy alone is far over the package's "
             "budget: see docs/solver.md); the solver plays perfectly from the bit tables: "
             "`foxgeese solve standard --geese 13`")
    for geese in found:
        try:
            strategy = load_strategy(strategy_path(geese))
            figures = verify(strategy)
        except StrategyError as error:
            fail(str(error))
        winner = "fox" if strategy.winner == Side.PREDATOR else "geese"
        click.echo(f"standard, {geese} geese: the {winner} win; strategy verified with the engine's rules: "
                   f"{figures['winner_positions']:,} positions of the {winner}, {figures['positions']:,} in all, "
                   f"{figures['endings']:,} ends, every one a {winner} win")
    missing = [geese for geese in COUNTS if geese not in found]
    if missing:
        click.echo(f"not shipped: {', '.join(map(str, missing))} geese (see docs/solver.md)")
