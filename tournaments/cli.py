"""`foxgeese tournament run CONFIG` and `foxgeese tournament report DIR`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from foxgeese.engine import words
from foxgeese.engine.userinput import one_line
from foxgeese.params import Integer
from foxgeese.tournaments.errors import ConfigError, TournamentError
from foxgeese.usage import USAGE_EXIT, UsageProblem, check_writable

if TYPE_CHECKING:  # the commands import what they run when they run (a quick --help)
    from foxgeese.tournaments.entries import GameEntry, JournalLine


def register(group: click.Group) -> None:
    group.add_command(tournament)


class Concurrency(Integer):
    """A number of game slots, or `auto`."""

    name = "integer or auto"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == "auto":
            return value
        try:
            return super().convert(value, param, ctx)
        except click.UsageError:
            raise click.UsageError(f"--concurrency must be a number of game slots from 1 to 64, or auto, "
                                   f"not {one_line(str(value))[:40]!r}", ctx) from None


@click.group()
def tournament() -> None:
    """Run tournaments from a YAML config and report their results."""


@tournament.command()
@click.argument("config")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None,
              help="Output directory (default: the config's output_dir, else tournament-out/NAME).")
@click.option("--concurrency", type=Concurrency(1, 64), default=None,
              help="Games at once, or auto: one per CPU (of the Ray cluster with --ray, growing with it); "
                   "overrides the config, does not change the games.")
@click.option("--ray", "ray_address", metavar="ADDRESS", default=None,
              help="Play on the Ray cluster at ADDRESS (host:port of its head, or auto); needs foxgeese[ray].")
@click.option("--events-pub", metavar="ENDPOINT", default=None,
              help="Also publish the live events on a ZeroMQ PUB socket (tcp://127.0.0.1:PORT).")
@click.option("--quiet", is_flag=True, help="No per-game lines, only the final tables.")
def run(config: str, out: str | None, concurrency: int | str | None, ray_address: str | None,
        events_pub: str | None, quiet: bool) -> None:
    """Play the tournament CONFIG (a YAML file, or a bundled config name such as `quick`).

    Rerunning on the same output directory resumes it: only the games missing from its journal
    are played. Raising games_per_pairing extends a tournament. Every game has its own seed, so
    the games are the same at any concurrency and on Ray. Live events go to DIR/events.jsonl.
    """
    from foxgeese.tournaments.config import load_config
    from foxgeese.tournaments.journal import read_journal
    from foxgeese.tournaments.report import render, summarize, write_results
    from foxgeese.tournaments.runner import Runner

    loaded = _load(config, load_config)
    directory = loaded.output_dir(out)
    try:
        if events_pub is not None and not events_pub.startswith(("tcp://", "ipc://")):
            raise UsageProblem(f"--events-pub {events_pub}: give tcp://127.0.0.1:PORT or ipc://PATH")
        runner = Runner(loaded, directory, concurrency=concurrency, ray_address=ray_address, events_pub=events_pub)
        progress = _Progress(runner, quiet)
        runner.on_start = progress.on_start
        runner.listener = progress.on_game
        started = time.monotonic()
        with progress:
            state = runner.run()
        took = time.monotonic() - started
        entries = read_journal(directory)  # what the runner found and wrote, read back once
        results = summarize(state.identity, entries)
        write_results(directory, results, entries)
    except BrokenPipeError:  # our reader went away (`| head`): the top level stops quietly
        raise
    except (TournamentError, ValueError, OSError) as error:
        raise UsageProblem(str(error)) from None
    from foxgeese.terminal import make_console  # rich loads only for tournament commands

    console = make_console()
    new = state.games_done - state.done_before
    if state.extended:
        click.echo(f"extended by {state.extended} games (games_per_pairing raised)")
    if new == 0 and not state.interrupted:
        click.echo(f"nothing to play: all {results['played']} games of {directory} are in its journal"
                      + (" (the SPRT stopped the match)" if "sprt" in results and results["sprt"]["stopped"]
                         else "; raise games_per_pairing to extend the tournament"))
    render(results, console)
    console.print(f"{new} game{'' if new == 1 else 's'} played in {took:.0f} s; journal, results.json, results.csv "
                  f"and games.csv in {directory}", markup=False, highlight=False, soft_wrap=True)
    if state.interrupted:
        click.echo(f"interrupted after {results['played']} of {results['scheduled']} games; "
                   "run the same command again to play the rest", err=True)
        sys.exit(130)


@tournament.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print results.json to stdout instead of tables.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Also write a self-contained HTML report (tables, Elo plot, every game's replay).")
def report(directory: str, as_json: bool, html_path: str | None) -> None:
    """Tables and ratings of the tournament in DIRECTORY (finished, running or interrupted);
    also (re)writes its results.json, results.csv and games.csv."""
    from foxgeese.tournaments.report import good_entries, render, summarize, write_results

    problems: list[str] = []
    try:
        identity, entries = good_entries(Path(directory), problems)
        results = summarize(identity, entries)
        write_results(Path(directory), results, entries)
    except (TournamentError, OSError) as error:
        raise UsageProblem(str(error)) from None
    for problem in problems[:10]:
        click.echo(f"foxgeese: {problem}", err=True)
    if problems:
        more = f" ({len(problems) - 10} more not shown)" if len(problems) > 10 else ""
        click.echo(f"foxgeese: {len(problems)} journal lines left out{more}; "
                   f"`foxgeese tournament repair {directory}` drops them for good", err=True)
    if html_path is not None:
        _write_html(results, entries, Path(html_path))
    if as_json:
        click.echo(json.dumps(results, indent=2, sort_keys=True))
    else:
        from foxgeese.terminal import make_console

        render(results, make_console())


@tournament.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
def repair(directory: str) -> None:
    """Keep the good games of DIRECTORY's journal and drop its damaged lines and the games of
    another tournament (saved aside in journal.dropped-TIME.txt)."""
    from foxgeese.tournaments.journal import DirectoryLock, belonging, load_identity, repair_journal

    path = Path(directory)
    try:
        why_foreign = belonging(load_identity(path))
        with DirectoryLock(path):
            scan, strangers, side = repair_journal(path, lambda entry: why_foreign(entry) is not None)
    except (TournamentError, OSError) as error:
        raise UsageProblem(str(error)) from None
    if side is None:
        click.echo(f"{directory}: the journal is sound ({len(scan.entries)} lines); nothing to repair")
        return
    dropped = sorted(scan.damaged + strangers) + ([len(scan.lines) + len(scan.damaged) + 1] if scan.torn else [])
    kept = len(scan.entries) - len(strangers)
    click.echo(f"{directory}: kept {kept} lines, dropped line{'s' if len(dropped) > 1 else ''} "
               f"{', '.join(map(str, dropped))} (saved in {side})")


@tournament.command()
@click.argument("variant_id", metavar="VARIANT")
@click.option("--geese-count", "--geese", "geese", type=Integer(), default=None,
              help="standard: 13 (default), 15 or 17 geese.")
@click.option("--sideways", is_flag=True, default=None, help="standard: geese may also step sideways.")
@click.option("--random", "random_role", required=True, metavar="ROLE",
              help="The side that moves at random: fox, geese, hare or hounds.")
@click.option("--player", "player_spec", default="minimax:depth=3", show_default=True, metavar="SPEC",
              help="Who plays the other side.")
@click.option("--plies", type=Integer(1, 400), required=True, help="Length of every opening.")
@click.option("--count", type=Integer(1, 100_000), default=100, show_default=True,
              help="Openings to make (distinct ones; fewer if the variant has fewer).")
@click.option("--seed", type=Integer(0, 2**63 - 1), default=0, show_default=True, help="Same seed, same book.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None, help="Write here instead of stdout.")
@click.option("--known", is_flag=True,
              help="Keep only openings whose value the solved tables know, half won by each side.")
@click.option("--tables", default=None, help="With --known: table directory (default $FOXGEESE_TABLES).")
def book(variant_id: str, geese: int | None, sideways: bool | None, random_role: str, player_spec: str,
         plies: int, count: int, seed: int, out: str | None, known: bool, tables: str | None) -> None:
    """Make an opening book: one side moves at random for PLIES plies while SPEC plays the other.

    Use it in a config as `variants: [{id: standard, book: FILE}]`. In `standard` the fox wins from
    the start whoever searches deeper; `--random fox --plies 44` gives positions where the geese
    have built a line and either side can win (the bundled book `standard-balanced`).
    """
    from foxgeese.engine import UnknownVariantError, get_variant
    from foxgeese.players.registry import make_player
    from foxgeese.tournaments.book import format_book, make_book

    try:
        variant = get_variant(variant_id, geese=geese, sideways=sideways)
        make_player(player_spec)
    except (UnknownVariantError, ValueError) as error:
        raise UsageProblem(str(error)) from None
    try:
        random_side = variant.side_by_name(random_role)
    except ValueError as error:
        raise UsageProblem(f"--random: {error}") from None
    if out is not None:
        check_writable("--out", out)
    openings = make_book(variant, count, plies, random_side, player_spec, seed=seed, known=known, tables=tables,
                         progress=_BookProgress(count))
    options = (f" --geese {geese}" if geese else "") + (" --sideways" if sideways else "")
    options += " --known" if known else ""
    command = (f"foxgeese tournament book {variant.id}{options} --random {random_role} --plies {plies} "
               f"--count {count} --seed {seed} --player {player_spec}")
    header = [f"{len(openings)} openings of {variant}: {random_role} at random, the other side {player_spec}",
              f"made by: {command}"]
    if known:
        header.insert(1, "every one solved: half won by each side with best play")
    text = format_book(openings, header)
    if out is None:
        click.echo(text, nl=False)
    else:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageProblem(f"--out {out}: cannot write: {error.strerror}") from None
        click.echo(f"{len(openings)} openings written to {out}", err=True)
    if len(openings) < count:
        click.echo(f"only {len(openings)} distinct openings found (asked for {count})", err=True)


def _write_html(results: dict[str, Any], entries: list[JournalLine], path: Path) -> None:
    from foxgeese.tournaments.html_report import write_html_report

    if not path.resolve().parent.is_dir():
        raise UsageProblem(f"--html {path}: no such folder")
    try:
        replayable = write_html_report(results, entries, path)
    except OSError as error:
        raise UsageProblem(f"--html {path}: cannot write: {error.strerror or error}") from None
    click.echo(f"HTML report ({replayable} games to replay) written to {path}", err=True)


class _BookProgress:
    """`found/count openings` on stderr: redrawn in place on a terminal, every tenth otherwise."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.live = sys.stderr.isatty()
        self.started = time.monotonic()

    def __call__(self, found: int, count: int) -> None:
        line = f"{found}/{count} openings ({time.monotonic() - self.started:.0f} s)"
        if self.live:
            click.echo(f"\r{line}" + ("\n" if found == count else ""), err=True, nl=False)
        elif found == count or found % max(1, count // 10) == 0:
            click.echo(line, err=True)


def _load(config: str, load_config: Any) -> Any:
    try:
        return load_config(config)
    except ConfigError as error:
        for problem in error.problems:
            click.echo(f"foxgeese: {one_line(problem)}", err=True)
        sys.exit(USAGE_EXIT)


class _Progress:
    """A rich bar with ETA and standings on a terminal; one plain line per game otherwise."""

    def __init__(self, runner: Any, quiet: bool) -> None:
        self.runner = runner
        self.quiet = quiet
        self.live = sys.stdout.isatty()
        self.started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if self.live:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                      TextColumn("{task.fields[standings]}"))
            self._progress.__enter__()
        return self

    def on_start(self, state: Any) -> None:
        """The bar appears once the runner knows how many games there are (stored or drawn schedule)."""
        if self._progress is not None:
            self._task = self._progress.add_task(self.runner.config.name, total=state.scheduled, standings="")

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def on_game(self, state: Any, entry: GameEntry) -> None:
        from foxgeese.tournaments.report import standings_line

        with state.lock:
            played = state.games_done
            standings = standings_line(state.standings.rows())
            new = played - state.done_before
        sides = entry.sides()
        line = (f"{entry.id} {entry.variant} {entry.predator} ({sides[0]}) vs {entry.prey} ({sides[1]}): "
                f"{entry.winner} ({entry.termination}, {words.plies(entry.plies)})")
        notes = _failure_notes(entry) if not self.quiet else []
        if self._progress is not None:
            self._progress.update(self._task, completed=played, standings=standings)
            if not self.quiet:
                self._progress.console.print(line, markup=False, highlight=False)
                for note in notes:
                    self._progress.console.print(note, markup=False, highlight=False)
        elif not self.quiet:
            elapsed = time.monotonic() - self.started
            rate = new / elapsed if elapsed > 0 else 0.0
            eta = (state.scheduled - played) / rate if rate > 0 else 0.0
            print("\n".join([f"[{played}/{state.scheduled}] {line} | eta {eta:.0f}s | {standings}", *notes]),
                  flush=True)


def _failure_notes(entry: GameEntry) -> list[str]:
    """For a game a bot lost by its own failure (a crash, no-show, protocol error...): its log's
    path (in DIR/logs/) and last lines, as `foxgeese play` shows them (`protocol.botlogs`)."""
    from foxgeese.protocol.botlogs import failure_notes

    return failure_notes(entry.record) if entry.record is not None else []
