"""`foxgeese arena ...`: register bots, queue tests and read the arena, in the server's SQLite file.

These commands open the same file `foxgeese serve --arena` keeps (`--data`, default the server's),
with a connection of their own: a running server's workers see a new bot or test within a second.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from foxgeese.engine import DEFAULT_VARIANT, VARIANT_IDS
from foxgeese.params import Integer, Number
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.sandbox import SandboxError, check_available
from foxgeese.terminal import make_console, print_table
from foxgeese.usage import UsageProblem
from foxgeese.web.arena import ladder
from foxgeese.web.arena.db import ArenaDB, ArenaError
from foxgeese.web.arena.routes import queue_test
from foxgeese.web.arena.service import DEFAULT_TC, bot_kind
from foxgeese.web.store import default_data_path

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
DATA_HELP = "The server's SQLite file (default: the one foxgeese serve uses)."


def open_db(data_path: str | None) -> ArenaDB:
    path = Path(data_path) if data_path else default_data_path()
    try:
        return ArenaDB(path)
    except (OSError, sqlite3.Error) as error:
        raise UsageProblem(f"--data {path}: cannot open the database ({error}); give a writable file") from None


def data_option(function: Any) -> Any:
    return click.option("--data", "data_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
                        help=DATA_HELP)(function)


@click.group("arena")
def arena() -> None:
    """The arena of `foxgeese serve --arena`: its bots, its test queue, its workers."""


@arena.group("bot")
def bot() -> None:
    """Register and list the arena's bots."""


def check_spec(name: str, spec: str) -> str:
    """The bot's kind after its SPEC is checked (one line for anything wrong)."""
    if not NAME.fullmatch(name):
        raise UsageProblem(f"bot name {name!r}: use 1-40 letters, digits, '.', '_' or '-', starting with a letter "
                           "or digit")
    kind = bot_kind(spec)
    if kind == "remote":
        remote = spec.strip().split(":", 1)[1]
        if not NAME.fullmatch(remote):
            raise UsageProblem(f"SPEC {spec!r}: give remote:NAME, NAME the bot's Bot API name (letters, digits, "
                               "'.', '_', '-')")
        return kind
    try:
        BotConfig.from_spec(spec, name=name, sandbox=kind == "cmd")
    except ValueError as error:
        raise UsageProblem(f"SPEC {spec!r}: {error}") from None
    if kind == "cmd":
        try:
            check_available()
        except SandboxError as error:
            raise UsageProblem(f"cmd: bots play in the arena inside the bubblewrap sandbox: {error}") from None
    return kind


@bot.command("add")
@click.argument("name")
@click.argument("spec")
@click.option("--variant", "variants", multiple=True, type=click.Choice(VARIANT_IDS),
              help="A variant whose ladder it joins (repeatable; default standard).")
@data_option
def bot_add(name: str, spec: str, variants: tuple[str, ...], data_path: str | None) -> None:
    """Register bot NAME playing SPEC (a built-in SPEC such as minimax:depth=3, or cmd:PROGRAM, run in
    the sandbox with the folder the server was started in as its working folder)."""
    kind = check_spec(name, spec)
    db = open_db(data_path)
    try:
        db.add_bot(name, spec, kind, list(variants or (DEFAULT_VARIANT,)))
    except ArenaError as error:
        raise UsageProblem(str(error)) from None
    finally:
        db.close()
    click.echo(f"registered {name} ({kind}: {spec}) on the {', '.join(variants or (DEFAULT_VARIANT,))} ladder")
    if kind == "remote":
        click.echo(f"it plays while connected to the Bot API as {spec.split(':', 1)[1]} (its token: foxgeese botapi "
                   "register NAME; docs/botapi.md)")


@bot.command("retire")
@click.argument("name")
@data_option
def bot_retire(name: str, data_path: str | None) -> None:
    """Take bot NAME off the ladders (its games stay)."""
    db = open_db(data_path)
    try:
        db.retire_bot(name)
    except ArenaError as error:
        raise UsageProblem(str(error)) from None
    finally:
        db.close()
    click.echo(f"retired {name}")


@bot.command("list")
@data_option
def bot_list(data_path: str | None) -> None:
    """The registered bots."""
    db = open_db(data_path)
    try:
        bots = db.bots(retired=True)
    finally:
        db.close()
    table = Table(title="arena bots")
    for header in ("name", "kind", "spec", "variants", "rung", "retired"):
        table.add_column(header)
    for row in bots:
        table.add_row(row["name"], row["kind"], row["spec"], " ".join(row["variants"]), "yes" if row["rung"] else "",
                      "yes" if row["retired"] else "")
    print_table(make_console(), table, ["rung: one of the ladder's fixed built-in rungs"])


