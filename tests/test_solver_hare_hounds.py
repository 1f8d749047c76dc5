"""Hare and Hounds solved: the published result, hand-made positions, and the solver player.

Every table answer is checked against `brute_force`, a plain memoised game-tree search over the
engine's positions written here independently of the retrograde code (forward recursion, its own
(kind, plies) values instead of table scores).
"""

from __future__ import annotations

import random

import pytest
from ascii_boards import position_from_ascii

from foxgeese.engine import Game, Position, Side, get_variant, play_game
from foxgeese.players.base import Choice
from foxgeese.players.random_player import RandomPlayer
from foxgeese.players.solver.hare_hounds_solution import load_solution
from foxgeese.players.solver.player import SolverPlayer
from foxgeese.players.solver.tables import WIN, describe

HH = get_variant("hare-and-hounds")
_MEMO: dict[tuple, tuple[str, int]] = {}


def brute_force(position: Position) -> tuple[str, int]:
    """("win" | "loss", plies) for the side to move, by searching the whole game tree.

    The game graph has no cycles (hound moves raise a row or the stall counter), so plain
    recursion with a memo terminates; it prefers the fastest win and the slowest loss.
    """
    key = (position.predator, position.prey, position.turn, position.stall)
    if key in _MEMO:
        return _MEMO[key]
    ended = position.outcome()
    if ended is not None:
        mover_won = ended.winner.value == HH.side_name(position.turn)
        value = ("win" if mover_won else "loss", 0)
    else:
        children = [brute_force(position.play(move)) for move in position.legal_moves()]
        wins = [plies + 1 for kind, plies in children if kind == "loss"]
        value = ("win", min(wins)) if wins else ("loss", max(plies for _, plies in children) + 1)
    _MEMO[key] = value
    return value


@pytest.fixture(scope="module")
def solution(tmp_path_factory):
    return load_solution(tmp_path_factory.mktemp("tables"))


def hare_starts() -> list[Position]:
    """Hounds b1, a2, c2 to move, the hare on each other point ("wherever the hare begins")."""
    start = HH.start_position()
    return [
        Position(HH, point, start.prey, Side.PREY)
        for point in sorted(HH.board.points)
        if not start.prey >> point & 1
    ]


def test_hounds_win_from_the_start(solution):
    start = HH.start_position()
    kind, plies = describe(solution.score(start))
    assert start.turn == Side.PREY and kind == "win"
    assert (kind, plies) == brute_force(start)


def test_hounds_win_wherever_the_hare_begins(solution):
    starts = hare_starts()
    assert len(starts) == 8
    for position in starts:
        assert describe(solution.score(position))[0] == "win", position.text()
        assert describe(solution.score(position)) == brute_force(position), position.text()


def test_every_state_reachable_from_any_start_matches_brute_force(solution):
    for position in hare_starts():
        brute_force(position)  # fills the memo with every state reachable from there
    assert len(_MEMO) > 20_000
    mismatches = []
    for (predator, prey, turn, stall), expected in _MEMO.items():
        position = Position(HH, predator, prey, turn, 0, stall, 0)
        if describe(solution.score(position)) != expected:
            mismatches.append(position.text())
    assert mismatches == []
    assert solution.header["draws"] == 0


def test_hare_about_to_be_trapped_hounds_win_in_one(solution):
    position = position_from_ascii(
        """
        5   H
        4 D . D
        3   D
        2
        1
        """,
        "hare-and-hounds",
        turn="hounds",
    )
    assert describe(solution.score(position)) == ("win", 1) == brute_force(position)
    best = solution.move_scores(position)[0][0]
    assert str(best) == "b3-b4"


def test_hare_that_escapes(solution):
    position = position_from_ascii(
        """
        5   .
        4 . D .
        3 H D D
        2 . . .
        1   .
        """,
        "hare-and-hounds",
        turn="hare",
    )
    assert describe(solution.score(position)) == ("win", 1) == brute_force(position)
    winning = [str(entry.move) for entry in solution.move_scores(position) if describe(entry.score) == ("win", 1)]
    assert winning == ["a3-a2"]


def test_move_scores_are_the_positions_after_each_move_best_first_ties_in_engine_order(solution):
    start = HH.start_position()
    moves = start.legal_moves()
    entries = solution.move_scores(start)
    assert sorted(str(e.move) for e in entries) == sorted(str(m) for m in moves)
    for entry in entries:
        assert entry.after == start.play(entry.move)
        assert entry.after_score == solution.score(entry.after)
        kind, plies = describe(entry.after_score)  # the hare's view, one ply closer to the end
        assert describe(entry.score) == ({"loss": "win", "win": "loss"}[kind], plies + 1)
    ranks = [(-e.score, moves.index(e.move)) for e in entries]
    assert ranks == sorted(ranks) and len({e.score for e in entries}) > 1  # not all equal: the order is tested
    some = moves[::2]
    assert [e.move for e in solution.move_scores(start, some)] == [e.move for e in entries if e.move in some]


