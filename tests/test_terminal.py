"""What people read on a terminal or through a pipe: tables that fit 80 columns (or degrade to a
layout that does), a closed pipe ended as Unix tools end it, suggestions for mistyped names."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tournament_support import foxgeese_here

from foxgeese.engine.outcome import RULE_MEANINGS, Termination, ending_legend, ending_meaning
from foxgeese.protocol.record import RefereeTermination
from foxgeese.terminal import print_table, rendered, table


def _fits(text: str, width: int = 80) -> None:
    assert all(len(line) <= width for line in text.splitlines()), text
    assert "…" not in text, text  # rich's mark of a cut header or cell


def _crosstable(players: int, name_length: int) -> object:
    names = [f"player{index}".ljust(name_length, "x") for index in range(players)]
    shown = table("standard: 90 games (a long title that the table itself must not cut or squeeze into its width)",
                  ("player", *names, "as fox", "as geese", "total"))
    for name in names:
        shown.add_row(name, *("·" if other == name else "5/8" for other in names), "7/8", "5/8", "12/16")
    return shown, names


@pytest.mark.parametrize("players, name_length", [(3, 8), (6, 8), (10, 12)])
def test_a_table_fits_80_columns_boxed_bare_or_one_block_a_row(players, name_length):
    shown, names = _crosstable(players, name_length)
    text = rendered(lambda console: print_table(console, shown, ["·: a player does not meet itself"]), 80)
    _fits(text)
    assert text.splitlines()[0].startswith("standard: 90 games (a long title")
    assert text.rstrip().endswith("·: a player does not meet itself")
    for name in names:
        assert name in text  # every header and row name whole
    if players == 3:
        assert "┏" in text  # fits: the boxed table
    if players == 10:
        assert f"{names[0]}: {names[0]} ·; {names[1]} 5/8; " in text  # one block a row: `header value` pairs
        assert len([line for line in text.splitlines() if line.startswith("player")]) == players


def test_a_wide_console_keeps_the_boxed_table():
    shown, names = _crosstable(10, 12)
    text = rendered(lambda console: print_table(console, shown), 220)
    assert "┏" in text and all(name in text.splitlines()[2] for name in names)


def test_every_ending_has_one_meaning_in_its_variants_side_names():
    for termination in Termination:
        assert termination.value in RULE_MEANINGS
    for kind in RefereeTermination:
        assert ending_meaning(kind.value)
    assert ending_meaning("trapped", "hare", "hounds") == "the hare is to move and has no legal move"
    assert ending_legend(["immobilized", "trapped", "immobilized", "nonsense"]) == [
        "immobilized: the geese are to move and have no legal move",
        "trapped: the fox is to move and has no legal move"]


def test_a_mistyped_command_gets_the_closest_one():
    done = foxgeese_here("plya", "standard")
    assert done.returncode == 2
    assert done.stderr == "foxgeese: no such command 'plya'. Did you mean 'play'? (see 'foxgeese --help')\n"
    done = foxgeese_here("tournament", "rnu", "quick")
    assert "Did you mean 'run'?" in done.stderr
    done = foxgeese_here("show", "hare-and-hound")
    assert "(did you mean 'hare-and-hounds'?)" in done.stderr and done.stderr.count("\n") == 1
    done = foxgeese_here("perft", "standrd", "2")
    assert "unknown variant 'standrd' (did you mean 'standard'?)" in done.stderr
    done = foxgeese_here("tournament", "run", "quik")
    assert "quik: no such file (did you mean 'quick'?)" in done.stderr


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("record") / "g.json"
    done = foxgeese_here("play", "hare-and-hounds", "--hare", "random:seed=5", "--hounds", "random:seed=6",
                         "--quiet", "--seed", "5", "--max-plies", "30", "--record", str(path))
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.parametrize("args", [
    ("show", "{record}", "--all"),  # many lines: the pipe closes under them
    ("analyse", "{record}"),
    ("legal", "standard"),
    ("solve", "hare-and-hounds"),
])
def test_a_closed_pipe_ends_the_command_as_sigpipe_ends_a_unix_tool(args, record, tmp_path):
    """`foxgeese … | head -0`: no traceback, no message, killed by SIGPIPE (141 in a shell)."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line is written
    env = {**os.environ, "FOXGEESE_TABLES": str(tmp_path)}
    try:
        done = subprocess.run([sys.executable, "-m", "foxgeese", *(a.format(record=record) for a in args)],
                              stdout=write, stderr=subprocess.PIPE, text=True, timeout=120, env=env)
    finally:
        os.close(write)
    assert done.stderr == ""
    assert done.returncode == -signal.SIGPIPE
