"""How every user mistake ends on the command line: one line `foxgeese: <what is wrong and the fix>`
on stderr and a non-zero exit status, the same for every subcommand and for click's own usage errors
(an unknown option, a missing argument), which `FoxgeeseGroup` reformats.

Exit statuses: 2 for a usage mistake, 1 for a problem found while working (e.g. a failed bot
check), 130 when interrupted; `foxgeese play` adds one status per game outcome (see its --help).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
from collections.abc import Sequence
from typing import IO, Any, NoReturn

import click

from foxgeese.engine.userinput import named, one_line

USAGE_EXIT = 2
INTERRUPTED_EXIT = 130
# click 8.2+ raises this for a group given no command; older versions print the help themselves.
_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())


class UsageProblem(click.ClickException):
    """A user mistake: bad arguments, a missing file, an unknown player or variant."""

    exit_code = USAGE_EXIT

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(problem_line(self), file=file, err=file is None)


def fail(message: str) -> NoReturn:
    """Ends the command with `message` as a usage problem."""
    raise UsageProblem(message)


def check_writable(option: str, path: str) -> None:
    """Fails now, before any work, if `path` cannot be written as a file (no such folder, a folder,
    no permission, a name too long); a file created to find out is removed again."""
    try:
        existed = os.path.lexists(path)
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    except FileNotFoundError:
        fail(f"{option} {named(path)}: no such folder")
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        why = getattr(error, "strerror", None) or str(error)
        fail(f"{option} {named(path)}: cannot write there ({why}); give a file in an existing folder")
    os.close(handle)
    if not existed:
        os.unlink(path)


def problem_line(error: click.ClickException) -> str:
    """The one line that reports `error`: click's usage errors name the command and its --help."""
    message = one_line(error.format_message())
    if isinstance(error, click.UsageError) and not isinstance(error, UsageProblem):
        if message[1:2].islower():  # click's sentences ("No such option"), not a name ("DEPTH", "--seed")
            message = message[:1].lower() + message[1:]
        if error.ctx is not None:
            command = command_path(error.ctx)
            where = command.removeprefix("foxgeese").strip()
            message = f"{where + ': ' if where else ''}{message.rstrip('.')} (see '{command} --help')"
    return f"foxgeese: {message}"


def command_path(ctx: click.Context) -> str:
    """`foxgeese tournament run` however the program was started (`python -m foxgeese`, a script)."""
    names = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["foxgeese", *reversed(names)])


class FoxgeeseGroup(click.Group):
    """The top-level group: runs click without its standalone error printing, so that every
    ClickException (ours and click's) is reported as exactly one `foxgeese: …` line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OSError as error:  # before click's own answer to a closed pipe (a silent exit 1)
            if error.errno == errno.EPIPE:
                closed_pipe()
            raise

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        given = sys.argv[1:] if args is None else list(args)
        if any("\x00" in str(arg) for arg in given):  # only a caller in-process can pass one
            click.echo("foxgeese: an argument contains a NUL character", err=True)
            sys.exit(USAGE_EXIT)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        except _NO_ARGS_IS_HELP as error:  # `foxgeese` or `foxgeese tournament` alone: the help, as click shows it
            error.show()
            sys.exit(error.exit_code)
        except click.ClickException as error:
            click.echo(problem_line(error), err=True)
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("foxgeese: interrupted", err=True)
            sys.exit(INTERRUPTED_EXIT)
        except OSError as error:
            if error.errno != errno.EPIPE:
                raise
            closed_pipe()
        sys.exit(result if isinstance(result, int) and not isinstance(result, bool) else 0)


def closed_pipe() -> NoReturn:
    """The reader of our output went away (`| head`): end as a Unix tool does, killed by SIGPIPE
    (status 141 in a shell), with no traceback and no message; what is still buffered for stdout
    goes nowhere."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGPIPE)
    sys.exit(128 + signal.SIGPIPE)  # where SIGPIPE cannot end the process
