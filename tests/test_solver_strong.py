"""The strong solve (one bit a position) of standard without sideways, checked three ways: against
the int16 endgame tables on every position of 4-6 geese, against a plain recursive solver over the
engine's moves on random positions of up to 8 geese, and against the engine's move generator
(each table bit is the OR / AND of its children). Plus the file format and a resumed build."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

from foxgeese.engine import Position, Side, get_variant
from foxgeese.engine.sampling import scattered_position
from foxgeese.players.compiled import alphabeta
from foxgeese.players.compiled.player import CompiledSearch
from foxgeese.players.solver.bitlayout import grid_bit
from foxgeese.players.solver.retrograde import build_tables
from foxgeese.players.solver.strong import (
    FOX,
    HEADER_BYTES,
    WINS,
    StrongBuilder,
    StrongTables,
    bits_path,
    read_bits_header,
    totals,
)
from foxgeese.players.solver.tables import Geometry, TableError, colex, load_table, table_path

STANDARD = get_variant("standard", sideways=False)
TOP = 8
# The first test builds 4-8 geese (and numba compiles the kernel, once: it is cached), one the
# int16 tables of 4-6 geese (half a minute): more than the suite's default timeout on a busy machine.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def strong(tmp_path_factory) -> StrongTables:
    directory = tmp_path_factory.mktemp("strong")
    StrongBuilder(directory, with_fox=True, keep_chains=True).build(TOP)
    return StrongTables(directory)


def bits(tables: StrongTables, geese: int, array: str, indices: np.ndarray) -> np.ndarray:
    path = bits_path(tables.directory, geese, array)
    words = np.memmap(path, dtype="<i8", mode="r", offset=HEADER_BYTES)
    return ((words[indices >> 6].view(np.uint64) >> (indices & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)


def test_every_position_of_four_to_six_geese_agrees_with_the_int16_tables(strong, tmp_path):
    build_tables(STANDARD, 6, tmp_path)
    geometry = Geometry(STANDARD)
    to_grid = np.array([grid_bit(int(p)) for p in geometry.grid], dtype=np.int64)
    checked = 0
    for geese in (4, 5, 6):
        _, arrays = load_table(table_path(tmp_path, STANDARD, geese))
        combos = colex(geometry.size, geese).astype(np.int64)
        masks = np.bitwise_or.reduce(np.int64(1) << to_grid[combos], axis=1)
        for fox in range(geometry.size):
            free = (masks >> to_grid[fox]) & 1 == 0
            index = strong.layout.bits_of(masks[free], np.full(free.sum(), to_grid[fox]))
            assert np.array_equal(bits(strong, geese, WINS, index), np.asarray(arrays["prey"])[fox, free] > 0)
            assert np.array_equal(bits(strong, geese, FOX, index), np.asarray(arrays["fox"])[fox, free] > 0)
            checked += 2 * int(free.sum())
    assert checked == 2_373_360 + 13_290_816 + 59_808_672  # every position, both sides to move


def mover_wins(position: Position, memo: dict) -> bool:
    """Plain recursion over the engine's moves (no draws: without sideways steps every line ends)."""
    key = (position.predator, position.prey, position.turn)
    if key not in memo:
        ended = position.outcome()
        if ended is not None:
            memo[key] = ended.winner.value == position.variant.side_name(position.turn)
        else:
            memo[key] = any(not mover_wins(position.play(move), memo) for move in position.legal_moves())
    return memo[key]


def random_position(rng: random.Random, geese: int, lowest_row: int) -> Position:
    return scattered_position(STANDARD, rng, prey_count=geese, lowest_row=lowest_row)


def test_random_positions_of_up_to_eight_geese_agree_with_a_plain_recursive_solver(strong):
    rng = random.Random(14)
    memo: dict = {}
    for geese in range(4, TOP + 1):
        for _ in range(6):
            mover_wins(random_position(rng, geese, lowest_row=3 if geese > 6 else 2), memo)
    by_geese = {}
    for (fox, prey, turn), wins in memo.items():
        geese = prey.bit_count()
        if geese < 4:
            continue
        position = Position(STANDARD, fox, prey, turn)
        assert strong.geese_win(position) == (wins == (turn == Side.PREY)), position.text()
        by_geese[geese] = by_geese.get(geese, 0) + 1
    assert sorted(by_geese) == list(range(4, TOP + 1)) and sum(by_geese.values()) > 20_000, by_geese


