"""Files that are either the old version or the new one, never half written: `atomic_write`.

Every package that saves something a reader or a rerun after a crash may open at any moment
(game records, tournament results, endgame tables) writes it through here. It sits in the package
root, below every package but the engine (which writes no files), and imports nothing of foxgeese.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", *, durable: bool = True) -> Iterator[IO[Any]]:
    """A file to write `path`'s new content to; it replaces `path` only when the block succeeds.

    The content goes to a temporary file of a name no other writer uses (two writers of one path
    never share a temporary), is flushed and fsynced, renamed over `path`, and the folder is
    fsynced so the rename survives a power cut. If the block raises, `path` is left as it was.
    `mode` is "w" (text, UTF-8) or "wb". `durable=False` skips both fsyncs (milliseconds each on
    a busy disk): for a cache whose reader checks it and rebuilds it cheaply, since after a power
    cut it may hold the old content, or the new cut short.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', not {mode!r}")
    target = Path(path)
    temporary = target.with_name(f"{target.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")
    handle = open(temporary, "x", encoding="utf-8") if mode == "w" else open(temporary, "xb")
    try:
        with handle:
            yield handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    if durable:
        _fsync_directory(target.parent)


def write_json_atomic(path: str | os.PathLike[str], data: Any, *, indent: int = 2, sort_keys: bool = True) -> None:
    """`data` as JSON (and a final newline), written with `atomic_write`."""
    with atomic_write(path) as handle:
        json.dump(data, handle, indent=indent, sort_keys=sort_keys)
        handle.write("\n")


def _fsync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
