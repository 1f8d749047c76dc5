"""The learned player's networks (players/network.py) and their self-play training (research/selfplay.py):
the hand-written gradients against finite differences, a tiny training run whose accuracy against
perfect play rises, the weights saved and played as `learned:weights=PATH` in standard and the great
cross through the real referee, and as the compiled MCTS's evaluator."""

from __future__ import annotations

import numpy as np
import pytest

from foxgeese.engine import Game, Side, get_variant
from foxgeese.players.network import NetworkEvaluator, Weights, features, is_network_file, variant_name
from foxgeese.players.registry import PlayerSpecError, make_player
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee
from foxgeese.research.labels import Labeller
from foxgeese.research.selfplay import (
    BlasThreads,
    SelfPlay,
    TrainConfig,
    decisions,
    fresh_network,
    network_accuracy,
    start_pool,
)

HARE = get_variant("hare-and-hounds")
STANDARD = get_variant("standard")
CROSS = get_variant("great-cross")


def test_the_gradients_are_the_loss_s_own():
    """backward() against central differences of 0.5*value^2 + sum(logits * g) on random inputs."""
    network = fresh_network(HARE, np.random.default_rng(3), hidden=8)
    rng = np.random.default_rng(4)
    x = rng.random((5, 2 * network.points + 5)).astype(np.float32)
    g = rng.standard_normal((5, network.params["bp"].shape[0])).astype(np.float32)

    def loss() -> float:
        value, logits, _ = network.forward(x)
        return float(0.5 * (value.astype(np.float64) ** 2).sum() + (logits.astype(np.float64) * g).sum())

    value, _, cache = network.forward(x)
    grads = network.backward(cache, value, g)
    for key in ("W1", "b2", "Wv", "Wp"):
        flat = network.params[key].reshape(-1)
        for index in rng.choice(flat.size, 4, replace=False):
            old = float(flat[index])
            flat[index] = old + 1e-2
            up = loss()
            flat[index] = old - 1e-2
            down = loss()
            flat[index] = old
            numeric = (up - down) / 2e-2
            assert abs(numeric - grads[key].reshape(-1)[index]) < 2e-2 + 0.05 * abs(numeric), key


def test_features_are_the_dense_points_and_counters():
    network = fresh_network(STANDARD, np.random.default_rng(1))
    start = STANDARD.start_position()
    x = features(network.points, *network.dense_arrays([start]))
    assert x.shape == (1, 2 * 33 + 5)
    assert x[0, :33].sum() == 1 and x[0, network.dense[start.predator]] == 1
    assert x[0, 33:66].sum() == 13 and x[0, 66] == int(start.turn) and x[0, -1] == 1


def test_a_tiny_training_run_learns_hare_and_hounds():
    """40 iterations of 64 games x 16 actions (about 41,000 steps, seconds): more of its moves keep
    the exact value on fixed decisions it never trained on, and it beats the untrained network."""
    labeller = Labeller()
    judged = decisions(HARE, 60, 5, labeller)
    network = fresh_network(HARE, np.random.default_rng(1))
    before = network_accuracy(network, judged)
    trainer = SelfPlay(network, TrainConfig(games=64, steps=16, labels=256, rate=3e-3), labeller,
                       start_pool(HARE, 200, 9, labeller))
    with BlasThreads(1):
        for _ in range(40):
            stats = trainer.iteration()
    after = network_accuracy(network, judged)
    assert len(judged) == 60 and stats.labelled > 0
    assert after >= before + 0.15, (before, after)


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    """Networks for standard and the great cross, a few iterations trained (self-play alone), saved."""
    networks = {}
    for variant in (STANDARD, CROSS):
        network = fresh_network(variant, np.random.default_rng(2))
        trainer = SelfPlay(network, TrainConfig(games=32, steps=8))
        with BlasThreads(1):
            for _ in range(2):
                trainer.iteration()
        networks[variant_name(variant)] = network
    path = tmp_path_factory.mktemp("network") / "learned.npz"
    Weights(networks).save(path)
    return path, networks


def test_weights_round_trip(weights):
    path, networks = weights
    assert is_network_file(path)
    loaded = Weights.load(path)
    assert set(loaded.networks) == {"standard geese=13,sideways=0", "great-cross"}
    for name, network in networks.items():
        for key, value in network.params.items():
            assert np.array_equal(loaded.networks[name].params[key], value)
    assert loaded.for_variant(CROSS).variant is CROSS


@pytest.mark.parametrize("variant", [STANDARD, CROSS], ids=["standard", "great-cross"])
def test_learned_weights_play_legal_games_through_the_referee(weights, short_tmp, variant):
    path, _ = weights
    for side in (Side.PREDATOR, Side.PREY):
        seats = {side: BotConfig.from_spec(f"learned:weights={path},seed=3"),
                 side.other: BotConfig.from_spec("random:seed=4")}
        with Referee(log_dir=short_tmp) as referee:
            record = referee.play_game(variant, seats, "move=10", seed=5, max_plies=60)
        assert record.termination not in ("illegal-move", "crash", "protocol-error", "time-forfeit", "no-show")
        game = Game(variant)
        for move in record.moves:
            game.push(game.parse_move(move.move))  # every move legal by the engine too
        assert len(record.moves) > 4


def test_learned_spec_mistakes_are_named(weights):
    path, _ = weights
    player = make_player(f"learned:weights={path}")
    with pytest.raises(ValueError, match="these weights are for standard geese=13,sideways=0, great-cross"):
        player.new_game(HARE, Side.PREDATOR)
    with pytest.raises(PlayerSpecError, match="cannot read weights"):
        make_player(f"learned:weights={path.parent / 'missing.npz'}")


def test_the_network_is_an_evaluator_of_the_compiled_mcts(weights):
    path, networks = weights
    evaluator = NetworkEvaluator(path)
    player = make_player(f"mcts:evaluator=learned,weights={path},playouts=64,seed=1")
    for variant in (STANDARD, CROSS):
        player.new_game(variant, Side.PREDATOR, seed=1)
        game = Game(variant)
        choice = player.choose(game, None)
        assert choice.move in game.legal_moves() and choice.info["playouts"] == 64
    board = networks["great-cross"]
    start = CROSS.start_position()
    children = [start.play(move) for move in start.legal_moves()]

    class Batch:  # the LeafBatch fields the evaluator reads
        def __init__(self, positions):
            self.variant = CROSS
            self.fox, self.prey, self.turn, _, self.quiet, self.stall = board.dense_arrays(positions)

    values = evaluator.values(Batch(children))
    assert values.shape == (len(children),) and ((0 <= values) & (values <= 1)).all()
    priors = evaluator.priors(Batch([start]), Batch(children), np.array([0, len(children)]))
    assert (priors > 0).all() and len(set(np.round(priors, 9))) > 1  # the policy tells the moves apart
