"""MCTS finds forced wins in tiny drawn positions, proves them, reuses its tree and replays by seed."""

from __future__ import annotations

import random

import pytest
from test_minimax import CASES
from test_players_support import BudgetRecorder, diagram, play_out, wins_within

from foxgeese.engine import Clock, Game, Side, get_variant, play_game
from foxgeese.engine.rules import rules_for
from foxgeese.players import mcts
from foxgeese.players.base import Deadline, time_budget_ms
from foxgeese.players.mcts import LOST, MCTS, WON, MctsPlayer, RolloutEvaluator, puct_value, uct_value
from foxgeese.players.minimax import history_keys
from foxgeese.players.random_player import RandomPlayer


@pytest.mark.parametrize("label, text, variant, turn, plies", CASES, ids=[c[0] for c in CASES])
def test_mcts_proves_and_plays_the_forced_win(label, text, variant, turn, plies):
    position = diagram(text, variant, turn)
    choice = MctsPlayer(playouts=3000, seed=1).choose(Game.from_position(position), Clock())
    assert choice.info.get("proven") == "win" and choice.info["score"] == 100_000
    after = position.play(choice.move)
    outcome = after.outcome()
    if plies == 1:
        assert outcome is not None and outcome.winner.value == turn
    else:
        assert outcome is None and all(wins_within(after.play(r), plies - 2) for r in after.legal_moves())


@pytest.mark.parametrize("label, text, variant, turn, plies", CASES, ids=[c[0] for c in CASES])
def test_mcts_converts_the_win_against_any_defence(label, text, variant, turn, plies):
    position = diagram(text, variant, turn)
    for seed in range(2):
        game = play_out(position, MctsPlayer(playouts=3000, seed=seed), RandomPlayer(seed=seed))
        outcome = game.outcome()
        assert outcome is not None and outcome.winner.value == turn
        assert len(game.moves) <= plies


def test_the_solver_marks_the_losing_side_lost():
    position = diagram(CASES[1][1], "standard", "fox")  # the fox wins in three plies
    rules = rules_for(position.variant)
    search = MCTS(rules, RolloutEvaluator(rules, random.Random(0)))
    root = search.new_root(position.state)
    search.run(root, playouts=5000, deadline=_no_deadline())
    assert root.solved == LOST  # the geese, who moved into the root, have lost
    best = search.best_child(root)
    assert best.solved == WON
    assert all(child.solved == LOST for child in best.children or [])


def test_selection_is_pluggable():
    position = diagram(CASES[0][1], "standard", "fox")
    rules = rules_for(position.variant)
    search = MCTS(rules, RolloutEvaluator(rules, random.Random(0)), c=2.0, selection=puct_value)
    root = search.new_root(position.state)
    search.run(root, playouts=200, deadline=_no_deadline())
    assert str(search.best_child(root).move) == "d3xd5xd7"


def _no_deadline():
    return Deadline(None)


def _game_moves(seed: int, plies: int = 8) -> list[str]:
    players = {Side.PREDATOR: MctsPlayer(playouts=60, seed=seed), Side.PREY: MctsPlayer(playouts=60, seed=seed + 100)}
    game = play_game(Game(get_variant("standard")), players, max_plies=plies)
    return [str(m) for m in game.moves]


def test_a_seed_replays_the_same_game():
    assert _game_moves(3) == _game_moves(3)
    assert len({tuple(_game_moves(s)) for s in range(3)}) > 1


def test_the_subtree_of_the_moves_played_is_reused():
    game = Game(get_variant("hare-and-hounds"))
    player = MctsPlayer(playouts=400, seed=2)
    player.new_game(game.variant, game.position.turn)
    first = player.choose(game, Clock())
    assert first.info["reused"] == 0
    game.push(first.move)
    reply = RandomPlayer(seed=1).choose(game, Clock()).move
    game.push(reply)
    second = player.choose(game, Clock())
    assert second.info["reused"] > 0
    assert second.info["nodes"] == second.info["reused"] + second.info["playouts"]
    # A new game forgets the tree.
    player.new_game(game.variant, game.position.turn)
    fresh = Game(get_variant("hare-and-hounds"))
    assert player.choose(fresh, Clock()).info["reused"] == 0


def test_time_limit_and_clock_set_the_search_budget(monkeypatch):
    recorder = BudgetRecorder(monkeypatch, mcts)
    game = Game(get_variant("great-cross"))
    choice = MctsPlayer(time=80, seed=1).choose(game, Clock())
    assert choice.move in game.legal_moves() and choice.info["playouts"] > 0
    clock = Clock(remaining_ms=1000, increment_ms=100)
    MctsPlayer(seed=1).choose(game, clock)
    MctsPlayer(time=10_000, seed=1).choose(game, clock)  # the clock is tighter than the option
    assert recorder.budgets == [80, time_budget_ms(clock), time_budget_ms(clock)]


