"""numba's on-disk cache (`cache=True`) made safe to edit under: `drop_stale_cache`.

numba checks a cached function against the source file it was defined in, and nothing else: the
machine code of the @njit functions it calls or inlines from other modules, and the module
constants it captured (evaluation weights, table sizes), is inside that cache entry too, so an edit
to `core.py` left `alphabeta.py`'s searches running the old rules until someone deleted the cache by
hand. A numba module names the modules it compiles in (`NUMBA_DEPENDS`, a tuple of modules) and
calls `drop_stale_cache` at its end: a stamp of all those sources, transitively, is kept beside
its cache files, and when the stamp changes the module's cache files go (numba compiles afresh).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType

from foxgeese.files import atomic_write


def sources_digest(module: ModuleType) -> str:
    """A digest of `module`'s source and of every module it names in `NUMBA_DEPENDS`, transitively."""
    digest = hashlib.sha256()
    seen: set[str] = set()
    pending = [module]
    while pending:
        current = pending.pop()
        path = str(current.__file__)
        if path in seen:
            continue
        seen.add(path)
        pending.extend(getattr(current, "NUMBA_DEPENDS", ()))
    for path in sorted(seen):
        digest.update(path.rsplit("/", 1)[-1].encode() + b"\0" + Path(path).read_bytes())
    return digest.hexdigest()


def drop_stale_cache(module: ModuleType) -> None:
    """Deletes `module`'s numba cache files when a source it compiles in has changed since they were
    written (see the module docstring). A cache folder numba cannot write in (a read-only install)
    is left alone: numba keeps its cache elsewhere then, and installed sources do not change."""
    source = Path(str(module.__file__))
    folder = source.parent / "__pycache__"
    stamp = folder / f"{source.stem}.numba-sources"
    digest = sources_digest(module)
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        folder.mkdir(exist_ok=True)
        for stale in [*folder.glob(f"{source.stem}.*.nbi"), *folder.glob(f"{source.stem}.*.nbc")]:
            stale.unlink(missing_ok=True)
        with atomic_write(stamp, durable=False) as out:
            out.write(digest)
    except OSError:
        return
