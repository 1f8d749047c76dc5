"""`foxgeese bot`: run a built-in player as a bot process, or check any bot for protocol conformance.

Exact command lines (the referee's BotConfig.from_spec builds the first form):

    foxgeese bot NAME [--option key=value ...] [--connect ENDPOINT] [--token TOKEN] [--name TEXT]
        Runs the built-in player `NAME:key=value,...` (foxgeese.players.registry SPEC) through the
        SDK. `--opt` is an alias of `--option`. ENDPOINT defaults to FOXGEESE_ENDPOINT; the token is
        read from the descriptor FOXGEESE_TOKEN_FD names (what a referee gives the bots it launches),
        else taken from FOXGEESE_TOKEN (a remote seat's, as the referee prints it).
        Exit 0 after the referee's `quit`; 1 with one line on stderr when refused or misconfigured.

    foxgeese bot check [--timeout-ms MS] COMMAND [ARGS...]
        Launches COMMAND as a bot against a private ROUTER on ipc:// and walks it through every
        protocol step; prints `PASS step` / `FAIL step: expected ..., got ...` and exits 1 on any
        failure. Use `--` before a COMMAND whose own options could be taken for check's.
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any

import click

from foxgeese import __version__
from foxgeese.engine import DEFAULT_VARIANT
from foxgeese.engine.userinput import shown
from foxgeese.params import Integer
from foxgeese.players.registry import PLAYER_NAMES, make_player, player_class, player_options, warm
from foxgeese.protocol import codec
from foxgeese.protocol.bot_start import endpoint_problem, is_key_value, spec_text
from foxgeese.protocol.botapi_client import RemoteBot, RemoteBotError, load_player
from foxgeese.protocol.botconfig import TRANSPORTS, BotConfig, BotSpecError
from foxgeese.protocol.sdk import BotError, run_bot
from foxgeese.usage import UsageProblem

BOT_HELP = """Run a built-in player as a bot, or check a bot for protocol conformance.

\b
  foxgeese bot NAME [--option key=value ...] [--connect ENDPOINT] [--token TOKEN]
      plays the built-in player NAME (random, minimax, mcts, solver, ...) as a bot
      process (protocol 2); the endpoint defaults to FOXGEESE_ENDPOINT, the token to
      the descriptor FOXGEESE_TOKEN_FD names (a launched bot), else FOXGEESE_TOKEN.
  foxgeese bot check COMMAND [ARGS...]
      runs COMMAND as a bot against a private referee and prints PASS/FAIL per step.
  foxgeese bot remote --server URL --token-file FILE SPEC_OR_SCRIPT
      plays on a foxgeese server through its Bot API (HTTP; docs/botapi.md).