def test_a_passed_deadline_stops_the_search_at_its_next_check():
    rules = rules_for(get_variant("great-cross"))
    search = MCTS(rules, RolloutEvaluator(rules, random.Random(1)))
    root = search.new_root(get_variant("great-cross").start_position().state)
    assert search.run(root, playouts=None, deadline=Deadline(0)) == 0
    assert root.children, "the root is still expanded, so a move can be chosen"


@pytest.mark.parametrize("options, message", [
    ({"c": -1}, "c must"), ({"epsilon": 2}, "epsilon"), ({"playouts": 0}, "playouts"), ({"rollout": 1.5}, "rollout"),
])
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        MctsPlayer(**options)


@pytest.mark.parametrize("contempt", [0.0, 0.3])
def test_contempt_makes_a_repetition_worth_less_than_half_to_the_player(contempt):
    game = Game(get_variant("great-cross"))
    for text in "e7-e8 a4-a5 e8-e7 a5-b5 e7-e8".split():  # b5-a5 would repeat the position after a4-a5
        game.push(game.parse_move(text))
    player = MctsPlayer(playouts=400, seed=1, contempt=contempt)
    player.choose(game, Clock())
    search = player.search_for(game.position.variant)
    assert search.evaluator.draw_value == pytest.approx(0.5 + contempt)  # the predator's view of a draw
    rules = search.rules
    root = search.new_root(game.position.state)
    seen = history_keys(game, rules)
    search.run(root, playouts=400, deadline=Deadline(None), seen=seen)
    repeating = [child for child in root.children if rules.key(child.state) in seen]
    assert len(repeating) == 1 and repeating[0].visits > 0
    assert repeating[0].value() == pytest.approx(0.5 - contempt)  # the geese's view of every visit
    assert repeating[0].solved == 0  # a draw for good, so the implicit minimax value knows it too
    assert repeating[0].implicit == pytest.approx(0.5 - contempt)


def test_contempt_must_leave_a_draw_worth_something():
    with pytest.raises(ValueError, match="contempt"):
        MctsPlayer(contempt=0.5)


def test_a_fixed_time_per_move_is_spent_mostly_not_divided(monkeypatch):
    """With `move=0.3` the referee shows 300 ms on the clock every turn (the SDK's Clock below): MCTS
    budgets most of it (it used to divide the clock by 20 and answer in 5 ms)."""
    recorder = BudgetRecorder(monkeypatch, mcts)
    MctsPlayer(seed=3).choose(Game(get_variant("standard")), Clock(300, 300, 0, 300))
    (budget,) = recorder.budgets
    assert 200 <= budget < 300, budget


def test_a_bot_process_keeps_to_its_fixed_time_per_move(tmp_path):
    """The same in a bot process against the referee: never a time forfeit."""
    from foxgeese.engine import Side
    from foxgeese.protocol.botconfig import BotConfig
    from foxgeese.protocol.referee import Referee

    seats = {Side.PREDATOR: BotConfig.from_spec("random:seed=3"), Side.PREY: BotConfig.from_spec("mcts:seed=3")}
    with Referee(log_dir=str(tmp_path)) as referee:
        record = referee.play_game(get_variant("standard"), seats, "move=0.3", max_plies=6, game_id="per-move")
    assert record.termination == "max-plies", (record.termination, record.reason)
    assert [move.side for move in record.moves].count("geese") == 3


@pytest.mark.parametrize("variant_id, rollout, implicit", [
    ("standard", 8, 0.5), ("hare-and-hounds", 8, 0.5), ("great-cross", 0, 0.8),
])
def test_unset_rollout_and_implicit_weight_take_the_variants_defaults(variant_id, rollout, implicit):
    search = MctsPlayer().search_for(get_variant(variant_id))
    assert search.evaluator.max_plies == rollout
    assert search.selection.weight == pytest.approx(implicit)


def test_rollout_and_implicit_weight_given_override_the_variants_defaults():
    search = MctsPlayer(rollout=4, implicit=0.3).search_for(get_variant("great-cross"))
    assert search.evaluator.max_plies == 4 and search.selection.weight == pytest.approx(0.3)
    assert MctsPlayer(implicit=0).search_for(get_variant("great-cross")).selection is uct_value
