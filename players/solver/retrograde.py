"""Endgame tables for the fox variants, built with numpy by backward induction.

A table holds every position with k geese: index = (fox point, colex rank of the goose set),
one int16 score array per side to move (see `tables.py` for scores). Positions where the fox
stands on a goose cannot occur and hold `NO_MOVE`.

Why it is fast: every goose step raises the geese's *row sum* by one (forward, diagonally
forward) or keeps it (sideways), and a capture leaves the k-1 table. So the goose sets of one
table fall into levels by row sum, solved from the highest down; a level needs only itself,
the level above and the table below.

- Without sideways steps a level has no cycles: geese-to-move scores come straight from the
  level above, then fox-to-move scores from this level's geese-to-move scores plus captures.
  Every position is decided (the standard game always ends).
- With sideways steps (`standard` with the option, `great-cross`) a level has cycles (fox steps
  and sideways goose steps), solved by counter-based retrograde analysis in order of distance
  (`cycles.solve_level`); positions it never decides are draws. The fifty-move and repetition
  rules are not in the state: see docs/solver.md.

Capture chains are one ply however many geese they take. `chain[f, G]` is the fox's best score
over every capture chain from (f, G); a chain is one jump then either a stop (a geese-to-move
position of the k-1 table) or any chain from the landing point, which is `chain` of the k-1 table.
So each table stores its `chain` array for the next one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from foxgeese.engine import Side
from foxgeese.engine.board import DIRECTIONS
from foxgeese.engine.variants import Variant
from foxgeese.players.solver.cycles import solve_level
from foxgeese.players.solver.tables import (
    MIN_GEESE,
    NO_MOVE,
    SCORE_DTYPE,
    WIN,
    Geometry,
    TableError,
    binomials,
    colex,
    load_table,
    rank,
    save_table,
    table_dir,
    table_path,
    variant_key,
)

# One (goose, direction) of a level's goose moves: (raises a row, child rank or -1, target point).
Slot = tuple[bool, np.ndarray, np.ndarray]


@dataclass
class Table:
    """The scores of every position with `geese` geese: fox to move, geese to move, best capture chain."""

    geese: int
    fox: np.ndarray  # (P, N) int16, fox to move
    prey: np.ndarray  # (P, N) int16, geese to move
    chain: np.ndarray  # (P, N) int16, the fox's best capture chain (NO_MOVE: none)
    figures: dict[str, Any] = field(default_factory=dict)


def _pop(mask: np.ndarray) -> np.ndarray:
    return np.bitwise_count(mask.astype(np.uint64)).astype(np.int64)


class Builder:
    """Builds the tables of one variant from `MIN_GEESE` geese up, keeping the previous one for captures."""

    def __init__(self, geometry: Geometry, *, progress: Callable[[str], None] | None = None) -> None:
        self.g = geometry
        self.binom = binomials(geometry.size, 24)
        self.progress = progress or (lambda _text: None)

    # -- one table --------------------------------------------------------------------------------

    def build(self, geese: int, below: Table | None) -> Table:
        """The table for `geese` geese; `below` is the table for geese - 1 (None when that is < 4)."""
        if geese > MIN_GEESE and (below is None or below.geese != geese - 1):
            raise ValueError(f"building {geese} geese needs the {geese - 1}-geese table")
        started = time.perf_counter()
        g = self.g
        P = g.size
        combos = colex(P, geese).astype(np.int64)
        N = len(combos)
        mask = np.zeros(N, dtype=np.int64)
        for j in range(geese):
            mask |= np.int64(1) << combos[:, j]
        level = g.rows[combos].sum(axis=1)
        fox = np.full((P, N), NO_MOVE, dtype=SCORE_DTYPE)
        prey = np.full((P, N), NO_MOVE, dtype=SCORE_DTYPE)
        chain = self._chains(geese, combos, mask, below)
        slots = self._goose_moves(geese, combos, mask)
        self.progress(f"{geese} geese: {N} goose sets, chains and goose moves ready")
        cycles = any(not forward for forward, _, _ in slots)
        column = np.full(N, -1, dtype=np.int64)  # rank -> column within its level
        distances = 0
        for L in np.unique(level)[::-1]:
            R = np.nonzero(level == L)[0]
            if cycles:
                column[R] = np.arange(len(R))
                distances += self._level_with_cycles(R, column, mask, slots, chain, fox, prey)
            else:
                self._level(R, mask, slots, chain, fox, prey)
        occupied = ((mask[None, :] >> np.arange(P)[:, None]) & 1).astype(bool)
        fox[occupied] = NO_MOVE
        prey[occupied] = NO_MOVE
        chain[occupied] = NO_MOVE
        seconds = time.perf_counter() - started
        figures = {"goose_sets": int(N), "positions": int(2 * (~occupied).sum()), "build_seconds": round(seconds, 3),
                   "distance_steps": distances, **_counts(fox, prey, occupied)}
        self.progress(f"{geese} geese: done in {seconds:.1f} s")
        return Table(geese, fox, prey, chain, figures)

    # -- move tables --------------------------------------------------------------------------------

    def _goose_moves(
        self, geese: int, combos: np.ndarray, mask: np.ndarray
    ) -> list[Slot]:
        """Per (goose, direction) slot: (raises a row, child rank or -1, target point)."""
        g = self.g
        slots: list[Slot] = []
        for d in g.prey_dirs:
            forward = DIRECTIONS[d][1] > 0  # raises a row; sideways steps keep the level
            for i in range(geese):
                origin = combos[:, i]
                target = g.step[origin, d]
                ok = target >= 0
                ok[ok] &= ((mask[ok] >> target[ok]) & 1) == 0
                moved = combos.copy()
                moved[:, i] = np.where(ok, target, origin)
                moved.sort(axis=1)
                child = np.where(ok, rank(moved, self.binom), -1).astype(np.int32)
                slots.append((forward, child, np.where(ok, target, -1).astype(np.int8)))
        return slots

    def _chains(self, geese: int, combos: np.ndarray, mask: np.ndarray, below: Table | None) -> np.ndarray:
        """The fox's best capture chain from every (fox point, goose set), as a score."""
        g = self.g
        P, N = g.size, len(combos)
        chain = np.full((P, N), NO_MOVE, dtype=SCORE_DTYPE)
        if not g.captures:
            return chain
        # Rank of the goose set without its i-th goose, in the (geese - 1) table.
        drop = np.zeros((geese, N), dtype=np.int64)
        for i in range(geese):
            for j in range(geese):
                if j < i:
                    drop[i] += self.binom[combos[:, j], j + 1]
                elif j > i:
                    drop[i] += self.binom[combos[:, j], j]
        for f in range(P):
            best = np.full(N, NO_MOVE, dtype=np.int32)
            for d in range(g.step.shape[1]):
                over, land = int(g.step[f, d]), int(g.land[f, d])
                if over < 0 or land < 0:
                    continue
                ok = (((mask >> over) & 1) == 1) & (((mask >> land) & 1) == 0)
                if not ok.any():
                    continue
                if geese - 1 < MIN_GEESE:
                    best[ok] = WIN - 1  # the capture ends the game: fox wins in 1 ply
                    continue
                assert below is not None
                idx = np.nonzero(ok)[0]
                position = _pop(mask[idx] & ((np.int64(1) << over) - 1))
                child = drop[position, idx]
                stop = below.prey[land, child].astype(np.int32)
                option = np.maximum(-stop + np.sign(stop), below.chain[land, child].astype(np.int32))
                best[idx] = np.maximum(best[idx], option)
            chain[f] = best
        return chain

    # -- levels without cycles ------------------------------------------------------------------

    def _level(self, R: np.ndarray, mask: np.ndarray, slots: list[Slot], chain: np.ndarray, fox: np.ndarray,
               prey: np.ndarray) -> None:
        P = self.g.size
        points = np.arange(P)[:, None]
        best = np.full((P, len(R)), NO_MOVE, dtype=np.int32)
        for _, child, target in slots:
            cr, tg = child[R], target[R]
            ok = cr >= 0
            c = fox[:, np.where(ok, cr, 0)].astype(np.int32)
            option = np.where(ok[None, :] & (tg[None, :] != points), -c + np.sign(c), NO_MOVE)
            np.maximum(best, option, out=best)
        best[best == NO_MOVE] = -WIN  # the geese cannot move: immobilized, the fox wins
        prey[:, R] = best
        fox[:, R] = self._fox_from(R, mask, chain, best)

    def _fox_from(self, R: np.ndarray, mask: np.ndarray, chain: np.ndarray, prey_level: np.ndarray) -> np.ndarray:
        """Fox-to-move scores for the goose sets R from their geese-to-move scores `prey_level` and captures."""
        g = self.g
        best = chain[:, R].astype(np.int32)
        empty = (((mask[R][None, :] >> np.arange(g.size)[:, None]) & 1) == 0)
        for d in range(g.step.shape[1]):
            to = g.step[:, d]
            ok = to >= 0
            dest = to[ok]
            c = prey_level[dest]
            free = empty[dest]
            option = np.where(free, -c + np.sign(c), NO_MOVE)
            np.maximum(best[ok], option, out=option)
            best[ok] = option
        return best

    # -- levels with cycles (sideways goose steps) ------------------------------------------------

    def _level_with_cycles(self, R: np.ndarray, column: np.ndarray, mask: np.ndarray, slots: list[Slot],
                           chain: np.ndarray, fox: np.ndarray, prey: np.ndarray) -> int:
        P = self.g.size
        points = np.arange(P)[:, None]
        n = len(R)
        occupied = ((mask[R][None, :] >> points) & 1).astype(bool)
        # Moves leaving the level are decided already: forward goose steps and captures.
        outer = np.full((P, n), NO_MOVE, dtype=np.int32)
        inner = []  # sideways slots: (column of the child in R or -1, target)
        for forward, child, target in slots:
            cr, tg = child[R], target[R]
            ok = cr >= 0
            if forward:
                c = fox[:, np.where(ok, cr, 0)].astype(np.int32)
                option = np.where(ok[None, :] & (tg[None, :] != points), -c + np.sign(c), NO_MOVE)
                np.maximum(outer, option, out=outer)
            else:
                cols = np.where(ok, column[np.maximum(cr, 0)], -1)
                inner.append((cols, tg))
        outside = np.empty((2,) + outer.shape, dtype=np.int32)  # indexed by Side, like solve_level's scores
        outside[Side.PREY] = outer
        outside[Side.PREDATOR] = chain[:, R]
        value, distances = solve_level(self.g.step, occupied, outside, inner)
        prey[:, R] = value[Side.PREY]
        fox[:, R] = value[Side.PREDATOR]
        return distances