def test_each_bit_is_what_the_engines_moves_make_of_its_children(strong):
    rng = random.Random(3)
    sides = []
    for _ in range(1500):
        position = random_position(rng, rng.randint(4, TOP), lowest_row=0)
        children = [position.play(move) for move in position.legal_moves()]
        mover_is_geese = position.turn == Side.PREY
        # the mover wins iff some move leaves the other side lost (no move: the mover has lost)
        expected = any(strong.geese_win(child) == mover_is_geese for child in children)
        assert strong.geese_win(position) == (expected == mover_is_geese), position.text()
        sides.append(position.turn)
    assert 600 < sides.count(Side.PREY) < 900


def test_figures_count_every_position_and_the_geese_first_win_with_six(strong):
    counts = {h: totals(strong.headers[h], strong.layout) for h in range(4, TOP + 1) if strong._array(h) is not None}
    assert counts[4] == {"positions_per_side": 1_186_680, "geese_to_move_geese_wins": 0, "fox_to_move_geese_wins": 0}
    assert counts[6]["geese_to_move_geese_wins"] == 57 and counts[6]["fox_to_move_geese_wins"] == 12
    assert strong.available() == TOP


class Stop(Exception):
    pass


def test_a_stopped_build_resumes_at_the_next_level_and_gives_the_same_file(strong, tmp_path):
    calls = []

    def stop_in_seven(text: str) -> None:
        calls.append(text)
        if text.startswith("7 geese") and sum(c.startswith("7 geese") for c in calls) == 5:
            raise Stop

    with pytest.raises(Stop):
        StrongBuilder(tmp_path, progress=stop_in_seven).build(7)
    part = bits_path(tmp_path, 7, WINS, partial=True)
    assert len(read_bits_header(part)["levels_done"]) == 5
    resumed = []
    StrongBuilder(tmp_path, progress=resumed.append).build(7)
    assert not any(text.startswith(("4 geese", "5 geese", "6 geese")) for text in resumed)
    assert sum(text.startswith("7 geese") for text in resumed) == len(StrongTables(tmp_path).layout.levels[7]) - 5
    mine = bits_path(tmp_path, 7, WINS).read_bytes()[HEADER_BYTES:]
    assert mine == bits_path(strong.directory, 7, WINS).read_bytes()[HEADER_BYTES:]
    assert not bits_path(tmp_path, 6, "chains").exists()  # read for the last time by the 7-geese build
    assert bits_path(tmp_path, 7, "chains").exists()  # kept: a later build goes on from it
    again = []
    StrongBuilder(tmp_path, progress=again.append).build(6)  # a smaller count after a larger build
    assert again == []  # loads: 6 is complete and 7 no longer needs its chains


def test_a_bit_table_of_another_format_version_is_refused(strong, tmp_path):
    source = bits_path(strong.directory, 4, WINS)
    copy = bits_path(tmp_path, 4, WINS)
    data = bytearray(source.read_bytes())
    at = data.index(b'"format_version": 1')
    data[at: at + 19] = b'"format_version": 9'
    copy.write_bytes(bytes(data))
    with pytest.raises(TableError, match="format version 9, this build reads 1; delete it and build again"):
        read_bits_header(copy)


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "foxgeese", *args], capture_output=True, text=True, timeout=120,
                          env=env)


def test_solve_geese_reports_counts_and_a_position_with_every_move(strong):
    position = "standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2,e2 0 0 0"
    done = run_cli("solve", "standard", "--geese", "6", "--tables", str(strong.directory), "--position", position)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.split()[:4] == ["6", "59,808,672", "57", "12"] for line in lines), done.stdout
    assert f"{position}: fox wins" in done.stdout
    assert "  d4-d3        fox wins" in done.stdout
    assert "replies to the winning move" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["--geese", "3"], "foxgeese: --geese must be between 4 and 17, not 3"),
    (["--geese", "18", "--sideways"], "foxgeese: --geese must be between 4 and 17, not 18"),
    (["--geese", "6", "--threads", "0"], "foxgeese: --threads must be at least 1, not 0"),
    (["--geese", "5", "--position", "standard - fox d4 c1,d1,e1,c2,d2,e2 0 0 0"],
     "foxgeese: the position has 6 geese: use --geese 6 or more"),
])
def test_solve_geese_mistakes_are_one_line(strong, args, message):
    done = run_cli("solve", "standard", "--tables", str(strong.directory), *args)
    assert done.returncode == 2
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr


