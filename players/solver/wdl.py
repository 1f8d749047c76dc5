"""Win/draw/loss tables, two bits a position, for the fox variants with sideways goose steps.

`standard --sideways` and `great-cross` have cycles (fox steps and sideways goose steps keep the
geese's row sum), so a position can be a draw and the one-bit strong solve does not apply. These
tables hold, per goose count k, four bit planes in `wdl_layout` order (`wdl_kernels` builds them):
geese to move win / geese to move lose / fox to move wins / fox to move loses; a position in
neither plane of its side is a draw. Files, in the table directory:

- `{key}-{k}geese.wdl.fgb`: the four planes (the `strong` bit-file format, `array: "wdl"`).
- `{key}-{k}geese.wdlchains.fgb`: X, what a capture chain landing here is worth to the fox (win:
  the geese to move lose here or a further chain wins; loss: the geese win here and no further
  chain saves the fox); only the next count's build reads it, so it is deleted once that is done.

Like the int16 tables, these ignore the fifty-move counter and repetition (docs/solver.md).
Built level by level from the highest row sum down, each level to its least fixpoint.
"""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from foxgeese.engine import Move, Position, Side, get_variant
from foxgeese.engine.position import MIN_GEESE
from foxgeese.engine.variants import Tables, Variant
from foxgeese.players.solver.compiled import kernels as compiled_kernels
from foxgeese.players.solver.strong import HEADER_BYTES, complete_header, map_words, read_bits_header, write_header
from foxgeese.players.solver.tables import TableError, table_dir, variant_key
from foxgeese.players.solver.wdl_layout import WdlLayout
from foxgeese.players.solver.wdl_store import (
    LevelNeeds,
    LevelStore,
    above_planes,
    below_chains_bytes,
    data_sha256,
    default_max_memory_gb,
    drop_above,
    fsync_directory,
    gigabytes,
    needs_text,
    preallocate,
    pwrite_all,
)

WDL, WDL_CHAINS = "wdl", "wdlchains"
HEADER_SECONDS = 5.0  # the header's list of levels done is rewritten (after an fsync) at most this often
GEESE_WIN, GEESE_LOSE, FOX_WINS, FOX_LOSES = range(4)  # the planes of a .wdl.fgb file


def wdl_variant(variant: str | Variant) -> Variant:
    """The rules these tables solve for a variant (an id: its defaults): the same with sideways steps
    where sideways steps are an option (`standard`), else the variant (`great-cross`)."""
    found = get_variant(variant) if isinstance(variant, str) else variant
    return found.with_options(sideways=True) if "sideways" in found.row.option_names else found


def has_wdl_tables(variant: Variant) -> bool:
    """Whether these tables solve the variant's rules (the fox variants with draw endings)."""
    return variant.tables is Tables.WDL


def largest(variant: Variant) -> int:
    """The most geese a start of this variant has (standard: 17)."""
    return max(other.prey_count for other in variant.row.variants())


def wdl_layout(variant: str | Variant) -> WdlLayout:
    """A variant's layout; goose counts are laid out on demand (`add_count`), so its user keeps it."""
    return WdlLayout.for_variant(wdl_variant(variant), MIN_GEESE)


def wdl_path(directory: Path, variant: Variant, geese: int, array: str, *, partial: bool = False) -> Path:
    return directory / f"{variant_key(variant)}-{geese}geese.{array}.fgb{'.part' if partial else ''}"


