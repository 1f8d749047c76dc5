"""Files shipped inside the package (configs, opening books), named by a short name or a path."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path


def bundled_names(folder: str, suffix: str) -> list[str]:
    """The short names of the files in `foxgeese/tournaments/FOLDER` ending in `suffix`."""
    files = resources.files("foxgeese.tournaments") / folder
    return sorted(entry.name[: -len(suffix)] for entry in files.iterdir() if entry.name.endswith(suffix))


def resolve(name_or_path: str, folder: str, suffixes: tuple[str, ...], base_dir: Path | None = None) -> Path:
    """A path (relative ones against `base_dir`), unless it names no file, has no folder and no
    suffix, and is the short name of a bundled file: then that file. (A directory of that name, such
    as a run's output `--out ladder`, does not hide the bundled file.)"""
    path = Path(name_or_path)
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    if _is_file(path) or os.sep in name_or_path or name_or_path.endswith(suffixes):
        return path
    if name_or_path in bundled_names(folder, suffixes[0]):
        return Path(str(resources.files("foxgeese.tournaments") / folder / f"{name_or_path}{suffixes[0]}"))
    return path


def _is_file(path: Path) -> bool:
    """`path.is_file()`, False for a name the system cannot even look up (too long, a NUL in it)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False
