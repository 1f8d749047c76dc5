"""`foxgeese play`: one game between two bots (or a person), refereed here, moves printed as they come.

    foxgeese play standard --fox minimax:depth=3 --geese random --tc 10+0.1 --record game.json
    foxgeese play standard --fox human --geese mcts --geese-count 15 --sideways
    foxgeese play hare-and-hounds --hare random --hounds "cmd:node examples/bots/js/bot.js"

`--geese` names the geese's player; the variant's number of geese is `--geese-count`.

Exit status: 0 when the game was played out (a rule ending, a resignation or --max-plies), one
status per way a bot failed (EXIT_STATUS: 3 time forfeit, 4 illegal move, 5 protocol error, 6 crash,
7 no-show), 2 for a usage mistake, 130 when interrupted.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from foxgeese.engine import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Side,
    Termination,
    UnknownVariantError,
    Variant,
    draw_board,
    get_variant,
)
from foxgeese.engine.userinput import looks_like_int, named, shown
from foxgeese.engine.variants import VARIANT_TABLE
from foxgeese.params import Integer, Number, option_values, variant_option
from foxgeese.protocol.botconfig import TRANSPORTS, BotConfig, BotSpecError
from foxgeese.protocol.botlogs import failure_notes
from foxgeese.protocol.match import MoveEvent
from foxgeese.protocol.process import terminate_like_ctrl_c
from foxgeese.protocol.record import GameRecord, RefereeTermination
from foxgeese.protocol.referee import Referee, RefereeConfigError
from foxgeese.protocol.timecontrol import TimeControl, TimeControlError
from foxgeese.usage import UsageProblem, check_writable

DEFAULT_TC = "10+0.1"
HUMAN_TC = "900+0"
MAX_PLIES = 100_000
# The exit status of `foxgeese play` per way the game ended; any other ending (rules, resignation,
# --max-plies) exits 0, and a referee ending this table does not know yet exits 1.
EXIT_STATUS = {
    RefereeTermination.TIME_FORFEIT.value: 3,
    RefereeTermination.ILLEGAL_MOVE.value: 4,
    RefereeTermination.PROTOCOL_ERROR.value: 5,
    RefereeTermination.CRASH.value: 6,
    RefereeTermination.NO_SHOW.value: 7,
}
PLAYED_OUT = {RefereeTermination.RESIGNATION.value, RefereeTermination.MAX_PLIES.value,
              RefereeTermination.ADJUDICATED.value}


def _seat_specs(variant: Variant, seats: dict[str, str | None]) -> tuple[str, str]:
    """The (predator, prey) SPECs of the seat options (`--fox`, ... by side name), checking that
    they name the variant's sides."""
    variant_id = variant.id
    names = (variant.side_name(Side.PREDATOR), variant.side_name(Side.PREY))
    needed, given = tuple(f"--{name}" for name in names), tuple(seats.get(name) for name in names)
    if any(spec is not None for name, spec in seats.items() if name not in names):
        raise click.UsageError(f"{variant_id} is played by {' and '.join(needed)}")
    for flag, spec in zip(needed, given):
        if spec is not None and looks_like_int(spec):
            hint = f"; the number of geese is --geese-count {spec.strip()}" if flag == "--geese" else ""
            raise click.UsageError(f"{flag} takes a player SPEC (e.g. random, minimax:depth=3), "
                                   f"not the number {shown(spec.strip())}{hint}")
    missing = [flag for flag, spec in zip(needed, given) if spec is None]
    if missing:
        raise click.UsageError(f"{variant_id} needs {' and '.join(missing)} SPEC (e.g. random, minimax:depth=3)")
    return given[0], given[1]  # type: ignore[return-value]


def exit_status(record: GameRecord) -> int:
    """0 for a game played out, else the status of the way a bot failed (see EXIT_STATUS)."""
    termination = str(getattr(record.termination, "value", record.termination))
    if termination in EXIT_STATUS:
        return EXIT_STATUS[termination]
    if termination in PLAYED_OUT or termination in {item.value for item in Termination}:
        return 0
    return 1


