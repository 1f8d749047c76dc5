"""Which tables judged: the table files of a variant in a table directory, named and checksummed.

A tournament that adjudicates by tables, or a report that judges accuracy, names the tables it
used (variant, goose counts, a checksum), so a journal says which tables decided its games and a
resumed run notices when they changed. The checksum is cheap on files of gigabytes: each file's
name and size and a SHA-256 of its first 64 KiB (the header) and 16 blocks of 4 KiB spread over it.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from foxgeese.engine.variants import Variant
from foxgeese.players.solver.tables import table_dir, variant_key

SAMPLE_BLOCKS = 16
BLOCK = 4096
HEAD = 65536
GEESE = re.compile(r"-(\d+)geese\.")


def file_checksum(path: Path) -> str:
    """SHA-256 (first 16 hex digits) of the size, the first 64 KiB and 16 spread blocks of a file."""
    size = path.stat().st_size
    digest = hashlib.sha256(str(size).encode())
    with open(path, "rb") as stream:
        digest.update(stream.read(HEAD))
        for index in range(SAMPLE_BLOCKS):
            stream.seek(size * index // SAMPLE_BLOCKS)
            digest.update(stream.read(BLOCK))
    return digest.hexdigest()[:16]


def table_files(variant: Variant, directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """The finished table files of `variant`'s rules in the directory (any goose count, any kind)."""
    folder = table_dir(directory)
    key = variant_key(variant)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / name for name in names
            if (name.startswith(key + "-") or name.startswith(key + ".")) and not name.endswith(".part")]


def fingerprint(variant: Variant, directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """{key, dir, geese, files: [{name, size, checksum}], digest}: the tables a judge of `variant`
    can use; `digest` (16 hex digits) changes when any file is added, removed or rebuilt."""
    files: list[dict[str, Any]] = []
    for path in table_files(variant, directory):
        try:
            files.append({"name": path.name, "size": path.stat().st_size, "checksum": file_checksum(path)})
        except OSError:
            continue  # removed meanwhile
    geese = sorted({int(match.group(1)) for item in files if (match := GEESE.search(item["name"]))})
    digest = hashlib.sha256(repr([(f["name"], f["size"], f["checksum"]) for f in files]).encode()).hexdigest()[:16]
    return {"key": variant_key(variant), "dir": str(table_dir(directory)), "geese": geese, "files": files,
            "digest": digest}


def short(fingerprint_: dict[str, Any]) -> str:
    """`standard-sideways0 4-13 geese (11 files, digest 0a1b...)` for reports and warnings."""
    geese = fingerprint_["geese"]
    counts = "" if not geese else f" {geese[0]}-{geese[-1]} geese" if len(geese) > 1 else f" {geese[0]} geese"
    count = len(fingerprint_["files"])
    return (f"{fingerprint_['key']}{counts} ({count} file{'s' if count != 1 else ''} in {fingerprint_['dir']}, "
            f"digest {fingerprint_['digest']})")
