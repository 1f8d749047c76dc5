"""What `foxgeese solve` prints: the solved value of Hare and Hounds, and the fox variants' tables.

Kept apart from players/cli.py so that the solver loads only when `solve` runs, not on every start
of the command line (every built-in bot process is one). The fox variants' modules (numpy, the
tables) load only in their own branches, so that `foxgeese solve hare-and-hounds` starts fast.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import click

from foxgeese.engine import InvalidPositionError, Move, Position, UnknownVariantError, get_variant
from foxgeese.engine.variants import Options, Tables, Variant
from foxgeese.players.solver.hare_hounds_solution import load_solution, reachable
from foxgeese.players.solver.table_files import TableError, table_dir, table_path, to_parent, winner_text
from foxgeese.terminal import make_console, print_table, table
from foxgeese.usage import fail

if TYPE_CHECKING:  # loaded only in the fox variants' branches (numpy)
    from foxgeese.players.solver.tables import TableSet


def _verdict(position: Position, score: int) -> str:
    variant = position.variant
    return winner_text(score, variant.side_name(position.turn), variant.side_name(position.turn.other))


def _print_moves(scored: Iterable[tuple[Move, int, Position, int]]) -> None:
    """One line a move, best for the mover first: the value of the position after it."""
    for move, _, after, after_score in scored:
        click.echo(f"  {str(move):<12} {_verdict(after, after_score)}")


def _fox_move_scores(position: Position, table_set: TableSet) -> list[tuple[Move, int, Position, int]]:
    """The fox variants' counterpart of `HareHoundsSolution.move_scores`, from the endgame tables."""
    scored = []
    for move in position.legal_moves():
        after = position.play(move)
        after_score = table_set.score(after)
        assert after_score is not None, after  # no more geese than the position, whose tables are loaded
        scored.append((move, int(to_parent(after_score)), after, after_score))
    return sorted(scored, key=lambda entry: -entry[1])


def _hare_and_hounds(position: Position | None, tables: str | None, rebuild: bool) -> None:
    started = time.perf_counter()
    solution = load_solution(tables, rebuild=rebuild)
    loaded = time.perf_counter() - started
    header = solution.header
    start = solution.variant.start_position()
    position = position or start
    click.echo(
        f"hare-and-hounds: {header['states']} states solved ({header['edges']} moves), "
        f"{header['draws']} draws, built in {header['build_seconds']} s; loaded in {loaded * 1000:.1f} ms"
    )
    if position is start:
        count = header.get("reachable_from_start") or reachable(start, solution)  # older files lack it
        click.echo(f"{count} states reachable from the start")
    click.echo(f"{position.text()}: {_verdict(position, solution.score(position))}")
    _print_moves(solution.move_scores(position))


def _fox_tables(variant: Variant, position: Position | None, tables: str | None, build: bool, max_geese: int | None,
                rebuild: bool) -> None:
    from foxgeese.players.solver.retrograde import build_tables
    from foxgeese.players.solver.tables import TableSet

    directory = table_dir(tables)
    if build:
        if max_geese is None:
            fail("--build needs --max-geese N (4 to 6 is practical for standard)")
        try:
            build_tables(variant, max_geese, directory, rebuild=rebuild,
                         progress=lambda text: click.echo(text, err=True))
        except ValueError as error:
            fail(str(error))
    table_set = TableSet(variant, directory)
    top = table_set.available()
    if top < 4:
        click.echo(f"no {variant} tables in {directory}; build them with "
                   f"`foxgeese solve {variant.id}{' --sideways' if _sideways(variant) else ''} --build --max-geese 5`")
        return
    click.echo(f"{variant} tables in {directory}:")
    shown = table("", ("geese", "MB", "build s", "positions", "fox wins", "fox loses", "draws", "longest"), left=0)
    for geese in range(4, top + 1):
        try:
            table_set._arrays(geese)
        except TableError as error:
            fail(str(error))
        h = table_set.headers[geese]
        size = table_path(directory, variant, geese).stat().st_size / 1e6
        fox_wins = h["fox_to_move_wins"] + h["geese_to_move_losses"]
        fox_loses = h["fox_to_move_losses"] + h["geese_to_move_wins"]
        draws = h["fox_to_move_draws"] + h["geese_to_move_draws"]
        shown.add_row(str(geese), f"{size:.1f}", f"{h['build_seconds']:.1f}", str(h["positions"]), str(fox_wins),
                      str(fox_loses), str(draws), str(h["longest_plies"]))
    print_table(make_console(), shown)
    if position is not None:
        score = table_set.score(position)
        if score is None:
            fail(f"the position has {position.prey.bit_count()} geese; the tables go up to {top}")
        click.echo(f"{position.text()}: {_verdict(position, score)}")
        _print_moves(_fox_move_scores(position, table_set))


