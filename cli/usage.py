"""How every user mistake ends on the command line: one line `foxgeese: <what is wrong and the fix>`
on stderr and exit status 2, the same for every subcommand. (Click's own usage errors, such as an
unknown option, keep click's format and also exit with 2.)"""

from __future__ import annotations

from typing import IO, Any, NoReturn

import click

USAGE_EXIT = 2


class UsageProblem(click.ClickException):
    """A user mistake: bad arguments, a missing file, an unknown player or variant."""

    exit_code = USAGE_EXIT

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"foxgeese: {self.format_message()}", file=file, err=file is None)


def fail(message: str) -> NoReturn:
    """Ends the command with `message` as a usage problem."""
    raise UsageProblem(message)