def opening_to(geese: int, seed: int) -> list[str]:
    """Moves from the 13-geese start down to `geese` geese: random geese, a fox that captures most."""
    rng = random.Random(seed)
    position = get_variant("standard").start_position()
    moves: list[str] = []
    while position.prey.bit_count() > geese or position.turn != Side.PREY:
        legal = sorted(position.legal_moves(), key=str)
        assert legal and position.outcome() is None
        if position.turn == Side.PREDATOR:
            most = max(len(m.path) for m in legal)
            move = rng.choice([m for m in legal if len(m.path) == most])
        else:
            move = rng.choice(legal)
        moves.append(str(move))
        position = position.play(move)
    return moves


def test_the_solver_never_turns_a_won_position_into_a_loss_through_the_real_referee(strong, tmp_path):
    from foxgeese.players.solver.analyse import Judge, analyse_record
    from foxgeese.protocol.botconfig import BotConfig
    from foxgeese.protocol.referee import Referee

    judge = Judge(str(strong.directory))
    solver = BotConfig.from_spec(f"solver:tables={strong.directory},seed=1")
    opponent = BotConfig.from_spec("minimax:depth=2")
    played = 0
    with Referee(log_dir=str(tmp_path)) as referee:
        for seed in range(3):
            opening = opening_to(TOP, seed)
            position = get_variant("standard").start_position()
            for move in opening:
                position = position.play(position.parse_move(move))
            winner = Side.PREY if strong.geese_win(position) else Side.PREDATOR
            seats = {winner: solver, winner.other: opponent}
            record = referee.play_game(get_variant("standard"), seats, "move=2", opening=opening,
                                       game_id=f"won-{seed}")
            assert record.winner == ("geese" if winner == Side.PREY else "fox"), record.result_line()
            solver_side = analyse_record(record.to_dict(), judge).sides[record.winner]
            # every move in a solved position counts, judged (a mistake was possible) or forced (none was)
            assert solver_side.judged + solver_side.forced > 0 and solver_side.mistakes == 0
            played += 1
    assert played == 3


def test_a_strategy_from_the_tables_verifies_with_the_engine_and_plays_its_moves(strong, tmp_path):
    from foxgeese.players.solver.strategy import (
        StrategyError,
        load_strategy,
        make_strategy,
        save_strategy,
        verify,
    )

    opening = opening_to(5, seed=7)  # made by the kernels, checked in Python: a small tree
    start = get_variant("standard").start_position()
    for move in opening:
        start = start.play(start.parse_move(move))
    header, keys, codes = make_strategy(start, strong)
    path = tmp_path / "s.fgs"
    save_strategy(path, header, keys, codes)
    strategy = load_strategy(path)
    figures = verify(strategy)
    assert figures["winner_positions"] == len(keys) > 10 and figures["endings"] > 0
    # a strategy that leaves one of the loser's lines without a move fails the check, naming the position
    save_strategy(path, header, keys[1:], codes[1:])
    with pytest.raises(StrategyError, match="the strategy has no move for the|holds"):
        verify(load_strategy(path))
    # and so does one whose move is not legal there
    save_strategy(path, header, keys, codes ^ 1)
    with pytest.raises(StrategyError, match="has no move|ends in|holds"):
        verify(load_strategy(path))
    # the geese's strategy where they win (found by sampling 8-geese positions)
    geese_win = Position.from_text("standard geese=13,sideways=0 geese c7 d1,e3,d4,c5,d5,e5,d6,e6 0 0 0")
    header, keys, codes = make_strategy(geese_win, strong)
    save_strategy(path, header, keys, codes)
    assert header["winner"] == "geese" and verify(load_strategy(path))["winner_positions"] == len(keys) == 18


def test_the_strategy_kernels_list_the_engines_moves(strong):
    from foxgeese.engine.sampling import scattered_position
    from foxgeese.players.solver import strategy_kernels as sk
    from foxgeese.players.solver.bitlayout import mask_of
    from foxgeese.players.solver.strategy import move_code

    layout = strong.layout
    variant = get_variant("standard", geese=17, sideways=False)
    rng = random.Random(5)
    out_mask, out_fox, out_code = (np.zeros(sk.MOST_MOVES, dtype=np.int64) for _ in range(3))
    for _ in range(400):
        position = scattered_position(variant, rng, prey_count=rng.randint(4, 17))
        mask, fox = mask_of(position.prey), grid_bit(position.predator)
        engine = sorted(move_code(position, m) for m in position.legal_moves())
        if position.turn == Side.PREDATOR:
            n = sk.fox_moves(mask, fox, layout.board, layout.step_shift, layout.step_from, layout.jump_over,
                             out_mask, out_fox, out_code)
        else:
            n = sk.goose_moves(mask, fox, layout.board, layout.goose_shift, layout.goose_from, out_mask, out_code)
        assert sorted(out_code[:n].tolist()) == engine, position.text()


