"""What `foxgeese solve standard --geese N` prints: the strong solve's figures and the start's value."""

from __future__ import annotations

import time
from collections.abc import Callable

import click

from foxgeese.engine import Position, Side, Variant
from foxgeese.engine.variants import Role
from foxgeese.players.solver.strong import StrongBuilder, StrongTables, standard_layout, totals
from foxgeese.terminal import make_console, print_table, table


def _winner(position: Position, tables: StrongTables) -> str:
    return "geese win" if tables.geese_win(position) else "fox wins"


def throttled_progress(every_s: float = 5.0) -> Callable[[str], None]:
    """A build's progress callback that prints to stderr at most every `every_s` seconds (and at 100%),
    so a long build shows it is alive without flooding the terminal."""
    last = [0.0]

    def progress(text: str) -> None:
        now = time.monotonic()
        if now - last[0] >= every_s or "100%" in text:
            last[0] = now
            click.echo(text, err=True)

    return progress


def strong_solve(variant: Variant, geese: int, position: Position | None, tables: str | None,
                 threads: int | None) -> None:
    """Builds (with progress) or loads the bit tables of `variant`'s rules up to `geese`, then reports."""
    builder = StrongBuilder(tables, progress=throttled_progress(), threads=threads, layout=standard_layout(variant))
    started = time.perf_counter()
    headers = builder.build(geese)
    seconds = time.perf_counter() - started
    table_set = StrongTables(builder.directory, builder.layout)
    click.echo(f"{rules_named(variant)}, solved for 4 to {geese} geese in {builder.directory} "
               f"(this run {seconds:.1f} s; build times as recorded):")
    shown = table("", ("geese", "positions", "geese to move: geese win", "fox to move: geese win", "build s", "MB"),
                  left=0)
    for header in headers:
        counts = totals(header, builder.layout)
        shown.add_row(str(header["geese"]), f"{2 * counts['positions_per_side']:,}",
                      f"{counts['geese_to_move_geese_wins']:,}", f"{counts['fox_to_move_geese_wins']:,}",
                      f"{header['build_seconds']:.1f}", f"{header['words'] * 8 / 1e6:.0f}")
    print_table(make_console(), shown)
    click.echo("(positions: both sides to move, fox on any empty point)")
    if position is None:
        starts = [other for other in variant.row.variants() if other.table_key == variant.table_key]
        position = next((other.start_position() for other in starts if other.prey_count == geese), None)
    if position is not None:
        report_position(position, table_set)


def rules_named(variant: Variant) -> str:
    """`standard (no sideways)`, `standard (no sideways, diagonals=alternating)`: the rules a table solves."""
    row = variant.row
    named = ["no sideways" if "sideways" in row.option_names and not variant.option("sideways") else ""]
    named += [f"{option.name}={option.text(variant.option(option.name))}" for option in row.options
              if option.role is Role.BOARD and variant.option(option.name) != option.default]
    shown = ", ".join(part for part in named if part)
    return f"{variant.id} ({shown})" if shown else variant.id


def report_position(position: Position, tables: StrongTables) -> None:
    """The value of `position`, of each move, and the replies to one move that wins (or to the first)."""
    click.echo(f"{position.text()}: {_winner(position, tables)}")
    moves = position.legal_moves()
    if not moves:
        click.echo("  (the game is over)")
        return
    mover_wins_with = []
    mover = position.turn
    for move in moves:
        after = position.play(move)
        verdict = _winner(after, tables)
        click.echo(f"  {str(move):<12} {verdict}")
        if (verdict == "geese win") == (mover == Side.PREY):
            mover_wins_with.append((move, after))
    shown_move, shown = mover_wins_with[0] if mover_wins_with else (moves[0], position.play(moves[0]))
    replies = shown.legal_moves()
    label = "winning" if mover_wins_with else "(losing)"
    click.echo(f"replies to the {label} move {shown_move}:")
    for reply in replies:
        click.echo(f"  {str(reply):<12} {_winner(shown.play(reply), tables)}")
    if not replies:
        click.echo("  (none: the game is over)")
