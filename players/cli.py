"""`foxgeese solve`: the solved value of Hare and Hounds, and the fox variants' endgame tables."""

from __future__ import annotations

import click


@click.command("solve")
@click.argument("variant_id", metavar="VARIANT")
@click.option("--sideways", is_flag=True, default=None, help="standard: the geese may also step sideways")
@click.option("--build", is_flag=True, help="fox variants: build the endgame tables missing up to --max-geese")
@click.option("--max-geese", type=int, default=None, help="with --build: the largest goose count to solve")
@click.option("--rebuild", is_flag=True, help="build again even where a table is on disk")
@click.option("--position", "position_text", default=None, help="position text to look up instead of the start")
@click.option("--tables", default=None, help="table directory (default $FOXGEESE_TABLES or ~/.cache/foxgeese/tables)")
def solve_command(variant_id: str, sideways: bool | None, build: bool, max_geese: int | None, rebuild: bool,
                  position_text: str | None, tables: str | None) -> None:
    """Solve VARIANT: Hare and Hounds whole, the fox variants by endgame tables per goose count."""
    from foxgeese.players.solver.report import solve  # numpy and the tables load only here

    solve(variant_id, sideways, build, max_geese, rebuild, position_text, tables)


def register(group: click.Group) -> None:
    group.add_command(solve_command)
