"""The two-bit win/draw/loss tables (standard with sideways, great-cross) against the int16 tables."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("numba")

from foxgeese.engine import Game, Position, Side  # noqa: E402
from foxgeese.engine.board import point_name  # noqa: E402
from foxgeese.players.solver import wdl_kernels  # noqa: E402
from foxgeese.players.solver.analyse import Judge  # noqa: E402
from foxgeese.players.solver.player import SolverPlayer  # noqa: E402
from foxgeese.players.solver.retrograde import build_tables  # noqa: E402
from foxgeese.players.solver.strong import HEADER_BYTES  # noqa: E402
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


def int16_signs_mismatches(variant, directory, geese: int, int16_directory) -> tuple[int, int]:
    """(positions compared, positions whose W/D/L differs from the sign of the int16 score), both sides."""
    tables = WdlTables(variant, directory)
    layout = tables.layout
    words = np.asarray(tables._array(geese))
    plane = layout.plane_words(geese)
    _, int16 = load_table(table_path(int16_directory, variant, geese))
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


def _solve(*args: str, tables) -> subprocess.CompletedProcess:
    env = dict(os.environ, FOXGEESE_TABLES=str(tables))
    return subprocess.run([sys.executable, "-m", "foxgeese", "solve", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def _header(variant, directory, geese: int) -> dict:
    tables = WdlTables(variant, directory)
    assert tables.available() >= geese
    return tables.headers[geese]


@pytest.fixture(scope="module")
def int16_directory(tmp_path_factory):
    directory = tmp_path_factory.mktemp("int16-sideways")
    build_tables(wdl_variant("standard"), 5, directory)
    return directory


@pytest.fixture(scope="module")
def sideways_directory(tmp_path_factory):
    """The two-bit tables alone (no int16 tables beside them: the player and the judge must use these)."""
    directory = tmp_path_factory.mktemp("wdl-sideways")
    WdlBuilder(wdl_variant("standard"), directory, keep_chains=True).build(5)
    return directory


@pytest.fixture(scope="module")
def great_cross_built(tmp_path_factory):
    """`foxgeese solve great-cross --geese 4` as a user runs it: the directory and the finished process."""
    directory = tmp_path_factory.mktemp("wdl-great-cross")
    return directory, _solve("great-cross", "--geese", "4", tables=directory)


def test_sideways_standard_equals_the_int16_tables_on_every_position(sideways_directory, int16_directory):
    variant = wdl_variant("standard")
    for geese, positions in ((4, 2_373_360), (5, 13_290_816)):
        assert int16_signs_mismatches(variant, sideways_directory, geese, int16_directory) == (positions, 0)


def test_great_cross_four_geese_equals_the_int16_tables_on_every_position(great_cross_built, tmp_path):
    directory, built = great_cross_built
    assert built.returncode == 0, built.stderr
    variant = wdl_variant("great-cross")
    build_tables(variant, 4, tmp_path)
    assert int16_signs_mismatches(variant, directory, 4, tmp_path) == (12_217_590, 0)
    totals = wdl_totals(_header(variant, directory, 4), WdlTables(variant, directory).layout)
    assert totals["geese_to_move_draw"] + totals["fox_to_move_draw"] == 9_524_373  # the int16 table's draws


def test_look_ups_agree_with_the_int16_tables(sideways_directory, int16_directory):
    variant = wdl_variant("standard")
    tables, int16 = WdlTables(variant, sideways_directory), TableSet(variant, int16_directory)
    assert tables.available() == 5
    rng = random.Random(14)
    points = sorted(variant.board.points)
    seen = {-1: 0, 0: 0, 1: 0}
    for _ in range(300):
        chosen = rng.sample(points, rng.choice((4, 5)) + 1)
        position = _position(rng.choice((Side.PREDATOR, Side.PREY)), chosen[0], chosen[1:])
        value = tables.value(position)
        assert value == np.sign(int16.score(position))
        seen[value] += 1
    assert all(seen.values())  # wins, draws and losses all met
    assert wdl_path(sideways_directory, variant, 5, WDL_CHAINS).exists()  # keep_chains
    assert wdl_path(sideways_directory, variant, 5, WDL).exists()


def _position(turn: Side, fox: int, geese: list[int]) -> Position:
    mover = "fox" if turn == Side.PREDATOR else "geese"
    return Position.from_text(f"standard geese=13,sideways=1 {mover} {point_name(fox)} "
                              f"{','.join(point_name(p) for p in geese)} 0 0 0")


def _positions_of_each_value(tables: WdlTables, count: int = 8) -> dict[int, list[Position]]:
    """Random 5-geese sideways positions with a legal move, `count` of each value for the side to move."""
    rng = random.Random(5)
    points = sorted(wdl_variant("standard").board.points)
    found: dict[int, list[Position]] = {-1: [], 0: [], 1: []}
    while min(len(v) for v in found.values()) < count:
        chosen = rng.sample(points, 6)
        position = _position(rng.choice((Side.PREDATOR, Side.PREY)), chosen[0], chosen[1:])
        value = tables.value(position)
        if value is not None and position.legal_moves() and len(found[value]) < count:
            found[value].append(position)
    return found


def test_the_solver_player_keeps_the_value_from_the_two_bit_tables(sideways_directory):
    tables = WdlTables(wdl_variant("standard"), sideways_directory)
    player = SolverPlayer(tables=str(sideways_directory), seed=1)
    for value, positions in _positions_of_each_value(tables).items():
        for position in positions:
            player.new_game(position.variant, position.turn)
            choice = player.choose(Game(start=position))
            assert choice.info["source"] == "wdl tables"
            assert tables.value_after(position, choice.move) == value, (position.text(), choice.move)


def test_analyse_judges_sideways_positions_by_the_two_bit_tables(sideways_directory):
    tables = WdlTables(wdl_variant("standard"), sideways_directory)
    judge = Judge(str(sideways_directory))  # no int16 tables there
    for value, positions in _positions_of_each_value(tables, 3).items():
        for position in positions:
            assert judge.value(position) == value


def test_solve_great_cross_geese_builds_reports_and_looks_up(great_cross_built):
    directory, built = great_cross_built
    assert built.returncode == 0, built.stderr
    assert "great-cross 4 geese: row sum" in built.stderr  # progress
    tables = WdlTables(wdl_variant("great-cross"), directory)
    totals = wdl_totals(_header(tables.variant, directory, 4), tables.layout)
    # In a pipe (80 columns) the ten columns do not fit: one block per goose count, each line at most 80.
    lines = built.stdout.splitlines()
    table = lines[1:-1]  # between the heading line and the note under the table
    assert table and all(len(line) <= 80 for line in table) and "…" not in built.stdout, built.stdout
    assert " ".join(" ".join(table).split()) == (
        f"4: positions {totals['positions_per_side'] * 2:,}; geese to move: geese win "
        f"{totals['geese_to_move_geese_win']:,}; drawn {totals['geese_to_move_draw']:,}; fox wins "
        f"{totals['geese_to_move_fox_wins']:,}; fox to move: fox wins {totals['fox_to_move_fox_wins']:,}; drawn "
        f"{totals['fox_to_move_draw']:,}; geese win {totals['fox_to_move_geese_win']:,}; build s "
        f"{_header(tables.variant, directory, 4)['build_seconds']:.1f}; MB "
        f"{_header(tables.variant, directory, 4)['words'] * 8 / 1e6:.0f}")
    text = "great-cross - fox e5 d3,e3,f3,e4 0 0 0"
    looked_up = _solve("great-cross", "--geese", "4", "--position", text, tables=directory)
    assert looked_up.returncode == 0, looked_up.stderr
    position = Position.from_text(text)
    verdict = {1: "fox wins", 0: "draw", -1: "geese win"}[tables.value(position)]
    assert f"{text}: {verdict}" in looked_up.stdout
    assert len(looked_up.stdout.splitlines()) == 6 + len(position.legal_moves())
    wrong = _solve("great-cross", "--geese", "19", tables=directory)
    assert wrong.returncode == 2 and wrong.stderr.strip() == "foxgeese: --geese must be between 4 and 18, not 19"


def _words(variant, directory, geese: int, array: str = WDL) -> bytes:
    """A finished table's words (the header, with its build times, left out)."""
    return wdl_path(directory, variant, geese, array).read_bytes()[HEADER_BYTES:]


