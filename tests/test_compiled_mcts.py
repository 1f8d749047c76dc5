"""The compiled MCTS (`mcts`) against the Python one (`mcts-py`): the same forced wins proven, the
same static values, the seed replays the game, the budget rules, tree reuse, a bounded tree, PUCT
and the evaluators (static, and a learned value table through the Python leaf interface)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_minimax import CASES
from test_players_support import BudgetRecorder, diagram, play_out, wins_within

from foxgeese.engine import Clock, Game, Side, get_variant, play_game
from foxgeese.engine.sampling import played_positions
from foxgeese.players import mcts as python_mcts
from foxgeese.players.base import Deadline, safety_budget_ms, time_budget_ms
from foxgeese.players.compiled import mcts
from foxgeese.players.compiled import mcts_kernels as k
from foxgeese.players.compiled.mcts import CompiledMCTS, MctsPlayer, SearchOptions
from foxgeese.players.minimax import history_keys
from foxgeese.players.random_player import RandomPlayer
from foxgeese.players.registry import PlayerSpecError, make_player

CLOCK = Clock(remaining_ms=2000, increment_ms=100)


@pytest.mark.parametrize("selection", ["uct", "puct"])
@pytest.mark.parametrize("label, text, variant, turn, plies", CASES, ids=[c[0] for c in CASES])
def test_the_forced_wins_the_python_mcts_proves_are_proven_and_played(label, text, variant, turn, plies, selection):
    position = diagram(text, variant, turn)
    reference = python_mcts.MctsPlayer(playouts=3000, seed=1).choose(Game.from_position(position), Clock())
    choice = MctsPlayer(playouts=20_000, seed=1, selection=selection).choose(Game.from_position(position), Clock())
    assert reference.info["proven"] == choice.info["proven"] == "win" and choice.info["score"] == 100_000
    after = position.play(choice.move)
    if plies == 1:
        assert after.outcome() is not None and after.outcome().winner.value == turn
    else:
        assert after.outcome() is None and all(wins_within(after.play(r), plies - 2) for r in after.legal_moves())
    game = play_out(position, MctsPlayer(playouts=20_000, seed=2, selection=selection), RandomPlayer(seed=2))
    assert game.outcome() is not None and game.outcome().winner.value == turn and len(game.moves) <= plies


@pytest.mark.parametrize("variant_id, options", [("standard", {}), ("standard", {"sideways": True}),
                                                 ("great-cross", {}), ("hare-and-hounds", {})])
def test_the_children_and_their_static_values_are_the_python_searchs(variant_id, options):
    """An expansion's children are the engine's moves, valued as players/mcts.py values them."""
    variant = get_variant(variant_id, **options)
    rules = variant.rules
    reference = python_mcts.RolloutEvaluator(rules, random.Random(0))
    search = CompiledMCTS(variant, SearchOptions(implicit=0.5), seed=1)
    for position in played_positions(variant, 12, seed=3):
        state = position.state
        if rules.outcome(state) is not None:
            continue
        search.set_root(state)
        search.run(playouts=1, deadline=Deadline(None))
        block = search.tree.children(0)
        expected = {search.board.state(rules.play(state, move)): move for move in rules.moves(state)}
        got = {search._state_of(c): c for c in block}
        assert set(got) == set(expected) and len(block) == len(rules.moves(state))
        for child_state, node in got.items():
            after = rules.play(state, expected[child_state])
            if rules.outcome(after) is None:
                value = reference.static_value(after)
                mover_value = value if state[2] == Side.PREDATOR else 1.0 - value
                assert search.tree.columns[7][node] == pytest.approx(mover_value, abs=1e-6)


def _game_moves(seed: int, plies: int = 8, variant: str = "standard") -> list[str]:
    players = {Side.PREDATOR: MctsPlayer(playouts=300, seed=seed), Side.PREY: MctsPlayer(playouts=300, seed=seed + 100)}
    game = play_game(Game(get_variant(variant)), players, max_plies=plies)
    return [str(m) for m in game.moves]


def test_the_same_seed_plays_the_same_game_and_another_seed_another():
    assert _game_moves(3) == _game_moves(3)
    assert _game_moves(3, variant="great-cross") == _game_moves(3, variant="great-cross")
    assert len({tuple(_game_moves(s)) for s in range(3)}) > 1


def test_a_game_seed_reseeds_and_none_leaves_the_generator_running():
    game = Game(get_variant("standard"))
    player = MctsPlayer(playouts=200, seed=1, reuse=False)
    player.new_game(game.variant, Side.PREDATOR, seed=7)
    first = player.choose(game, Clock())
    player.new_game(game.variant, Side.PREDATOR, seed=7)
    assert player.choose(game, Clock()).info["pv"] == first.info["pv"]


def _choose(player, seed: int = 5):
    game = Game(get_variant("standard"))
    player.new_game(game.variant, game.position.turn, seed=seed)
    return player.choose(game, CLOCK)


def test_a_playout_budget_is_spent_whole_and_the_clock_is_a_safety_limit(monkeypatch):
    recorder = BudgetRecorder(monkeypatch, mcts)
    first, second = _choose(MctsPlayer(playouts=3000, seed=1)), _choose(MctsPlayer(playouts=3000, seed=1))
    assert recorder.budgets == [None, safety_budget_ms(CLOCK)] * 2  # new_game's warm-up has no deadline
    assert first.info["playouts"] == second.info["playouts"] == 3000 and "cut" not in first.info
    assert (first.move, first.info["pv"], first.info["score"]) == (second.move, second.info["pv"], second.info["score"])
    assert _choose(MctsPlayer(seed=1)).info["playouts"] > 0 and recorder.budgets[-1] == time_budget_ms(CLOCK)
    MctsPlayer(time=80, seed=1).choose(Game(get_variant("great-cross")), Clock())
    assert recorder.budgets[-1] == 80


def test_a_cut_move_says_so(monkeypatch):
    monkeypatch.setattr(mcts, "Deadline", lambda budget_ms: Deadline(0))  # the safety limit binds at once
    choice = _choose(MctsPlayer(playouts=300, seed=1))
    assert choice.info["cut"] is True and choice.info["playouts"] == 0
    assert choice.move in Game(get_variant("standard")).legal_moves()


def test_the_subtree_of_the_move_played_and_the_reply_is_reused():
    for variant_id in ("hare-and-hounds", "standard"):
        game = Game(get_variant(variant_id))
        player = MctsPlayer(playouts=4000, seed=2)
        player.new_game(game.variant, game.position.turn)
        first = player.choose(game, Clock())
        assert first.info["reused"] == 0
        game.push(first.move)
        game.push(RandomPlayer(seed=1).choose(game, Clock()).move)
        second = player.choose(game, Clock())
        assert second.info["reused"] > 0
        assert second.info["nodes"] == second.info["reused"] + second.info["playouts"]
        assert player._search is not None and player._search.root_state == game.position.state
        player.new_game(game.variant, game.position.turn)  # a new game forgets the tree
        assert player.choose(Game(get_variant(variant_id)), Clock()).info["reused"] == 0
    assert MctsPlayer(playouts=500, seed=2, reuse=False).choose(game, Clock()).info["reused"] == 0


def test_the_tree_is_bounded_and_a_full_tree_still_searches():
    variant = get_variant("great-cross")
    search = CompiledMCTS(variant, SearchOptions(rollout=0, implicit=0.8), seed=1, capacity=5000)
    search.set_root(variant.start_position().state)
    assert search.run(playouts=20_000, deadline=Deadline(None)) == 20_000
    assert search.tree.size <= 5000 and search.tree.capacity <= 5000 and search.visits() == 20_000
    assert search.move_to(search.best_child()) in variant.start_position().legal_moves()


def test_a_repetition_is_a_draw_worth_less_than_half_to_the_player():
    game = Game(get_variant("great-cross"))
    for text in "e7-e8 a4-a5 e8-e7 a5-b5 e7-e8".split():  # b5-a5 would repeat the position after a4-a5
        game.push(game.parse_move(text))
    search = CompiledMCTS(game.variant, SearchOptions(rollout=0, implicit=0.8, draw_value=0.5 + 0.3), seed=1)
    rules = game.variant.rules
    search.set_root(game.position.state)
    seen = history_keys(game, rules)
    search.run(playouts=400, deadline=Deadline(None), seen=seen)
    columns = search.tree.columns
    repeating = [c for c in search.tree.children(0) if rules.key(rules.play(game.position.state,
                                                                             search.move_to(c))) in seen]
    assert len(repeating) == 1 and columns[5][repeating[0]] > 0
    assert search.value(repeating[0]) == pytest.approx(0.5 - 0.3)  # the geese's view of every visit
    assert columns[9][repeating[0]] == k.DRAWN and columns[7][repeating[0]] == pytest.approx(0.5 - 0.3)


class Recorder:
    """A Python leaf evaluator: the compiled static value, and priors that favour the last move."""

    def __init__(self, search_for_values: CompiledMCTS) -> None:
        self.reference = search_for_values
        self.batches: list[int] = []

    def values(self, leaves):
        self.batches.append(len(leaves))
        rules = leaves.variant.rules
        evaluator = python_mcts.RolloutEvaluator(rules, random.Random(0), max_plies=0)
        return np.array([evaluator.evaluate(state) for state in leaves.states()])

    def priors(self, parents, children, offsets):
        weights = np.ones(len(children))
        weights[offsets[1:] - 1] = 3.0
        return weights


def test_a_python_leaf_evaluator_gets_batches_and_sets_the_priors():
    variant = get_variant("standard")
    evaluator = Recorder(CompiledMCTS(variant))
    search = CompiledMCTS(variant, SearchOptions(selection="puct"), seed=1, evaluator=evaluator, batch=16)
    search.set_root(variant.start_position().state)
    assert search.run(playouts=500, deadline=Deadline(None)) == 500
    assert max(evaluator.batches) == 16 and sum(evaluator.batches) <= 500 and search.visits() == 500
    block = search.tree.children(0)
    priors = search.tree.columns[8][block.start:block.stop]
    assert priors.sum() == pytest.approx(1.0) and priors.max() == pytest.approx(3.0 / (len(block) + 2))


def test_a_learned_value_table_evaluates_the_leaves(tmp_path):
    from foxgeese.research.learn import ValueTable, train

    variant = get_variant("hare-and-hounds")
    table = ValueTable(variant)
    train(table, 300, random.Random(1))
    path = tmp_path / "table.npz"
    table.save(path)
    player = make_player(f"mcts:evaluator=learned,weights={path},playouts=300,seed=1")
    player.new_game(variant, Side.PREY)
    choice = player.choose(Game(variant), Clock())
    assert choice.move in Game(variant).legal_moves() and choice.info["playouts"] == 300
    with pytest.raises(PlayerSpecError, match="weights"):
        make_player("mcts:evaluator=learned")
    with pytest.raises(PlayerSpecError, match="cannot read weights"):
        make_player(f"mcts:evaluator=learned,weights={tmp_path / 'none.npz'}")


def test_the_static_evaluator_and_the_spec_names():
    choice = make_player("mcts:evaluator=static,playouts=500,seed=1").choose(Game(get_variant("standard")), Clock())
    assert choice.info["playouts"] == 500
    assert isinstance(make_player("mcts:playouts=10"), MctsPlayer)
    assert isinstance(make_player("mcts-py:playouts=10"), python_mcts.MctsPlayer)
    for spec, message in [("mcts:selection=best", "selection"), ("mcts:evaluator=net", "evaluator"),
                          ("mcts:tree=10", "tree"), ("mcts:c=-1", "c must"), ("mcts:playouts=0", "playouts")]:
        with pytest.raises(PlayerSpecError, match=message):
            make_player(spec)
