"""How to start a bot: a name and a command line, parsed from a player SPEC.

SPEC is `NAME[:key=value,...]` for a built-in player (run as `python -m foxgeese bot NAME
--option key=value ...`), `cmd:COMMAND LINE` for any external program, `human` for a person at
this terminal, or `remote` for a bot that connects by itself with the referee's token.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from typing import Any

from foxgeese.engine.userinput import did_you_mean, shown
from foxgeese.players import registry
from foxgeese.protocol.sandbox import check_available as sandbox_check

CMD_PREFIX = "cmd:"
HUMAN = "human"
REMOTE = "remote"
# How a launched bot reaches its referee: `ipc` (a Unix socket), `tcp` (loopback TCP, for ZeroMQ
# libraries without ipc://: JeroMQ, NetMQ) or `auto`: ipc for the built-in players and sandboxed
# bots, loopback TCP for any other program (its library is unknown). Both carry the same seat
# guarantees (PROTOCOL.md, security).
TRANSPORTS = ("auto", "ipc", "tcp")

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")
_OPTION = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*=[^,]*$")


class BotSpecError(ValueError):
    """A player SPEC that cannot be turned into a bot command (bad form, missing program)."""


@dataclass(frozen=True)
class BotConfig:
    """One bot as the referee launches it.

    `command` empty means a remote bot: nothing is launched, the referee waits for a `hello` with
    its shared token. `interactive` bots keep the terminal's stdin/stdout (a human player).
    `sandbox` runs the bot inside bubblewrap (sandbox.py): for bots you do not trust.
    `transport` is how it reaches the referee (TRANSPORTS).
    """

    name: str
    command: tuple[str, ...] = ()
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    interactive: bool = False
    spec: str = field(default="", compare=False)
    sandbox: bool = False
    transport: str = "auto"

    def __init__(
        self,
        name: str,
        command: list[str] | tuple[str, ...] = (),
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | tuple[tuple[str, str], ...] | None = None,
        interactive: bool = False,
        spec: str = "",
        sandbox: bool = False,
        transport: str = "auto",
    ) -> None:
        env_items = tuple(sorted(env.items())) if isinstance(env, dict) else tuple(env or ())
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "command", tuple(str(part) for part in command))
        object.__setattr__(self, "cwd", None if cwd is None else os.fspath(cwd))
        object.__setattr__(self, "env", env_items)
        object.__setattr__(self, "interactive", interactive)
        object.__setattr__(self, "spec", spec or shlex.join(self.command))
        object.__setattr__(self, "sandbox", bool(sandbox))
        object.__setattr__(self, "transport", transport)
        if transport not in TRANSPORTS:
            raise BotSpecError(f"bot {shown(name, 200)}: transport {shown(transport, 30)}; "
                               f"expected one of {', '.join(TRANSPORTS)}")
        if self.sandbox and transport == "tcp":
            raise BotSpecError(f"bot {shown(name, 200)}: the sandbox has no network; a sandboxed bot "
                               "reaches its referee over ipc:// (transport ipc or auto)")

    @property
    def is_remote(self) -> bool:
        return not self.command

    @property
    def is_builtin(self) -> bool:
        """A built-in player (`python -m foxgeese bot NAME`): pyzmq, so ipc:// is sure to work."""
        return self.command[:4] == (sys.executable, "-m", "foxgeese", "bot")

    def transport_kind(self) -> str:
        """`ipc` or `tcp`: the transport itself, or what `auto` means for this bot."""
        if self.transport != "auto":
            return self.transport
        return "ipc" if self.sandbox or self.is_builtin or self.is_remote else "tcp"

    def environment(self) -> dict[str, str]:
        """Extra environment variables for the bot, on top of the referee's own."""
        return dict(self.env)

    def warm(self) -> None:
        """Readies a built-in player's compiled code (`registry.warm`) before its first game."""
        if self.command[:4] == tuple(builtin_command("", [])[:4]) and not self.interactive:
            registry.warm(self.spec)

    def check(self) -> None:
        """Raises BotSpecError if the program cannot be found, before any game starts."""
        if self.is_remote:
            return
        if self.sandbox:
            try:
                sandbox_check()
            except OSError as error:
                raise BotSpecError(f"bot {self.name!r}: {error}") from None
        program = self.command[0]
        if os.sep in program or (os.altsep and os.altsep in program):
            path = self._here(program)
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                where = f" (looked for {shown(path, 300)})" if path != program else ""
                raise BotSpecError(f"bot {shown(self.name, 200)}: program {shown(program, 200)} does not exist or "
                                   f"is not executable{where}")
        elif shutil.which(program, path=self.environment().get("PATH")) is None:
            raise BotSpecError(f"bot {shown(self.name, 200)}: program {shown(program, 200)} not found on PATH")

    def _here(self, path: str) -> str:
        """`path` as the bot will see it: relative paths start in its working folder (`cwd`, else
        the current one)."""
        return path if os.path.isabs(path) or self.cwd is None else os.path.join(self.cwd, path)

    def check_script(self) -> None:
        """Raises BotSpecError if the script of a `python SCRIPT ...` command line (the commonest
        bot) is missing where the bot will run; anything else passes."""
        if len(self.command) < 2 or not os.path.basename(self.command[0]).startswith("python"):
            return
        script = self.command[1]
        if script.endswith(".py") and not script.startswith("-") and not os.path.isfile(self._here(script)):
            raise BotSpecError(f"bot {shown(self.name, 200)}: script {shown(script, 200)} does not exist "
                               f"(looked for {shown(self._here(script), 300)})")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "command": list(self.command), "cwd": self.cwd, "spec": self.spec}
        if self.sandbox:
            data["sandbox"] = True
        if self.transport != "auto":
            data["transport"] = self.transport
        return data

    def sandboxed(self, sandbox: bool = True) -> BotConfig:
        """The same bot, run inside the bubblewrap sandbox (or not); checks that bubblewrap is there."""
        config = dataclasses.replace(self, sandbox=sandbox)
        config.check()
        return config

    def over(self, transport: str) -> BotConfig:
        """The same bot, reaching its referee by `transport` (TRANSPORTS)."""
        return dataclasses.replace(self, transport=transport)

    @classmethod
    def from_spec(cls, spec: str, name: str | None = None, sandbox: bool = False,
                  cwd: str | os.PathLike[str] | None = None, transport: str = "auto") -> BotConfig:
        """Parses a player SPEC (see the module doc) and checks that its program exists.

        `sandbox=True` runs it inside bubblewrap (not for `remote`, which is launched by nobody).
        `cwd` is where a `cmd:` bot runs, and so where its relative paths start (default: the
        current folder). `transport`: see TRANSPORTS.
        """
        if not isinstance(spec, str) or not spec.strip():
            raise BotSpecError("empty player spec; expected NAME[:key=value,...] or cmd:COMMAND LINE")
        spec = spec.strip()
        if spec.startswith(CMD_PREFIX):
            try:
                command = shlex.split(spec[len(CMD_PREFIX):])
            except ValueError as error:
                raise BotSpecError(f"bad command line in {shown(spec, 200)}: {error}") from None
            if not command:
                raise BotSpecError(f"{shown(spec, 200)} has no command after 'cmd:'")
            config = cls(name or os.path.basename(command[0]), command, cwd=cwd, spec=spec)
        elif spec == REMOTE:
            config = cls(name or REMOTE, (), spec=spec)
        elif spec.startswith(REMOTE + ":"):
            raise BotSpecError(f"{shown(spec, 200)} is a bot of a server's Bot API: only that server seats it "
                               "(a game of foxgeese serve, or its arena; docs/botapi.md)")
        else:
            player, _, options_text = spec.partition(":")
            player = player.lower()  # as the player registry reads it
            if not _NAME.match(player):
                raise BotSpecError(
                    f"bad player spec {shown(spec, 200)}; expected NAME[:key=value,...] (e.g. 'random:seed=7') "
                    "or cmd:COMMAND LINE"
                )
            options = [item.strip() for item in options_text.split(",")] if options_text else []
            for item in options:
                if not _OPTION.match(item):
                    raise BotSpecError(f"bad option {shown(item, 200)} in {shown(spec, 200)}; "
                                       "options are key=value separated by commas")
            _check_builtin(player, options, spec)
            command = builtin_command(player, options)
            config = cls(name or spec, command, interactive=(player == HUMAN), spec=spec)
        if sandbox:
            if config.is_remote:
                raise BotSpecError(f"{spec!r}: a remote bot runs elsewhere and cannot be sandboxed here")
            config = dataclasses.replace(config, sandbox=True)
        if transport != "auto":
            if config.is_remote:
                raise BotSpecError(f"{spec!r}: a remote bot connects to the referee's own address; for TCP bind "
                                  "one (--bind tcp://127.0.0.1:PORT) instead of giving it a transport")
            config = dataclasses.replace(config, transport=transport)
        config.check()
        return config


