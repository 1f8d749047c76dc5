"""The learned player: a tiny training run whose accuracy against perfect play rises, its weights
saved, and one game played as the SPEC `learned:weights=PATH` through the real referee."""

from __future__ import annotations

import pytest

from foxgeese.engine import Side, get_variant
from foxgeese.players.registry import PlayerSpecError, make_player
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee
from foxgeese.research.learn import ValueTable, learning_curve

HARE = get_variant("hare-and-hounds")


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    table, curve = learning_curve(HARE, 600, 300, eval_count=80)
    assert [episodes for episodes, _ in curve] == [0, 300, 600]
    assert curve[-1][1] > curve[0][1]  # it learns: more of its moves keep the exact value
    path = tmp_path_factory.mktemp("learned") / "hare.npz"
    table.save(path)
    return path, table


def test_weights_round_trip(weights):
    path, table = weights
    loaded = ValueTable.load(path)
    assert loaded.variant is HARE and loaded.values.keys() == table.values.keys()


def test_learned_plays_a_game_through_the_referee(weights, short_tmp):
    path, _ = weights
    seats = {Side.PREDATOR: BotConfig.from_spec(f"learned:weights={path}"), Side.PREY: BotConfig.from_spec("random")}
    with Referee(log_dir=short_tmp) as referee:
        record = referee.play_game(HARE, seats, "move=10", seed=5)
    assert record.winner in ("hare", "hounds") and record.termination in ("escaped", "stalling", "trapped",
                                                                          "immobilized")


def test_learned_spec_mistakes_are_named(weights, tmp_path):
    with pytest.raises(PlayerSpecError, match="weights"):
        make_player("learned")
    with pytest.raises(PlayerSpecError, match="cannot read weights"):
        make_player(f"learned:weights={tmp_path / 'missing.npz'}")
    player = make_player(f"learned:weights={weights[0]}")
    with pytest.raises(ValueError, match="these weights are for hare-and-hounds"):
        player.new_game(get_variant("standard"), Side.PREDATOR)
