"""`foxgeese show RECORD` and `foxgeese show DIR GAME_ID`: a finished game as text.

A game is read from a record file (what `foxgeese play --record` writes) or, by its id, from a
tournament: `DIR` (its `journal.jsonl` is read) or the journal file itself. By default the output
is the move list (think time, clock left, the bot's info), the final board and the result;
`--all` draws the board after every move instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from foxgeese.engine.game import Game
from foxgeese.engine.position import Position
from foxgeese.engine.render import draw_board
from foxgeese.tournaments.replay import result_text
from foxgeese.usage import fail

JOURNAL = "journal.jsonl"


def is_game_source(source: str) -> bool:
    """True for a record file, a journal file or a tournament folder (not a variant id)."""
    return Path(source).is_file() or (Path(source) / JOURNAL).is_file()


def show_game(source: str, game_ids: tuple[str, ...], all_boards: bool) -> None:
    record, name = load_game(source, game_ids)
    game = replay_record(record, name)
    click.echo(_heading(record, game))
    entries = [entry if isinstance(entry, dict) else {"move": entry} for entry in record["moves"]]
    for entry, position in zip(entries, game.positions):
        entry["side"] = entry.get("side") or position.variant.side_name(position.turn)
    if all_boards:
        for number, position in enumerate(game.positions):
            heading = "start" if number == 0 else f"ply {number}: {entries[number - 1]['move']}"
            click.echo(f"{heading}\n{draw_board(position)}\n")
    else:
        for number, entry in enumerate(entries, 1):
            click.echo(_move_line(number, entry))
        click.echo(f"\nafter ply {len(game.moves)}:\n{draw_board(game.position)}")
    click.echo(game.position.text())
    if record.get("termination"):
        click.echo(f"result: {result_text(record)}")


def load_game(source: str, game_ids: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    """The record named by SOURCE (and GAME_ID for a tournament), with a name for messages."""
    path = Path(source)
    journal = path / JOURNAL if path.is_dir() else path if path.suffix == ".jsonl" else None
    if journal is None:
        if game_ids:
            fail(f"{source} is one game record; drop {game_ids[0]!r} (game ids are for a tournament folder)")
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(record, dict) or "start" not in record or "moves" not in record:
                raise ValueError("expected JSON with 'start' and 'moves'")
        except (OSError, ValueError) as error:
            fail(f"{source}: not a game record ({error}); for a tournament game give its folder and id: "
                 "foxgeese show DIR GAME_ID")
        return record, source
    games = dict(sorted(_journal_games(journal).items()))
    if len(game_ids) != 1:
        listed = ", ".join(list(games)[:8]) + (", ..." if len(games) > 8 else "")
        fail(f"{source} holds {len(games)} games; name one: foxgeese show {source} GAME_ID"
             + (f" (ids: {listed})" if games else ""))
    game_id = game_ids[0]
    if game_id not in games:
        listed = f"{next(iter(games))} to {list(games)[-1]}" if games else "none yet"
        fail(f"no game {game_id!r} in {journal}; its games: {listed}")
    return games[game_id], f"{source} {game_id}"


def replay_record(record: dict[str, Any], name: str) -> Game:
    """The game of a record, replayed from its `start` with every move checked."""
    try:
        game = Game.from_position(Position.from_text(record["start"]))
        moves = [entry["move"] if isinstance(entry, dict) else entry for entry in record["moves"]]
    except (ValueError, KeyError, TypeError) as error:
        fail(f"{name}: not a game record ({error}); expected JSON with 'start' and 'moves'")
    for number, text in enumerate(moves, 1):
        try:
            game.push(game.parse_move(text))
        except ValueError as error:
            fail(f"{name}: ply {number}: {error}")
    return game


def _journal_games(journal: Path) -> dict[str, dict[str, Any]]:
    """Game id -> record, from the journal's game lines (a torn last line is skipped)."""
    games: dict[str, dict[str, Any]] = {}
    try:
        lines = journal.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        fail(f"cannot read {journal}: {error.strerror}")
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("record"), dict) and "id" in entry:
            games.setdefault(str(entry["id"]), entry["record"])
    return games


def _heading(record: dict[str, Any], game: Game) -> str:
    bots = record.get("bots") or {}
    seats = " vs ".join(f"{side} {seat.get('name', '?')}" for side, seat in bots.items() if isinstance(seat, dict))
    parts = [str(record.get("game_id", "")), str(game.position.variant), record.get("time_control", ""), seats]
    return " · ".join(part for part in parts if part)


def _move_line(number: int, entry: dict[str, Any]) -> str:
    line = f"{number:4d}. {entry.get('side', ''):<6} {entry['move']:<14}"
    if entry.get("book"):
        return line + "opening"
    line += f"{entry.get('think_ms', 0):6d} ms  clock {entry.get('clock_ms', 0) / 1000:8.3f}s"
    info = entry.get("info") or {}
    parts = [f"{key} {info[key]}" for key in ("score", "mate", "depth", "nodes") if key in info]
    if info.get("pv"):
        parts.append("pv " + " ".join(info["pv"][:8]))
    return line + ("  " + ", ".join(parts) if parts else "")
