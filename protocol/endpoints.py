"""Where a referee listens and where the bots it launches connect (its addresses, apart from its loop).

The caller's endpoint is checked before anything binds (`check_endpoint`: no inproc://, no port
past 65535, a routable address only with bind_public); a wildcard is connected to on loopback
(`connectable`); each transport a launched bot asks for (ipc:// in the referee's private folder,
TCP on 127.0.0.1) is bound the first time one needs it (`Endpoints.for_bot`).
"""

from __future__ import annotations

import ipaddress
import urllib.parse

from foxgeese.engine.userinput import shown
from foxgeese.protocol import workdir
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.transport import Transport


class RefereeConfigError(ValueError):
    """A Referee set up wrongly by its caller (public address without bind_public, bad seats...)."""


def private_endpoint(own_dir: str) -> str:
    """The ipc:// endpoint in a referee's private folder."""
    return f"ipc://{own_dir}/{workdir.SOCKET_NAME}"


class Endpoints:
    """The endpoints a referee's transport has bound, by transport kind, and which one a bot uses."""

    def __init__(self, transport: Transport, own_dir: str, chosen: bool) -> None:
        self.transport = transport
        self.own_dir = own_dir
        self.bound: str = transport.endpoint
        self.connect = connectable(self.bound)
        # An endpoint the caller gave (`chosen`) serves every bot whose transport is `auto`.
        self.chosen = chosen
        self.by_kind = {self.connect.partition("://")[0]: self.connect}

    def for_bot(self, config: BotConfig, bind: bool = True) -> str | None:
        """Where a launched bot connects: its transport's endpoint, bound the first time a bot needs
        it (ipc:// in the referee's private folder, TCP on 127.0.0.1 at a free port). A bot whose
        transport is `auto` connects to the endpoint the caller chose, if one was (a sandboxed one
        to ipc:// all the same: the sandbox has no network)."""
        if config.is_remote:
            return None
        if self.chosen and config.transport == "auto" and not config.sandbox:
            return self.connect
        kind = config.transport_kind()
        if kind not in self.by_kind and bind:
            wanted = private_endpoint(self.own_dir) if kind == "ipc" else "tcp://127.0.0.1:0"
            self.by_kind[kind] = self.transport.bind_also(wanted)
        return self.by_kind.get(kind)


def ipc_hint(config: BotConfig, endpoint: str | None) -> str:
    """What a no-show on ipc:// may mean for a program of unknown library."""
    if config.is_builtin or not endpoint or not endpoint.startswith("ipc://"):
        return ""
    return (" (on ipc://; a ZeroMQ library without ipc://, such as JeroMQ or NetMQ, needs transport tcp)")


def check_endpoint(endpoint: str | None, bind_public: bool) -> None:
    """Refuses an address bots in other processes cannot reach (inproc://, a port past 65535, which
    ZeroMQ would silently wrap), and a routable one unless the caller asked with bind_public."""
    if endpoint is None:
        return
    if not isinstance(endpoint, str) or not endpoint.isprintable() or len(endpoint) > 1000:
        raise RefereeConfigError(f"endpoint {shown(endpoint)}: use ipc://PATH or tcp://HOST:PORT")
    parsed = urllib.parse.urlsplit(endpoint)
    if parsed.scheme == "inproc":
        raise RefereeConfigError(f"endpoint {shown(endpoint)}: inproc:// reaches only this process, and bots "
                                 "are other processes; use ipc://PATH or tcp://127.0.0.1:PORT")
    if parsed.scheme == "ipc":
        if not endpoint[len("ipc://"):]:
            raise RefereeConfigError(f"endpoint {shown(endpoint)}: ipc:// needs a path, e.g. ipc:///tmp/referee.sock")
        return
    if parsed.scheme != "tcp":
        raise RefereeConfigError(f"endpoint {shown(endpoint)}: use ipc://PATH or tcp://HOST:PORT")
    host, colon, port = endpoint[len("tcp://"):].rpartition(":")
    if not colon or not host or not (port == "*" or (port.isascii() and port.isdigit() and int(port) <= 65535)):
        raise RefereeConfigError(f"endpoint {shown(endpoint)}: give tcp://HOST:PORT with a port from 0 to 65535 "
                                 "(or * for any free port)")
    host = host.strip("[]")
    if host == "localhost" or bind_public:
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise RefereeConfigError(
            f"endpoint {shown(endpoint)} is reachable from other machines; pass bind_public=True "
            "(--bind-public) to allow that, or bind tcp://127.0.0.1:PORT"
        )


def connectable(endpoint: str) -> str:
    """The address a local bot connects to when the referee bound a wildcard."""
    for wildcard in ("tcp://0.0.0.0:", "tcp://*:", "tcp://[::]:"):
        if endpoint.startswith(wildcard):
            return "tcp://127.0.0.1:" + endpoint[len(wildcard):]
    return endpoint
