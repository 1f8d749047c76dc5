"""`foxgeese serve`: the web app on 127.0.0.1 (play, play a friend by link, watch a tournament, replay)."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import click
import uvicorn
from uvicorn.config import WS_PROTOCOLS

from foxgeese.engine import DEFAULT_VARIANT, VARIANT_IDS
from foxgeese.params import Integer
from foxgeese.players import registry
from foxgeese.protocol.sandbox import SandboxError, check_available
from foxgeese.protocol.timecontrol import TimeControl
from foxgeese.tournaments.executors import usable_cpus
from foxgeese.usage import UsageProblem
from foxgeese.web.app import create_app
from foxgeese.web.arena.db import ArenaDB
from foxgeese.web.arena.routes import ArenaAddon
from foxgeese.web.arena.service import DEFAULT_TC, Arena
from foxgeese.web.games import Commands
from foxgeese.web.store import default_data_path


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but a loopback address also needs --public.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port (0: any free one; the address is printed).")
@click.option("--public", is_flag=True, help="Allow --host to be an address other machines can reach.")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="A name browsers use for this server (its DNS name or address), besides --host and, on "
                   "loopback, localhost; requests naming any other Host are refused. Repeatable.")
@click.option("--allow-commands", is_flag=True,
              help="Let pages start cmd: bots. Anyone who can open this server's pages can then run any program "
                   "as you; with --public they run in the bubblewrap sandbox.")
@click.option("--tournament", "tournament_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Follow this tournament's output folder live (its events.jsonl) at /tournament.")
@click.option("--data", "data_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="The SQLite file that keeps games, uploaded records and analyses "
                   "(default: $XDG_DATA_HOME/foxgeese/serve.sqlite3, else ~/.local/share/foxgeese/serve.sqlite3).")
@click.option("--tables", default=None, metavar="DIR",
              help="The solver's table folder for the analysis board "
                   "(default $FOXGEESE_TABLES or ~/.cache/foxgeese/tables).")
@click.option("--arena", "with_arena", is_flag=True,
              help="Run the arena (docs/arena.md): a standing ladder, a test queue and its workers, at /arena.")
@click.option("--workers", type=Integer(1, 256), default=None, metavar="N",
              help="The arena's local worker processes (default: one per CPU); with --ray, its Ray slots.")
@click.option("--ray", "ray_address", default=None, metavar="HEAD:6379",
              help="Play the arena's games on this Ray cluster's nodes instead of local processes.")
@click.option("--arena-variant", "arena_variants", multiple=True, type=click.Choice(VARIANT_IDS),
              help="A variant with a ladder (repeatable; default standard).")
@click.option("--arena-tc", default=DEFAULT_TC, show_default=True, help="The ladder games' time control.")
def serve(host: str, port: int, public: bool, allowed_hosts: tuple[str, ...], allow_commands: bool,
          tournament_dir: str | None, data_path: str | None, tables: str | None, with_arena: bool,
          workers: int | None, ray_address: str | None, arena_variants: tuple[str, ...], arena_tc: str) -> None:
    """Serve the web app: a new game against any player or a person by link, a tournament's live
    view, and the replay of any game record."""
    if host not in ("127.0.0.1", "localhost", "::1") and not public:
        raise UsageProblem(f"--host {host} can be reached from other machines; add --public to allow that, "
                           "or keep the default 127.0.0.1")
    if host in ("0.0.0.0", "::") and not allowed_hosts:
        raise UsageProblem(f"--host {host} answers on every address: name the ones browsers will use with "
                           "--allowed-host NAME (e.g. --allowed-host 192.168.1.5 --allowed-host mybox.lan)")
    commands = Commands.REFUSED
    if allow_commands:
        commands = Commands.SANDBOXED if public else Commands.ALLOWED
    if commands is Commands.SANDBOXED:
        try:
            check_available()
        except SandboxError as error:
            raise UsageProblem(f"--allow-commands with --public runs cmd: bots in a sandbox: {error}") from None
    if tournament_dir is not None and not Path(tournament_dir).is_dir():
        raise UsageProblem(f"--tournament {tournament_dir}: no such folder (give a tournament's output folder)")
    # proto=IPPROTO_TCP matters: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say
    # so, and with Nagle on, a state pushed right after another waits ~40 ms for the delayed ACK.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise UsageProblem(f"cannot listen on {host}:{port}: {error.strerror}; pick another --port") from None
    try:
        addons = [arena_addon(Path(data_path) if data_path else default_data_path(), workers, ray_address,
                              arena_variants, arena_tc, tables)] if with_arena else []
        app = create_app(Path(tournament_dir) if tournament_dir else None, Path(data_path) if data_path else None,
                         tables, host=host, extra_hosts=allowed_hosts, commands=commands, addons=addons)
    except (OSError, sqlite3.Error) as error:
        listener.close()
        raise UsageProblem(f"--data {data_path or default_data_path()}: cannot open the database ({error}); "
                           "give a writable file with --data PATH") from None
    # The built-in searches' compiled code, compiled once on a machine (about a minute) and loaded from
    # numba's cache after that: here, before the address is given, not inside the first game.
    for spec in ("minimax", "mcts"):
        registry.warm(spec)
    listener.listen(64)
    bound = listener.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    app.state.server.botapi.base_url = bridge_url(host, bound)
    click.echo(f"foxgeese serve: open http://{shown}:{bound}/ (Ctrl-C stops)", err=True)
    if commands is Commands.ALLOWED:
        click.echo("foxgeese serve: --allow-commands: any page user can run programs as you", err=True)
    ws = "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "websockets"
    config = uvicorn.Config(app, log_level="warning", ws=ws, lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn stops cleanly on Ctrl-C, then raises it again
        pass
    click.echo("foxgeese serve: stopped", err=True)


def bridge_url(host: str, port: int) -> str:
    """Where the Bot API's bridges (processes of this machine) reach this server: loopback when it listens there."""
    near = {"0.0.0.0": "127.0.0.1", "::": "::1", "localhost": "127.0.0.1"}.get(host, host)
    return f"http://[{near}]:{port}" if ":" in near else f"http://{near}:{port}"


def arena_addon(path: Path, workers: int | None, ray_address: str | None, variants: tuple[str, ...], tc: str,
                tables: str | None) -> ArenaAddon:
    """The arena of `serve --arena` (its checks are the user's lines: a sandbox, a time control)."""
    try:
        TimeControl.parse(tc)
    except ValueError as error:
        raise UsageProblem(f"--arena-tc {tc!r}: {error}") from None
    try:
        check_available()
    except SandboxError as error:
        raise UsageProblem(f"--arena plays cmd: bots in the bubblewrap sandbox: {error}") from None
    arena = Arena(ArenaDB(path), workers=workers or usable_cpus(), ray_address=ray_address,
                  variants=variants or (DEFAULT_VARIANT,), tc=tc, tables=tables, log_dir=path.parent / "arena-logs")
    return ArenaAddon(arena)


def register(group: click.Group) -> None:
    group.add_command(serve)
