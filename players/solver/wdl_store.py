"""Where a level of the two-bit tables lives while it is solved, what it needs, and its checkpoints.

A level (goose count k, row sum S, n goose sets padded to 64) needs, per goose set: its mask (8
bytes), nine 64-bit planes (72), a counter byte per point (`points`), two waiting words and two
list entries for the rounds (32); and the fox planes of the level above (16 bytes per set of that
level). Where that fits under `--max-memory` it is allocated in memory as before; where it does not,
the same arrays are memory-mapped files beside the tables (`numpy.memmap`), preallocated (a full
disk is an error here, never a SIGBUS later) and walked by the kernels in index order, so the
operating system keeps what it can in its page cache and writes the rest back.

Resuming inside a level rests on one property: the four planes geese win / geese lose / fox wins /
fox loses only ever gain bits, and every bit they hold is true of the level's least fixpoint. So
any copy of them, even one a kill -9 or a power cut caught half written, is a sound start: a
resumed level recomputes the moves out (`outside`), ORs the saved planes in, counts the counters
from scratch against them and propagates every known fox bit once; it reaches the same least
fixpoint, hence the same bytes. The state file (`*.level{S}.state`: a 4 KiB JSON header, then the
four planes) is the working copy when the level is out of core, and a copy written every
`checkpoint_seconds` otherwise; the progress record (`*.progress.json`, written atomically and
fsynced after the state) says which level it belongs to.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from foxgeese.files import write_json_atomic
from foxgeese.players.solver.strong import HEADER_BYTES
from foxgeese.players.solver.tables import TableError
from foxgeese.players.solver.wdl_layout import WdlLayout, WdlLevel

STATE_HEADER = 4096
MARGIN_GB = 2.0  # left to the operating system and the rest of the process by the default --max-memory
CAP_GB = 20.0  # the default never asks for more (the limit on a 24 GB machine)
BASE_GB = 0.35  # the interpreter, numba and the layout's tables (measured: a 4-geese build peaks at 0.17-0.26)
WRITE_CHUNK = 1 << 30
# the builds of 11, 12 and 13 geese peaked 0.5, 1.1 and 1.8 GB (32-38 bytes a goose set of the largest level)
# above the arrays listed here plus the chains mapped; not yet accounted for, so the estimate adds it
UNEXPLAINED = 38  # pwrite moves at most about 2 GB a call


def default_max_memory_gb() -> float:
    """What the machine has available now minus a margin, at most `CAP_GB`."""
    available = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    if available is None:
        available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    return round(max(0.5, min(CAP_GB, available - MARGIN_GB)), 1)


@dataclass(frozen=True)
class LevelNeeds:
    """One level's working memory (in memory) or scratch disk (out of core), in bytes."""

    row_sum: int
    sets: int
    above_sets: int
    points: int

    @property
    def working_bytes(self) -> int:
        return self.sets * (8 + 72 + 32 + self.points) + 16 * self.above_sets

    def memory_gb(self, below_chains_bytes: int) -> float:
        """The peak resident memory of the process solving this level in memory: the arrays, the chains of
        the count below (mapped, resident as they are read), `UNEXPLAINED` bytes a set and the base."""
        return BASE_GB + (self.working_bytes + UNEXPLAINED * self.sets + below_chains_bytes) / 1e9


def level_needs(layout: WdlLayout, geese: int) -> list[LevelNeeds]:
    """Every level of a goose count, highest row sum first (the build's order)."""
    levels = layout.levels[geese][::-1]
    out, above = [], 0
    for level in levels:
        out.append(LevelNeeds(level.row_sum, level.padded, above, layout.points))
        above = level.padded
    return out


def below_chains_bytes(layout: WdlLayout, geese: int) -> int:
    """The chains file of the count below (two planes), which a level's captures read through a mapping."""
    return 2 * layout.plane_words(geese - 1) * 8 if geese > 4 else 0


def count_needs(layout: WdlLayout, geese: int, *, with_chains: bool) -> dict[str, Any]:
    """What building one goose count needs: memory of its largest level, the disk of its files."""
    needs = level_needs(layout, geese)
    largest = max(needs, key=lambda level: level.working_bytes)
    plane = layout.plane_words(geese)
    below = below_chains_bytes(layout, geese)
    return {"geese": geese, "levels": len(needs), "largest_level_sets": largest.sets,
            "largest_level_row_sum": largest.row_sum, "level_gb": largest.working_bytes / 1e9,
            "peak_gb": largest.memory_gb(below), "below_chains_gb": below / 1e9,
            "table_gb": (HEADER_BYTES + 4 * plane * 8) / 1e9,
            "chains_gb": (HEADER_BYTES + 2 * plane * 8) / 1e9 if with_chains else 0.0,
            "positions": 2 * layout.goose_sets(geese) * layout.slots(geese)}