def test_both_pext_and_pdep_of_the_kernel_agree_with_plain_python():
    """The kernel uses BMI2 PEXT/PDEP where they are fast, row tables elsewhere: both must be exact."""
    from numba import njit

    from foxgeese.players.solver import kernels

    @njit
    def all_four(x, m):
        return (kernels.pext(x, m), kernels.pdep(x, m), kernels._pext_rows(x, m), kernels._pdep_rows(x, m))

    rng = random.Random(14)
    for _ in range(2000):
        m = rng.getrandbits(49) & rng.getrandbits(49) | rng.getrandbits(49) & rng.getrandbits(49)
        x = rng.getrandbits(49)
        where = [b for b in range(49) if m >> b & 1]
        extracted = sum(1 << i for i, b in enumerate(where) if x >> b & 1)
        deposited = sum(1 << b for i, b in enumerate(where) if x >> i & 1)
        assert all_four(x, m) == (extracted, deposited, extracted, deposited)


def test_analyse_counts_the_moves_that_threw_a_win_away(tmp_path):
    import json

    from foxgeese.players.solver.hare_hounds_solution import load_solution

    variant = get_variant("hare-and-hounds")  # random play there throws wins away often
    scores = load_solution(str(tmp_path))
    position = variant.start_position()
    moves, mistakes, first = [], {"hare": 0, "hounds": 0}, {}
    rng = random.Random(4)
    while position.outcome() is None:
        mover = variant.side_name(position.turn)
        move = rng.choice(sorted(position.legal_moves(), key=str))
        after = position.play(move)
        if scores.score(position) > 0 and scores.score(after) > 0:  # won before, the opponent's win after
            mistakes[mover] += 1
            first.setdefault(mover, len(moves) + 1)
        moves.append({"move": str(move), "side": mover})
        position = after
    record = {"game_id": "g1", "variant": "hare-and-hounds", "options": {}, "start": variant.start_position().text(),
              "bots": {"hare": {"name": "rh"}, "hounds": {"name": "rd"}}, "moves": moves, "winner": "hare",
              "termination": "escaped", "plies": len(moves), "format": 1}
    path = tmp_path / "g1.json"
    path.write_text(json.dumps(record))
    done = run_cli("analyse", str(path), "--tables", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert sum(mistakes.values()) > 0
    assert {name: line["mistakes"] for name, line in result["bots"].items()} == {"rh": mistakes["hare"],
                                                                                 "rd": mistakes["hounds"]}
    sides = result["games"][0]["sides"]
    assert {side: sides[side]["first_mistake_ply"] for side in first} == first
    text = run_cli("analyse", str(path), "--tables", str(tmp_path)).stdout
    assert "mistakes in" in text and "rh" in text
    missing = run_cli("analyse", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and missing.stderr.startswith("foxgeese: no record file or run directory")


def test_a_book_of_known_values_is_half_won_by_each_side(tmp_path):
    from foxgeese.players.solver.analyse import Judge
    from foxgeese.tournaments.book import make_book

    variant = get_variant("hare-and-hounds")  # solved whole: every position has a known value
    book = make_book(variant, 6, 6, Side.PREY, "minimax:depth=2", seed=3, known=True, tables=str(tmp_path))
    judge = Judge(str(tmp_path))
    winners = []
    for opening in book:
        position = variant.start_position()
        for move in opening:
            position = position.play(position.parse_move(move))
        value = judge.value(position)
        assert value in (1, -1)
        winners.append(position.turn if value > 0 else position.turn.other)
    assert sorted(winners) == [Side.PREDATOR] * 3 + [Side.PREY] * 3


def test_the_table_adjudicator_names_the_proven_winner_only_where_tables_are_exact(strong):
    from foxgeese.engine import Winner
    from foxgeese.players.solver.adjudicate import table_adjudicator

    adjudicate = table_adjudicator(str(strong.directory))
    position = get_variant("standard").start_position()
    assert adjudicate(position) is None  # 13 geese: no table in this directory
    for move in opening_to(TOP, seed=5):
        position = position.play(position.parse_move(move))
    expected = Winner.GEESE if strong.geese_win(position) else Winner.FOX
    assert adjudicate(position) == (expected, f"tables: the {expected.value} "
                                              f"{'win' if expected == Winner.GEESE else 'wins'} with best play")
    sideways = Position.from_text(position.text().replace("sideways=0", "sideways=1"))
    assert adjudicate(sideways) is None  # the sideways tables ignore the fifty-move counter


def test_a_tournament_with_adjudicate_tables_ends_solved_games_with_the_proven_winner(tmp_path):
    """From the stated ply on; the journal and the report name the tables, and a resumed run whose
    tables changed says so."""
    import json

    config = tmp_path / "adj.yaml"
    text = ("name: adj\nvariants:\n  - id: hare-and-hounds\nplayers:\n"
            "  - name: r1\n    spec: random:seed=1\n  - name: r2\n    spec: random:seed=2\n"
            "games_per_pairing: 2\nadjudicate: tables\nadjudicate_from_ply: 6\nseed: 4\n")
    config.write_text(text)
    env = dict(os.environ, FOXGEESE_TABLES=str(tmp_path / "tables"))
    command = [sys.executable, "-m", "foxgeese", "tournament", "run", str(config), "--out", str(tmp_path / "run"),
               "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    games = [json.loads(line) for line in (tmp_path / "run" / "journal.jsonl").read_text().splitlines()]
    games = [g for g in games if g.get("type") == "game"]
    assert len(games) == 2
    for game in games:  # every position is solved: ended at ply 6, by whoever wins from there
        assert game["termination"] == "adjudicated" and game["plies"] == 6
        verb = "wins" if game["winner"] == "hare" else "win"
        assert game["reason"] == f"tables: the {game['winner']} {verb} with best play"
        assert game["tables"]["key"] == "hare-and-hounds" and len(game["tables"]["digest"]) == 16
    assert "adjudicated by tables: 2 of 2 games" in done.stdout and game["tables"]["digest"] in done.stdout
    table = tmp_path / "tables" / "hare-and-hounds.fgt"
    table.write_bytes(table.read_bytes() + b"\0")  # another build of the tables
    config.write_text(text.replace("games_per_pairing: 2", "games_per_pairing: 4"))
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert "the tables changed since games of this tournament were adjudicated" in again.stderr


def test_the_runner_warns_when_the_tables_already_decide_every_opening(strong, tmp_path, monkeypatch):
    """`standard` is solved from its book positions when their tables are on disk: adjudication would
    end every game at its first move, so the runner warns (and not once adjudicate_from_ply is set)."""
    from foxgeese.tournaments.config import load_config
    from foxgeese.tournaments.runner import table_warnings

    (tmp_path / "book.txt").write_text("".join(" ".join(opening_to(TOP, seed)) + "\n" for seed in (1, 2)))
    config = tmp_path / "c.yaml"
    text = ("name: c\nvariants:\n  - id: standard\n    book: book.txt\nplayers:\n  - {name: a, spec: random}\n"
            "  - {name: b, spec: random}\nadjudicate: tables\n")
    config.write_text(text)
    monkeypatch.setenv("FOXGEESE_TABLES", str(strong.directory))
    (warning,) = table_warnings(load_config(config), [])
    assert warning.startswith("standard: the tables (standard-sideways0 4-8 geese") and "adjudicate_from_ply" in warning
    config.write_text(text + "adjudicate_from_ply: 80\n")
    assert table_warnings(load_config(config), []) == []
    monkeypatch.setenv("FOXGEESE_TABLES", str(tmp_path / "none"))
    config.write_text(text)
    assert table_warnings(load_config(config), []) == []  # no tables: nothing decides the starts


def test_the_compiled_search_reads_the_bit_tables(strong):
    """`minimax`'s probe gives each geese-to-move position the table's result, and from a won
    position (either side to move) the search plays a move that keeps the win."""
    search = CompiledSearch(STANDARD, tt_bits=12, table_dir=str(strong.directory))
    probe = search.searcher.probe
    assert probe.kind == alphabeta.STRONG_TABLE and probe.top == TOP
    rng = random.Random(5)
    kept = 0
    for index in range(400):
        scattered = scattered_position(STANDARD, rng, prey_count=rng.randint(4, TOP))
        turn = Side.PREY if index % 2 else Side.PREDATOR
        position = Position(STANDARD, scattered.predator, scattered.prey, turn, 0, 0)
        fox, prey, _, _, _ = search.board.state(position.state)
        if turn == Side.PREY:
            score = alphabeta.probe_score(search.board.tables, probe, fox, prey, 1, 0, 0)
            assert (score > 0) == strong.geese_win(position), position.text()
        moves = position.legal_moves()
        if position.outcome() is not None or not moves:
            continue
        search.searcher.clear()
        result = search.searcher.search(search.board.state(position.state), [], depth=2)
        move = search.engine_move(moves, result.move)
        mover_wins = strong.geese_win(position) == (turn == Side.PREY)
        if mover_wins:
            assert strong.mover_wins_after(position, move), (position.text(), str(move))
            kept += 1
    assert kept > 50