@arena.command("ladder")
@click.option("--variant", default=DEFAULT_VARIANT, type=click.Choice(VARIANT_IDS), show_default=True)
@data_option
def ladder_command(variant: str, data_path: str | None) -> None:
    """A variant's leaderboard, as the /arena page shows it."""
    db = open_db(data_path)
    try:
        table_data = ladder.standings(variant, db.bots(variant), db.games(variant=variant, ladder=True))
    finally:
        db.close()
    table = Table(title=f"{variant} ladder")
    for header in ("#", "bot", "Elo", "±95%", "games", "accuracy", "crashes", "time losses"):
        table.add_column(header, justify="right" if header not in ("bot",) else "left")
    for rank, row in enumerate(table_data.rows, 1):
        accuracy = row.accuracy()
        table.add_row(str(rank), row.name, "–" if row.elo is None else f"{row.elo:+.0f}",
                      "–" if row.ci95 is None else f"{row.ci95:.0f}", str(row.games),
                      "–" if accuracy is None else f"{accuracy:.1%}", str(row.crashes), str(row.time_losses))
    legend = ["Elo: Bradley-Terry, mean 0, with a predator-advantage term; ±95%: its interval, clustered by twin pair",
              "accuracy: the share of judged moves that kept the solved value (–: no table knows its positions)"]
    if table_data.problem:
        legend.append(f"no ratings yet: {table_data.problem}")
    print_table(make_console(), table, legend)


@arena.group("test")
def test() -> None:
    """Queue and list tests (bot A against bot B)."""


@test.command("add")
@click.argument("first")
@click.argument("second")
@click.option("--variant", default=DEFAULT_VARIANT, type=click.Choice(VARIANT_IDS), show_default=True)
@click.option("--sprt", "sprt_bounds", default=None, metavar="ELO0,ELO1",
              help="An SPRT of H0 (FIRST is ELO0 better) against H1 (ELO1 better), pair-score Elo.")
@click.option("--alpha", type=Number(0, 0.5), default=0.05, show_default=True)
@click.option("--beta", type=Number(0, 0.5), default=0.05, show_default=True)
@click.option("--pairs", type=Integer(1, 100_000), default=None, help="A fixed number of twin pairs instead.")
@click.option("--priority", type=Number(0, 100), default=1.0, show_default=True,
              help="Its weight when workers are shared between tests.")
@click.option("--tc", default=None, help=f"Time control (default the arena's, {DEFAULT_TC}).")
@data_option
def test_add(first: str, second: str, variant: str, sprt_bounds: str | None, alpha: float, beta: float,
             pairs: int | None, priority: float, tc: str | None, data_path: str | None) -> None:
    """Queue a test of FIRST against SECOND: an SPRT (--sprt 0,10) or a fixed match (--pairs N)."""
    if (sprt_bounds is None) == (pairs is None):
        raise UsageProblem("give either --sprt ELO0,ELO1 or --pairs N")
    elo0 = elo1 = 0.0
    if sprt_bounds is not None:
        try:
            elo0, elo1 = (float(part) for part in sprt_bounds.split(","))
        except ValueError:
            raise UsageProblem(f"--sprt {sprt_bounds!r}: give two numbers, ELO0,ELO1 (e.g. --sprt 0,10)") from None
    db = open_db(data_path)
    try:
        number = queue_test(_Queue(db), first, second, variant, "sprt" if sprt_bounds else "pairs", elo0=elo0,
                            elo1=elo1, alpha=alpha, beta=beta, pairs=pairs or 0, priority=priority, tc=tc or "")
    except ArenaError as error:
        raise UsageProblem(str(error)) from None
    finally:
        db.close()
    click.echo(f"queued test {number}: {first} vs {second} ({variant}); its page is /arena/test/{number}")


@test.command("list")
@data_option
def test_list(data_path: str | None) -> None:
    """The tests, newest first, with their verdicts."""
    db = open_db(data_path)
    try:
        tests = db.tests()
    finally:
        db.close()
    table = Table(title="arena tests")
    for header in ("id", "first", "second", "kind", "priority", "status", "verdict"):
        table.add_column(header)
    for row in tests:
        kind = f"sprt [{row['elo0']:g}, {row['elo1']:g}]" if row["kind"] == "sprt" else f"{row['pairs']} pairs"
        table.add_row(str(row["id"]), row["first"], row["second"], kind, f"{row['priority']:g}", row["status"],
                      row["verdict"])
    print_table(make_console(), table)


@test.command("stop")
@click.argument("number", type=Integer(1))
@data_option
def test_stop(number: int, data_path: str | None) -> None:
    """Stop test NUMBER (its games stay)."""
    db = open_db(data_path)
    try:
        if db.test(number) is None:
            raise UsageProblem(f"no test {number}; foxgeese arena test list shows them")
        if not db.end_test(number, "stopped", "stopped by the operator"):
            raise UsageProblem(f"test {number} has ended already")
    finally:
        db.close()
    click.echo(f"stopped test {number}")


@arena.command("workers")
@data_option
def workers(data_path: str | None) -> None:
    """The workers the server has had, and why any was taken out of rotation."""
    db = open_db(data_path)
    try:
        rows = db.workers()
    finally:
        db.close()
    table = Table(title="arena workers")
    for header in ("worker", "kind", "status", "why"):
        table.add_column(header)
    for row in rows:
        table.add_row(row["id"], row["kind"], row["status"], row["reason"])
    print_table(make_console(), table, ["out: taken out of rotation, its games replayed by the others"])


class _Queue:
    """What `queue_test` needs of an arena, for the CLI (no server: a running one polls)."""

    def __init__(self, db: ArenaDB) -> None:
        self.db = db
        self.tc = DEFAULT_TC
        self.variants = (DEFAULT_VARIANT,)


def register(group: click.Group) -> None:
    group.add_command(arena)
