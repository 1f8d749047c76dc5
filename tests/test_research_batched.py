"""The batched numba environment against the engine: on random games of every variant, the same legal
actions (masks) at every step, the same positions and counters, and the same endings (draws by
repetition and the fifty-move rule, stalling, escapes, captures, blocked sides)."""

from __future__ import annotations

import numpy as np
import pytest

from foxgeese.engine import Side
from foxgeese.research import batched_kernels as codes
from foxgeese.research.batched import BatchedHuntEnv
from foxgeese.research.hunt import HuntGame

CODE_OF_WINNER = {Side.PREDATOR: codes.PREDATOR_WINS, Side.PREY: codes.PREY_WINS, None: codes.DRAW}


@pytest.mark.parametrize("variant, options, steps", [
    ("standard", {"geese": 13}, 300), ("standard", {"geese": 17, "sideways": True}, 700),
    ("hare-and-hounds", {}, 300), ("great-cross", {}, 400),
    ("standard", {"options": {"diagonals": "alternating"}}, 300),  # the core's tables follow the engine's board
])
def test_batched_games_follow_the_engine(variant, options, steps):
    env = BatchedHuntEnv(variant, games=48, seed=7, parallel=False, **options)
    masks = env.reset()
    mirrors = [HuntGame(env.variant) for _ in range(env.games)]
    endings: dict[int, int] = {}
    for _ in range(steps):
        for game, hunt in enumerate(mirrors):
            assert np.array_equal(masks[game], hunt.mask()), hunt.text()
            if not hunt.chain:
                assert env.position(game).state == hunt.position.state
        actions = env.random_actions().copy()
        masks, rewards, ended = env.step(actions)
        for game, hunt in enumerate(mirrors):
            hunt.apply(int(actions[game]))
            outcome = hunt.outcome()
            if outcome is None:
                assert ended[game] == codes.GOING
                continue
            expected = CODE_OF_WINNER[outcome.termination.winner]
            assert ended[game] == expected, (hunt.text(), outcome)
            sign = {codes.PREDATOR_WINS: 1.0, codes.PREY_WINS: -1.0, codes.DRAW: 0.0}[expected]
            assert tuple(rewards[game]) == (sign, -sign)
            endings[outcome.termination.value] = endings.get(outcome.termination.value, 0) + 1
            mirrors[game] = HuntGame(env.variant)
    assert endings  # games ended, and each ending agreed
    if options.get("sideways"):
        assert "repetition" in endings


def test_an_illegal_action_loses_and_observations_match_the_planes():
    env = BatchedHuntEnv("hare-and-hounds", games=4, seed=1, parallel=False)
    masks = env.reset()
    illegal = np.array([int(np.flatnonzero(masks[game] == 0)[0]) for game in range(4)])
    _, rewards, ended = env.step(illegal)
    assert (ended == codes.PREDATOR_WINS).all() and (rewards[:, 0] == 1.0).all()  # the hounds moved first and lost
    hunt = HuntGame(env.variant)
    for role in (Side.PREDATOR, Side.PREY):
        assert np.array_equal(env.observations(role)[2], hunt.observation(role))
