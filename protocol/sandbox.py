"""The opt-in sandbox for untrusted bots: bubblewrap (Debian package `bubblewrap`), one per seat.

A sandboxed bot gets its own namespaces (`--unshare-all`): its own process ids, so it can neither
see nor signal any process outside; no network at all, the referee's ipc:// socket file being
the one way out (bound in by path); a private, empty /tmp and /run; a read-only view of the
machine's files, its own included; no capabilities; a new session (no terminal injection); and it
dies with its supervisor. See PROTOCOL.md, "Security".
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

BWRAP = "bwrap"
_PRIVATE = ("/tmp", "/run")  # folders the sandbox replaces with empty ones
_FOXGEESE_ROOT = Path(__file__).resolve().parent.parent  # an SDK bot imports foxgeese from here


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

    The bot's own files stay visible (read-only) even when they lie under the private /tmp: see
    `_own_folders`.
    """
    program = check_available()
    cwd = cwd or os.getcwd()  # the folder the bot starts in, as it would without the sandbox
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
        *[arg for folder in _own_folders(command, cwd) for arg in ("--ro-bind", folder, folder)],
        "--chdir", cwd,
        "--",
        *command,
    ]


def ipc_path(endpoint: str) -> str | None:
    """The socket file of an ipc:// endpoint, else None."""
    return endpoint[len("ipc://"):] if endpoint.startswith("ipc://") else None


def _own_folders(command: list[str], cwd: str) -> list[str]:
    """The folders under /tmp or /run a bot needs to start: its `cwd`, its program's folder (and
    the virtual environment the program belongs to), its script's (the first argument naming a
    file: `python bot.py`, `node bot.js`), and foxgeese's source (SDK bots and built-in players
    import it). Other paths on the command line, such as a file it was told to read, stay hidden."""
    wanted = [Path(cwd)]
    program = shutil.which(command[0]) if command else None
    if program:
        wanted.append(Path(program).resolve().parent)
        venv = Path(program).absolute().parent.parent  # a venv's python links out of the venv: keep
        if (venv / "pyvenv.cfg").is_file():  # the venv itself, or its site-packages stay hidden
            wanted.append(venv)
    script = next((arg for arg in command[1:] if os.path.isabs(arg) and os.path.isfile(arg)), None)
    if script is not None:
        wanted.append(Path(script).resolve().parent)
    wanted.append(_FOXGEESE_ROOT)
    folders: list[str] = []
    for folder in wanted:
        text = str(folder.resolve())
        if text.startswith(tuple(f"{root}/" for root in _PRIVATE)) and text not in folders and os.path.isdir(text):
            folders.append(text)
    return folders
