"""The opt-in sandbox for untrusted bots: bubblewrap (Debian package `bubblewrap`), one per seat.

A sandboxed bot gets its own namespaces (`--unshare-all`): its own process ids, so it can neither
see nor signal any process outside; no network at all, the referee's ipc:// socket file being
the one way out (bound in by path); a private, empty /tmp and /run; a read-only view of the
machine's files, its own included; no capabilities; a new session (no terminal injection); and it
dies with its supervisor. See PROTOCOL.md, "Security".
"""

from __future__ import annotations

import shutil

BWRAP = "bwrap"


class SandboxError(OSError):
    """The sandbox cannot be set up (bubblewrap missing, or no ipc:// socket to bind in)."""


def check_available() -> str:
    """The bubblewrap program's path; SandboxError saying how to install it when there is none."""
    program = shutil.which(BWRAP)
    if program is None:
        raise SandboxError("the sandbox needs bubblewrap: install it (Debian: apt-get install bubblewrap)")
    return program


def wrap(command: list[str], *, socket_path: str | None, cwd: str | None = None) -> list[str]:
    """`command` run inside bubblewrap, seeing `socket_path` (the referee's ipc:// socket) and no network.

    The bot's folder `cwd` stays visible (read-only) even when it lies under the private /tmp.
    """
    program = check_available()
    if not socket_path:
        raise SandboxError("a sandboxed bot has no network: the referee must use its default ipc:// "
                           "endpoint, not --bind tcp://...")
    return [
        program,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop", "ALL",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--tmpfs", "/run",
        "--bind", socket_path, socket_path,
        *(["--ro-bind", cwd, cwd, "--chdir", cwd] if cwd else []),
        "--",
        *command,
    ]


def ipc_path(endpoint: str) -> str | None:
    """The socket file of an ipc:// endpoint, else None."""
    return endpoint[len("ipc://"):] if endpoint.startswith("ipc://") else None
