"""Endgame tables of the fox variants: answers checked against a plain recursive solver, the
Bellman equations checked with the engine's own move generator, the file format, the player."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from ascii_boards import position_from_ascii

from foxgeese.engine import Game, Position, Side, get_variant, play_game
from foxgeese.engine.sampling import scattered_position
from foxgeese.players.random_player import RandomPlayer
from foxgeese.players.solver.fileheader import pack_header, read_header
from foxgeese.players.solver.player import SolverPlayer
from foxgeese.players.solver.retrograde import build_tables
from foxgeese.players.solver.strategy import STRATEGY_FILE, StrategyError
from foxgeese.players.solver.strong import BITS_FILE
from foxgeese.players.solver.tables import (
    FORMAT_VERSION,
    MAGIC,
    TABLE_FILE,
    TableError,
    TableSet,
    describe,
    load_table,
    table_dir,
    table_path,
    to_parent,
)

STANDARD = get_variant("standard")
SIDEWAYS = get_variant("standard", sideways=True)


def recursive_solve(position: Position, memo: dict) -> tuple[str, int]:
    """("win" | "loss", plies) for the side to move by plain recursion over the engine's moves.

    Only for rules without cycles (standard without sideways steps): every line ends.
    """
    key = (position.predator, position.prey, position.turn)
    if key in memo:
        return memo[key]
    ended = position.outcome()
    if ended is not None:
        value = ("win" if ended.winner.value == position.variant.side_name(position.turn) else "loss", 0)
    else:
        children = [recursive_solve(position.play(move), memo) for move in position.legal_moves()]
        wins = [plies + 1 for kind, plies in children if kind == "loss"]
        value = ("win", min(wins)) if wins else ("loss", max(plies for _, plies in children) + 1)
    memo[key] = value
    return value


@pytest.fixture(scope="module")
def standard_tables(four_geese_tables: Path) -> TableSet:
    return TableSet(STANDARD, four_geese_tables)


@pytest.fixture(scope="module")
def sideways_tables(tmp_path_factory) -> TableSet:
    directory = tmp_path_factory.mktemp("sideways")
    build_tables(SIDEWAYS, 4, directory)
    return TableSet(SIDEWAYS, directory)


def random_position(variant, rng: random.Random, geese: int = 4, lowest_row: int = 0) -> Position:
    """Four geese (the tables' smallest level) anywhere on or above `lowest_row`."""
    return scattered_position(variant, rng, prey_count=geese, lowest_row=lowest_row)


def test_four_geese_table_matches_a_plain_recursive_solver(standard_tables):
    rng = random.Random(5)
    memo: dict = {}
    for _ in range(20):
        recursive_solve(random_position(STANDARD, rng, lowest_row=3), memo)
    checked = 0
    for (fox, prey, turn), expected in memo.items():
        if prey.bit_count() != 4:
            continue
        position = Position(STANDARD, fox, prey, turn)
        assert describe(standard_tables.score(position)) == expected, position.text()
        checked += 1
    assert checked > 20_000


def bellman_mismatches(tables: TableSet, positions) -> list[str]:
    """Positions whose table score is not the best over the engine's moves of their children's scores.

    If every position satisfies this, the tables are right: by induction on the distance, a win
    in d needs a child lost in d-1 and a loss in d needs every child won, the slowest in d-1.
    """
    bad = []
    for position in positions:
        score = tables.score(position)
        moves = position.legal_moves()
        if position.outcome() is not None:
            expected = score  # a finished game: checked by the ending tests below
            if describe(score)[1] != 0:
                bad.append(position.text())
            continue
        expected = max(int(to_parent(tables.score(position.play(m)))) for m in moves)
        if score != expected:
            bad.append(f"{position.text()}: table {score}, moves give {expected}")
    return bad


def test_four_geese_table_satisfies_the_bellman_equations(standard_tables):
    rng = random.Random(7)
    assert bellman_mismatches(standard_tables, [random_position(STANDARD, rng) for _ in range(400)]) == []


def test_sideways_table_satisfies_the_bellman_equations_and_has_draws(sideways_tables):
    rng = random.Random(8)
    positions = [random_position(SIDEWAYS, rng) for _ in range(400)]
    assert bellman_mismatches(sideways_tables, positions) == []
    kinds = {describe(sideways_tables.score(p))[0] for p in positions}
    assert kinds == {"win", "loss", "draw"}


def explicit_solve(start: Position) -> dict[tuple, tuple[str, int | None]]:
    """Every position reachable from `start`, solved on an explicit graph built with the engine.

    Sweeps in order of distance, independent of the numpy code: in sweep d a position is won in
    d if a move reaches a position lost in d-1, lost in d if every move reaches a won position
    and the slowest is d-1 plies away. Positions left open are draws (cycles). Repetition and
    the fifty-move counter are ignored, as in the tables.
    """
    def key(p: Position) -> tuple:
        return (p.predator, p.prey, p.turn)

    positions = {key(start): start}
    children: dict[tuple, list[tuple]] = {}
    todo = [start]
    while todo:
        position = todo.pop()
        kids = []
        if position.prey.bit_count() >= 4 and position.outcome() is None:
            for move in position.legal_moves():
                played = position.play(move)  # counters reset: the tables ignore them
                child = Position(played.variant, played.predator, played.prey, played.turn)
                kids.append(key(child))
                if key(child) not in positions:
                    positions[key(child)] = child
                    todo.append(child)
        children[key(position)] = kids
    value: dict[tuple, tuple[str, int | None]] = {}
    for k, position in positions.items():
        ended = position.outcome()
        if ended is not None:
            value[k] = ("win" if ended.winner.value == position.variant.side_name(position.turn) else "loss", 0)
    distance = 0
    while True:
        distance += 1
        decided = {}
        for k, kids in children.items():
            if k in value:
                continue
            if any(value.get(c) == ("loss", distance - 1) for c in kids):
                decided[k] = ("win", distance)
            elif all(value.get(c, ("open",))[0] == "win" for c in kids) and \
                    max(value[c][1] for c in kids) == distance - 1:
                decided[k] = ("loss", distance)
        value.update(decided)
        if not decided and distance > 200:
            break
    return {k: value.get(k, ("draw", None)) for k in positions}


def test_sideways_table_matches_an_explicit_graph_solver_with_draws(sideways_tables):
    # A goose on g5 can never be jumped (no line goes beyond it) and steps g5-f5 and back;
    # here it gives the geese moves to spare, and the explicit solver agrees with the table
    # on every position reachable from this one, draws included.
    start = position_from_ascii(
        """
        7     . G G
        6     . . G
        5 . . . . . . G
        4 . . . . . . .
        3 . . . . . . .
        2     . . .
        1     . F .
        """,
        "standard",
        turn="geese",
        sideways=True,
    )
    solved = explicit_solve(start)
    assert len(solved) > 1000
    assert describe(sideways_tables.score(start)) == solved[(start.predator, start.prey, start.turn)] == ("draw", None)
    kinds = set()
    for (fox, prey, turn), expected in solved.items():
        if prey.bit_count() < 4:
            continue
        position = Position(SIDEWAYS, fox, prey, turn)
        assert describe(sideways_tables.score(position)) == expected, position.text()
        kinds.add(expected[0])
    assert kinds == {"win", "loss", "draw"}


def test_geese_that_cannot_move_have_lost(standard_tables):
    stuck = position_from_ascii(
        """
        7     G G G
        6     . G .
        5 . . . . . . .
        4 . . . . . . .
        3 . . . . . . .
        2     . . .
        1     . F .
        """,
        "standard",
        turn="geese",
    )
    assert stuck.outcome() is not None and describe(standard_tables.score(stuck)) == ("loss", 0)


def test_fox_next_to_a_goose_captures_and_wins_in_one(standard_tables):
    position = position_from_ascii(
        """
        7     . . .
        6     . . .
        5 . . . . . . .
        4 . . . F G . .
        3 . . . G . . .
        2     G . .
        1     . G .
        """,
        "standard",
        turn="fox",
    )
    assert describe(standard_tables.score(position)) == ("win", 1)
    choice = SolverPlayer(tables=str(standard_tables.directory)).choose(Game.from_position(position), None)
    assert choice.move.is_capture and choice.info["mate"] == 1 and choice.info["source"] == "tables"


def test_solver_fox_beats_random_geese_from_table_positions(standard_tables):
    rng = random.Random(11)
    for seed in range(3):
        start = random_position(STANDARD, rng)
        start = Position(STANDARD, start.predator, start.prey, Side.PREDATOR)
        expected = describe(standard_tables.score(start))
        fox, geese = SolverPlayer(tables=str(standard_tables.directory)), RandomPlayer(seed=seed)
        game = play_game(Game.from_position(start), {Side.PREDATOR: fox, Side.PREY: geese}, start=False)
        assert game.outcome().winner.value == "fox"
        assert expected[0] == "win" and len(game.moves) <= expected[1]


def test_outside_the_tables_the_solver_falls_back_to_minimax(standard_tables):
    game = Game(STANDARD)
    choice = SolverPlayer(tables=str(standard_tables.directory), depth=2).choose(game, None)
    assert choice.move in game.legal_moves() and choice.info["source"] == "minimax"


def test_table_file_has_a_versioned_header_and_is_memory_mapped(standard_tables):
    path = table_path(standard_tables.directory, STANDARD, 4)
    assert path.read_bytes().startswith(MAGIC)
    header, arrays = load_table(path)
    assert header["format_version"] == FORMAT_VERSION and header["geese"] == 4
    assert isinstance(arrays["fox"], np.memmap) and arrays["fox"].shape == (33, 40920)
    assert header["positions"] == header["fox_to_move_wins"] + header["fox_to_move_losses"] + \
        header["fox_to_move_draws"] + header["geese_to_move_wins"] + header["geese_to_move_losses"] + \
        header["geese_to_move_draws"]


def test_a_table_of_another_format_version_is_refused(standard_tables, tmp_path):
    data = table_path(standard_tables.directory, STANDARD, 4).read_bytes()
    old = data.replace(f'"format_version": {FORMAT_VERSION}'.encode(), b'"format_version": 0')
    assert old != data
    path = tmp_path / "old.fgt"
    path.write_bytes(old)
    with pytest.raises(TableError, match="format version 0"):
        load_table(path)


def test_missing_tables_are_no_answer_and_the_directory_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FOXGEESE_TABLES", str(tmp_path))
    assert table_dir() == Path(tmp_path)
    tables = TableSet(STANDARD)
    assert tables.available() == 3
    assert tables.score(random_position(STANDARD, random.Random(1))) is None


def test_one_header_reader_serves_tables_bit_tables_and_strategies(tmp_path: Path) -> None:
    for kind, words in ((TABLE_FILE, "table file"), (BITS_FILE, "bit table"), (STRATEGY_FILE, "strategy file")):
        path = tmp_path / "file"
        head = pack_header(kind, {"geese": 13})
        path.write_bytes(head + b"data")
        with open(path, "rb") as stream:
            assert read_header(stream, path, kind) == ({"geese": 13, "format_version": kind.version}, len(head))
        error = StrategyError if kind is STRATEGY_FILE else TableError
        for damaged, problem in ((b"NOT-" + head, f"is not a foxgeese {words}"), (head[:-3], "is damaged"),
                                 (pack_header(replace(kind, version=kind.version + 1), {}), "has format version")):
            path.write_bytes(damaged)
            with open(path, "rb") as stream, pytest.raises(error, match=problem):
                read_header(stream, path, kind)
