"""`foxgeese solve check`: tables re-derived from their children with the engine's rules; a corrupted one is caught."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

from foxgeese.engine import Side  # noqa: E402
from foxgeese.engine.position import Position  # noqa: E402
from foxgeese.players.solver.bitlayout import grid_bit, mask_of  # noqa: E402
from foxgeese.players.solver.check import LOSS, WIN, TableValues, states_to_check  # noqa: E402
from foxgeese.players.solver.strong import HEADER_BYTES, WINS, StrongBuilder, bits_path  # noqa: E402
from foxgeese.players.solver.wdl import GEESE_WIN, WDL, WdlBuilder, wdl_path, wdl_variant  # noqa: E402

SAMPLE, SEED = "300", "7"


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "foxgeese", "solve", "check", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """Sideways (two bits) tables of 4 to 7 geese and forward-only (one bit) tables of 4 and 5."""
    sideways, forward = tmp_path_factory.mktemp("wdl"), tmp_path_factory.mktemp("strong")
    WdlBuilder(wdl_variant("standard"), sideways).build(7)
    StrongBuilder(forward).build(5)
    return sideways, forward


def test_finished_tables_agree_with_their_children(built):
    sideways, forward = built
    for path in (wdl_path(sideways, wdl_variant("standard"), 5, WDL), bits_path(forward, 5, WINS)):
        done = _check("--table", str(path), "--sample", SAMPLE, "--seed", SEED)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        digest = hashlib.sha256(path.read_bytes()[HEADER_BYTES:]).hexdigest()
        assert lines[0].startswith(f"{path.name}: standard") and f"{path.stat().st_size:,} bytes" in lines[0]
        assert f"sha256 {digest}" in lines[0]
        assert lines[1].startswith(f"checked {SAMPLE} positions, a random sample (--sample {SAMPLE} --seed {SEED})")
        assert lines[1].endswith(": 0 disagreements")


def test_the_sample_meets_wins_draws_and_losses(built):
    sideways, _ = built
    values = TableValues(wdl_path(sideways, wdl_variant("standard"), 5, WDL))
    seen = {values.stored(state) for state in states_to_check(values, int(SAMPLE), int(SEED))}
    assert seen == {WIN, 0, LOSS}


def _first_sampled(path: Path) -> tuple[TableValues, tuple]:
    values = TableValues(path)
    return values, next(iter(states_to_check(values, int(SAMPLE), int(SEED))))


def _flip(path: Path, bit: int) -> None:
    with open(path, "r+b") as stream:
        stream.seek(HEADER_BYTES + bit // 8)
        byte = stream.read(1)[0]
        stream.seek(HEADER_BYTES + bit // 8)
        stream.write(bytes([byte ^ (1 << (bit % 8))]))


def test_a_corrupted_sideways_table_is_caught(built, tmp_path):
    sideways, _ = built
    variant = wdl_variant("standard")
    for name in ("4geese.wdl.fgb", "5geese.wdl.fgb"):
        shutil.copy(sideways / f"standard-sideways1-{name}", tmp_path)
    path = wdl_path(tmp_path, variant, 5, WDL)
    values, (fox, prey, turn, _, _) = _first_sampled(path)
    assert turn == Side.PREY  # the plane flipped below is the geese-to-move one
    layout = values.wdl  # laid out up to the table's goose count
    bit = layout.bit_of(layout.dense_mask(prey), layout.geometry.dense[fox])
    _flip(path, GEESE_WIN * values.header["plane_words"] * 64 + bit)
    done = _check("--table", str(path), "--sample", SAMPLE, "--seed", SEED)
    assert done.returncode == 1
    text = Position(variant, fox, prey, turn).text()
    assert f"  {text}: table " in done.stdout
    assert done.stderr.splitlines()[-1].startswith("foxgeese: ") and "disagree with their children" in done.stderr


def test_a_corrupted_forward_only_table_is_caught(built, tmp_path):
    _, forward = built
    for geese in (4, 5):
        shutil.copy(bits_path(forward, geese, WINS), tmp_path)
    path = bits_path(tmp_path, 5, WINS)
    values, (fox, prey, _, _, _) = _first_sampled(path)
    _flip(path, values.strong.bit_of(mask_of(prey), grid_bit(fox)))
    done = _check("--table", str(path), "--sample", SAMPLE, "--seed", SEED)
    assert done.returncode == 1
    assert f"  {Position(values.variant, fox, prey, Side.PREY).text()}: table " in done.stdout


@pytest.mark.parametrize("args, words", [
    ((), "solve check needs --table FILE"),
    (("--table", "/nonexistent/x.wdl.fgb"), "no table file /nonexistent/x.wdl.fgb"),
    (("--table", "README.md", "--sample", "0"), "--sample must be at least 1, not 0"),
    (("--table", "README.md", "--seed", "3"), "--seed draws a sample: give --sample N too"),
    (("--table", "README.md"), "is not a foxgeese bit table"),
])
def test_check_mistakes_are_one_line(args, words):
    done = _check(*args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("foxgeese: ") and words in done.stderr


def test_check_options_belong_to_check():
    done = subprocess.run([sys.executable, "-m", "foxgeese", "solve", "standard", "--sample", "5"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "foxgeese: --table, --sample and --seed are for `foxgeese solve check`\n"


def test_capture_chains_are_looked_up_at_every_count_below(built):
    # A chain from 7 geese can end at 5 or 4: the checker must read those tables where the build wrote
    # them (it once laid out only the count checked and the one below: a fresh process got 5 wrong).
    sideways, _ = built
    script = f"""
import random
from pathlib import Path
from foxgeese.engine import Side
from foxgeese.engine.position import Position
from foxgeese.players.solver.check import TableValues
from foxgeese.players.solver.wdl import WdlTables, wdl_variant
values = TableValues(Path({str(sideways / 'standard-sideways1-7geese.wdl.fgb')!r}))
rng = random.Random(3)
points = sorted(values.variant.board.points)
states = []
for _ in range(300):
    chosen = rng.sample(points, 6)
    states.append((chosen[0], sum(1 << p for p in chosen[1:]), rng.choice((Side.PREY, Side.PREDATOR)), 0, 0))
checked = [values.stored(s) for s in states]
tables = WdlTables(wdl_variant("standard"), Path({str(sideways)!r}))
expected = [tables.value(Position(values.variant, s[0], s[1], s[2])) for s in states]
assert checked == expected
print(len(set(expected)))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"  # wins, draws and losses compared
