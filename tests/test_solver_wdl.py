"""The two-bit win/draw/loss tables (standard with sideways, great-cross) against the int16 tables."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from foxgeese.engine import Position, Side  # noqa: E402
from foxgeese.players.solver import wdl_kernels  # noqa: E402
from foxgeese.players.solver.retrograde import build_tables  # noqa: E402
from foxgeese.players.solver.tables import TableSet, binomials, load_table, rank, table_path  # noqa: E402
from foxgeese.players.solver.wdl import (  # noqa: E402
    FOX_WINS,
    GEESE_WIN,
    WDL,
    WDL_CHAINS,
    WdlBuilder,
    WdlTables,
    wdl_path,
    wdl_totals,
    wdl_variant,
)


def int16_signs_mismatches(variant, directory, geese: int) -> tuple[int, int]:
    """(positions compared, positions whose W/D/L differs from the sign of the int16 score), both sides."""
    tables = WdlTables(variant, directory)
    layout = tables.layout
    words = np.asarray(tables._array(geese))
    plane = layout.plane_words(geese)
    _, int16 = load_table(table_path(directory, variant, geese))
    binom = binomials(layout.points, 24)
    points = np.arange(layout.points, dtype=np.int64)
    width = layout.slots(geese)
    compared = wrong = 0
    for level in layout.levels[geese]:
        masks = np.full(level.padded, -1, dtype=np.int64)
        wdl_kernels.level_masks(level.codes, layout.block_base, level.first_set, layout.row_sub, layout.row_count,
                                layout.row_width, layout.radix, masks)
        index = np.nonzero(masks >= 0)[0]
        masks = masks[index]
        occupied = ((masks[:, None] >> points) & 1).astype(bool)
        combos = np.argsort(~occupied, axis=1, kind="stable")[:, :geese]
        ranks = rank(combos, binom)
        sets, fox = np.nonzero(~occupied)
        slot = np.bitwise_count(((~masks[sets]) & ((np.int64(1) << fox) - 1)).astype(np.uint64)).astype(np.int64)
        bit = (level.first_set + index[sets]) * width + slot

        def plane_bits(p: int, bit: np.ndarray = bit) -> np.ndarray:
            return (words[p * plane + (bit >> 6)] >> (bit & 63)) & 1

        for first, array in ((GEESE_WIN, "prey"), (FOX_WINS, "fox")):
            ours = plane_bits(first) - plane_bits(first + 1)
            theirs = np.sign(np.asarray(int16[array])[fox, ranks[sets]])
            compared += len(ours)
            wrong += int((ours != theirs).sum())
    return compared, wrong


@pytest.fixture(scope="module")
def sideways_directory(tmp_path_factory):
    directory = tmp_path_factory.mktemp("wdl-sideways")
    variant = wdl_variant("standard")
    build_tables(variant, 5, directory)
    WdlBuilder(variant, directory, keep_chains=True).build(5)
    return directory


def test_sideways_standard_equals_the_int16_tables_on_every_position(sideways_directory):
    variant = wdl_variant("standard")
    for geese, positions in ((4, 2_373_360), (5, 13_290_816)):
        assert int16_signs_mismatches(variant, sideways_directory, geese) == (positions, 0)


def test_great_cross_four_geese_equals_the_int16_tables_on_every_position(tmp_path):
    variant = wdl_variant("great-cross")
    build_tables(variant, 4, tmp_path)
    [header] = WdlBuilder(variant, tmp_path).build(4)
    assert int16_signs_mismatches(variant, tmp_path, 4) == (12_217_590, 0)
    totals = wdl_totals(header, WdlTables(variant, tmp_path).layout)
    draws = totals["geese_to_move_draw"] + totals["fox_to_move_draw"]
    assert draws == 9_524_373  # the int16 table's draws (docs/solver.md)


def test_look_ups_agree_with_the_int16_tables_and_the_chains_are_kept_only_while_needed(sideways_directory):
    variant = wdl_variant("standard")
    tables, int16 = WdlTables(variant, sideways_directory), TableSet(variant, sideways_directory)
    assert tables.available() == 5
    rng = random.Random(14)
    points = sorted(variant.board.points)
    seen = {-1: 0, 0: 0, 1: 0}
    for _ in range(300):
        geese = rng.choice((4, 5))
        chosen = rng.sample(points, geese + 1)
        prey = sum(1 << p for p in chosen[1:])
        turn = rng.choice((Side.PREDATOR, Side.PREY))
        position = Position.from_text(f"standard sideways=1 {'fox' if turn == Side.PREDATOR else 'geese'} "
                                      f"{_name(chosen[0])} {','.join(_name(p) for p in chosen[1:])} 0 0 1")
        assert position.prey == prey
        value = tables.value(position)
        assert value == np.sign(int16.score(position))
        seen[value] += 1
    assert all(seen.values())  # wins, draws and losses all met
    assert wdl_path(sideways_directory, variant, 5, WDL_CHAINS).exists()  # keep_chains
    assert wdl_path(sideways_directory, variant, 5, WDL).exists()


def _name(point: int) -> str:
    from foxgeese.engine.board import point_name

    return point_name(point)
