"""The PettingZoo and Gymnasium environments: their libraries' own API checks on every variant, the
action segments against the engine's moves, and a Gymnasium game against a `cmd:` bot through the
real referee."""

from __future__ import annotations

import random
import sys
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from foxgeese.engine import Game, Move, Position
from foxgeese.research.actions import PLANES, action_space
from foxgeese.research.gym_env import HuntGymEnv
from foxgeese.research.hunt import HuntGame, Rewards, max_actions, variant_of
from foxgeese.research.pettingzoo_env import HuntAECEnv

VARIANTS = [
    {"variant": "standard", "geese": 13}, {"variant": "standard", "geese": 15}, {"variant": "standard", "geese": 17},
    {"variant": "standard", "geese": 15, "sideways": True}, {"variant": "standard", "geese": 17, "sideways": True},
    {"variant": "standard", "geese": 13, "sideways": True}, {"variant": "hare-and-hounds"},
    {"variant": "great-cross"}, {"variant": "standard", "options": {"diagonals": "alternating"}},
]


@pytest.fixture(autouse=True)
def _quiet_api_test_advice():
    with warnings.catch_warnings():  # api_test advises Box observations and `player_0` names: ours are documented
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: "-".join(map(str, o.values())))
def test_pettingzoo_api_and_seed_tests_pass(options):
    api_test(HuntAECEnv(**options), num_cycles=200, verbose_progress=False)
    seed_test(lambda: HuntAECEnv(**options), num_cycles=50)


@pytest.mark.parametrize("options", VARIANTS[5:], ids=lambda o: o["variant"])
def test_gymnasium_check_env_passes_for_each_role(options):
    for role in ("predator", "prey"):
        variant = variant_of(options["variant"], options.get("options"),
                             **{k: v for k, v in options.items() if k not in ("variant", "options")})
        name = variant.predator_name if role == "predator" else variant.prey_name
        env = HuntGymEnv(**options, role=name, opponent="random")
        check_env(env, skip_render_check=True)
        env.close()


def test_actions_replay_every_engine_move_and_nothing_else():
    """On random playouts, the moves the actions complete are exactly the engine's legal moves."""
    rng = random.Random(5)
    for options in VARIANTS:
        variant = variant_of(options["variant"], options.get("options"),
                             **{k: v for k, v in options.items() if k not in ("variant", "options")})
        for _ in range(4):
            hunt = HuntGame(variant)
            while hunt.outcome() is None:
                assert not hunt.chain
                moves = hunt.game.legal_moves()
                completed = set()
                for move in moves:
                    trial = hunt.copy()
                    played = [trial.apply(action) for action in trial.move_actions(move)]
                    assert played[-1] == move and all(p is None for p in played[:-1])
                    completed.add(move)
                assert completed == set(moves)
                first = {hunt.actions.index[m.path[0], m.path[1]] for m in moves}
                assert set(hunt.legal_actions()) == first
                hunt.play_move(rng.choice(moves))
            assert hunt.steps <= max_actions(variant)


def test_a_capture_chain_is_one_player_acting_until_stop():
    position = Position.from_text("standard geese=13,sideways=0 fox c3 g3,c4,d5,c6 0 0 0")
    env = HuntAECEnv("standard", labels=False, start=position.text())
    env.reset()
    actions = action_space(position.variant)
    env.step(actions.index[(Move.parse("c3xc5").path)])
    assert env.agent_selection == "fox" and "chain=c3xc5" in env.infos["fox"]["position"]
    observation = env.observe("fox")
    assert observation["observation"][PLANES.index("chain"), 4, 2] == 1  # c5: row 5, column c
    legal = set(np.flatnonzero(observation["action_mask"]))
    assert legal == {actions.index[Move.parse("c5xe5").path], actions.index[Move.parse("c5xc7").path], actions.stop}
    env.step(actions.stop)
    assert env.agent_selection == "geese"
    assert env.hunt.game.moves[-1] == Move.parse("c3xc5")


def test_observation_planes_are_per_role():
    env = HuntAECEnv("hare-and-hounds", labels=False)
    env.reset()
    hare, hounds = env.observe("hare")["observation"], env.observe("hounds")["observation"]
    assert hare[0].sum() == 1 and hare[1].sum() == 3  # mine, theirs
    assert hounds[0].sum() == 3 and hounds[1].sum() == 1
    assert hounds[PLANES.index("to_move")].all() and not hare[PLANES.index("to_move")].any()
    assert hare[PLANES.index("board")].sum() == 11


def test_the_draw_rules_end_a_sideways_game():
    """A fox and geese shuffling sideways: repetition ends it drawn, and both agents get the draw reward."""
    start = "standard geese=13,sideways=1 fox d7 c1,d1,e1,c2,d2,e2,a3,b3,c3,d3,e3,f3 0 0 0"
    env = HuntAECEnv("standard", sideways=True, labels=False, start=start)
    env.reset()
    index = action_space(env.variant).index
    cycle = ["d7-c7", "f3-g3", "c7-d7", "g3-f3"]
    plies = 0
    while not env.terminations["fox"]:
        env.step(index[Move.parse(cycle[plies % 4]).path])
        plies += 1
    assert plies == 8 and env.infos["fox"]["outcome"] == {"winner": "draw", "termination": "repetition"}
    assert env._cumulative_rewards == {"fox": 0.0, "geese": 0.0}
    env = HuntAECEnv("standard", sideways=True, labels=False, start=start,
                     rewards={"fox": Rewards(1.0, -0.5, -1.0), "geese": Rewards(2.0, 0.25, -2.0)})
    env.reset()
    for ply in range(8):
        env.step(index[Move.parse(cycle[ply % 4]).path])
    assert env._cumulative_rewards == {"fox": -0.5, "geese": 0.25}  # each role its own draw


def test_gymnasium_game_against_a_cmd_bot_through_the_referee():
    bot = f"cmd:{sys.executable} -m foxgeese bot random"
    env = HuntGymEnv("hare-and-hounds", role="hounds", opponent=bot)
    try:
        check_env(env, skip_render_check=True)
        rng = np.random.default_rng(3)
        for seed in range(3):
            observation, info = env.reset(seed=seed)
            game = Game(env.variant)
            done = False
            while not done:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
                observation, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            game = env.hunt.game
            assert terminated and info["outcome"]["winner"] in ("hare", "hounds")
            assert str(game.outcome().winner.value) == info["outcome"]["winner"]  # the referee and the engine agree
            assert reward == (1.0 if info["outcome"]["winner"] == "hounds" else -1.0)
        observation, info = env.reset(seed=9)  # abandoned mid-game: the next reset starts afresh
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        observation, info = env.reset(seed=10)
        assert info["position"] == env.variant.start_position().text()
    finally:
        env.close()
    assert not env.opponent.runner.is_alive()


def test_an_illegal_action_loses_the_gymnasium_game():
    env = HuntGymEnv("hare-and-hounds", role="hounds", labels=False)
    observation, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]
    assert info["outcome"] == {"winner": "hare", "termination": "illegal-move"}


def test_max_steps_truncates_with_the_draw_reward():
    env = HuntAECEnv("great-cross", labels=False, max_steps=5, rewards={"fox": Rewards(draw=-0.25)})
    env.reset(seed=2)
    for step in range(5):
        assert not env.truncations["fox"]
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[step % int(mask.sum())]))
    assert env.truncations == {"fox": True, "geese": True} and not any(env.terminations.values())
    assert env._cumulative_rewards["fox"] == -0.25 and env._cumulative_rewards["geese"] == 0.0
