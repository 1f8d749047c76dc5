"""The start of a built-in bot as a referee launches it, without the click command line.

`BotConfig.from_spec` launches a built-in player as `python -m foxgeese bot NAME --option k=v ...`
with the endpoint and token in the environment. A tournament starts every bot of every worker that
way, and the command line (click, its help and error machinery) is a quarter of such a bot's
start-up: about 60 ms of CPU of some 250. So `python -m foxgeese` plays that exact form here, and
hands everything else, any flag or mistake included, to the full command line (protocol/bot_cli.py),
which reports it. Both forms run the same player through the same SDK call.
"""

from __future__ import annotations

import os
import re
import sys

from foxgeese import __version__
from foxgeese.engine.userinput import one_line, shown
from foxgeese.players.registry import PLAYER_NAMES, make_player, warm
from foxgeese.protocol import codec
from foxgeese.protocol.sdk import BotError, run_bot

USAGE_EXIT = 2  # as foxgeese.usage: a bot refused or misconfigured is a usage problem
INTERRUPTED_EXIT = 130
OPTION_FLAGS = ("--option", "--opt")

_CONNECTABLE = re.compile(r"(tcp://(\[[0-9a-fA-F:.]+\]|[^:/\[\]\s]+):([0-9]{1,5})|ipc://\S+)", re.ASCII)


def endpoint_problem(endpoint: str) -> str | None:
    """Why ZeroMQ would reject `endpoint` or silently bend it (a port past 65535 wraps), or None."""
    match = _CONNECTABLE.fullmatch(endpoint)
    if match is None or (match.group(3) is not None and not 0 < int(match.group(3)) <= 65535):
        return (f"endpoint {shown(endpoint)}: expected tcp://HOST:PORT (port 1-65535) or ipc://PATH, "
                "as the referee prints it")
    return None


def is_key_value(option: str) -> bool:
    """Whether a `--option` value is one `key=value` (the registry's SPEC takes no commas in one)."""
    key, eq, _ = option.partition("=")
    return bool(eq) and bool(key.strip()) and "," not in option


def spec_text(name: str, options: list[str] | tuple[str, ...]) -> str:
    """`random` + ["seed=7"] -> `random:seed=7` (the registry's SPEC form)."""
    return f"{name}:{','.join(options)}" if options else name


def run_launched_bot(args: list[str]) -> int | None:
    """Plays `bot NAME [--option key=value ...]` with the endpoint in the environment and returns
    the exit status; None for any other command line, or a player SPEC the registry refuses."""
    if len(args) < 2 or len(args) % 2 or args[0] != "bot" or args[1] not in PLAYER_NAMES:
        return None
    flags, options = args[2::2], args[3::2]
    if any(flag not in OPTION_FLAGS for flag in flags) or not all(map(is_key_value, options)):
        return None
    endpoint = os.environ.get(codec.ENV_ENDPOINT)
    if not endpoint or endpoint_problem(endpoint) or "\x00" in "".join(args):
        return None
    spec = spec_text(args[1], options)
    try:
        player = make_player(spec)
    except ValueError:
        return None
    warm(spec)  # as bot_cli: compiled code loaded inside the 15 s `hello` window, not the 5 s `ready` one
    try:
        run_bot(player, name=spec, author="foxgeese", version=__version__)
    except BotError as error:
        print(f"foxgeese: {one_line(str(error))}", file=sys.stderr)
        return USAGE_EXIT
    except KeyboardInterrupt:
        return INTERRUPTED_EXIT
    return 0