def _counts(fox: np.ndarray, prey: np.ndarray, occupied: np.ndarray) -> dict[str, int]:
    """Wins, losses and draws for the side to move, over the positions that can occur."""
    out = {}
    for name, scores in (("fox_to_move", fox), ("geese_to_move", prey)):
        valid = scores[~occupied]
        out[f"{name}_wins"] = int((valid > 0).sum())
        out[f"{name}_losses"] = int((valid < 0).sum())
        out[f"{name}_draws"] = int((valid == 0).sum())
    longest = np.concatenate([fox[~occupied], prey[~occupied]])
    out["longest_plies"] = int((WIN - np.abs(longest[longest != 0])).max()) if (longest != 0).any() else 0
    return out


# -- building to disk ---------------------------------------------------------------------------


def build_tables(variant: Variant, max_geese: int, directory: Any = None, *, rebuild: bool = False,
                 progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Builds and saves the tables for 4..max_geese geese (keeping those already on disk unless
    `rebuild`); returns their headers. A table is built from the one below, loaded from disk if needed."""
    if not variant.captures:
        raise ValueError(f"{variant.id} has no captures: it is solved whole, not by goose count")
    start_geese = variant.prey_start.bit_count()
    if not MIN_GEESE <= max_geese <= start_geese:
        raise ValueError(f"--max-geese must be between {MIN_GEESE} and {start_geese} for {variant}, not {max_geese}")
    directory = table_dir(directory)
    geometry = Geometry(variant)
    builder = Builder(geometry, progress=progress)
    headers = []
    below: Table | None = None
    for geese in range(MIN_GEESE, max_geese + 1):
        path = table_path(directory, variant, geese)
        if not rebuild and path.exists():
            try:
                header, arrays = load_table(path)
                if header.get("points") == geometry.names:
                    below = Table(geese, arrays["fox"], arrays["prey"], arrays["chain"], header)
                    headers.append(header)
                    continue
            except TableError:
                pass
        below = builder.build(geese, below)
        header = {"variant": variant_key(variant), "geese": geese, "points": geometry.names, **below.figures}
        save_table(path, header, {"fox": below.fox, "prey": below.prey, "chain": below.chain})
        header["file_bytes"] = path.stat().st_size
        headers.append(header)
    return headers
