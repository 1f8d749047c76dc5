"""The referee's private folder: home of its ipc:// socket and of the bots' stderr logs (the bot
check, a tiny referee, uses one too).

The folder's name carries the owner's process id (`foxgeese-referee-PID-XXXX`). A referee that
closes tidies its own folder; one that was killed (SIGKILL, the OOM killer) cannot, so every new
referee sweeps the folders of owners that are gone. Tidying removes the socket and empty files
only: a log with something in it may be named by a game record, so it stays, and so does its
folder.
"""

from __future__ import annotations

import os
import re
import tempfile

PREFIX = "foxgeese-referee-"
_OWNED = re.compile(rf"^{PREFIX}(\d+)-")
SOCKET_NAME = "referee.sock"


def make_private_dir() -> str:
    """A new private folder in the temporary directory, named after this process."""
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")


def tidy(folder: str) -> None:
    """Removes the socket and empty files, then the folder if nothing is left."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if name == SOCKET_NAME or (os.path.isfile(path) and os.path.getsize(path) == 0):
                os.unlink(path)
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass  # it holds logs with something in them


def sweep_stale(parent: str | None = None) -> list[str]:
    """Tidies the private folders in `parent` (default: the temporary directory) whose owner
    process is gone and that belong to this user; returns the folders it tidied."""
    parent = parent or tempfile.gettempdir()
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return []
    swept = []
    for entry in entries:
        match = _OWNED.match(entry.name)
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        tidy(entry.path)
        swept.append(entry.path)
    return swept


def _alive(pid: int) -> bool:
    """Whether a process with this id exists (a recycled id only means a folder is kept longer)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True
