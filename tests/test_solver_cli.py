"""`foxgeese solve` as a user runs it: a real process, its output and its exit status."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from foxgeese.engine import Position, get_variant
from foxgeese.players.solver.hare_hounds_solution import load_solution
from foxgeese.players.solver.tables import describe


def solve(*args: str, tables) -> subprocess.CompletedProcess:
    env = dict(os.environ, FOXGEESE_TABLES=str(tables))
    return subprocess.run([sys.executable, "-m", "foxgeese", "solve", *args], capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return tmp_path_factory.mktemp("cli-tables")


def test_hare_and_hounds_prints_the_start_value_and_every_first_move(tables):
    result = solve("hare-and-hounds", tables=tables)
    assert result.returncode == 0, result.stderr
    solution = load_solution(tables)  # the command saved it there
    start = get_variant("hare-and-hounds").start_position()
    kind, plies = describe(solution.score(start))
    assert kind == "win" and f"{start.text()}: hounds win in {plies} plies" in result.stdout
    lines = result.stdout.splitlines()
    for move in start.legal_moves():
        after = describe(solution.score(start.play(move)))  # the hare's view after the move
        winner = "hounds win" if after[0] == "loss" else "hare wins"
        assert any(line.split() == [str(move), *winner.split(), "in", str(after[1]), "plies"] for line in lines), move
    assert "0 draws" in result.stdout


def test_hare_and_hounds_for_a_given_position(tables):
    text = "hare-and-hounds - hounds a3 b1,a2,c2 0 0 0"
    result = solve("hare-and-hounds", "--position", text, tables=tables)
    assert result.returncode == 0, result.stderr
    score = load_solution(tables).score(Position.from_text(text))
    assert f"{text}: hounds win in {describe(score)[1]} plies" in result.stdout


def test_fox_tables_build_then_report(tables):
    missing = solve("standard", tables=tables)
    assert missing.returncode == 0 and "no standard" in missing.stdout and "--build" in missing.stdout
    built = solve("standard", "--build", "--max-geese", "4", tables=tables)
    assert built.returncode == 0, built.stderr
    rows = [line.replace("│", " ").split() for line in built.stdout.splitlines()]  # a boxed table: it fits
    row = next(row for row in rows if row[:1] == ["4"])
    assert max(map(len, built.stdout.splitlines()[1:])) <= 80 and "…" not in built.stdout
    assert int(row[3]) == 2 * 33 * 40920 - 2 * 4 * 40920  # every position where the fox is off the geese
    position = "standard geese=13,sideways=0 fox d4 c1,d1,e1,c2 0 0 0"
    looked_up = solve("standard", "--position", position, tables=tables)
    assert looked_up.returncode == 0 and f"{position}: fox wins in" in looked_up.stdout
    best = looked_up.stdout.splitlines()[-8:]
    assert all("fox wins in" in line for line in best)


@pytest.mark.parametrize(
    "args, words",
    [
        (["nope"], "unknown variant 'nope'"),
        (["standard", "--build"], "--max-geese"),
        (["standard", "--build", "--max-geese", "40"], "between 4 and 13"),
        (["standard", "--position", "standard geese=13 fox"], "tokens"),
        (["standard", "--position", "hare-and-hounds - hounds b5 b1,a2,c2 0 0 0"], "not standard"),
        (["hare-and-hounds", "--build", "--max-geese", "5"], "solved whole"),
    ],
)
def test_bad_input_is_one_line_on_stderr(args, words, tables):
    result = solve(*args, tables=tables)
    assert result.returncode == 2
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
