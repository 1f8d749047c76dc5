"""The strong solve of `standard` without sideways: one bit per position, every goose count to 17.

Without sideways steps every goose step raises the geese's row sum, so the game always ends and
has no draws: a position is won or lost for the side to move. Two files per goose count k, in
the table directory (`tables.table_dir`):

- `standard-sideways0-{k}geese.wins.fgb`: geese to move, bit set = the geese win. This is the
  table: a fox-to-move position is one ply away (the fox wins iff a move reaches a set bit's
  complement, or takes the geese below four).
- `standard-sideways0-{k}geese.chains.fgb`: X = geese to move lose, or the fox has a winning
  capture chain from there; only the next goose count's build reads it, so it is deleted once
  that build is done (kept for the largest count built, so a later build can go on; never made
  for 17 geese).

File format (version `BITS_FORMAT_VERSION`): the magic line, a 4-byte little-endian JSON length,
the JSON header (layout fingerprint, goose count, array, words, levels done, figures), padded
to `HEADER_BYTES`; then the words (little-endian uint64), in `bitlayout` order. A file being
built is named `*.part`; the header lists the levels already written, so a stopped build
resumes at the next level. Built level by level from the highest row sum down
(`kernels.solve_level`), each level from the one above and the table below.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from foxgeese.engine import DEFAULT_VARIANT, Move, Position, Side, Variant, get_variant
from foxgeese.engine.position import MIN_GEESE
from foxgeese.players.solver.bitlayout import Layout, grid_bit, mask_of
from foxgeese.players.solver.compiled import kernels as compiled_kernels
from foxgeese.players.solver.fileheader import FileKind, pack_header
from foxgeese.players.solver.fileheader import read_header as read_file_header
from foxgeese.players.solver.tables import TableError, table_dir

BITS_FORMAT_VERSION = 1
MAGIC = b"FOXGEESE-BITS\n"
HEADER_BYTES = 1 << 16
BITS_FILE = FileKind(MAGIC, BITS_FORMAT_VERSION, "bit table", TableError, "; delete it and build again")
LARGEST = 17  # the most geese any standard start has: no table reads the chains of 17
KEY = get_variant(DEFAULT_VARIANT).table_key  # the default variant's rules: `standard-sideways0`
WINS, CHAINS, FOX = "wins", "chains", "fox"  # FOX: fox to move, bit set = the fox wins (optional)
CHUNKS_PER_GRAB = 4  # runs of 64 goose sets a kernel thread takes at a time (about 0.1 ms of work)


def bits_path(directory: Path, geese: int, array: str, *, partial: bool = False, key: str = KEY) -> Path:
    """A bit table's file; `key` the rules it solves (`Variant.table_key`, the default variant's unless given)."""
    return directory / f"{key}-{geese}geese.{array}.fgb{'.part' if partial else ''}"


def standard_layout(variant: Variant | None = None) -> Layout:
    """The bit tables' layout of `variant` (default: the default variant; index tables built in about
    0.15 s): its user keeps it, or is given one."""
    return Layout.for_variant(variant or get_variant(DEFAULT_VARIANT))


# -- files ----------------------------------------------------------------------------------------


def write_header(fd: int, header: dict[str, Any]) -> None:
    block = pack_header(BITS_FILE, header)
    if len(block) > HEADER_BYTES:
        raise ValueError("bit table header too long")
    os.pwrite(fd, block.ljust(HEADER_BYTES, b"\0"), 0)


def read_bits_header(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as stream:
            return read_file_header(stream, path, BITS_FILE)[0]
    except FileNotFoundError:
        raise TableError(f"no table {path.name} in {path.parent}; build it with "
                         f"`foxgeese solve standard --geese N`") from None


def map_words(path: Path, header: dict[str, Any]) -> np.ndarray:
    return np.memmap(path, dtype="<i8", mode="r", offset=HEADER_BYTES, shape=(header["words"],))


class Fingerprinted(Protocol):
    """A table layout (`Layout`, `WdlLayout`): its fingerprint is what a finished file's header records."""

    def fingerprint(self) -> str: ...