@pytest.mark.parametrize("variant_id, top", [("standard", 5), ("great-cross", 4)])
def test_the_counters_equal_the_fixpoint_sweeps_on_every_position(variant_id, top, sideways_directory,
                                                                   great_cross_built, tmp_path):
    variant = wdl_variant(variant_id)
    counted = sideways_directory if variant_id == "standard" else great_cross_built[0]
    WdlBuilder(variant, tmp_path, method="sweeps").build(top)
    for geese in range(4, top + 1):
        assert _words(variant, counted, geese) == _words(variant, tmp_path, geese), geese
    assert _header(variant, counted, top)["method"] == "counters"


class Stop(Exception):
    pass


def test_a_stopped_build_goes_on_from_the_last_level_done(sideways_directory, tmp_path):
    variant = wdl_variant("standard")
    WdlBuilder(variant, tmp_path).build(4)
    done = []

    def stop_after_ten_levels(text: str) -> None:
        done.append(text)
        if len(done) == 10:
            raise Stop

    with pytest.raises(Stop):
        WdlBuilder(variant, tmp_path, progress=stop_after_ten_levels).build(5)
    assert wdl_path(tmp_path, variant, 5, WDL, partial=True).exists()
    resumed: list[str] = []
    builder = WdlBuilder(variant, tmp_path, progress=resumed.append)
    builder.build(5)
    assert resumed[0] == "standard 5 geese: resuming after 10 levels"
    levels = len(builder.layout.levels[5])
    assert len(resumed) == 1 + levels - 10  # only the levels not done were built
    assert _words(variant, tmp_path, 5) == _words(variant, sideways_directory, 5)
    assert _words(variant, tmp_path, 5, WDL_CHAINS) == _words(variant, sideways_directory, 5, WDL_CHAINS)
    header = _header(variant, tmp_path, 5)
    assert sorted(int(k) for k in header["figures"]) == sorted(header["levels_done"])
    assert all(f["seconds"] >= 0 and f["peak_rss_gb"] > 0 and f["rounds"] >= 0 for f in header["figures"].values())


def test_the_odometer_walks_the_same_goose_sets_as_the_index():
    from foxgeese.players.solver import wdl_counters
    from foxgeese.players.solver.wdl import wdl_layout

    for variant_id, top in (("standard", 8), ("great-cross", 5)):
        layout = wdl_layout(variant_id)
        for geese in range(4, top + 1):
            layout.add_count(geese)
            for level in layout.levels[geese]:
                direct, walked = (np.full(level.padded, -1, dtype=np.int64) for _ in range(2))
                args = (level.codes, layout.block_base, level.first_set, layout.row_sub, layout.row_count,
                        layout.row_width, layout.radix)
                wdl_kernels.level_masks(*args, direct)
                wdl_counters.level_masks(*args, walked)
                assert (direct == walked).all(), (variant_id, geese, level.row_sum)
