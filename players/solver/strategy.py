"""The winner's strategy from the start, shipped in the package: perfect play without a multi-GB build.

A strategy file holds every position the winner can meet when it follows the strategy (the loser
playing anything), each with the winner's move; `foxgeese solve verify` checks it with the
engine's rules alone: at each of the winner's positions the file has a legal move, every reply
of the loser is followed, and every line ends in the winner's win. Without sideways steps every
line ends, so the check is finite.

Made from the bit tables (`make_strategy`): at each position the winner takes a move that wins
at once if there is one, else the winning move that leaves the loser the fewest replies (ties:
the first in move-text order) — fewer replies, a smaller file.

File format (version `STRATEGY_FORMAT_VERSION`): the magic line, a 4-byte little-endian JSON
length, the JSON header (goose count, winner, positions), then the sorted keys (uint64:
the geese's 7x7 grid mask << 6 | the fox's grid bit) and one uint8 per key: the index of the move in the
position's legal moves sorted by text.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import click
import numpy as np

from foxgeese.engine import Move, Position, Side
from foxgeese.players.solver.bitlayout import grid_bit, mask_of
from foxgeese.usage import fail

STRATEGY_FORMAT_VERSION = 1
MAGIC = b"FOXGEESE-STRATEGY\n"
SHIPPED = Path(__file__).parent / "strategies"
COUNTS = (13, 15, 17)


class StrategyError(ValueError):
    """A strategy file that is missing, damaged, or fails its check."""


def strategy_path(geese: int, directory: Path = SHIPPED) -> Path:
    return directory / f"standard-{geese}geese.fgs"


def key_of(position: Position) -> int:
    """The pieces as one 55-bit key: the geese as a 7x7 grid mask, then the fox's grid bit."""
    return mask_of(position.prey) << 6 | grid_bit(position.predator)


def sorted_moves(position: Position) -> list[Move]:
    return sorted(position.legal_moves(), key=str)


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
        moves = sorted_moves(position)
        index = int(self.moves[at])
        return moves[index] if index < len(moves) else None


def save_strategy(path: Path, header: dict[str, Any], table: dict[int, int]) -> None:
    keys = np.array(sorted(table), dtype="<u8")
    moves = np.array([table[int(k)] for k in keys], dtype=np.uint8)
    text = json.dumps(dict(header, format_version=STRATEGY_FORMAT_VERSION, positions=len(keys)),
                      sort_keys=True).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(MAGIC + struct.pack("<I", len(text)) + text + keys.tobytes() + moves.tobytes())
    tmp.replace(path)


def load_strategy(path: Path) -> Strategy:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise StrategyError(f"no strategy {path.name} in {path.parent}") from None
    if not data.startswith(MAGIC):
        raise StrategyError(f"{path} is not a foxgeese strategy file")
    try:
        (length,) = struct.unpack_from("<I", data, len(MAGIC))
        start = len(MAGIC) + 4
        header = json.loads(data[start: start + length])
        n = header["positions"]
        body = start + length
        keys = np.frombuffer(data, dtype="<u8", count=n, offset=body)
        moves = np.frombuffer(data, dtype=np.uint8, count=n, offset=body + 8 * n)
    except (struct.error, ValueError, KeyError) as error:
        raise StrategyError(f"{path} is damaged ({error})") from None
    if header.get("format_version") != STRATEGY_FORMAT_VERSION:
        raise StrategyError(f"{path} has format version {header.get('format_version')}, "
                            f"this build reads {STRATEGY_FORMAT_VERSION}")
    return Strategy(header, keys, moves)


@lru_cache(maxsize=None)
def shipped(geese: int) -> Strategy | None:
    path = strategy_path(geese)
    return load_strategy(path) if path.exists() else None


def shipped_move(position: Position) -> Move | None:
    """The shipped strategy's move in a position of standard (no sideways) it covers, else None."""
    geese = position.variant.option_dict.get("geese")
    if geese not in COUNTS or position.variant.option_dict.get("sideways"):
        return None
    strategy = shipped(geese)  # made from the start with that many geese: a key is the pieces alone
    if strategy is None or position.turn != strategy.winner:
        return None
    return strategy.move(position)


# -- making one from the tables -------------------------------------------------------------------


def make_strategy(start: Position, tables: Any, *, limit: int = 6_000_000,
                  progress: Callable[[str], None] | None = None) -> tuple[dict[str, Any], dict[int, int]]:
    """The winner's strategy from `start` (a `standard` position, no sideways), from StrongTables.

    Raises StrategyError when it passes `limit` positions (the shipped files must stay small).
    """
    geese = start.prey.bit_count()
    fox_wins = not tables.geese_win(start)
    winner = Side.PREDATOR if fox_wins else Side.PREY
    table: dict[int, int] = {}
    seen: set[int] = set()
    stack = [start]
    while stack:
        position = stack.pop()
        key = key_of(position) << 1 | int(position.turn)
        if key in seen or position.outcome() is not None:
            continue
        seen.add(key)
        moves = sorted_moves(position)
        if position.turn == winner:
            index = _winning_index(position, moves, tables)
            table[key_of(position)] = index
            stack.append(position.play(moves[index]))
            if len(table) > limit:
                raise StrategyError(f"the {geese}-geese strategy passes {limit:,} positions")
            if progress and len(table) % 100_000 == 0:
                progress(f"{geese} geese: {len(table):,} positions of the winner so far")
        else:
            stack.extend(position.play(move) for move in moves)
    header = {"start": start.text(), "geese": geese, "winner": "fox" if fox_wins else "geese"}
    return header, table


def _winning_index(position: Position, moves: list[Move], tables: Any) -> int:
    best, best_replies = -1, None
    for index, move in enumerate(moves):
        if tables.mover_wins_after(position, move) is not True:
            continue
        after = position.play(move)
        if after.outcome() is not None:
            return index
        replies = len(after.legal_moves())
        if best_replies is None or replies < best_replies:
            best, best_replies = index, replies
    if best < 0:
        raise StrategyError(f"{position.text()}: the winner has no winning move; the tables are wrong")
    return best


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
        fail(f"no strategy is shipped in {SHIPPED} yet (the fox's 13-geese strategy has not been made small enough: "
             "see docs/solver.md); the solver plays from the bit tables: `foxgeese solve standard --geese 13`")
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