def _check_log_dir(log_dir: str | None) -> None:
    """Creates --log-dir now, so a path under a file is a usage error before any bot starts."""
    if log_dir is None:
        return
    try:
        os.makedirs(log_dir, exist_ok=True)
    except OSError as error:
        raise UsageProblem(f"--log-dir {named(log_dir)}: {error.strerror or error}; give a folder that can be "
                           "created") from None


class _BoardPrinter:
    """--board: draws the position after each move, replaying the moves on its own copy."""

    def __init__(self, game: Game) -> None:
        self.game = game.copy()
        click.echo(draw_board(self.game.position))

    def __call__(self, event: MoveEvent) -> None:
        _print_move(event)
        try:
            self.game.push(self.game.parse_move(event.entry.move))
        except ValueError:  # cannot happen for a move the referee accepted; never break the game
            return
        click.echo(draw_board(self.game.position))


def _print_move(event: MoveEvent) -> None:
    move = event.entry
    line = f"{event.ply:4d}. {move.side:<6} {move.move:<12} {move.think_ms:6d} ms  clock {move.clock_ms / 1000:8.3f}s"
    info = move.info
    if info:
        parts = [f"{key} {info[key]}" for key in ("score", "mate", "depth", "nodes") if key in info]
        if info.get("pv"):
            parts.append("pv " + " ".join(info["pv"][:8]))
        line += "  " + ", ".join(parts)
    click.echo(line)


def _played_by(side_name: str) -> str:
    """The variants a side of that name plays in, for the seat options' help."""
    return ", ".join(row.id for row in VARIANT_TABLE if side_name in (row.predator_name, row.prey_name))


def _print_message(direction: str, bot: str, message: dict[str, Any]) -> None:
    click.echo(f"{direction} {bot}: {json.dumps(message, separators=(', ', ': '))}", err=True)


@click.command(name="play")
@click.argument("variant_id", metavar="VARIANT")
@click.option("--fox", metavar="SPEC", help=f"Player of the fox ({_played_by('fox')}).")
@click.option("--geese", metavar="SPEC", help=f"Player of the geese ({_played_by('geese')}).")
@click.option("--hare", metavar="SPEC", help=f"Player of the hare ({_played_by('hare')}).")
@click.option("--hounds", metavar="SPEC", help=f"Player of the hounds ({_played_by('hounds')}).")
@click.option("--tc", "tc_text", metavar="TC", default=None,
              help=f"'BASE+INC' seconds or 'move=SECONDS' [default: {DEFAULT_TC}; {HUMAN_TC} with a human].")
@click.option("--record", "record_path", metavar="FILE", type=click.Path(dir_okay=False),
              help="Write the game record (JSON) here.")
@click.option("--geese-count", type=Integer(), default=None, help="standard: 13 (default), 15 or 17 geese.")
@click.option("--sideways", is_flag=True, default=None, help="standard: geese may also step sideways.")
@variant_option
@click.option("--opening", default="", metavar="MOVES",
              help="Moves played before the bots take over, e.g. 'd4-d5 c3-c4'.")
@click.option("--max-plies", type=Integer(1, MAX_PLIES), default=None, help="Adjudicate a draw after N plies.")
@click.option("--bind", "endpoint", default=None, metavar="ENDPOINT",
              help="Bind this address instead of a private ipc:// one (e.g. tcp://127.0.0.1:5555); "
                   "bots of transport auto connect there.")
@click.option("--bind-public", is_flag=True, help="Allow --bind on an address other machines can reach.")
@click.option("--lag-margin-ms", type=Integer(0, 60_000), default=50, show_default=True,
              help="Grace for the trip through the sockets on top of each clock.")
@click.option("--heartbeat", "heartbeat_s", type=Number(0.01, 3600), default=None, metavar="SECONDS",
              help="Ping every bot's connection this often (ZeroMQ's own heartbeat, answered by ZMTP 3.1 "
                   "libraries); one silent for 3 intervals loses by crash (PROTOCOL.md, heartbeats).")