class WdlBuilder:
    """Builds the two-bit tables for 4..max geese; each goose count from the chains of the one below."""

    def __init__(self, variant: Variant, directory: Any = None, *, progress: Callable[[str], None] | None = None,
                 threads: int | None = None, keep_chains: bool = False, method: str = "counters",
                 max_memory_gb: float | None = None, notice: Callable[[str], None] | None = None,
                 checkpoint_seconds: float = 300.0, chunk_pops: int = 1 << 22,
                 hook: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        if method not in ("counters", "sweeps"):
            raise ValueError(f"method must be counters or sweeps, not {method}")
        self.method = method  # sweeps: the fixpoint sweeps the counters replaced (tests compare the two)
        self.variant = variant
        self.directory = table_dir(directory)
        self.progress = progress or (lambda _text: None)
        self.threads = threads
        self.keep_chains = keep_chains
        self.layout = wdl_layout(variant)
        # a level whose arrays need more than this goes out of core (memory-mapped files, wdl_store)
        self.max_memory_gb = default_max_memory_gb() if max_memory_gb is None else max_memory_gb
        self.notice = notice or (lambda _text: None)  # the estimates before each count: never throttled
        self.checkpoint_seconds = checkpoint_seconds  # inside a level: a sound copy of it at least this often
        self.chunk_pops = chunk_pops  # goose sets the rounds take between looks at the clock (tests: tiny)
        self.hook = hook or (lambda _event, _facts: None)  # tests: called after every chunk of the rounds
        self._saved = 0.0  # when the header last listed the levels done

    def build(self, max_geese: int) -> list[dict[str, Any]]:
        top = largest(self.variant)
        if not MIN_GEESE <= max_geese <= top:
            raise ValueError(f"--geese must be between {MIN_GEESE} and {top} for {self.variant.id}, not {max_geese}")
        compiled_kernels("wdl_kernels", "building the win/draw/loss tables")  # numba loads here, not at import
        if self.threads:
            import numba

            numba.set_num_threads(
                min(self.threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]  # set at run time
        layout = self.layout
        for geese in range(MIN_GEESE, max_geese + 1):
            layout.add_count(geese)
        self.directory.mkdir(parents=True, exist_ok=True)
        headers = []
        for geese in range(MIN_GEESE, max_geese + 1):
            done = self._header(geese, WDL, layout)
            chains = self._header(geese, WDL_CHAINS, layout)
            next_done = geese < top and self._header(geese + 1, WDL, layout) is not None
            if done is not None and (chains is not None or next_done or geese == top):
                headers.append(done)
                continue
            headers.append(self._build_count(layout, geese, with_chains=geese < top))
            if geese > MIN_GEESE and not self.keep_chains:
                wdl_path(self.directory, self.variant, geese - 1, WDL_CHAINS).unlink(missing_ok=True)
        return headers

    def _header(self, geese: int, array: str, layout: WdlLayout) -> dict[str, Any] | None:
        return complete_header(wdl_path(self.directory, self.variant, geese, array), layout)

    def _build_count(self, layout: WdlLayout, geese: int, *, with_chains: bool) -> dict[str, Any]:
        started = time.perf_counter()
        plane = layout.plane_words(geese)
        if geese > MIN_GEESE:
            header = self._header(geese - 1, WDL_CHAINS, layout)
            path = wdl_path(self.directory, self.variant, geese - 1, WDL_CHAINS)
            if header is None:
                raise TableError(f"the {geese}-geese build needs {path.name}; build again from {geese - 1} geese")
            below, below_plane = np.asarray(map_words(path, header)), layout.plane_words(geese - 1)
        else:
            below, below_plane = np.zeros(2, dtype=np.int64), 1
        parts = {WDL: (wdl_path(self.directory, self.variant, geese, WDL, partial=True), 4)}
        if with_chains:
            parts[WDL_CHAINS] = (wdl_path(self.directory, self.variant, geese, WDL_CHAINS, partial=True), 2)
        self._announce(layout, geese, with_chains, [path for path, _ in parts.values()])
        header = self._resume_header(layout, geese, [path for path, _ in parts.values()])
        if header is None:
            header = {"layout": layout.fingerprint(), "variant": variant_key(self.variant),
                      "geese": geese, "array": WDL, "words": 4 * plane, "planes": 4,
                      "plane_words": plane, "points": layout.geometry.names, "complete": False,
                      "method": self.method, "levels_done": [], "figures": {}, "build_seconds": 0.0}
            for path, planes in parts.values():
                with open(path, "wb") as stream:
                    stream.truncate(HEADER_BYTES + planes * plane * 8)
                preallocate(path, HEADER_BYTES + planes * plane * 8)  # a full disk fails now, not in a level
            fd = os.open(parts[WDL][0], os.O_RDWR)
            try:  # a .part that says what it is from the start (no levels done yet)
                write_header(fd, header)
            finally:
                os.close(fd)
        else:
            self.progress(f"{self.variant.id} {geese} geese: resuming after {len(header['levels_done'])} levels")
        fds = {}
        try:
            for array, (path, _) in parts.items():
                fds[array] = os.open(path, os.O_RDWR)
            self._saved = time.monotonic()
            try:
                self._levels(layout, geese, header, below, below_plane, fds, started)
            except BaseException:  # Ctrl-C, an error, a full disk: the levels done so far are kept
                with contextlib.suppress(OSError):
                    self._save_header(fds, header)
                raise
            for fd in fds.values():  # the data on disk before any header says the table is finished
                os.fsync(fd)
            header["complete"] = True
            for array, fd in fds.items():
                path = parts[array][0]
                header_of = header if array == WDL else dict(header, array=array, words=2 * plane, planes=2,
                                                             figures={})
                header_of["data_sha256"] = data_sha256(path)
                write_header(fd, header_of)
                os.fsync(fd)
        finally:
            for fd in fds.values():
                os.close(fd)
        for array, (path, _) in parts.items():  # chains first, the table last: its name says finished
            os.replace(path, wdl_path(self.directory, self.variant, geese, array))
        fsync_directory(self.directory)
        stem = f"{variant_key(self.variant)}-{geese}geese"
        for left in [*self.directory.glob(f"{stem}.level*"), *self.directory.glob(f"{stem}.above*"),
                     self.directory / f"{stem}.progress.json"]:  # a kill between a level's end and its cleanup
            left.unlink(missing_ok=True)
        return header

    def estimate(self, max_geese: int) -> list[str]:
        """What each count 4..max_geese needs (memory of its largest level, disk), as the build prints it."""
        top = largest(self.variant)
        if not MIN_GEESE <= max_geese <= top:
            raise ValueError(f"--geese must be between {MIN_GEESE} and {top} for {self.variant.id}, not {max_geese}")
        for geese in range(MIN_GEESE, max_geese + 1):
            self.layout.add_count(geese)
        return [needs_text(self.variant.id, self.layout, geese, geese < top, [], self.max_memory_gb, self.directory)[0]
                for geese in range(MIN_GEESE, max_geese + 1)]

    def _save_header(self, fds: dict[str, int], header: dict[str, Any]) -> None:
        """The levels done, said in the header only once their words are on disk (fsync first)."""
        for fd in fds.values():
            os.fsync(fd)
        write_header(fds[WDL], header)
        os.fsync(fds[WDL])
        self._saved = time.monotonic()

    def _announce(self, layout: WdlLayout, geese: int, with_chains: bool, parts: list[Path]) -> None:
        """Says what the count needs before any work, and stops at once when the disk cannot hold it."""
        text, disk, free = needs_text(self.variant.id, layout, geese, with_chains, parts, self.max_memory_gb,
                                       self.directory)
        self.notice(text)
        if disk > free:
            raise TableError(f"{geese} geese needs {gigabytes(disk)} more disk in {self.directory}, "
                             f"{gigabytes(free)} free: free some space or use --tables DIR elsewhere, then run the "
                             f"same command again (it resumes)")

    def _resume_header(self, layout: WdlLayout, geese: int, paths: list[Path]) -> dict[str, Any] | None:
        """The header of a stopped build of this count (its levels done are on disk), else None."""
        if not all(path.exists() for path in paths):
            return None
        try:
            header = read_bits_header(paths[0])
        except TableError:
            return None
        if (header.get("layout") != layout.fingerprint() or header.get("geese") != geese
                or header.get("complete") or not header.get("levels_done")):
            return None
        return header

    def _levels(self, layout: WdlLayout, geese: int, header: dict[str, Any], below: np.ndarray, below_plane: int,
                fds: dict[str, int], started: float) -> None:
        plane = layout.plane_words(geese)
        above, above_handle, above_first = np.zeros((2, 1), dtype=np.int64), None, 0
        total = layout.goose_sets(geese)
        levels = layout.levels[geese][::-1]  # highest row sum first
        done = set(header["levels_done"])
        resumed_seconds = header.get("build_seconds", 0.0)
        sets_done = sum(level.sets for level in levels if level.row_sum in done)
        stem = self.directory / f"{variant_key(self.variant)}-{geese}geese"
        previous = 0
        below_bytes = below_chains_bytes(layout, geese)
        for index, level in enumerate(levels):
            needs = LevelNeeds(level.row_sum, level.padded, previous, layout.points)
            previous = level.padded
            if level.row_sum in done:
                if index + 1 < len(levels) and levels[index + 1].row_sum not in done:  # the level below reads it
                    in_memory = needs.memory_gb(below_bytes) <= self.max_memory_gb
                    above, above_handle = above_planes(stem, level, in_memory=in_memory)
                    self._fox_planes_on_disk(layout, level, fds[WDL], plane, above)
                    above_first = level.first_set
                continue
            level_started = time.perf_counter()
            in_memory = needs.memory_gb(below_bytes) <= self.max_memory_gb
            store = LevelStore(stem, layout, level, layout.fingerprint(), in_memory=in_memory)
            if not in_memory:
                self.notice(f"{self.variant.id} {geese} geese: row sum {level.row_sum}, {level.sets:,} goose sets, "
                            f"needs {needs.memory_gb(below_bytes):.2f} GB: out of core, "
                            f"{gigabytes(needs.working_bytes / 1e9)} of files in {self.directory}")
            figures, fox = self._level(layout, store, above, above_first, below, below_plane, geese, fds, plane,
                                       lambda: self._save_header(fds, header))
            seconds = time.perf_counter() - level_started
            header["figures"][str(level.row_sum)] = {
                "sets": level.sets, **figures, "seconds": round(seconds, 2), "peak_rss_gb": peak_rss_gb(),
                "in_memory": in_memory}
            header["levels_done"].append(level.row_sum)
            header["build_seconds"] = round(resumed_seconds + time.perf_counter() - started, 2)
            if time.monotonic() - self._saved >= HEADER_SECONDS:
                self._save_header(fds, header)
            drop_above(above_handle)
            above, above_handle = fox
            above_first = level.first_set
            store.close(finished=True)
            sets_done += level.sets
            self.progress(f"{self.variant.id} {geese} geese: row sum {level.row_sum} done "
                          f"({len(header['levels_done'])}/{len(levels)} levels, {level.sets:,} goose sets in "
                          f"{seconds:.1f} s, {100 * sets_done / total:.1f}% of {total * layout.slots(geese) * 2:,} "
                          f"positions{'' if in_memory else ', out of core'}), {header['build_seconds']:.0f} s, "
                          f"peak {peak_rss_gb():.2f} GB")
        drop_above(above_handle)

    def _level(self, layout: WdlLayout, store: LevelStore, above: np.ndarray, above_first: int, below: np.ndarray,
               below_plane: int, geese: int, fds: dict[str, int], plane: int,
               save: Callable[[], None]) -> tuple[dict[str, Any], Any]:
        """Solves one level into the table files; returns its figures and its fox planes (for the level below).

        `save` brings the header's levels done up to date: called before any progress record names this level,
        so that a resumed build reaches this level again before it does any other level's work."""
        k = compiled_kernels("wdl_kernels", "building the win/draw/loss tables")
        counters = compiled_kernels("wdl_counters", "building the win/draw/loss tables")
        level, n, width = store.level, store.level.padded, layout.slots(geese)
        saved = store.saved()
        four, rest, counts, waiting, lists = store.allocate(saved is not None)
        gw, gl, fw, fl = four
        gnl, cw, cnl, xw, xl = rest
        if saved is None and not store.in_memory:
            save()
            store.record(checkpoints=0, popped=0, rounds=0)  # the zeroed state file: a sound start
        masks = np.full(n, -1, dtype=np.int64)
        counters.level_masks(level.codes, layout.block_base, level.first_set, layout.row_sub, layout.row_count,
                             layout.row_width, layout.radix, masks)
        if saved is not None:
            store.saved_losses(four, rest[3:5])
        k.outside(masks, layout.board, layout.row_start, layout.row_width, layout.row_rank, layout.row_count,
                  layout.radix, layout.block_base, layout.forward, layout.jump_from, layout.jump_to,
                  above[0], above[1], above_first, below, below_plane, geese == MIN_GEESE, gw, gnl, cw, cnl)
        work: dict[str, Any] = {}
        if saved is not None:  # what the stopped solve had decided: sound, so it only brings the fixpoint nearer
            gw |= xw
            gl |= xl
            xw[:] = 0
            xl[:] = 0
            work["resumed_after_checkpoints"] = saved.get("checkpoints", 0)
        if self.method == "sweeps":
            work["sweeps"] = self._sweeps(k, layout, masks, four, rest)
        else:
            counters.seed(masks, layout.board, layout.sideways, layout.adjacent, gw, gl, fw, fl, gnl, cw, cnl,
                          counts)
            work.update(self._rounds(layout, counters, store, masks, four, rest, counts, waiting, lists, saved, save))
        np.bitwise_or(gl, cw, out=xw)  # `pack` keeps only the empty points of real goose sets
        np.bitwise_and(gw, ~cnl, out=xl)
        offset = level.first_set * width // 64
        size = n * width // 64
        for array, planes in ((WDL_CHAINS, rest[3:5]), (WDL, four)):
            if array not in fds:
                continue
            for p in range(len(planes)):
                out = np.zeros((1, size), dtype=np.int64)
                k.pack(masks, layout.board, layout.row_start, layout.row_width, layout.row_pext, planes[p:p + 1], out)
                pwrite_all(fds[array], out[0], HEADER_BYTES + (p * plane + offset) * 8)
                del out
        figures = {**work, "geese_to_move_geese_win": _ones(gw), "geese_to_move_geese_lose": _ones(gl),
                   "fox_to_move_fox_wins": _ones(fw), "fox_to_move_fox_loses": _ones(fl)}
        planes_out, handle = above_planes(store.stem, level, in_memory=store.in_memory)
        planes_out[0] = fw
        planes_out[1] = fl
        return figures, (planes_out, handle)

    def _rounds(self, layout: WdlLayout, counters: Any, store: LevelStore, masks: np.ndarray, four: np.ndarray,
                rest: np.ndarray, counts: np.ndarray, waiting: np.ndarray, lists: np.ndarray,
                saved: dict[str, Any] | None, save: Callable[[], None]) -> dict[str, Any]:
        """The counters' rounds in chunks of `chunk_pops` goose sets, a checkpoint every `checkpoint_seconds`."""
        gw, gl, fw, fl = four
        gnl, cw, cnl, xw, xl = rest
        pend_w, pend_l, next_w, next_l = xw, xl, waiting[0], waiting[1]  # the bits one round hands the next
        current, following = lists[0], lists[1]
        size, popped, rounds, checkpoints = -1, 0, 0, 0
        last = time.monotonic()
        prior = saved or {}
        while size != 0:
            took, more, size = counters.propagate(
                masks, layout.board, layout.row_start, layout.row_width, layout.row_rank, layout.row_count,
                layout.row_of, layout.sideways, layout.adjacent, gw, gl, fw, fl, gnl, cw, cnl, counts,
                pend_w, pend_l, next_w, next_l, current, following, size, self.chunk_pops)
            popped, rounds = popped + int(took), rounds + int(more)
            if more % 2:
                current, following = following, current
                pend_w, next_w, pend_l, next_l = next_w, pend_w, next_l, pend_l
            facts = {"row_sum": store.level.row_sum, "geese": store.level.geese, "popped": popped,
                     "rounds": rounds, "waiting": int(size), "checkpoints": checkpoints}
            self.hook("chunk", facts)
            if size and time.monotonic() - last >= self.checkpoint_seconds:
                checkpoints += 1
                save()
                store.checkpoint(four, checkpoints=prior.get("checkpoints", 0) + checkpoints, popped=popped,
                                 rounds=rounds)
                self.hook("checkpoint", dict(facts, checkpoints=checkpoints))
                last = time.monotonic()
        xw[:] = 0  # the caller reuses them for the chains
        xl[:] = 0
        return {"popped": popped, "rounds": rounds, "checkpoints": checkpoints}

    @staticmethod
    def _sweeps(k: Any, layout: WdlLayout, masks: np.ndarray, four: np.ndarray, rest: np.ndarray) -> int:
        """The level to its least fixpoint by whole sweeps (the method before the counters; kept to check them)."""
        gw, gl, fw, fl = four
        gnl, cw, cnl = rest[:3]
        sweeps = 0
        while True:
            sweeps += 1
            if not k.sweep(masks, layout.board, layout.row_start, layout.row_width, layout.row_rank,
                           layout.row_count, layout.row_of, layout.sideways, layout.adjacent,
                           gw, gl, fw, fl, gnl, cw, cnl):
                return sweeps

    def _fox_planes_on_disk(self, layout: WdlLayout, level: Any, fd: int, plane: int, out: np.ndarray) -> None:
        """A finished level's dense fox planes into `out`, read back from the table being built (a resumed build)."""
        k = compiled_kernels("wdl_kernels", "building the win/draw/loss tables")
        counters = compiled_kernels("wdl_counters", "building the win/draw/loss tables")
        masks = np.full(level.padded, -1, dtype=np.int64)
        k.level_masks(level.codes, layout.block_base, level.first_set, layout.row_sub, layout.row_count,
                      layout.row_width, layout.radix, masks)
        width = layout.slots(level.geese)
        first_word = level.first_set * width // 64
        size = level.padded * width // 64
        packed = np.zeros(4 * size + 1, dtype=np.int64)
        for p in (FOX_WINS, FOX_LOSES):
            packed[p * size: (p + 1) * size] = np.frombuffer(
                os.pread(fd, size * 8, HEADER_BYTES + (p * plane + first_word) * 8), dtype="<i8")
        counters.unpack(masks, layout.board, packed, size, 0, width, np.array([FOX_WINS, FOX_LOSES]), out)


def peak_rss_gb() -> float:
    """This process's peak resident memory so far, in GB (what `/usr/bin/time -v` reports)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2)


def _ones(words: np.ndarray) -> int:
    return int(np.bitwise_count(words.view(np.uint64)).sum())


def wdl_totals(header: dict[str, Any], layout: WdlLayout) -> dict[str, int]:
    """Positions per side and the wins, losses and draws of each side to move, for one goose count."""
    figures = list(header["figures"].values())
    per_side = sum(f["sets"] for f in figures) * layout.slots(header["geese"])
    geese_win = sum(f["geese_to_move_geese_win"] for f in figures)
    geese_lose = sum(f["geese_to_move_geese_lose"] for f in figures)
    fox_wins = sum(f["fox_to_move_fox_wins"] for f in figures)
    fox_loses = sum(f["fox_to_move_fox_loses"] for f in figures)
    return {"positions_per_side": per_side, "geese_to_move_geese_win": geese_win,
            "geese_to_move_draw": per_side - geese_win - geese_lose, "geese_to_move_fox_wins": geese_lose,
            "fox_to_move_fox_wins": fox_wins, "fox_to_move_draw": per_side - fox_wins - fox_loses,
            "fox_to_move_geese_win": fox_loses}


class WdlTables:
    """Win/draw/loss of any position of `standard --sideways` or `great-cross` with up to the count built."""

    def __init__(self, variant: Variant, directory: Any = None) -> None:
        self.variant = variant
        self.directory = table_dir(directory)
        self.layout = wdl_layout(variant)
        self._words: dict[int, np.ndarray | None] = {}
        self.headers: dict[int, dict[str, Any]] = {}

    def _array(self, geese: int) -> np.ndarray | None:
        if geese not in self._words:
            self.layout.add_count(geese)
            path = wdl_path(self.directory, self.variant, geese, WDL)
            header = complete_header(path, self.layout)
            self._words[geese] = None if header is None else map_words(path, header)
            if header is not None:
                self.headers[geese] = header
        return self._words[geese]

    def available(self) -> int:
        """The largest k such that the tables for 4..k geese are all on disk (3: none)."""
        k = MIN_GEESE - 1
        while k < largest(self.variant) and self._array(k + 1) is not None:
            k += 1
        return k

    def covers(self, position: Position) -> bool:
        if not _same_rules(position.variant, self.variant):
            return False
        geese = position.prey.bit_count()
        return geese < MIN_GEESE or self._array(geese) is not None

    def value(self, position: Position) -> int | None:
        """+1 the side to move wins with best play, -1 it loses, 0 a draw; None: no table holds it."""
        if not self.covers(position):
            return None
        geese = position.prey.bit_count()
        if geese < MIN_GEESE:
            return 1 if position.turn == Side.PREDATOR else -1
        words = self._array(geese)
        assert words is not None
        layout = self.layout
        header = self.headers[geese]
        mask = layout.dense_mask(position.prey)
        bit = layout.bit_of(mask, layout.geometry.dense[position.predator])
        first = GEESE_WIN if position.turn == Side.PREY else FOX_WINS
        win, lose = ((int(words[(p * header["plane_words"]) + (bit >> 6)]) >> (bit & 63)) & 1
                     for p in (first, first + 1))
        return 1 if win else -1 if lose else 0

    def value_after(self, position: Position, move: Any) -> int | None:
        """The value of `move` for the side making it (+1 keeps a win, 0 a draw, -1 a loss)."""
        after = self.value(position.play(move))
        return None if after is None else -after

    def mover_wins_after(self, position: Position, move: Move) -> bool | None:
        """Whether the side making `move` still wins with best play after it (the player's `resisting_move`)."""
        value = self.value_after(position, move)
        return None if value is None else value == 1


def _same_rules(a: Any, b: Any) -> bool:
    return a.id == b.id and has_wdl_tables(a) and has_wdl_tables(b)