def complete_header(path: Path, layout: Fingerprinted) -> dict[str, Any] | None:
    """The header of a finished file that matches this layout, else None."""
    if not path.exists():
        return None
    header = read_bits_header(path)
    if header.get("layout") != layout.fingerprint() or not header.get("complete"):
        return None
    if path.stat().st_size != HEADER_BYTES + int(header.get("words", 0)) * 8:  # a torn copy or a cut-short file
        raise TableError(f"{path} is {path.stat().st_size:,} bytes, its header says "
                         f"{HEADER_BYTES + int(header.get('words', 0)) * 8:,}: delete it and build again")
    return header


# -- the build ------------------------------------------------------------------------------------


class StrongBuilder:
    """Builds the bit tables for 4..max geese; each goose count from the chains of the one below."""

    def __init__(self, directory: Any = None, *, progress: Callable[[str], None] | None = None,
                 threads: int | None = None, keep_chains: bool = False, with_fox: bool = False,
                 layout: Layout | None = None) -> None:
        self.directory = table_dir(directory)
        self.keep_chains = keep_chains
        self.with_fox = with_fox  # also write the fox-to-move bits (tests and analyses; doubles the disk)
        self.layout = layout or standard_layout()
        self.key = self.layout.variant.table_key
        self.progress = progress or (lambda _text: None)
        self.threads = threads

    def build(self, max_geese: int) -> list[dict[str, Any]]:
        """Builds what is missing up to `max_geese` (resuming a stopped build); returns the headers."""
        if not MIN_GEESE <= max_geese <= LARGEST:
            raise ValueError(f"--geese must be between {MIN_GEESE} and {LARGEST}, not {max_geese}")
        kernels = compiled_kernels("kernels", "the strong solve")  # numba loads here, not at import
        if self.threads:
            import numba

            numba.set_num_threads(
                min(self.threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]  # set at run time
        self.directory.mkdir(parents=True, exist_ok=True)
        headers = []
        for geese in range(MIN_GEESE, max_geese + 1):
            wins = complete_header(bits_path(self.directory, geese, WINS, key=self.key), self.layout)
            needs_chains = geese < max_geese or (geese < LARGEST and geese == max_geese)
            chains = complete_header(bits_path(self.directory, geese, CHAINS, key=self.key), self.layout)
            # The chains only feed the next count: once its table is complete they are not needed,
            # also when this count is the one asked for (a 15-geese report after a 17-geese build).
            next_done = geese < LARGEST and complete_header(
                bits_path(self.directory, geese + 1, WINS, key=self.key), self.layout) is not None
            if wins is not None and (chains is not None or not needs_chains or next_done):
                headers.append(wins)
                continue
            headers.append(self._build_count(kernels, geese, with_chains=geese < LARGEST))
            if geese > MIN_GEESE and not self.keep_chains:  # the chains below were read for the last time
                bits_path(self.directory, geese - 1, CHAINS, key=self.key).unlink(missing_ok=True)
        return headers

    def _build_count(self, kernels: Any, geese: int, *, with_chains: bool) -> dict[str, Any]:
        layout = self.layout
        words = layout.words[geese]
        started = time.perf_counter()
        if geese > MIN_GEESE:
            path = bits_path(self.directory, geese - 1, CHAINS, key=self.key)
            header = complete_header(path, layout)
            if header is None:
                raise TableError(f"the {geese}-geese build needs {path.name}; build again from {geese - 1} geese")
            below = map_words(path, header)
        else:
            below = _READ_ONLY_EMPTY
        wins_part = bits_path(self.directory, geese, WINS, partial=True, key=self.key)
        chains_part = bits_path(self.directory, geese, CHAINS, partial=True, key=self.key)
        fox_part = bits_path(self.directory, geese, FOX, partial=True, key=self.key)
        header = self._resume_header(wins_part, geese)
        if header is not None and self.with_fox and not fox_part.exists():
            header = None  # the fox-to-move bits of the levels done are not on disk: start this count again
        if header is None:
            header = {"layout": layout.fingerprint(), "variant": self.key, "geese": geese, "array": WINS,
                      "words": words, "points": layout.point_names(), "complete": False, "levels_done": [],
                      "figures": {}, "build_seconds": 0.0}
            made = [wins_part] + ([chains_part] if with_chains else []) + ([fox_part] if self.with_fox else [])
            for path in made:
                with open(path, "wb") as stream:
                    stream.truncate(HEADER_BYTES + words * 8)
        fds = {WINS: os.open(wins_part, os.O_RDWR)}
        if with_chains:
            fds[CHAINS] = os.open(chains_part, os.O_RDWR)
        if self.with_fox:
            fds[FOX] = os.open(fox_part, os.O_RDWR)
        try:
            self._levels(kernels, geese, header, below, fds, started)
            header["complete"] = True
            for array, fd in fds.items():
                write_header(fd, header if array == WINS else dict(header, array=array, figures={}))
        finally:
            for fd in fds.values():
                os.close(fd)
        for array, part in ((WINS, wins_part), (CHAINS, chains_part), (FOX, fox_part)):
            if array in fds:
                os.replace(part, bits_path(self.directory, geese, array, key=self.key))
            else:
                part.unlink(missing_ok=True)
        return header

    def _resume_header(self, path: Path, geese: int) -> dict[str, Any] | None:
        if not path.exists():
            return None
        try:
            header = read_bits_header(path)
        except TableError:
            return None
        if header.get("layout") != self.layout.fingerprint() or header.get("geese") != geese:
            return None
        return header

    def _levels(self, kernels: Any, geese: int, header: dict[str, Any], below: np.ndarray, fds: dict[str, int],
                started: float) -> None:
        import numba  # a build: the kernels have loaded it already

        layout = self.layout
        levels = layout.levels[geese][::-1]  # highest row sum first
        done = set(header["levels_done"])
        total_sets = layout.goose_sets(geese)
        slots = layout.slots(geese)
        above = np.zeros(1, dtype=np.int64)
        above_base = 0
        sets_done = sum(level.sets for level in levels if level.row_sum in done)
        jump_land = kernels.jump_lands(layout)
        resumed_seconds = header["build_seconds"]
        # The kernel writes every word of a level, so one set of buffers serves every level (no page
        # faults and zeroing per level); F alternates between two, since the next level reads it.
        largest = max(level.end_word - level.start_word for level in levels)
        g_buf, x_buf = np.empty(largest, dtype=np.int64), np.empty(largest, dtype=np.int64)
        f_bufs = [np.empty(largest, dtype=np.int64), np.empty(largest, dtype=np.int64)]
        for i, level in enumerate(levels):
            finished = level.row_sum in done
            later_finished = i + 1 < len(levels) and levels[i + 1].row_sum in done
            if finished and later_finished:
                continue
            size = level.end_word - level.start_word
            codes, starts = _chunks(layout, level)
            g_out, f_out, x_out = g_buf[:size], f_bufs[i % 2][:size], x_buf[:size]
            g_in = _READ_ONLY_EMPTY
            if finished:  # resuming: this level's fox-to-move words are rebuilt from its saved G
                g_in = np.frombuffer(os.pread(fds[WINS], size * 8, HEADER_BYTES + level.start_word * 8), dtype="<i8")
            with numba.parallel_chunksize(CHUNKS_PER_GRAB):  # dynamic: a thread slowed down holds up no level end
                kernels.solve_level(codes, starts, geese, layout.board, layout.row_sub, layout.row_count,
                                    layout.row_rank, layout.radix, layout.code_rows, layout.stride,
                                    layout.block_word, layout.block_sets, layout.goose_shift, layout.goose_from,
                                    layout.step_shift, layout.jump_over, layout.step_shift, layout.step_from,
                                    jump_land, kernels.MIRRORS, above, above_base, below, geese == MIN_GEESE,
                                    g_in, not finished, level.start_word, g_out, f_out, x_out)
            above, above_base = f_out, level.start_word
            if finished:
                continue
            for array, words in ((CHAINS, x_out), (FOX, f_out), (WINS, g_out)):  # WINS last: its header says done
                if array in fds:
                    os.pwrite(fds[array], words.data, HEADER_BYTES + level.start_word * 8)
            figures = header["figures"]
            figures[str(level.row_sum)] = {"sets": level.sets, "geese_to_move_geese_wins": _ones(g_out),
                                           "fox_to_move_fox_wins": _ones(f_out)}
            header["levels_done"].append(level.row_sum)
            sets_done += level.sets
            header["build_seconds"] = round(resumed_seconds + time.perf_counter() - started, 2)
            write_header(fds[WINS], header)
            self.progress(f"{geese} geese: row sum {level.row_sum} done ({len(header['levels_done'])}/{len(levels)} "
                          f"levels, {100 * sets_done / total_sets:.0f}% of {total_sets * slots * 2:,} positions), "
                          f"{header['build_seconds']:.0f} s")


_READ_ONLY_EMPTY = np.zeros(1, dtype=np.int64)
_READ_ONLY_EMPTY.flags.writeable = False  # one array type for the kernel: it compiles once


def _ones(words: np.ndarray) -> int:
    return int(np.bitwise_count(words.view(np.uint64)).sum())


def _chunks(layout: Layout, level: Any) -> tuple[np.ndarray, np.ndarray]:
    """(code, first set) of every run of 64 goose sets in the level: the kernel's tasks."""
    counts = [(int(layout.block_sets[c]) + 63) // 64 for c in level.codes]
    codes = np.repeat(level.codes, counts)
    starts = np.concatenate([np.arange(n, dtype=np.int64) * 64 for n in counts])
    return codes.astype(np.int64), starts


def totals(header: dict[str, Any], layout: Layout) -> dict[str, int]:
    """Positions and wins per side to move, summed over the levels of one goose count."""
    slots = layout.slots(header["geese"])
    figures = header["figures"].values()
    positions = sum(f["sets"] for f in figures) * slots
    return {"positions_per_side": positions,
            "geese_to_move_geese_wins": sum(f["geese_to_move_geese_wins"] for f in figures),
            "fox_to_move_geese_wins": positions - sum(f["fox_to_move_fox_wins"] for f in figures)}


# -- looking positions up -------------------------------------------------------------------------


class StrongTables:
    """Win/loss of any position of the layout's variant (default: `standard`, no sideways) with up to
    the goose count built."""

    def __init__(self, directory: Any = None, layout: Layout | None = None) -> None:
        self.directory = table_dir(directory)
        self.layout = layout or standard_layout()
        self.key = self.layout.variant.table_key
        self._words: dict[int, np.ndarray | None] = {}
        self.headers: dict[int, dict[str, Any]] = {}

    def available(self) -> int:
        """The largest k such that the tables for 4..k geese are all on disk (3: none)."""
        k = MIN_GEESE - 1
        while k < LARGEST and self._array(k + 1) is not None:
            k += 1
        return k

    def _array(self, geese: int) -> np.ndarray | None:
        if geese not in self._words:
            path = bits_path(self.directory, geese, WINS, key=self.key)
            header = complete_header(path, self.layout)
            self._words[geese] = None if header is None else map_words(path, header)
            if header is not None:
                self.headers[geese] = header
        return self._words[geese]

    def words(self, geese: int) -> np.ndarray:
        """The geese-to-move words of one goose count (memory-mapped), for the compiled look-ups."""
        words = self._array(geese)
        if words is None:
            raise TableError(f"no {geese}-geese table in {self.directory}; build it with "
                             f"`foxgeese solve standard --geese {geese}`")
        return np.asarray(words)

    def covers(self, position: Position) -> bool:
        variant = position.variant
        if variant.table_key != self.key:  # other rules (sideways steps, another board): other tables
            return False
        geese = position.prey.bit_count()
        return geese < MIN_GEESE or self._array(geese) is not None

    def geese_win(self, position: Position) -> bool | None:
        """Whether the geese win `position` (either side to move) with best play; None: no table."""
        if not self.covers(position):
            return None
        geese = position.prey.bit_count()
        if geese < MIN_GEESE:
            return False
        if position.turn == Side.PREY:
            return self._geese_to_move(position.prey, position.predator)
        moves = position.legal_moves()
        for move in moves:  # the fox wins iff one of its moves leaves the geese lost
            after = position.play(move)
            if after.prey.bit_count() < MIN_GEESE or not self._geese_to_move(after.prey, after.predator):
                return False
        return True  # every move loses, or none (trapped)

    def mover_wins_after(self, position: Position, move: Move) -> bool | None:
        """Whether the side to move in `position` wins with best play after playing `move`."""
        after = position.play(move)
        geese_win = self.geese_win(after)
        if geese_win is None:
            return None
        return geese_win == (position.turn == Side.PREY)

    def _geese_to_move(self, prey: int, fox: int) -> bool:
        geese = prey.bit_count()
        words = self._array(geese)
        if words is None:
            words = self.words(geese)  # raises: no table
        bit = self.layout.bit_of(mask_of(prey), grid_bit(fox))
        return bool((int(words[bit >> 6]) >> (bit & 63)) & 1)
