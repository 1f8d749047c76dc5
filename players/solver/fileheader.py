"""The header every solver file starts with: a magic line, a 4-byte little-endian length, a JSON object.

Tables (`.fgt`), bit tables (`.fgb`) and strategies (`.fgs`) share it; each names its own `FileKind`
(magic line, format version, what a reader calls it and how to repair it), so one reader checks all.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class FileKind:
    """One kind of solver file: `noun` in "is not a foxgeese {noun}", `advice` after a damage message."""

    magic: bytes
    version: int
    noun: str
    error: type[Exception]
    advice: str = ""


def pack_header(kind: FileKind, header: dict[str, Any]) -> bytes:
    """The header's bytes (with the kind's `format_version`), to which the file's data follows."""
    text = json.dumps(dict(header, format_version=kind.version), sort_keys=True).encode()
    return kind.magic + LENGTH.pack(len(text)) + text


def read_header(stream: BinaryIO, path: Path, kind: FileKind) -> tuple[dict[str, Any], int]:
    """The header of the file open in `stream` and the offset where its data starts (just after it).

    Raises `kind.error` saying which: not this kind of file, damaged, or of another format version."""
    if stream.read(len(kind.magic)) != kind.magic:
        raise kind.error(f"{path} is not a foxgeese {kind.noun}")
    try:
        (length,) = LENGTH.unpack(stream.read(LENGTH.size))
        text = stream.read(length)
        header = json.loads(text)
        if len(text) != length or not isinstance(header, dict):
            raise ValueError("the header is cut short" if len(text) != length else "the header is not an object")
    except (struct.error, ValueError, TypeError) as error:  # a truncated or damaged header
        raise kind.error(f"{path} is damaged ({error}){kind.advice}") from None
    if header.get("format_version") != kind.version:
        raise kind.error(f"{path} has format version {header.get('format_version')}, "
                         f"this build reads {kind.version}{kind.advice}")
    return header, len(kind.magic) + LENGTH.size + length
