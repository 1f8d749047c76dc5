"""`foxgeese solve`: the solved value of Hare and Hounds, and the fox variants' endgame tables."""

from __future__ import annotations

import click

from foxgeese.params import Integer, option_values, variant_option


@click.command("solve")
@click.argument("variant_id", metavar="VARIANT")
@click.option("--geese", type=int, default=None,
              help="standard: strong solve (one bit a position) of every position with up to N geese; "
                   "with --sideways, and great-cross: win/draw/loss (two bits a position)")
@click.option("--threads", type=int, default=None, help="with --geese: threads for the build (default: all cores)")
@click.option("--sideways", is_flag=True, default=None, help="standard: the geese may also step sideways")
@variant_option
@click.option("--max-memory", "max_memory", type=float, default=None,
              help="win/draw/loss builds: GB a level may hold in memory; a larger one goes out of core, into "
                   "memory-mapped files beside the tables (default: the memory available minus 2, at most 20)")
@click.option("--estimate", is_flag=True,
              help="win/draw/loss builds: print each count's memory and disk, build nothing")
@click.option("--build", is_flag=True, help="fox variants: build the endgame tables missing up to --max-geese")
@click.option("--max-geese", type=Integer(), default=None, help="with --build: the largest goose count to solve")
@click.option("--rebuild", is_flag=True, help="build again even where a table is on disk")
@click.option("--position", "position_text", default=None, help="position text to look up instead of the start")
@click.option("--tables", default=None, help="table directory (default $FOXGEESE_TABLES or ~/.cache/foxgeese/tables)")
@click.option("--table", "table_file", default=None, help="solve check: the table file to check")
@click.option("--sample", type=int, default=None, help="solve check: check N random positions instead of all")
@click.option("--seed", type=int, default=None, help="solve check: the sample's seed (default 0)")
def solve_command(variant_id: str, geese: int | None, threads: int | None, sideways: bool | None,
                  max_memory: float | None, estimate: bool, build: bool,
                  max_geese: int | None, rebuild: bool, position_text: str | None, tables: str | None,
                  table_file: str | None, sample: int | None, seed: int | None,
                  variant_options: tuple[str, ...] = ()) -> None:
    """Solve VARIANT: Hare and Hounds whole, the fox variants by tables per goose count.

    `foxgeese solve standard --geese 13` solves every position with up to 13 geese (win or loss:
    without sideways steps there are no draws); `foxgeese solve standard --sideways --geese 8` and
    `foxgeese solve great-cross --geese 6` solve win/draw/loss. `foxgeese solve verify` checks the winner's
    strategies shipped with the package, with the engine's rules alone. `foxgeese solve check --table FILE
    [--sample N --seed S]` re-derives a finished table's positions from their children with the engine's rules.
    """
    if variant_id.strip().lower() == "check":
        from foxgeese.players.solver.check import check_command

        check_command(table_file, sample, seed)
        return
    if table_file is not None or sample is not None or seed is not None:
        from foxgeese.usage import fail

        fail("--table, --sample and --seed are for `foxgeese solve check`")
    from foxgeese.players.solver.report import solve  # numpy and the tables load only here

    if (max_memory is not None or estimate) and geese is None:
        from foxgeese.usage import fail

        fail("--max-memory and --estimate go with --geese N (a win/draw/loss build)")
    if max_memory is not None and max_memory <= 0:
        from foxgeese.usage import fail

        fail(f"--max-memory must be more than 0 GB, not {max_memory:g}")
    solve(variant_id, sideways, build, max_geese, rebuild, position_text, tables, geese=geese, threads=threads,
          options=option_values(variant_options), max_memory=max_memory, estimate=estimate)


@click.command("analyse")
@click.argument("path", metavar="RECORD|RUNDIR")
@click.option("--tables", default=None, help="table directory (default $FOXGEESE_TABLES or ~/.cache/foxgeese/tables)")
@click.option("--json", "as_json", is_flag=True, help="print the analysis as JSON")
def analyse_command(path: str, tables: str | None, as_json: bool) -> None:
    """Mistakes against perfect play: moves made in a solved position that threw away a win (or a draw).

    RECORD is a game record (foxgeese play --record), RUNDIR a tournament directory (its journal)
    or a folder of records. Only positions some table solves are judged.
    """
    from foxgeese.players.solver.analyse_report import analyse  # numpy and the tables load only here

    analyse(path, tables, as_json)


def register(group: click.Group) -> None:
    group.add_command(solve_command)
    group.add_command(analyse_command)