Run `foxgeese bot check --help` for the conformance options.
"""


def player_spec(name: str, options: tuple[str, ...]) -> str:
    """`random` + ("seed=7",) -> `random:seed=7` (the registry's SPEC form)."""
    for option in options:
        if not is_key_value(option):
            raise click.BadParameter(f"{shown(option)} is not key=value", param_hint="--option")
    return spec_text(name, options)


def check_connect_endpoint(endpoint: str | None) -> None:
    """Refuses an endpoint ZeroMQ would reject or silently bend (a port past 65535 wraps around)."""
    if not endpoint:
        return  # the SDK says that no endpoint was given
    problem = endpoint_problem(endpoint)
    if problem is not None:
        raise UsageProblem(problem)


def make_builtin_player(spec: str) -> Any:
    """The registry's player for SPEC; a bad SPEC is a usage problem."""
    try:
        return make_player(spec)
    except ValueError as error:  # PlayerSpecError and bad option values
        raise UsageProblem(str(error)) from None


def player_options_help(name: str) -> str:
    """The player's options as `--option` takes them, with their defaults, for `foxgeese bot NAME --help`."""
    try:
        cls = player_class(name)
        names = player_options(name)
    except ValueError:
        return ""  # an unknown player: running the command says so
    parameters = inspect.signature(cls.__init__).parameters
    lines = []
    for option in names:
        parameter = parameters.get(option)
        default = "" if parameter is None or parameter.default is inspect.Parameter.empty else \
            f" (default {parameter.default!r})"
        lines.append(f"  {option}=VALUE{default}")
    if not lines:
        return f"The player {name!r} takes no options."
    return "\b\nPlayer options (--option KEY=VALUE, repeatable):\n" + "\n".join(lines)


def run_player_command(name: str) -> click.Command:
    """The command that `foxgeese bot NAME` resolves to when NAME is not a subcommand."""

    @click.command(name=name, help=f"Run the built-in player {name!r} as a bot (protocol 2).",
                   epilog=player_options_help(name) if name in PLAYER_NAMES else None)
    @click.option("--option", "--opt", "options", multiple=True, metavar="KEY=VALUE",
                  help="A player option (repeatable), e.g. --option seed=7.")
    @click.option("--connect", "endpoint", default=None, metavar="ENDPOINT",
                  help="Referee endpoint [default: $FOXGEESE_ENDPOINT].")
    @click.option("--token", default=None,
                  help="Token the referee gave [default: read from the descriptor $FOXGEESE_TOKEN_FD, "
                       "else $FOXGEESE_TOKEN].")
    @click.option("--name", "bot_name", default=None, help="Name sent in hello [default: the SPEC].")
    def command(options: tuple[str, ...], endpoint: str | None, token: str | None, bot_name: str | None) -> None:
        spec = player_spec(name, options)
        player = make_builtin_player(spec)
        check_connect_endpoint(endpoint or os.environ.get(codec.ENV_ENDPOINT))
        # Compiled code loaded before `hello` (its window is 15 s), not in `new_game` inside the
        # 5 s `ready` window, which a loaded machine can overrun (load 6: 4 s for the alpha-beta).
        warm(spec)
        try:
            run_bot(player, name=bot_name or spec, author="foxgeese", version=__version__,
                    endpoint=endpoint, token=token)
        except BotError as error:
            raise UsageProblem(str(error)) from None
        except KeyboardInterrupt:
            sys.exit(130)

    return command


class BotGroup(click.Group):
    """A group whose unknown subcommand names are built-in players (`foxgeese bot random`)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        if cmd_name.startswith("-"):
            return None
        return run_player_command(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_commands(ctx, formatter)
        with formatter.section("Players"):
            formatter.write_text(", ".join(PLAYER_NAMES))


@click.group(name="bot", cls=BotGroup, help=BOT_HELP, subcommand_metavar="NAME|check [ARGS]...",
             context_settings={"help_option_names": ["-h", "--help"]})
def bot() -> None:
    pass


@bot.command(
    name="check",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option("--timeout-ms", default=5000, show_default=True, type=Integer(100, 600_000),
              help="How long the bot may take for hello and for each reply.")
@click.option("--transport", type=click.Choice(TRANSPORTS), default="auto", show_default=True,
              help="Where the bot connects: auto is loopback TCP for a program (as for a cmd: seat), "
                   "which every ZeroMQ library reaches; ipc for a private ipc:// socket.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def check(timeout_ms: int, transport: str, command: tuple[str, ...]) -> None:
    """Check that COMMAND speaks protocol 2: hello, new_game, turns, game_over, ping, quit.

    Launches COMMAND as a referee does (FOXGEESE_ENDPOINT set, its token behind the descriptor
    FOXGEESE_TOKEN_FD names; see PROTOCOL.md), plays both sides of every
    variant it claims on the start, a mid-game position and (fox variants) a capture chain, and
    prints PASS or FAIL per step; exits 1 if any step failed. Options of `check` go before
    COMMAND; everything from COMMAND on is the bot's command line.
    """
    # Here, not at the top: the check brings a referee (psutil, the supervisor), which a built-in
    # bot process (`foxgeese bot NAME`) does not need at start-up.
    from foxgeese.protocol.conformance import check_bot

    try:
        BotConfig(os.path.basename(command[0]), list(command)).check()
    except BotSpecError as error:  # nothing to check: one line, as every usage problem
        raise UsageProblem(f"bot check: {error}; give the bot's command line, e.g. "
                           "`foxgeese bot check python3 bot.py`") from None
    ok = check_bot(list(command), timeout_ms=timeout_ms, out=lambda line: click.echo(line), transport=transport)
    if not ok:
        sys.exit(1)


def register(group: click.Group) -> None:
    group.add_command(bot)


@bot.command(name="remote")
@click.option("--server", "server_url", required=True, metavar="URL",
              help="The foxgeese server's address, e.g. http://127.0.0.1:8000.")
@click.option("--token-file", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="The file holding the bot's token (foxgeese botapi register NAME --token-file FILE).")
@click.option("--games", default=None, type=Integer(1, 1_000_000), help="Stop after this many games [default: never].")
@click.option("--play", "opponent", default=None, metavar="SPEC",
              help="Once connected, ask the server for a game against this built-in player.")
@click.option("--side", default=None, metavar="SIDE", help="With --play: the side this bot plays (fox, geese, ...).")
@click.option("--variant", default=DEFAULT_VARIANT, show_default=True, help="With --play: the variant.")
@click.option("--tc", default="60+1", show_default=True, help="With --play: the time control.")
@click.argument("player")
def remote(server_url: str, token_file: str, games: int | None, opponent: str | None, side: str | None,
           variant: str, tc: str, player: str) -> None:
    """Play on a server through its Bot API: PLAYER is a built-in player SPEC or a Python script
    defining `choose(position, clock) -> move` (docs/botapi.md)."""
    try:
        with open(token_file, encoding="utf-8") as handle:
            token = handle.read().strip()
    except OSError as error:
        raise UsageProblem(f"--token-file {token_file}: {error.strerror}") from None
    play = None
    if opponent is not None:
        play = {"opponent": opponent, "variant": variant, "tc": tc, "side": side or ""}
    try:
        RemoteBot(server_url, token, load_player(player), games=games, play=play,
                  out=lambda line: click.echo(line)).run()
    except RemoteBotError as error:
        raise UsageProblem(str(error)) from None
    except KeyboardInterrupt:
        sys.exit(130)