def gigabytes(gb: float) -> str:
    """A size for a message: GB, or MB below one GB (so a small disk does not read "0.0 GB")."""
    return f"{gb:.1f} GB" if gb >= 1 else f"{gb * 1000:.1f} MB"


def pwrite_all(fd: int, data: np.ndarray, offset: int) -> None:
    """All of `data` at `offset` (one pwrite call moves at most about 2 GB, and may move less)."""
    view = memoryview(np.ascontiguousarray(data).data).cast("B")
    done = 0
    while done < len(view):
        done += os.pwrite(fd, view[done: done + WRITE_CHUNK], offset + done)


def data_sha256(path: Path, header_bytes: int = 1 << 16) -> str:
    """sha256 of a table's words (everything after its 64 KiB header): what `foxgeese solve check` prints."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        stream.seek(header_bytes)
        while block := stream.read(1 << 24):
            digest.update(block)
    return digest.hexdigest()


def fsync_directory(directory: Path) -> None:
    """A rename in `directory` made durable (survives a power cut)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def preallocate(path: Path, size: int) -> None:
    """A file of `size` bytes whose blocks are reserved now: a full disk fails here, with ENOSPC."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if os.fstat(fd).st_size < size:
            os.posix_fallocate(fd, 0, size)
    finally:
        os.close(fd)


class LevelStore:
    """The arrays of one level: `four` (gw, gl, fw, fl), `rest` (gnl, cw, cnl, xw, xl), counters, lists."""

    def __init__(self, stem: Path, layout: WdlLayout, level: WdlLevel, fingerprint: str, *, in_memory: bool) -> None:
        self.stem = stem
        self.level = level
        self.in_memory = in_memory
        self.n = level.padded
        self.points = layout.points
        self.state_path = Path(f"{stem}.level{level.row_sum}.state")
        self.scratch_path = Path(f"{stem}.level{level.row_sum}.scratch")
        self.progress_path = Path(f"{stem}.progress.json")
        self.identity = {"layout": fingerprint, "geese": level.geese, "row_sum": level.row_sum, "sets": self.n}
        self._maps: list[np.memmap] = []

    # -- the progress record and the state file ----------------------------------------------------

    def saved(self) -> dict[str, Any] | None:
        """The progress record of a stopped solve of this very level whose state file is on disk, else None."""
        try:
            record = json.loads(self.progress_path.read_text())
            with open(self.state_path, "rb") as stream:
                header = json.loads(stream.read(STATE_HEADER).rstrip(b"\0"))
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or not isinstance(header, dict):
            return None
        if any(record.get(key) != value or header.get(key) != value for key, value in self.identity.items()):
            return None
        if os.path.getsize(self.state_path) != STATE_HEADER + 4 * self.n * 8:
            return None
        return record

    def _new_state_file(self) -> None:
        self.state_path.unlink(missing_ok=True)
        preallocate(self.state_path, STATE_HEADER + 4 * self.n * 8)
        fd = os.open(self.state_path, os.O_RDWR)
        try:
            os.pwrite(fd, json.dumps(self.identity).encode().ljust(STATE_HEADER, b"\0"), 0)
            os.fsync(fd)
        finally:
            os.close(fd)

    def record(self, **progress: Any) -> None:
        """The progress record (atomic, fsynced): the state file holds a sound copy of this level."""
        write_json_atomic(self.progress_path, dict(self.identity, **progress))

    # -- the arrays ---------------------------------------------------------------------------------

    def allocate(self, resume: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(four, rest, counts, waiting, lists); out of core: the four planes are the state file itself."""
        n = self.n
        if self.in_memory:
            block = np.zeros((9, n), dtype=np.int64)
            return (block[0:4], block[4:9], np.zeros((n, self.points), dtype=np.uint8),
                    np.zeros((2, n), dtype=np.int64), np.empty((2, n), dtype=np.int64))
        if not resume:
            self._new_state_file()
        four = self._map(self.state_path, STATE_HEADER, (4, n), np.int64)
        self.scratch_path.unlink(missing_ok=True)
        sizes = [5 * n * 8, n * self.points, 2 * n * 8, 2 * n * 8]
        preallocate(self.scratch_path, sum(sizes))
        at = np.cumsum([0, *sizes])
        rest = self._map(self.scratch_path, int(at[0]), (5, n), np.int64)
        counts = self._map(self.scratch_path, int(at[1]), (n, self.points), np.uint8)
        waiting = self._map(self.scratch_path, int(at[2]), (2, n), np.int64)
        lists = self._map(self.scratch_path, int(at[3]), (2, n), np.int64)
        return four, rest, counts, waiting, lists

    def _map(self, path: Path, offset: int, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        mapped = np.memmap(path, dtype=dtype, mode="r+", offset=offset, shape=shape)
        self._maps.append(mapped)
        return np.asarray(mapped)  # numba takes a plain ndarray view of the mapping

    def saved_losses(self, four: np.ndarray, into: np.ndarray) -> None:
        """The saved geese win and lose planes into `into` (2, n): out of core they are `four` itself."""
        if self.in_memory:
            fd = os.open(self.state_path, os.O_RDONLY)
            try:
                for p in range(2):
                    raw = os.pread(fd, self.n * 8, STATE_HEADER + p * self.n * 8) if self.n else b""
                    if len(raw) != self.n * 8:
                        raise TableError(f"{self.state_path} is cut short; delete it and build again")
                    into[p] = np.frombuffer(raw, dtype="<i8")
            finally:
                os.close(fd)
        else:
            into[:] = four[0:2]

    def checkpoint(self, four: np.ndarray, **progress: Any) -> None:
        """Makes the state file a sound copy of the level (fsynced), then says so in the progress record."""
        if self.in_memory:
            if not self.state_path.exists() or self.saved() is None:
                self._new_state_file()
            fd = os.open(self.state_path, os.O_RDWR)
            try:
                pwrite_all(fd, four[0:2], STATE_HEADER)  # gw, gl: the fox planes are recomputed from them
                os.fsync(fd)
            finally:
                os.close(fd)
        else:
            for mapped in self._maps[:1]:
                mapped.flush()
        self.record(**progress)

    def close(self, *, finished: bool) -> None:
        """Drops the mappings; a finished level's state, scratch and progress files go."""
        self._maps.clear()  # unmapped when the caller drops its views too (Linux frees an unlinked file then)
        self.scratch_path.unlink(missing_ok=True)
        if finished:
            self.state_path.unlink(missing_ok=True)
            self.progress_path.unlink(missing_ok=True)


def above_planes(stem: Path, level: WdlLevel, *, in_memory: bool) -> tuple[np.ndarray, Any]:
    """(2, n) zeroed planes for a finished level's fox planes, which the level below reads: in memory or a file."""
    if in_memory:
        return np.zeros((2, level.padded), dtype=np.int64), None
    path = Path(f"{stem}.above{level.row_sum}")
    path.unlink(missing_ok=True)
    preallocate(path, 2 * level.padded * 8)
    mapped = np.memmap(path, dtype=np.int64, mode="r+", shape=(2, level.padded))
    return np.asarray(mapped), (mapped, path)


def drop_above(handle: Any) -> None:
    """Deletes a file of fox planes (`above_planes`) once the level below is solved; the mapping goes with its views."""
    if handle is not None:
        Path(handle[1]).unlink(missing_ok=True)


def needs_text(variant_id: str, layout: WdlLayout, geese: int, with_chains: bool, parts: list[Path],
               max_memory_gb: float, directory: Path) -> tuple[str, float, float]:
    """The line a build prints before a count (memory of its largest level, disk), the disk it needs and has."""
    needs = count_needs(layout, geese, with_chains=with_chains)
    out_of_core = needs["peak_gb"] > max_memory_gb
    free = shutil.disk_usage(directory if directory.exists() else Path.cwd()).free / 1e9
    allocated = sum(path.stat().st_blocks * 512 for path in parts if path.exists()) / 1e9
    disk = needs["table_gb"] + needs["chains_gb"] - allocated + (needs["level_gb"] if out_of_core else 0)
    where = (f"out of core: {needs['level_gb']:.2f} GB of scratch files on disk, about "
             f"{BASE_GB + needs['largest_level_sets'] * 8 / 1e9:.2f} GB of memory besides the page cache"
             if out_of_core else "in memory")
    text = (f"{variant_id} {geese} geese: {needs['positions']:,} positions in {needs['levels']} levels; "
            f"the largest (row sum {needs['largest_level_row_sum']}, {needs['largest_level_sets']:,} goose "
            f"sets) needs {needs['peak_gb']:.2f} GB, limit {max_memory_gb:.1f} GB: {where}; the chains "
            f"of {geese - 1} geese {needs['below_chains_gb']:.2f} GB mapped; table {needs['table_gb']:.2f} GB"
            f" + chains {needs['chains_gb']:.2f} GB; disk needed {max(disk, 0):.2f} GB, free {free:.1f} GB")
    return text, disk, free
