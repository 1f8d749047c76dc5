"""The player SPEC registry, the random player and the human player at a scripted terminal."""

from __future__ import annotations

import io

import pytest

from foxgeese.engine import Clock, Game, Side, get_variant, play_game
from foxgeese.players.base import Choice, Player, time_budget_ms
from foxgeese.players.compiled.mcts import MctsPlayer
from foxgeese.players.compiled.player import CompiledMinimaxPlayer
from foxgeese.players.human import HumanPlayer
from foxgeese.players.minimax import MinimaxPlayer
from foxgeese.players.random_player import RandomPlayer
from foxgeese.players.registry import PLAYER_NAMES, PlayerSpecError, make_player, parse_spec


def test_specs_build_the_named_players_with_typed_options():
    player = make_player("minimax:depth=3,seed=7")
    assert isinstance(player, CompiledMinimaxPlayer) and player.depth == 3 and player.seed == 7
    player = make_player("minimax-py:depth=3,seed=7")
    assert isinstance(player, MinimaxPlayer) and player.depth == 3 and player.seed == 7
    player = make_player(" MCTS : playouts=200, c=0.7 ,seed=1")
    assert isinstance(player, MctsPlayer) and player.playouts == 200 and player.c == 0.7
    assert isinstance(make_player("random"), RandomPlayer)
    expected = {"a": 1, "b": 2.5, "c": True, "d": False, "e": "word"}
    assert parse_spec("x:a=1,b=2.5,c=true,d=off,e=word") == ("x", expected)
    assert set(PLAYER_NAMES) >= {"random", "human", "minimax", "mcts", "solver"}


@pytest.mark.parametrize("spec, message", [
    ("alphazero", "unknown player 'alphazero'; valid: random, human, minimax, minimax-py, mcts, mcts-py, solver"),
    ("minimax:dpth=3", "unknown option 'dpth' for minimax; valid: depth, nodes, time, seed"),
    ("random:depth=2", "unknown option 'depth' for random; valid: seed"),
    ("human:stdin=x", "unknown option 'stdin' for human; valid: none"),
    ("minimax:depth", "bad option 'depth'"),
    ("minimax:depth=-1", "depth must be a positive number"),
    ("minimax:depth=1,depth=2", "given twice"),
    ("cmd:python bot.py", "external bot command"),
])
def test_bad_specs_say_what_is_valid(spec, message):
    with pytest.raises(PlayerSpecError) as caught:
        make_player(spec)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_the_solver_is_offered_lazily():
    # It lives in another module (helper-5's); asking for it either builds it or says it is missing.
    try:
        player = make_player("solver")
    except PlayerSpecError as error:
        assert "solver" in str(error)
    else:
        assert isinstance(player, Player)


def test_time_budget_follows_the_clock():
    assert time_budget_ms(None) is None
    assert time_budget_ms(Clock()) is None
    assert time_budget_ms(Clock(per_move_ms=500)) == 500 - 25 - 30  # less 5% and the 30 ms margin
    # With `move=0.5` the referee's clocks show the per-move allowance: the whole of it is the budget.
    assert time_budget_ms(Clock(remaining_ms=500, opponent_ms=500, per_move_ms=500)) == 500 - 25 - 30
    base = time_budget_ms(Clock(remaining_ms=60_000, increment_ms=1000))
    assert base == int((60_000 // 20 + 800) * 0.95) - 30
    assert time_budget_ms(Clock(remaining_ms=100)) <= 50  # never more than half of what is left
    assert time_budget_ms(Clock(remaining_ms=10)) >= 1
    assert time_budget_ms(Clock(remaining_ms=10**9)) <= 10_000


def test_random_player_is_seeded_and_legal():
    def moves(seed):
        game = Game(get_variant("great-cross"))
        player = RandomPlayer(seed=seed)
        for _ in range(30):
            if game.outcome():
                break
            choice = player.choose(game, Clock())
            assert isinstance(choice, Choice) and choice.move in game.legal_moves()
            game.push(choice.move)
        return [str(m) for m in game.moves]

    assert moves(4) == moves(4)
    assert moves(4) != moves(5)


def test_human_is_told_why_a_move_is_bad_then_it_is_taken():
    game = Game(get_variant("standard"))
    stdin = io.StringIO("hello\nd4-d9\nd4-d6\n\nmoves\nd4-d5\n")
    stdout = io.StringIO()
    player = HumanPlayer(stdin=stdin, stdout=stdout)
    player.new_game(game.variant, Side.PREDATOR)
    choice = player.choose(game, Clock())
    assert str(choice.move) == "d4-d5"
    shown = stdout.getvalue()
    assert "F fox, G geese; fox to move" in shown  # the engine's board drawing
    assert "bad move 'hello'" in shown
    assert "d9 is not a point of the standard board" in shown
    assert "d4 and d6 are not joined by a line" in shown
    assert "legal moves: " in shown and "d4-c5" in shown
    assert shown.count("your move> ") == 6


def test_human_leaving_resigns_by_choosing_no_move():
    game = Game(get_variant("hare-and-hounds"))
    for typed in ("", "quit\n", "resign\n"):
        choice = HumanPlayer(stdin=io.StringIO(typed), stdout=io.StringIO()).choose(game, Clock())
        assert choice.move is None, typed


@pytest.mark.parametrize("spec", ["random:seed=1", "minimax:depth=2", "mcts:playouts=50,seed=1"])
@pytest.mark.parametrize("variant_id", ["standard", "great-cross", "hare-and-hounds"])
def test_every_player_finishes_a_game_with_legal_moves(spec, variant_id):
    variant = get_variant(variant_id)
    players = {Side.PREDATOR: make_player(spec), Side.PREY: make_player("random:seed=2")}
    game = play_game(Game(variant), players, max_plies=400, clock=Clock(remaining_ms=5000))
    assert game.outcome() is not None
