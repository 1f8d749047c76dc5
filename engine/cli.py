"""`foxgeese perft`, `foxgeese legal` and `foxgeese show`: the rules from the command line.

Other tools drive these, so their output is plain: one item per line, the answer last.
"""

from __future__ import annotations

import time

import click

from foxgeese.engine.errors import InvalidPositionError, UnknownVariantError
from foxgeese.engine.game import Game
from foxgeese.engine.perft import divide, perft
from foxgeese.engine.position import Position
from foxgeese.engine.render import draw_board
from foxgeese.engine.variants import VARIANT_IDS, get_variant
from foxgeese.usage import fail


def variant_options(function):
    """The `VARIANT [--geese N] [--sideways]` arguments shared by the engine commands."""
    function = click.option("--sideways", is_flag=True, default=None, help="standard: geese may also step sideways")(
        function
    )
    function = click.option(
        "--geese", "geese", type=int, default=None, help="standard: 13 (default), 15 or 17 geese"
    )(function)
    return function


def start_game(variant_id: str, geese: int | None, sideways: bool | None, position_text: str | None = None) -> Game:
    try:
        if position_text:
            return Game.from_position(Position.from_text(position_text))
        return Game(get_variant(variant_id, geese=geese, sideways=sideways))
    except (UnknownVariantError, InvalidPositionError) as error:
        fail(str(error))


def replay(game: Game, moves: tuple[str, ...]) -> Game:
    """Plays `moves` in order, failing with the ply, the move and why at the first bad one."""
    for text in moves:
        ply = game.position.ply + 1
        try:
            game.push(game.parse_move(text))
        except ValueError as error:  # InvalidMoveError and IllegalMoveError both name the move
            fail(f"ply {ply}: {error}")
    return game


@click.command("perft")
@click.argument("variant", metavar="VARIANT")
@click.argument("depth", type=click.IntRange(0, 64))
@variant_options
@click.option("--divide", "show_divide", is_flag=True, help="also list the count below each first move")
@click.option("--no-hash", is_flag=True, help="count every subtree, sharing nothing (slower)")
def perft_command(variant: str, depth: int, geese: int | None, sideways: bool | None, show_divide: bool, no_hash: bool) -> None:
    """Count the move sequences of DEPTH plies from the start; the count is the last line."""
    game = start_game(variant, geese, sideways)
    began = time.perf_counter()
    if show_divide and depth >= 1:
        parts = divide(game, depth, use_hash=not no_hash)
        for move, count in parts:
            click.echo(f"{move}: {count}")
        total = sum(count for _, count in parts)
    else:
        total = perft(game, depth, use_hash=not no_hash)
    elapsed = time.perf_counter() - began
    click.echo(f"{total:,} leaves in {elapsed:.3f} s ({total / max(elapsed, 1e-9):,.0f}/s)", err=True)
    click.echo(total)


@click.command("legal")
@click.argument("variant", metavar="VARIANT")
@click.argument("moves", nargs=-1)
@variant_options
@click.option("--position", "position_text", default=None, help="start from this position text instead")
def legal_command(variant: str, moves: tuple[str, ...], geese: int | None, sideways: bool | None, position_text: str | None) -> None:
    """Play MOVES from the start and list the legal moves, or `game over: WINNER TERMINATION`."""
    game = replay(start_game(variant, geese, sideways, position_text), moves)
    outcome = game.outcome()
    if outcome:
        click.echo(f"game over: {outcome.winner.value} {outcome.termination.value}")
        return
    for move in game.legal_moves():
        click.echo(str(move))


@click.command("show")
@click.argument("source", metavar="VARIANT|RECORD|DIR")
@click.argument("moves", nargs=-1, metavar="[MOVES...|GAME_ID]")
@variant_options
@click.option("--position", "position_text", default=None, help="start from this position text instead")
@click.option("--all", "all_boards", is_flag=True, help="a game: draw the board after every move")
def show_command(source: str, moves: tuple[str, ...], geese: int | None, sideways: bool | None,
                 position_text: str | None, all_boards: bool) -> None:
    """Draw the board after MOVES; or show a game: a RECORD file (JSON), or a tournament's game by
    its id (`foxgeese show DIR GAME_ID`, DIR being the tournament folder or its journal.jsonl):
    the move list, the final board and the result (`--all`: every board)."""
    from foxgeese.show import is_game_source, show_game

    if source not in VARIANT_IDS and is_game_source(source):
        show_game(source, moves, all_boards)
        return
    game = replay(start_game(source, geese, sideways, position_text), moves)
    click.echo(draw_board(game.position))
    click.echo(game.position.text())
    outcome = game.outcome()
    if outcome:
        click.echo(f"game over: {outcome.winner.value} {outcome.termination.value}")


def register(group: click.Group) -> None:
    for command in (perft_command, legal_command, show_command):
        group.add_command(command)
