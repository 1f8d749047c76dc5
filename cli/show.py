"""`foxgeese show`: a board after some moves, or a finished game as text (`show RECORD`, `show DIR GAME_ID`).

A game is read from a record file (what `foxgeese play --record` writes) or, by its id, from a
tournament: `DIR` (its `journal.jsonl` is read) or the journal file itself. By default the output
is the move list (think time, clock left, the bot's info), the final board and the result;
`--all` draws the board after every move instead. MOVES after the game go on from its end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from foxgeese.engine.errors import InvalidPositionError
from foxgeese.engine.game import Game
from foxgeese.engine.position import Position
from foxgeese.engine.render import draw_board
from foxgeese.engine.userinput import JsonInputError, did_you_mean, load_json, shown
from foxgeese.engine.variants import VARIANT_IDS
from foxgeese.engine_commands import game_over_line, replay, start_game, variant_options
from foxgeese.tournaments.replay import result_text
from foxgeese.usage import fail

JOURNAL = "journal.jsonl"
MAX_RECORD_BYTES = 16 * 1024 * 1024


@click.command("show")
@click.argument("source", metavar="VARIANT|RECORD|DIR")
@click.argument("moves", nargs=-1, metavar="[MOVES...|GAME_ID]")
@variant_options
@click.option("--position", "position_text", default=None, help="start from this position text instead")
@click.option("--all", "all_boards", is_flag=True, help="a game: draw the board after every move")
def show_command(source: str, moves: tuple[str, ...], geese: int | None, sideways: bool | None,
                 position_text: str | None, all_boards: bool, variant_options: tuple[str, ...] = ()) -> None:
    """Draw the board after MOVES; or show a game: a RECORD file (JSON), or a tournament's game by
    its id (`foxgeese show DIR GAME_ID`, DIR being the tournament folder or its journal.jsonl):
    the move list, the final board and the result (`--all`: every board). MOVES after a game
    go on from its end."""
    if source.strip().lower() not in VARIANT_IDS:
        if position_text is not None or geese is not None or sideways is not None or variant_options:
            fail(f"{shown(source)} is a record: its start position and variant come from the file; "
                 "drop --position, --geese-count, --sideways and --option")
        show_game(source, moves, all_boards)
        return
    game = replay(start_game(source, geese, sideways, position_text, variant_options), moves)
    click.echo(draw_board(game.position))
    click.echo(game.position.text())
    outcome = game.outcome()
    if outcome:
        click.echo(game_over_line(game.position.variant, outcome))


def read_record(source: str) -> dict:
    """A game record's JSON, checked enough to replay: `start` (position text) and `moves`."""
    expected = "expected a game record: JSON with 'start' (position text) and 'moves'"
    try:
        with open(source, "rb") as stream:
            data = stream.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        fail(f"{shown(source)} is neither a variant{did_you_mean(source, VARIANT_IDS)} ({', '.join(VARIANT_IDS)}) "
             "nor a record file")
    except OSError as error:
        fail(f"cannot read {shown(source)}: {error.strerror or error}")
    if len(data) > MAX_RECORD_BYTES:
        fail(f"{shown(source)}: larger than {MAX_RECORD_BYTES // (1024 * 1024)} MB; {expected}")
    try:
        record = load_json(data)
    except JsonInputError as error:
        fail(f"{shown(source)}: {error}; {expected}")
    if not isinstance(record, dict):
        fail(f"{shown(source)}: holds a JSON {_json_kind(record)}; {expected}")
    for key, kind in (("start", str), ("moves", list)):
        if not isinstance(record.get(key), kind):
            found = "missing" if key not in record else f"a JSON {_json_kind(record[key])}"
            fail(f"{shown(source)}: '{key}' is {found}; {expected}")
    moves = [entry.get("move") if isinstance(entry, dict) else entry for entry in record["moves"]]
    if not all(isinstance(move, str) for move in moves):
        fail(f"{shown(source)}: every entry of 'moves' must be move text or an object with a 'move' text")
    try:
        Position.from_text(record["start"])
    except InvalidPositionError as error:
        fail(f"{shown(source)}: start: {error}")
    return record


def _json_kind(value: object) -> str:
    kinds = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return kinds.get(type(value), "number")


def register(group: click.Group) -> None:
    group.add_command(show_command)


def show_game(source: str, rest: tuple[str, ...], all_boards: bool) -> None:
    """Prints one game; `rest` is [GAME_ID] for a tournament, then any MOVES to play after the game."""
    record, name, extra = load_game(source, rest)
    entries = [entry if isinstance(entry, dict) else {"move": entry} for entry in record["moves"]]
    game = replay(Game.from_position(Position.from_text(record["start"])), tuple(entry["move"] for entry in entries))
    recorded = len(game.moves)
    replay(game, extra)
    entries += [{"move": str(move), "after": True} for move in game.moves[recorded:]]
    for entry, position in zip(entries, game.positions):
        entry["side"] = entry.get("side") or position.variant.side_name(position.turn)
    click.echo(_heading(record, game))
    if all_boards:
        for number, position in enumerate(game.positions):
            heading = "start" if number == 0 else f"ply {number}: {entries[number - 1]['move']}"
            after = "  (after the record)" if number > recorded else ""
            click.echo(f"{heading}{after}\n{draw_board(position)}\n")
    else:
        for number, entry in enumerate(entries, 1):
            click.echo(_move_line(number, entry))
        click.echo(f"\nafter ply {len(game.moves)}:\n{draw_board(game.position)}")
    click.echo(game.position.text())
    outcome = game.outcome()
    if record.get("termination") and not extra:
        click.echo(f"result: {result_text(record)}")
    elif outcome is not None:
        click.echo(game_over_line(game.position.variant, outcome))


def load_game(source: str, rest: tuple[str, ...]) -> tuple[dict[str, Any], str, tuple[str, ...]]:
    """The record named by SOURCE (and GAME_ID for a tournament), a name for it, the MOVES after it."""
    path = Path(source)
    try:
        is_dir = path.is_dir()
    except OSError:  # a name the system cannot even look up (too long): read_record says so
        is_dir = False
    journal = path / JOURNAL if is_dir else path if path.suffix == ".jsonl" else None
    if journal is None:
        return read_record(source), source, rest
    if is_dir and not journal.is_file():
        fail(f"{shown(source)} is a folder without {JOURNAL}; give a tournament's output folder or a record file")
    games = dict(sorted(_journal_games(journal).items()))
    if not rest:
        listed = ", ".join(list(games)[:8]) + (", ..." if len(games) > 8 else "")
        fail(f"{source} holds {len(games)} games; name one: foxgeese show {source} GAME_ID"
             + (f" (ids: {listed})" if games else ""))
    game_id = rest[0]
    if game_id not in games:
        listed = f"{next(iter(games))} to {list(games)[-1]}" if games else "none yet"
        fail(f"no game {shown(game_id)} in {journal}; its games: {listed}")
    return games[game_id], f"{source} {game_id}", rest[1:]


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
    if entry.get("after"):
        return line + "(after the record)"
    if entry.get("book"):
        return line + "opening"
    line += f"{entry.get('think_ms', 0):6d} ms  clock {entry.get('clock_ms', 0) / 1000:8.3f}s"
    info = entry.get("info") or {}
    parts = [f"{key} {info[key]}" for key in ("score", "mate", "depth", "nodes") if key in info]
    if info.get("pv"):
        parts.append("pv " + " ".join(info["pv"][:8]))
    return line + ("  " + ", ".join(parts) if parts else "")