STUCK_HOUNDS = """
        5   H
        4 D . D
        3 D . .
        2 . . .
        1   .
        """


def test_stall_counter_at_nine_and_only_sideways_moves_left_the_hare_wins(solution):
    position = position_from_ascii(STUCK_HOUNDS, "hare-and-hounds", turn="hounds", stall=9)
    assert all(move.target - move.origin == 1 or move.origin - move.target == 1 for move in position.legal_moves())
    assert describe(solution.score(position)) == ("loss", 1) == brute_force(position)


def test_the_stall_counter_changes_the_result(solution):
    fresh = position_from_ascii(STUCK_HOUNDS, "hare-and-hounds", turn="hounds", stall=0)
    assert describe(solution.score(fresh)) == brute_force(fresh)
    assert describe(solution.score(fresh)) != ("loss", 1)


def play(hounds, hare, start: Position | None = None) -> Game:
    return play_game(Game.from_position(start or HH.start_position()), {Side.PREY: hounds, Side.PREDATOR: hare})


class ExhaustiveHare:
    """A hare that plays the brute-force search's best move (fastest win, slowest loss)."""

    def new_game(self, variant, side) -> None:
        pass

    def choose(self, game: Game, clock):
        position = game.position

        def value(move):
            kind, plies = brute_force(position.play(move))
            # After the move the hounds are to move: their loss is the hare's win (sooner is better),
            # their win the hare's loss (later is better).
            return 10_000 - plies if kind == "loss" else plies - 10_000

        return Choice(max(position.legal_moves(), key=value))


@pytest.mark.parametrize("seed", range(6))
def test_solver_hounds_beat_a_random_hare(seed, tmp_path_factory):
    tables = str(tmp_path_factory.getbasetemp())
    game = play(SolverPlayer(tables=tables, seed=seed), RandomPlayer(seed=seed))
    assert game.outcome().winner.value == "hounds"


def test_solver_hounds_beat_an_exhaustive_hare_from_every_start(tmp_path_factory):
    tables = str(tmp_path_factory.getbasetemp())
    for start in hare_starts():
        game = play(SolverPlayer(tables=tables), ExhaustiveHare(), start)
        assert game.outcome().winner.value == "hounds", start.text()
        assert len(game.moves) == brute_force(start)[1]  # both sides perfect: the exact distance


def test_solver_hare_wins_won_positions_against_random_hounds(tmp_path_factory):
    tables = str(tmp_path_factory.getbasetemp())
    for position in hare_starts():
        brute_force(position)
    won = sorted(key for key, (kind, plies) in _MEMO.items() if key[2] == Side.PREDATOR and kind == "win" and plies > 6)
    for predator, prey, turn, stall in random.Random(3).sample(won, 5):
        start = Position(HH, predator, prey, turn, 0, stall, 0)
        game = play(RandomPlayer(seed=1), SolverPlayer(tables=tables), start)
        assert game.outcome().winner.value == "hare", start.text()


def test_one_real_game_through_the_referee(tmp_path, monkeypatch):
    from foxgeese.protocol.botconfig import BotConfig
    from foxgeese.protocol.referee import Referee

    monkeypatch.setenv("FOXGEESE_TABLES", str(tmp_path / "tables"))
    load_solution(tmp_path / "tables")  # the bot process finds it built
    seats = {Side.PREY: BotConfig.from_spec("solver"), Side.PREDATOR: BotConfig.from_spec("random:seed=4")}
    with Referee(log_dir=str(tmp_path / "logs")) as referee:
        record = referee.play_game(HH, seats, "20+0.5", game_id="solver-hh")
    assert record.winner == "hounds", (record.termination, record.reason)


def test_the_registry_builds_the_solver_from_its_spec(tmp_path):
    from foxgeese.players.registry import make_player, player_options

    player = make_player(f"solver:depth=3,seed=2,tables={tmp_path}")
    assert isinstance(player, SolverPlayer) and player.depth == 3
    assert set(player_options("solver")) == {"depth", "tables", "seed"}
    with pytest.raises(ValueError, match="depth"):
        make_player("solver:depth=0")


def test_a_damaged_cache_is_solved_again_with_a_warning(tmp_path, capsys):
    from foxgeese.players.solver.hare_hounds_solution import load_solution
    from foxgeese.players.solver.tables import table_dir, table_path

    path = table_path(table_dir(tmp_path), get_variant("hare-and-hounds"), None)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"FOXGEESE-not-really")
    solution = load_solution(tmp_path)
    assert "solving again" in capsys.readouterr().err
    assert solution.score(get_variant("hare-and-hounds").start_position()) == WIN - 23  # hounds to move win
    assert load_solution(tmp_path) is not solution and capsys.readouterr().err == ""  # saved, read back quietly