def _sideways(variant: Variant) -> bool:
    return bool(variant.option_dict.get("sideways", False))


def solve(variant_id: str, sideways: bool | None, build: bool, max_geese: int | None, rebuild: bool,
          position_text: str | None, tables: str | None, *, geese: int | None = None,
          threads: int | None = None, options: Options | None = None, max_memory: float | None = None,
          estimate: bool = False) -> None:
    """The body of `foxgeese solve` (see players/cli.py for the options; `options`: `--option`'s)."""
    if variant_id.strip().lower() == "verify":
        from foxgeese.players.solver.strategy import verify_command

        verify_command(tables)
        return
    try:
        variant = get_variant(variant_id, **{**(options or {}), **({} if sideways is None else {"sideways": sideways})})
        position = Position.from_text(position_text) if position_text else None
    except (UnknownVariantError, InvalidPositionError) as error:
        fail(str(error))
    if position is not None and position.variant.table_key != variant.table_key:
        fail(f"the position is {position.variant}, not {variant}")
    if geese is not None:
        _strong(variant, geese, position, tables, threads, build or max_geese is not None or rebuild,
                max_memory=max_memory, estimate=estimate)
        return
    if variant.tables is Tables.SOLUTION:
        if build and max_geese is not None:
            fail(f"{variant.id} is solved whole: --max-geese is for the fox variants")
        try:
            _hare_and_hounds(position, tables, rebuild)
        except TableError as error:
            fail(str(error))
        return
    try:
        _fox_tables(variant, position, tables, build, max_geese, rebuild)
    except (TableError, OSError) as error:
        fail(str(error))



def _strong(variant: Variant, geese: int, position: Position | None, tables: str | None, threads: int | None,
            old_options: bool, *, max_memory: float | None = None, estimate: bool = False) -> None:
    from foxgeese.players.solver.strong import LARGEST
    from foxgeese.players.solver.strong_report import strong_solve
    from foxgeese.players.solver.wdl import largest
    from foxgeese.players.solver.wdl_report import wdl_solve

    two_bits = variant.tables is Tables.WDL
    if variant.tables not in (Tables.BITS, Tables.WDL):
        fail(f"--geese solves the fox variants by goose count; {variant} is solved whole: drop --geese")
    if old_options:
        fail("--geese builds by itself: drop --build, --max-geese and --rebuild")
    if (max_memory is not None or estimate) and not two_bits:
        fail("--max-memory and --estimate are for the win/draw/loss builds (--sideways, great-cross)")
    top = largest(variant) if two_bits else LARGEST
    if not 4 <= geese <= top:
        fail(f"--geese must be between 4 and {top}, not {geese}")
    if threads is not None and threads < 1:
        fail(f"--threads must be at least 1, not {threads}")
    if position is not None and position.prey.bit_count() > geese:
        fail(f"the position has {position.prey.bit_count()} geese: use --geese {position.prey.bit_count()} or more")
    try:
        if two_bits:
            wdl_solve(variant, geese, position, tables, threads, max_memory=max_memory, estimate=estimate)
        else:
            strong_solve(variant, geese, position, tables, threads)
    except (TableError, OSError) as error:
        fail(str(error))