@click.option("--log-dir", type=click.Path(file_okay=False), default=None,
              help="Where the bots' stderr files go [default: a temporary folder, "
                   "removed at the end unless a bot wrote something].")
@click.option("--transport", "transports", multiple=True, metavar="[SIDE=]KIND",
              help="How a launched bot reaches the referee: auto (default: ipc:// for built-in players "
                   "and sandboxed bots, loopback TCP for cmd: programs), ipc or tcp (for ZeroMQ "
                   "libraries without ipc://, e.g. JeroMQ, NetMQ); for one side with SIDE=KIND; repeatable.")
@click.option("--sandbox", "sandboxed", multiple=True, metavar="SIDE",
              help="Run this side's bot inside a bubblewrap sandbox (fox, geese, hare, hounds or all; "
                   "repeatable): no network, no other processes, read-only files.")
@click.option("--seed", type=Integer(0, 2**53 - 1), default=None, metavar="N",
              help="The game's seed, sent to both bots (a fresh one is drawn and recorded otherwise).")
@click.option("--board", "show_board", is_flag=True, help="Draw the board after every move.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the result line.")
@click.option("--trace", is_flag=True, help="Print every protocol message on stderr (JSON, one a line).")
def play(variant_id: str, fox: str | None, geese: str | None, hare: str | None, hounds: str | None,
         tc_text: str | None, record_path: str | None, geese_count: int | None, sideways: bool | None,
         opening: str, max_plies: int | None, endpoint: str | None, bind_public: bool, lag_margin_ms: int,
         heartbeat_s: float | None, log_dir: str | None, transports: tuple[str, ...], sandboxed: tuple[str, ...],
         seed: int | None, show_board: bool, quiet: bool, trace: bool, variant_options: tuple[str, ...] = ()) -> None:
    """Play one game of VARIANT between two players; each seat takes a player SPEC.

    \b
    SPEC: a built-in player NAME[:key=value,...] (random, minimax:depth=3, mcts:playouts=500, ...),
          cmd:COMMAND LINE for any program speaking PROTOCOL.md,
          human for you at this terminal,
          remote for a bot elsewhere that connects with the printed endpoint and token.

    \b
    Exit status: 0 the game was played out (a rule ending, a resignation, --max-plies);
                 3 a bot lost on time, 4 by an illegal move, 5 by a protocol error,
                 6 by crashing, 7 by not showing up; 2 a usage mistake; 130 interrupted.
    With a human seat the person's terminal shows each move, the board and the prompt.
    """
    try:
        variant = get_variant(variant_id, **option_values(variant_options, geese=geese_count, sideways=sideways))
        predator_spec, prey_spec = _seat_specs(variant, {"fox": fox, "geese": geese, "hare": hare, "hounds": hounds})
        boxed = _sandboxed_sides(variant, sandboxed)
        kinds = _transports(variant, transports)
        seats = {
            Side.PREDATOR: BotConfig.from_spec(predator_spec, name=predator_spec, sandbox=Side.PREDATOR in boxed,
                                               transport=kinds[Side.PREDATOR]),
            Side.PREY: BotConfig.from_spec(
                prey_spec, name=prey_spec if prey_spec != predator_spec else f"{prey_spec}#2",
                sandbox=Side.PREY in boxed, transport=kinds[Side.PREY],
            ),
        }
        if tc_text is None:
            tc_text = HUMAN_TC if any(config.interactive for config in seats.values()) else DEFAULT_TC
        control = TimeControl.parse(tc_text)
        if record_path:
            check_writable("--record", record_path)
        book = Game(variant)
        for text in opening.replace(",", " ").split():
            try:
                book.push(book.parse_move(text))
            except (InvalidMoveError, IllegalMoveError) as error:
                raise UsageProblem(f"--opening: ply {len(book.moves) + 1}: {error}") from None
        _check_log_dir(log_dir)
        for config in seats.values():  # compiled players' code compiled or loaded now, off the clocks
            config.warm()
        referee = Referee(endpoint=endpoint, bind_public=bind_public, lag_margin_ms=lag_margin_ms,
                          log_dir=log_dir, trace=_print_message if trace else None, heartbeat_s=heartbeat_s)
    except (UnknownVariantError, BotSpecError, TimeControlError, RefereeConfigError) as error:
        raise UsageProblem(str(error)) from None
    human = any(config.interactive for config in seats.values())
    names = {variant.side_name(side): config.name for side, config in seats.items()}
    with terminate_like_ctrl_c(), referee:  # SIGTERM and SIGHUP end the bots as Ctrl-C does
        if any(config.is_remote for config in seats.values()):
            click.echo(f"waiting for remote bots: FOXGEESE_ENDPOINT={referee.endpoint} "
                       f"FOXGEESE_TOKEN={referee.token}", err=True)
        on_move = None
        if not quiet:
            click.echo(f"{variant} {control}: " + " vs ".join(f"{side} {name}" for side, name in names.items()))
            replay = Game(variant)
            for number, move in enumerate(book.moves, 1):
                click.echo(f"{number:4d}. {variant.side_name(replay.position.turn):<6} {str(move):<12} opening")
                replay.push(move)
            # With a person playing, their seat says each move above its board and prompt (once, not twice).
            if not human:
                on_move = _BoardPrinter(book) if show_board else _print_move
        try:
            record = referee.play_game(variant, seats, control, opening=opening.replace(",", " ").split(),
                                       max_plies=max_plies, on_move=on_move, record_path=record_path,
                                       seed=seed)
        except OSError as error:  # the record could not be written
            if record_path is None or isinstance(error, BrokenPipeError):
                raise
            raise UsageProblem(f"--record {record_path}: {error.strerror or error}") from None
        except KeyboardInterrupt as interrupt:
            click.echo(f"{interrupt or 'interrupted'}; stopping the bots", err=True)
            sys.exit(143 if interrupt.args == ("SIGTERM",) else 129 if interrupt.args == ("SIGHUP",) else 130)
    click.echo(f"result: {record.result_line()}")
    for note in failure_notes(record):  # a failed bot's log, named, and its last lines
        click.echo(note)
    if record_path and not quiet:
        click.echo(f"record: {record_path}")
    sys.exit(exit_status(record))


