"""Table files without numpy: scores, where the files live, the file format's header and writer.

A *score* is one int16 from the point of view of the side to move: `WIN - d` means "wins in d
plies", `-WIN + d` "loses in d plies", 0 a draw. Higher is better for the mover, so a parent's
score is the maximum over its moves of `to_parent(child)` — winning fastest and losing slowest
fall out of the ordering. `NO_MOVE` marks "no such move" and states that cannot occur.

File format (version `FORMAT_VERSION`): the magic line, a 4-byte little-endian header length,
a JSON header (variant key, goose count, point names, arrays with dtype/shape/offset, build
figures), then the raw arrays, each 64-byte aligned — so a table is memory-mapped, not read.

Apart from tables.py (numpy arrays, board tables) so that Hare and Hounds, solved in plain Python,
starts without importing numpy (`foxgeese solve hare-and-hounds`: a tenth of a second).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from foxgeese.engine import Side, words
from foxgeese.engine.variants import Role, Variant
from foxgeese.files import atomic_write
from foxgeese.players.score import Score
from foxgeese.players.solver.fileheader import FileKind, pack_header
from foxgeese.players.solver.fileheader import read_header as read_file_header

FORMAT_VERSION = 1
MAGIC = b"FOXGEESE-TABLE\n"
WIN = 32000
NO_MOVE = -32768


class TableError(Exception):
    """A table that is missing, of another format version, or does not match the variant."""


TABLE_FILE = FileKind(MAGIC, FORMAT_VERSION, "table file", TableError, "; rebuild it")


# -- scores ---------------------------------------------------------------------------------------


def to_parent(child: Any) -> Any:
    """The mover's score for a move leading to a position whose mover (the opponent) has `child`.

    Works on ints and on numpy arrays (compute in int32: `-NO_MOVE` does not fit int16).
    """
    return -child + (child > 0) - (child < 0)


def describe(score: int) -> tuple[str, int | None]:
    """("win", plies) / ("loss", plies) / ("draw", None) for the side to move."""
    score = int(score)
    if score == NO_MOVE:
        raise ValueError("no score: the state cannot occur")
    if score > 0:
        return "win", WIN - score
    if score < 0:
        return "loss", score + WIN
    return "draw", None


def to_score(score: int, mover: Side) -> Score:
    """A table score (the side to move's point of view) as the searches' shared `Score`."""
    kind, plies = describe(score)
    if kind == "draw":
        return Score.proven_draw(mover)
    return Score.proven_win(mover, plies) if kind == "win" else Score.proven_loss(mover, plies)


def winner_text(score: int, mover: str, other: str) -> str:
    """`hounds win in 11 plies` / `draw` for a score seen by `mover`."""
    kind, plies = describe(score)
    if kind == "draw":
        return "draw"
    winner = mover if kind == "win" else other
    return f"{words.side_verb(winner, 'wins', 'win')} in {words.plies(plies or 0)}"


# -- where tables live ----------------------------------------------------------------------------


def table_dir(override: str | os.PathLike | None = None) -> Path:
    """`override`, else $FOXGEESE_TABLES, else ~/.cache/foxgeese/tables (created on demand)."""
    if override is not None:
        return Path(override)
    env = os.environ.get("FOXGEESE_TABLES")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "foxgeese" / "tables"


def variant_key(variant: Variant) -> str:
    """The part of a file name that says which rules a table solves (the start's goose count does not matter)."""
    return variant.table_key


def solve_command(variant: Variant) -> str:
    """`foxgeese solve standard --sideways`: the command whose tables solve the variant's rules (the
    goose count aside), its options as flags (`--option NAME=VALUE` for those without one)."""
    flags = ""
    for option in variant.row.options:
        value = variant.option(option.name)
        if option.role is Role.PREY_COUNT or value == option.default:
            continue
        flags += " --sideways" if option.role is Role.SIDEWAYS else f" --option {option.name}={option.text(value)}"
    return f"foxgeese solve {variant.id}{flags}"


def table_path(directory: Path, variant: Variant, geese: int | None) -> Path:
    name = variant_key(variant) if geese is None else f"{variant_key(variant)}-{geese}geese"
    return directory / f"{name}.fgt"


# -- file format ----------------------------------------------------------------------------------


def write_table(path: Path, header: dict[str, Any], blobs: dict[str, tuple[str, list[int], bytes]], *,
                durable: bool = True) -> None:
    """Writes header + arrays (name -> (dtype text such as "<i2", shape, raw bytes)) atomically (a temp
    file renamed), so a reader never sees half a table; `durable` as in `atomic_write`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    layout: dict[str, dict[str, Any]] = {}
    offset = 0
    for name, (dtype, shape, data) in blobs.items():
        offset = (offset + 63) // 64 * 64
        layout[name] = {"dtype": dtype, "shape": list(shape), "offset": offset}
        offset += len(data)
    head = pack_header(TABLE_FILE, dict(header, arrays=layout))
    data_start = _data_start(len(head))
    with atomic_write(path, "wb", durable=durable) as out:
        out.write(head)
        out.write(b"\0" * (data_start - out.tell()))
        for name, (_, _, data) in blobs.items():
            out.seek(data_start + layout[name]["offset"])
            out.write(data)


def _data_start(header_end: int) -> int:
    return (header_end + 63) // 64 * 64


def read_header(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as stream:
            header, end = read_file_header(stream, path, TABLE_FILE)
    except FileNotFoundError:
        raise TableError(f"no table {path.name} in {path.parent}; build it with `foxgeese solve --build`") from None
    header["data_start"] = _data_start(end)
    return header
