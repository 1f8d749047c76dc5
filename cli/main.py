"""The `foxgeese` command line: each subpackage contributes its commands through `register(group)`.

The group loads a command's module only when that command runs (or when the help lists them all):
every built-in bot is a `python -m foxgeese bot NAME` process, and loading every package (the web
app, the tournaments, numpy and numba) would cost each one about a second of start-up.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from foxgeese import __version__
from foxgeese.usage import FoxgeeseGroup

# Each command -> the subpackage module whose `register(group: click.Group) -> None` adds it
# (tests/test_cli_lazy.py checks this table against what the modules register).
COMMANDS = {
    "perft": "foxgeese.engine_commands",
    "legal": "foxgeese.engine_commands",
    "show": "foxgeese.show",
    "play": "foxgeese.protocol.cli",
    "bot": "foxgeese.protocol.bot_cli",
    "solve": "foxgeese.players.cli",
    "analyse": "foxgeese.players.cli",
    "tournament": "foxgeese.tournaments.cli",
    "serve": "foxgeese.web.cli",
    "botapi": "foxgeese.web.botapi_cli",
    "arena": "foxgeese.web.arena.cli",
}
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))


class LazyGroup(FoxgeeseGroup):
    """A FoxgeeseGroup that imports a command's module when the command is first asked for."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.load(COMMANDS[cmd_name])
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context,
                        args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand:  # suggest among every command, loaded or not
            raise click.exceptions.NoSuchCommand(args[0], possibilities=sorted({*COMMANDS, *self.commands}),
                                                 ctx=ctx) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module_name in COMMAND_MODULES:
            self.load(module_name)
        return sorted(self.commands)

    def load(self, module_name: str) -> None:
        """Registers the commands of `module_name`; a subpackage that is not installed adds none."""
        try:
            module: Any = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            return
        module.register(self)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="foxgeese")
def main() -> None:
    """Play, judge and compare AIs for Fox and Geese, Hare and Hounds and the Great Cross."""