def _sandboxed_sides(variant: Variant, names: tuple[str, ...]) -> set[Side]:
    """The sides `--sandbox` names (side names of the variant, or `all`)."""
    sides = {variant.side_name(side): side for side in (Side.PREDATOR, Side.PREY)}
    chosen: set[Side] = set()
    for name in names:
        if name.lower() == "all":
            chosen.update(sides.values())
        elif name.lower() in sides:
            chosen.add(sides[name.lower()])
        else:
            both = " and ".join(sides)
            raise UsageProblem(f"--sandbox {named(name)}: {variant.id} has the sides {both} (or say all)")
    return chosen


def _transports(variant: Variant, values: tuple[str, ...]) -> dict[Side, str]:
    """The transport of each side's bot from `--transport KIND` (both) and `--transport SIDE=KIND`."""
    sides = {variant.side_name(side): side for side in (Side.PREDATOR, Side.PREY)}
    chosen = dict.fromkeys(sides.values(), "auto")
    for value in values:
        name, equals, kind = value.lower().rpartition("=")
        if kind not in TRANSPORTS:
            raise UsageProblem(f"--transport {named(value)}: give {', '.join(TRANSPORTS)}, or SIDE=KIND "
                               "(e.g. fox=tcp)")
        if not equals:
            chosen = dict.fromkeys(sides.values(), kind)
        elif name in sides:
            chosen[sides[name]] = kind
        else:
            both = " and ".join(sides)
            raise UsageProblem(f"--transport {named(value)}: {variant.id} has the sides {both}")
    return chosen


def register(group: click.Group) -> None:
    group.add_command(play)
