"""The OpenSpiel game `python_foxgeese`: OpenSpiel's own simulation checks (as games_sim_test runs
them, serialization and cloning included), its MCTS and tabular Q-learning on it, position text
both ways, and its perft (on OpenSpiel's API) against the engine's."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import mcts, tabular_qlearner
from open_spiel.python.tests import games_sim_test  # the module: its TestCase must not be collected here

from foxgeese.engine import Game, get_variant, perft
from foxgeese.engine.sampling import played_positions
from foxgeese.research.openspiel_game import SHORT_NAME, move_perft, state_from_text

GAMES = ["python_foxgeese(variant=hare-and-hounds)", "python_foxgeese(variant=standard,geese=13,sideways=false)",
         "python_foxgeese(variant=standard,geese=17,sideways=true)", "python_foxgeese(variant=great-cross)",
         "python_foxgeese(variant=standard,diagonals=alternating)"]


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_random_simulation_checks_pass(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    # as games_sim_test runs every game: pickling, serialization, clones, returns
    games_sim_test.GamesSimTest("test_breakthrough").sim_game(game)


def test_openspiel_mcts_plays_a_game_out():
    game = pyspiel.load_game(SHORT_NAME, {"variant": "hare-and-hounds"})
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=12, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng, solve=True)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    assert sorted(state.returns()) == [-1.0, 1.0]  # Hare and Hounds has no draws


def test_openspiel_tabular_q_learning_trains_on_hare_and_hounds():
    game = pyspiel.load_game(SHORT_NAME, {"variant": "hare-and-hounds"})
    env = rl_environment.Environment(game, seed=1)
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=env.action_spec()["num_actions"]) for p in range(2)]
    for _ in range(15):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([agents[player].step(step).action])
        for agent in agents:
            agent.step(step)
    assert all(len(agent._q_values) > 10 for agent in agents)  # it visited and valued states


def test_state_and_position_text_convert_both_ways():
    game = pyspiel.load_game(SHORT_NAME, {"variant": "standard"})
    for position in played_positions(game.variant, 5, seed=3):
        state = state_from_text(game, position.text())
        assert str(state) == position.text() and state.position_text() == position.text()
    state = state_from_text(game, "standard geese=13,sideways=0 fox c3 g3,c4,d5,c6 0 0 0 chain=c3xc5")
    assert state.current_player() == 0 and state.legal_actions()[-1] == game.num_distinct_actions() - 1  # STOP
    with pytest.raises(ValueError):
        state_from_text(game, "hare-and-hounds - hounds b5 b1,a2,c2 0 0 0")
    state = game.new_initial_state()
    action = state.legal_actions()[0]
    name = state.action_to_string(0, action)  # the fox moves first: d4-c4
    state.apply_action(action)
    assert state.observation_string(0) == str(state)
    assert state.information_state_string(0) == f"{game.variant.start_position().text()} | {name} | {state}"
    assert len(state.observation_tensor(1)) == 7 * 7 * 7


@pytest.mark.parametrize("variant_id, options, depth", [
    ("standard", {"geese": 13}, 4), ("standard", {"geese": 15, "sideways": True}, 3),
    ("hare-and-hounds", {}, 6), ("great-cross", {}, 3), ("standard", {"diagonals": "alternating"}, 4),
])
def test_openspiel_perft_matches_the_engine(variant_id, options, depth):
    variant = get_variant(variant_id, **options)
    game = pyspiel.load_game(SHORT_NAME, {"variant": variant_id, **options})
    assert move_perft(game.new_initial_state(), depth) == perft(Game(variant), depth)
    captures = 0
    for position in played_positions(variant, 8, seed=11, plies=(8, 30)):
        state = state_from_text(game, position.text())
        assert move_perft(state, 2) == perft(position, 2)
        captures += sum(move.is_capture for move in position.legal_moves())
        captures += sum(m.is_capture for move in position.legal_moves() for m in position.play(move).legal_moves())
    assert not variant.captures or captures  # the positions exercise capture chains
