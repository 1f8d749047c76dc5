"""What `foxgeese solve standard --sideways --geese N` and `foxgeese solve great-cross --geese N` print."""

from __future__ import annotations

import errno
import time

import click

from foxgeese.engine import Position, Side
from foxgeese.engine.variants import Variant
from foxgeese.players.solver.strong_report import throttled_progress
from foxgeese.players.solver.wdl import WdlBuilder, WdlTables, wdl_totals
from foxgeese.terminal import make_console, print_table, table
from foxgeese.usage import fail

_WORDS = {1: "wins", 0: "draw", -1: "loses"}


def value_text(position: Position, value: int) -> str:
    """`fox wins` / `geese win` / `draw` for a value seen by the side to move."""
    if value == 0:
        return "draw"
    winner = position.turn if value > 0 else position.turn.other
    return "fox wins" if winner == Side.PREDATOR else "geese win"


def wdl_solve(variant: Variant, geese: int, position: Position | None, tables: str | None, threads: int | None,
              *, max_memory: float | None = None, estimate: bool = False) -> None:
    """Builds (with progress) or loads the two-bit tables up to `geese`, then reports."""
    builder = WdlBuilder(variant, tables, progress=throttled_progress(), threads=threads, max_memory_gb=max_memory,
                         notice=lambda text: click.echo(text, err=True))
    if estimate:
        for line in builder.estimate(geese):
            click.echo(line)
        return
    started = time.perf_counter()
    try:
        headers = builder.build(geese)
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        fail(f"the disk of {builder.directory} is full: free some space "
             f"or move the tables (--tables DIR), then run the same command again: it goes on where it stopped")
    seconds = time.perf_counter() - started
    table_set = WdlTables(variant, builder.directory)
    click.echo(f"{variant} (win/draw/loss, two bits a position), solved for 4 to {geese} geese in "
               f"{builder.directory} (this run {seconds:.1f} s; build times as recorded):")
    shown = table("", ("geese", "positions", "geese to move: geese win", "drawn", "fox wins",
                       "fox to move: fox wins", "drawn", "geese win", "build s", "MB"), left=0)
    for header in headers:
        t = wdl_totals(header, table_set.layout)
        shown.add_row(str(header["geese"]), f"{2 * t['positions_per_side']:,}", f"{t['geese_to_move_geese_win']:,}",
                      f"{t['geese_to_move_draw']:,}", f"{t['geese_to_move_fox_wins']:,}",
                      f"{t['fox_to_move_fox_wins']:,}", f"{t['fox_to_move_draw']:,}",
                      f"{t['fox_to_move_geese_win']:,}", f"{header['build_seconds']:.1f}",
                      f"{header['words'] * 8 / 1e6:.0f}")
    print_table(make_console(), shown)
    click.echo("(positions: both sides to move, fox on any empty point; the fifty-move counter and repetition "
               "are not in the tables: docs/solver.md)")
    if position is None:
        position = next((start.start_position() for start in _starts(variant) if start.prey_count == geese), None)
    if position is not None:
        report_position(position, table_set)


def _starts(variant: Variant) -> list[Variant]:
    """The variants whose start these tables solve: every prey count of the same rules."""
    return [other for other in variant.row.variants() if other.table_key == variant.table_key]


def report_position(position: Position, tables: WdlTables) -> None:
    """The value of `position` and of each of its moves."""
    value = tables.value(position)
    if value is None:
        click.echo(f"{position.text()}: not in the tables")
        return
    click.echo(f"{position.text()}: {value_text(position, value)}")
    for move in position.legal_moves():
        after = position.play(move)
        after_value = tables.value(after)
        verdict = "not in the tables" if after_value is None else value_text(after, after_value)
        click.echo(f"  {str(move):<12} {verdict}")
