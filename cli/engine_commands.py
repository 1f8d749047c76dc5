"""`foxgeese perft`, `foxgeese legal` and `foxgeese show`: the rules from the command line.

The engine's click code lives here, in the package root, because the engine imports nothing but
itself and the standard library; these commands only turn arguments into engine calls.

Other tools drive these, so their output is plain: one item per line, the answer last.
"""

from __future__ import annotations

import time

import click

from foxgeese.engine.errors import InvalidPositionError, UnknownVariantError
from foxgeese.engine.game import Game
from foxgeese.engine.outcome import Outcome, Side, Termination, Winner, ending_meaning
from foxgeese.engine.perft import divide, perft
from foxgeese.engine.position import Position
from foxgeese.engine.variants import Variant, get_variant
from foxgeese.params import Integer, option_values, variant_option
from foxgeese.usage import fail


def variant_options(function):
    """The `VARIANT [--geese N] [--sideways] [--option NAME=VALUE]` arguments shared by the engine commands."""
    function = variant_option(function)
    function = click.option("--sideways", is_flag=True, default=None, help="standard: geese may also step sideways")(
        function
    )
    function = click.option(  # --geese-count as in `play`, where --geese names the geese's player
        "--geese-count", "--geese", "geese", type=Integer(), default=None, help="standard: 13 (default), 15 or 17 geese"
    )(function)
    return function


def start_game(variant_id: str, geese: int | None, sideways: bool | None, position_text: str | None = None,
               extra: tuple[str, ...] = ()) -> Game:
    """The game to start from: VARIANT's start, or `--position`, which must be of that VARIANT;
    `extra`: the `--option NAME=VALUE` items."""
    try:
        variant = get_variant(variant_id, **option_values(extra, geese=geese, sideways=sideways))
        if position_text is None:
            return Game(variant)
        position = Position.from_text(position_text)
    except (UnknownVariantError, InvalidPositionError) as error:
        fail(str(error))
    given_options = geese is not None or sideways is not None or bool(extra)
    if position.variant.id != variant.id or (given_options and position.variant is not variant):
        fail(f"--position is a position of {position.variant}, not of {variant}; "
             f"give VARIANT {position.variant.id} (the position text carries its own options)")
    return Game.from_position(position)


def game_over_line(variant: Variant, outcome: Outcome) -> str:
    """`game over: geese win, fox trapped (the fox is to move and has no legal move)` — who won,
    what happened to whom, and what the ending's name means."""
    meaning = ending_meaning(outcome.termination.value, variant.side_name(Side.PREDATOR), variant.side_name(Side.PREY))
    return f"{_game_over(variant, outcome)} ({meaning})" if meaning else _game_over(variant, outcome)


def _game_over(variant: Variant, outcome: Outcome) -> str:
    if outcome.winner == Winner.DRAW:
        return f"game over: draw by {outcome.termination.value}"
    winner = outcome.winner.value
    verb = "win" if winner in ("geese", "hounds") else "wins"
    # The side the ending happened to: the prey captured, stalling or immobilized; the predator
    # trapped or escaped.
    predator_endings = (Termination.TRAPPED, Termination.ESCAPED)
    subject = variant.side_name(Side.PREDATOR if outcome.termination in predator_endings else Side.PREY)
    return f"game over: {winner} {verb}, {subject} {outcome.termination.value}"


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
@click.argument("depth", type=Integer(0, 64))
@variant_options
@click.option("--divide", "show_divide", is_flag=True, help="also list the count below each first move")
@click.option("--no-hash", is_flag=True, help="count every subtree, sharing nothing (slower)")
def perft_command(
    variant: str, depth: int, geese: int | None, sideways: bool | None, show_divide: bool, no_hash: bool,
    variant_options: tuple[str, ...] = (),
) -> None:
    """Count the move sequences of DEPTH plies from the start; the count is the last line."""
    game = start_game(variant, geese, sideways, extra=variant_options)
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
def legal_command(
    variant: str, moves: tuple[str, ...], geese: int | None, sideways: bool | None, position_text: str | None,
    variant_options: tuple[str, ...] = (),
) -> None:
    """Play MOVES from the start and list the legal moves, or `game over: WINNER TERMINATION`."""
    game = replay(start_game(variant, geese, sideways, position_text, variant_options), moves)
    outcome = game.outcome()
    if outcome:
        click.echo(game_over_line(game.position.variant, outcome))
        return
    for move in game.legal_moves():
        click.echo(str(move))


def register(group: click.Group) -> None:
    for command in (perft_command, legal_command):
        group.add_command(command)
