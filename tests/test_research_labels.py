"""Exact labels: the Hare and Hounds solution and endgame tables built here (4 geese) as win/loss/draw
with distances for the side to move, "unknown" beyond the tables, and the environments' `info`."""

from __future__ import annotations

import random

import pytest

from foxgeese.engine import Position, get_variant
from foxgeese.research.gym_env import HuntGymEnv
from foxgeese.research.labels import Labeller
from foxgeese.research.learn import random_walk
from foxgeese.research.pettingzoo_env import HuntAECEnv

STANDARD = get_variant("standard")
FOUR_GEESE = "standard geese=13,sideways=0 fox d4 c1,d1,e1,d2 0 0 0"


def _consistent(labeller: Labeller, position: Position) -> None:
    """A label is the best of its moves' labels: a win's distance is one more than the fastest winning move's."""
    label = labeller.value(position)
    after = [labeller.after(position, move) for move in position.legal_moves()]
    assert label.known and all(a.known for a in after)
    if label.value == "win":
        assert label.plies == min(a.plies for a in after if a.value == "win")
    elif label.value == "loss":
        assert all(a.value == "loss" for a in after) and label.plies == max(a.plies for a in after)
    else:
        assert max(a.sign for a in after) == 0


def test_hare_and_hounds_labels_are_exact_and_consistent():
    labeller = Labeller()
    variant = get_variant("hare-and-hounds")
    start = labeller.value(variant.start_position())
    assert start.value in ("win", "loss") and start.plies > 0  # solved: no draws
    rng = random.Random(2)
    for _ in range(40):
        position = random_walk(variant.start_position(), rng.randrange(0, 20), rng)
        if position.outcome() is None:
            _consistent(labeller, position)


def test_fox_labels_come_from_the_tables_with_distances(four_geese_tables):
    labeller = Labeller(four_geese_tables)
    position = Position.from_text(FOUR_GEESE)
    _consistent(labeller, position)
    assert labeller.value(position).plies is not None
    five = Position.from_text("standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2 0 0 0")
    assert labeller.value(five).value == "unknown"
    assert labeller.keeps_value(five, five.legal_moves()[0]) is None
    captured = Position.from_text("standard geese=13,sideways=0 geese d4 c1,d1,e1 0 0 0")
    assert labeller.value(captured).value == "loss" and labeller.value(captured).plies == 0


def test_a_move_that_throws_a_win_away_does_not_keep_the_value():
    labeller = Labeller()
    variant = get_variant("hare-and-hounds")
    rng = random.Random(4)
    for _ in range(200):
        position = random_walk(variant.start_position(), rng.randrange(0, 20), rng)
        if position.outcome() is not None or labeller.value(position).value != "win":
            continue
        verdicts = {labeller.keeps_value(position, move) for move in position.legal_moves()}
        if verdicts == {True, False}:
            return
    pytest.fail("no won position with a losing move found")


def test_the_environments_expose_labels_in_info(four_geese_tables):
    labeller = Labeller(four_geese_tables)
    env = HuntAECEnv("standard", labeller=labeller, start=FOUR_GEESE)
    env.reset()
    expected = labeller.value(Position.from_text(FOUR_GEESE))
    assert env.infos["fox"]["label"] == {"value": expected.value, "plies": expected.plies}
    gym = HuntGymEnv("hare-and-hounds", role="hare", labeller=Labeller())
    _, info = gym.reset(seed=3)
    position = Position.from_text(info["position"])
    assert info["label"] == Labeller().value(position).as_dict()


def test_a_label_mid_chain_is_the_best_way_to_finish_it(four_geese_tables):
    labeller = Labeller(four_geese_tables)
    start = "standard geese=13,sideways=0 fox c3 d1,c4,d5,c6,e6 0 0 0"
    env = HuntAECEnv("standard", labeller=labeller, start=start)
    env.reset()
    actions = env.actions
    env.step(actions.index[(20, 38)])  # c3xc5: four geese left, the tables know every ending
    assert env.hunt.chain
    position = Position.from_text(start)
    finishes = [m for m in position.legal_moves() if m.is_capture and m.path[:2] == (20, 38)]
    best = labeller.best(position, finishes)
    assert best.known and env.infos["fox"]["label"] == best.as_dict()
