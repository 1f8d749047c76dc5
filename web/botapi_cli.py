"""`foxgeese botapi`: register and revoke the remote bots a server's Bot API lets in (docs/botapi.md)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import click

from foxgeese.usage import UsageProblem
from foxgeese.web.botapi_store import BotApiError, BotRegistry
from foxgeese.web.store import default_data_path

DATA_HELP = "The server's SQLite file, as `foxgeese serve --data` names it (default: the server's default)."


def open_registry(data_path: str | None) -> BotRegistry:
    path = Path(data_path) if data_path else default_data_path()
    try:
        return BotRegistry(path)
    except (OSError, sqlite3.Error) as error:
        raise UsageProblem(f"--data {path}: cannot open the database ({error}); give the file "
                           "foxgeese serve --data uses") from None


@click.group(name="botapi", context_settings={"help_option_names": ["-h", "--help"]})
def botapi() -> None:
    """Register and revoke remote bots of the Bot API (`foxgeese serve`; the server may be running)."""


@botapi.command("register")
@click.argument("name")
@click.option("--data", "data_path", default=None, metavar="PATH", help=DATA_HELP)
@click.option("--token-file", default=None, metavar="FILE", type=click.Path(dir_okay=False),
              help="Write the token to FILE (mode 600) instead of printing it.")
def register_bot(name: str, data_path: str | None, token_file: str | None) -> None:
    """Register the remote bot NAME and give its token, once: the server keeps only its SHA-256."""
    if token_file is not None and os.path.exists(token_file):
        raise UsageProblem(f"--token-file {token_file} exists already; give a new file (a token is shown once)")
    registry = open_registry(data_path)
    try:
        token = registry.register(name)
    except BotApiError as error:
        raise UsageProblem(str(error)) from None
    finally:
        registry.close()
    if token_file is None:
        click.echo(token)
        return
    try:
        descriptor = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(token + "\n")
    except OSError as error:
        registry = open_registry(data_path)
        registry.revoke(name)
        registry.close()
        raise UsageProblem(f"--token-file {token_file}: {error.strerror}; the bot was not registered") from None
    click.echo(f"registered {name}; its token is in {token_file}", err=True)


@botapi.command("revoke")
@click.argument("name")
@click.option("--data", "data_path", default=None, metavar="PATH", help=DATA_HELP)
def revoke_bot(name: str, data_path: str | None) -> None:
    """Revoke NAME's token: its requests are refused at once, its open streams end within seconds."""
    registry = open_registry(data_path)
    try:
        if not registry.revoke(name):
            raise UsageProblem(f"no remote bot named {name[:60]!r} is registered in this database")
    finally:
        registry.close()
    click.echo(f"revoked {name}", err=True)


@botapi.command("list")
@click.option("--data", "data_path", default=None, metavar="PATH", help=DATA_HELP)
def list_bots(data_path: str | None) -> None:
    """The registered remote bots, one a line."""
    registry = open_registry(data_path)
    try:
        for name in registry.names():
            click.echo(name)
    finally:
        registry.close()


def register(group: click.Group) -> None:
    group.add_command(botapi)
