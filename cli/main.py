"""The `foxgeese` command line: each subpackage contributes its commands through `register(group)`."""

from __future__ import annotations

import importlib

import click

from foxgeese import __version__
from foxgeese.usage import FoxgeeseGroup

# Subpackage modules that define `register(group: click.Group) -> None`.
COMMAND_MODULES = (
    "foxgeese.engine_commands",
    "foxgeese.protocol.cli",
    "foxgeese.protocol.bot_cli",
    "foxgeese.players.cli",
    "foxgeese.tournaments.cli",
)


@click.group(cls=FoxgeeseGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="foxgeese")
def main() -> None:
    """Play, judge and compare AIs for Fox and Geese, Hare and Hounds and the Great Cross."""


for _name in COMMAND_MODULES:
    try:
        _module = importlib.import_module(_name)
    except ModuleNotFoundError as error:
        if error.name != _name:
            raise
        continue
    _module.register(main)
