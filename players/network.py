"""A small value and policy network in numpy alone (no network library): what the `learned` player
plays by and the compiled `mcts` searches with (`mcts:evaluator=learned,weights=PATH`). Training is
research/selfplay.py's; this module only reads weights and evaluates positions (players sit below
research, so the action enumeration a network's logits follow is stored in its file).

Why numpy: the network is small (two hidden layers of 128) and its inputs are a few dozen bits, so
a hand-written forward and backward pass costs about a millisecond for a batch of 256 positions on
one core, less than a framework's own overhead; and it adds no dependency (PyTorch's PyPI wheel
brings several GB of GPU libraries, and CI installs everything the tests need).

Input (one row a position, on the compiled core's dense points, as the batched environment and the
compiled searches hold them): the fox's point (one-hot), the prey's points (bits), the side to move,
the open capture chain, the fifty-move counter / 100, the stall counter / 10, a bias. Outputs:
`value`, the predator's (fox's, hare's) expected result in [-1, 1] whoever is to move (tanh), and
`logits` over the variant's actions (actions.py: a step, one jump, STOP), masked by the caller.

A weights file (`.npz`) holds one network per variant it was trained for: `format`, and for each
variant `NAME/W1`, `NAME/b1`, ... with `NAME/variant` its id and options (NAME is the variant's
text, e.g. `standard geese=13,sideways=0`) and `NAME/actions`, the (from, to) grid points of each
action (-1, -1 for STOP): research/actions.py's enumeration.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from foxgeese.engine import Position, Side, Variant, get_variant
from foxgeese.files import atomic_write
from foxgeese.players.compiled.tables import core_tables, dense_points

FORMAT = "foxgeese-network-1"
LAYERS = ("W1", "b1", "W2", "b2", "Wv", "bv", "Wp", "bp", "actions")
EXTRA = 5  # turn, chain, quiet, stall, bias


def variant_name(variant: Variant) -> str:
    """The key of a variant in a weights file (its id and options)."""
    options = ",".join(f"{key}={int(value) if isinstance(value, bool) else value}"
                       for key, value in sorted(variant.option_dict.items()))
    return f"{variant.id} {options}".strip()


def features(points: int, fox: np.ndarray, prey: np.ndarray, turn: np.ndarray, chain: np.ndarray,
             quiet: np.ndarray, stall: np.ndarray) -> np.ndarray:
    """(N, 2 * points + 5) float32 inputs from the dense-point arrays of N positions."""
    n = len(fox)
    out = np.zeros((n, 2 * points + EXTRA), np.float32)
    out[np.arange(n), np.asarray(fox, np.int64)] = 1.0
    bits = (np.asarray(prey, np.int64)[:, None] >> np.arange(points, dtype=np.int64)) & 1
    out[:, points:2 * points] = bits
    out[:, 2 * points] = turn
    out[:, 2 * points + 1] = chain
    out[:, 2 * points + 2] = np.minimum(quiet, 100) / 100.0
    out[:, 2 * points + 3] = np.minimum(stall, 10) / 10.0
    out[:, 2 * points + 4] = 1.0
    return out


class Network:
    """One variant's MLP: inputs -> 128 -> 128 (ReLU) -> value (tanh) and action logits.

    `params`: the layers, and `actions` (int64 [actions, 2]): each logit's (from, to) grid points."""

    def __init__(self, variant: Variant, params: dict[str, np.ndarray]) -> None:
        self.variant, self.params = variant, params
        self.grid = dense_points(self.variant)  # dense point -> grid point
        self.dense = {g: d for d, g in enumerate(self.grid)}
        self.points = len(self.grid)

    @classmethod
    def fresh(cls, variant: Variant, actions: np.ndarray, rng: np.random.Generator, hidden: int = 128) -> Network:
        """Random weights (He initialisation; small heads) for `actions`, the (from, to) of each action."""
        inputs = 2 * len(dense_points(variant)) + EXTRA

        def layer(rows: int, columns: int) -> np.ndarray:
            return (rng.standard_normal((rows, columns)) * np.sqrt(2.0 / rows)).astype(np.float32)

        size = len(actions)
        params = {"W1": layer(inputs, hidden), "b1": np.zeros(hidden, np.float32),
                  "W2": layer(hidden, hidden), "b2": np.zeros(hidden, np.float32),
                  "Wv": layer(hidden, 1) * 0.1, "bv": np.zeros(1, np.float32),
                  "Wp": layer(hidden, size) * 0.1, "bp": np.zeros(size, np.float32),
                  "actions": np.asarray(actions, np.int64)}
        return cls(variant, params)

    def trainable(self) -> dict[str, np.ndarray]:
        """The layers (not the action table)."""
        return {key: value for key, value in self.params.items() if key != "actions"}

    # -- forward and backward ----------------------------------------------------------------------

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
        """(value (N,), logits (N, actions), what `backward` needs)."""
        p = self.params
        h1 = np.maximum(x @ p["W1"] + p["b1"], 0.0)
        h2 = np.maximum(h1 @ p["W2"] + p["b2"], 0.0)
        value = np.tanh(h2 @ p["Wv"] + p["bv"])[:, 0]
        logits = h2 @ p["Wp"] + p["bp"]
        return value, logits, (x, h1, h2, value)

    def value(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        h1 = np.maximum(x @ p["W1"] + p["b1"], 0.0)
        h2 = np.maximum(h1 @ p["W2"] + p["b2"], 0.0)
        return np.tanh(h2 @ p["Wv"] + p["bv"])[:, 0]

    def backward(self, cache: tuple[np.ndarray, ...], d_value: np.ndarray,
                 d_logits: np.ndarray) -> dict[str, np.ndarray]:
        """Gradients of the loss given its gradients with respect to the value and the logits."""
        x, h1, h2, value = cache
        p = self.params
        d_pre_v = (d_value * (1.0 - value * value))[:, None].astype(np.float32)
        grads = {"Wv": h2.T @ d_pre_v, "bv": d_pre_v.sum(0), "Wp": h2.T @ d_logits, "bp": d_logits.sum(0)}
        d_h2 = (d_pre_v @ p["Wv"].T + d_logits @ p["Wp"].T) * (h2 > 0)
        grads["W2"], grads["b2"] = h1.T @ d_h2, d_h2.sum(0)
        d_h1 = (d_h2 @ p["W2"].T) * (h1 > 0)
        grads["W1"], grads["b1"] = x.T @ d_h1, d_h1.sum(0)
        return grads

    # -- engine positions ----------------------------------------------------------------------------

    def dense_arrays(self, positions: list[Position]) -> tuple[np.ndarray, ...]:
        """The dense-point arrays (fox, prey, turn, chain, quiet, stall) of engine positions."""
        fox = np.array([self.dense[p.predator] for p in positions], np.int64)
        prey = np.array([sum(1 << d for d, g in enumerate(self.grid) if p.prey >> g & 1) for p in positions],
                        np.int64)
        turn = np.array([int(p.turn) for p in positions], np.int64)
        quiet = np.array([p.quiet for p in positions], np.int64)
        stall = np.array([p.stall for p in positions], np.int64)
        return fox, prey, turn, np.zeros(len(positions), np.int64), quiet, stall

    def position_values(self, positions: list[Position]) -> np.ndarray:
        """The predator's expected result in [-1, 1] in each position (no ending checked)."""
        if not positions:
            return np.zeros(0, np.float32)
        return self.value(features(self.points, *self.dense_arrays(positions)))


class Weights:
    """The networks of a weights file, one per variant."""

    def __init__(self, networks: dict[str, Network]) -> None:
        self.networks = networks

    def for_variant(self, variant: Variant) -> Network:
        try:
            return self.networks[variant_name(variant)]
        except KeyError:
            raise ValueError(f"these weights are for {', '.join(self.networks)}, not {variant_name(variant)}") from None

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {"format": np.array(FORMAT)}
        for name, network in self.networks.items():
            arrays[f"{name}/variant"] = np.array(json.dumps({"variant": network.variant.id,
                                                             "options": network.variant.option_dict}))
            for key in LAYERS:
                arrays[f"{name}/{key}"] = network.params[key]
        with atomic_write(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> Weights:
        with np.load(Path(path)) as data:
            if "format" not in data.files or str(data["format"]) != FORMAT:
                raise ValueError(f"{path} is not a network weights file ({FORMAT})")
            networks = {}
            for key in data.files:
                if key.endswith("/variant"):
                    name = key.removesuffix("/variant")
                    described = json.loads(str(data[key]))
                    variant = get_variant(described["variant"], **described["options"])
                    params = {layer: np.asarray(data[f"{name}/{layer}"], np.float32) for layer in LAYERS[:-1]}
                    params["actions"] = np.asarray(data[f"{name}/actions"], np.int64)
                    networks[name] = Network(variant, params)
        if not networks:
            raise ValueError(f"{path} holds no network")
        return cls(networks)


def is_network_file(path: str | Path) -> bool:
    """Whether `path` is a network weights file (else, e.g., learn.py's value table)."""
    try:
        with np.load(Path(path)) as data:
            return "format" in data.files and str(data["format"]) == FORMAT
    except (OSError, ValueError):
        return False


def mover_value(value: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """The predator's value seen by the side to move (turn 0 predator, 1 prey)."""
    return np.where(np.asarray(turn) == int(Side.PREDATOR), value, -value)


class NetworkEvaluator:
    """A weights file's networks as a leaf evaluator of the compiled MCTS (players/compiled: an object
    with `values(leaves)` and `priors(parents, children, offsets)` over batches of positions on dense
    points, attributes `variant`, `fox`, `prey`, `turn`, `quiet`, `stall`)."""

    def __init__(self, weights: str | Path | Weights) -> None:
        self.weights = weights if isinstance(weights, Weights) else Weights.load(weights)
        self._actions: dict[str, np.ndarray] = {}  # per variant: action_of[from, to] on dense points
        self._jumps: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def _inputs(self, leaves: Any) -> tuple[Network, np.ndarray]:
        network = self.weights.for_variant(leaves.variant)
        n = len(leaves.fox)
        x = features(network.points, leaves.fox, leaves.prey, leaves.turn, np.zeros(n, np.int64), leaves.quiet,
                     leaves.stall)
        return network, x

    def values(self, leaves: Any) -> np.ndarray:
        """The predator's expected result in [0, 1] in each position."""
        network, x = self._inputs(leaves)
        return ((network.value(x) + 1.0) / 2.0).astype(np.float64)

    def priors(self, parents: Any, children: Any, offsets: np.ndarray) -> np.ndarray:
        """Each child's weight: the policy's probability of the move's first action (a step, or the
        first jump of a chain; chains that begin alike share it)."""
        network, x = self._inputs(parents)
        _, logits, _ = network.forward(x)
        action_of, (jump_over, jump_land) = self._tables(network)
        out = np.zeros(len(children.fox), np.float64)
        for i in range(len(parents.fox)):
            row = logits[i] - logits[i].max()
            fox, prey = int(parents.fox[i]), int(parents.prey[i])
            for k in range(int(offsets[i]), int(offsets[i + 1])):
                child_fox, child_prey = int(children.fox[k]), int(children.prey[k])
                if int(parents.turn[i]) == int(Side.PREY):
                    frm, to = (prey & ~child_prey).bit_length() - 1, (child_prey & ~prey).bit_length() - 1
                else:
                    taken, frm, to = prey & ~child_prey, fox, child_fox
                    if taken:
                        to = next((int(land) for over, land in zip(jump_over[fox], jump_land[fox])
                                   if over >= 0 and taken >> int(over) & 1), child_fox)
                action = int(action_of[frm, to]) if frm >= 0 and to >= 0 else -1
                out[k] = float(np.exp(row[action])) if action >= 0 else 1e-6
        return out

    def _tables(self, network: Network) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        name = variant_name(network.variant)
        if name not in self._actions:
            action_of = np.full((network.points, network.points), -1, np.int64)
            for action, (frm, to) in enumerate(network.params["actions"].tolist()):
                if frm >= 0:
                    action_of[network.dense[frm], network.dense[to]] = action
            core = core_tables(network.variant)
            self._actions[name] = action_of
            self._jumps[name] = (core.jump_over, core.jump_land)
        return self._actions[name], self._jumps[name]
