"""The research APIs take what a researcher has (a position text, a `Position`, a variant id, a side
name), every environment ends with one outcome schema, and the batched environment starts from
given positions with every counter right: each a wall a new user met (issue 38)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from foxgeese.engine import Move, Position, Side, Termination, Winner, get_variant
from foxgeese.research import openspiel_game as fg
from foxgeese.research.actions import action_space, observation_shape
from foxgeese.research.batched import BatchedHuntEnv
from foxgeese.research.gym_env import HuntGymEnv
from foxgeese.research.hunt import HuntGame
from foxgeese.research.labels import Labeller
from foxgeese.research.pettingzoo_env import HuntAECEnv

HARE_TEXT = "hare-and-hounds - hounds b5 b1,a2,c2 0 0 0"
CHAIN_START = "standard geese=13,sideways=0 fox c3 d1,c4,d5,c6,e6 0 0 0"
WINNERS = {w.value for w in Winner}
TERMINATIONS = {t.value for t in Termination}


def test_openspiel_reads_a_position_into_the_game_of_its_own_variant():
    """docs/research.md loaded a standard game and read a Hare and Hounds position into it."""
    state = fg.load_state(HARE_TEXT)
    assert str(state) == HARE_TEXT and state.get_game().variant.id == "hare-and-hounds"
    standard = pyspiel.load_game("python_foxgeese(variant=standard,geese=15,sideways=true)")
    with pytest.raises(ValueError, match="load_state"):
        fg.state_from_text(standard, HARE_TEXT)
    assert fg.game_string(standard.variant) == "python_foxgeese(variant=standard,geese=15,sideways=true)"
    assert str(fg.state_from_text(pyspiel.load_game(fg.game_string(state.get_game().variant)),
                                  Position.from_text(HARE_TEXT))) == HARE_TEXT


def test_labels_take_position_texts_moves_as_text_and_chains_as_text(four_geese_tables):
    labeller = Labeller(four_geese_tables)
    text = "standard geese=13,sideways=0 fox d4 c1,d1,e1,d2 0 0 0"
    position = Position.from_text(text)
    assert labeller.value(text) == labeller.value(position) and labeller.value(text).known
    move = position.legal_moves()[0]
    assert labeller.keeps_value(text, str(move)) == labeller.keeps_value(position, move)
    with pytest.raises(ValueError, match="not a legal move"):
        labeller.keeps_value(text, "a1-a2")
    # mid-chain: the environments' info["position"] text with ` chain=`, and the chain as text
    env = HuntAECEnv("standard", labeller=labeller, start=CHAIN_START)
    env.reset()
    env.step(env.actions.index[(20, 38)])  # c3xc5
    info_text = env.infos["fox"]["position"]
    assert info_text.endswith(" chain=c3xc5")
    expected = env.infos["fox"]["label"]
    assert labeller.value(info_text).as_dict() == expected
    assert labeller.chain_value(CHAIN_START, "c3xc5").as_dict() == expected
    assert labeller.chain_value(CHAIN_START, Move.parse("c3xc5")).as_dict() == expected
    with pytest.raises(ValueError, match="begins no capture"):
        labeller.chain_value(CHAIN_START, "d4xd6")


def test_action_spaces_and_observations_take_ids_and_side_names():
    by_id = action_space("hare-and-hounds")
    assert by_id.size == action_space(get_variant("hare-and-hounds")).size == 44
    assert action_space("standard", geese=17).variant is get_variant("standard", geese=17)
    assert observation_shape("great-cross") == (7, 9, 9)
    env = BatchedHuntEnv("standard", games=3, seed=1, parallel=False)
    env.reset()
    assert np.array_equal(env.observations("fox"), env.observations(Side.PREDATOR))
    assert np.array_equal(env.observations("geese"), env.observations("prey"))
    hunt = HuntGame(get_variant("standard"))
    assert np.array_equal(hunt.observation("geese"), env.observations(Side.PREY)[0])
    with pytest.raises(ValueError, match="use fox or geese"):
        env.observations("hare")


def _schema(outcome: dict, variant_sides: set[str]) -> None:
    assert set(outcome) == {"winner", "termination"}
    assert outcome["winner"] in WINNERS and (outcome["winner"] == "draw" or outcome["winner"] in variant_sides)


def test_every_environment_ends_with_one_outcome_schema():
    sides = {"hare", "hounds"}
    rng = np.random.default_rng(3)
    pz = HuntAECEnv("hare-and-hounds", labels=False)
    pz.reset(seed=2)
    for agent in pz.agent_iter():
        _, _, termination, truncation, info = pz.last()
        legal = np.flatnonzero(pz.observe(agent)["action_mask"])
        pz.step(None if termination or truncation else int(rng.choice(legal)))
    _schema(info["outcome"], sides)
    assert info["outcome"]["termination"] in TERMINATIONS
    gym = HuntGymEnv("hare-and-hounds", role="hare", opponent="random:seed=1", labels=False)
    observation, info = gym.reset(seed=1)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, _, terminated, truncated, info = gym.step(action)
        done = terminated or truncated
    _schema(info["outcome"], sides)
    assert "winner" not in info and "ending" not in info
    state = pyspiel.load_game("python_foxgeese(variant=hare-and-hounds)").new_initial_state()
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    _schema(state.outcome(), sides)
    batched = BatchedHuntEnv("hare-and-hounds", games=16, seed=1, parallel=False)
    batched.reset()
    seen = set()
    for _ in range(200):
        _, _, ended = batched.step(batched.random_actions())
        for game in np.flatnonzero(ended):
            outcome = batched.outcome(int(game))
            _schema(outcome, sides)
            seen.add(outcome["termination"])
    assert seen and seen <= TERMINATIONS | {"truncated"}
    # a truncated game: the same schema everywhere
    truncated = BatchedHuntEnv("hare-and-hounds", games=2, seed=1, parallel=False, max_steps=1)
    truncated.reset()
    truncated.step(truncated.random_actions())
    assert truncated.outcome(0) == {"winner": "draw", "termination": "truncated"}
    gym = HuntGymEnv("hare-and-hounds", role="hounds", opponent="random:seed=1", labels=False, max_steps=1)
    observation, _ = gym.reset(seed=1)
    *_, truncated_now, info = gym.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert truncated_now and info["outcome"] == {"winner": "draw", "termination": "truncated"}


def test_an_illegal_action_ends_the_same_way_in_gymnasium_and_the_batched_environment():
    gym = HuntGymEnv("hare-and-hounds", role="hounds", opponent="random", labels=False)
    observation, _ = gym.reset(seed=1)
    *_, info = gym.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))
    batched = BatchedHuntEnv("hare-and-hounds", games=1, seed=1, parallel=False)
    masks = batched.reset()
    batched.step(np.array([int(np.flatnonzero(masks[0] == 0)[0])]))
    assert info["outcome"] == batched.outcome(0) == {"winner": "hare", "termination": "illegal-move"}


@pytest.mark.parametrize("variant, options, texts", [
    ("standard", {"sideways": True}, ["standard geese=13,sideways=1 fox d7 c1,d1,e1,c2,d2,e2,a3,b3,c3,d3,e3,f3 97 0 41",
                                      "standard geese=13,sideways=1 geese c5 c1,d1,e1,c2,d2,e2,a3,b3,c3,d3,f4 12 0 7"]),
    ("hare-and-hounds", {}, ["hare-and-hounds - hare b3 b1,a2,c2 0 8 17",
                             "hare-and-hounds - hounds b5 b1,a2,c2 0 0 0"]),
    ("great-cross", {}, ["great-cross - fox e5 d1,e1,f1,d2,e2,f2,d3,e3,f3,a4,b4,c4,d4,e4,f4,g4,h4 99 0 33"]),
])
def test_the_batched_environment_starts_from_given_positions_with_every_counter(variant, options, texts):
    """One start for all games or one per game; quiet, stall, ply and the repetition history as the
    engine's `Game.from_position` has them, every step compared with the engine side by side."""
    positions = [Position.from_text(text) for text in texts]
    games = 12
    per_game = [positions[g % len(positions)] for g in range(games)]
    env = BatchedHuntEnv(variant, games=games, seed=5, parallel=False, start=per_game, **options)
    masks = env.reset()
    assert [env.position(g).text() for g in range(games)] == [p.text() for p in per_game]
    mirrors = [HuntGame(env.variant, p) for p in per_game]
    ended_once = 0
    for _ in range(160):
        for game, hunt in enumerate(mirrors):
            assert np.array_equal(masks[game], hunt.mask()), hunt.text()
            if not hunt.chain:
                assert env.position(game).text() == hunt.position.text()
        actions = env.random_actions().copy()
        masks, _, ended = env.step(actions)
        for game, hunt in enumerate(mirrors):
            hunt.apply(int(actions[game]))
            outcome = hunt.outcome()
            if outcome is None and hunt.steps < env.max_steps:
                assert ended[game] == 0
                continue
            assert env.outcome(game) == ({"winner": outcome.winner.value, "termination": outcome.termination.value}
                                         if outcome is not None else {"winner": "draw", "termination": "truncated"})
            ended_once += 1
            mirrors[game] = HuntGame(env.variant, per_game[game])  # the game starts again where it began
    assert ended_once
    one = BatchedHuntEnv(variant, games=3, seed=5, parallel=False, **options)
    one.reset(start=texts[0])
    assert {one.position(g).text() for g in range(3)} == {texts[0]}
    with pytest.raises(ValueError, match="one per game"):
        one.reset(start=texts * 2)