def builtin_command(player: str, options: list[str]) -> list[str]:
    """The command line that runs a built-in player as a bot (`foxgeese bot NAME --option k=v`)."""
    command = [sys.executable, "-m", "foxgeese", "bot", player]
    for option in options:
        command += ["--option", option]
    return command


def _check_builtin(player: str, options: list[str], spec: str) -> None:
    """Names and options are checked against the player registry so typos fail before launch."""
    if player not in registry.PLAYER_NAMES:
        raise BotSpecError(
            f"unknown player {shown(player, 200)}{did_you_mean(player, registry.PLAYER_NAMES)} in {shown(spec, 200)}; "
            f"valid: {', '.join(registry.PLAYER_NAMES)}, "
            "or cmd:COMMAND LINE for an external bot"
        )
    try:
        valid = registry.player_options(player)
    except ValueError as error:
        raise BotSpecError(str(error)) from None
    for item in options:
        key = item.partition("=")[0]
        if key not in valid:
            raise BotSpecError(f"unknown option {shown(key, 200)} for {player}{did_you_mean(key, valid)}; "
                               f"valid: {', '.join(valid) or 'none'}")
    try:
        registry.make_player(spec)  # the values too, exactly as the bot process will read them
    except ValueError as error:
        raise BotSpecError(f"{error} (player spec {shown(spec, 200)})") from None
