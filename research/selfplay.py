"""Self-play training of the value and policy network (network.py) on the batched environment, with
exact labels where tables hold the positions; the `learned` player's moves; its scores.

One iteration: `steps` actions in each of `games` games of the batched environment, chosen by the
network (masked softmax, sampled with the Gumbel-max trick: one vectorised draw for all games),
then one pass of actor-critic learning over what was played: the value head towards the λ-return
(GAE, the game's result at the end, the value of the next position between), or towards the exact
value where the tables know the position (`labeller`: the standard tables, every position of a
13-geese game); the policy towards actions with a positive advantage for the side that took them.
The bookkeeping is arrays of shape (steps, games): no Python work per game or per step beyond one
call of the environment and one of the network, so the loop keeps most of the environment's speed
(benchmarks/bench_training.py prints both).

The player (`learned:weights=PATH`): every legal move's position after it valued by the network in
one batch (an ending is worth its result); the best for the mover, ties by the seeded rng.
"""

from __future__ import annotations

import ctypes
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from foxgeese.engine import Game, Move, Position, Side, Variant
from foxgeese.engine.sampling import scattered_position
from foxgeese.players.network import Network, features
from foxgeese.research.actions import action_space
from foxgeese.research.batched import BatchedHuntEnv
from foxgeese.research.labels import Labeller


def fresh_network(variant: Variant, rng: np.random.Generator, hidden: int = 128) -> Network:
    """An untrained network over the variant's actions (research/actions.py's enumeration)."""
    space = action_space(variant)
    pairs = np.array([space.pair(a) or (-1, -1) for a in range(space.size)], np.int64)
    return Network.fresh(variant, pairs, rng, hidden)


class Adam:
    """Adam on a network's parameters (its moments belong to it)."""

    def __init__(self, params: dict[str, np.ndarray], rate: float = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999) -> None:
        self.params, self.rate, self.beta1, self.beta2 = params, rate, beta1, beta2
        self.m = {key: np.zeros_like(value) for key, value in params.items()}
        self.v = {key: np.zeros_like(value) for key, value in params.items()}
        self.t = 0

    def step(self, grads: dict[str, np.ndarray], clip: float = 5.0) -> None:
        self.t += 1
        norm = float(np.sqrt(sum(float((g * g).sum()) for g in grads.values())))
        scale = min(1.0, clip / (norm + 1e-12))
        correction = np.sqrt(1 - self.beta2 ** self.t) / (1 - self.beta1 ** self.t)
        for key, grad in grads.items():
            grad = grad * scale
            self.m[key] = self.beta1 * self.m[key] + (1 - self.beta1) * grad
            self.v[key] = self.beta2 * self.v[key] + (1 - self.beta2) * grad * grad
            self.params[key] -= (self.rate * correction * self.m[key] / (np.sqrt(self.v[key]) + 1e-8)).astype(
                np.float32)


class BlasThreads:
    """`with BlasThreads(1):` numpy's OpenBLAS on one thread (restored after). Its threads, on a busy
    machine, cost a batch of 256 positions 100 times the millisecond one thread takes; where the
    library is not numpy's bundled OpenBLAS this does nothing."""

    def __init__(self, count: int = 1) -> None:
        self.count = count
        self.library: Any = None
        self.before = 0

    def __enter__(self) -> BlasThreads:
        folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
        for path in sorted(folder.glob("libscipy_openblas*.so*")):
            try:
                library = ctypes.CDLL(str(path))
                self.before = int(library.scipy_openblas_get_num_threads64_())
                library.scipy_openblas_set_num_threads64_(self.count)
                self.library = library
            except (OSError, AttributeError):
                continue
            break
        return self

    def __exit__(self, *_: object) -> None:
        if self.library is not None:
            self.library.scipy_openblas_set_num_threads64_(self.before)


@dataclass
class TrainConfig:
    """The knobs of `SelfPlay` (defaults: what examples/research/train_network.py uses)."""

    games: int = 256
    steps: int = 32
    rate: float = 1e-3
    entropy: float = 0.01
    lam: float = 0.95
    batch: int = 1024
    labels: int = 512  # positions of each iteration labelled from the tables (with a labeller)
    supervised: int = 4  # minibatches from the labelled set (`SelfPlay(labelled=...)`) after each iteration
    random_side: float = 0.5  # share of games where one side (either, at random) plays random moves
    target: float = 0.9  # value targets are cut to [-target, target]: a saturated tanh learns nothing
    seed: int = 1


@dataclass
class Stats:
    """One iteration's figures."""

    steps: int
    seconds: float
    value_loss: float
    entropy: float
    labelled: int
    games_ended: int
    parts: dict[str, float] = field(default_factory=dict)


class SelfPlay:
    """Trains `network` by self-play in its variant (a batched environment of its own)."""

    def __init__(self, network: Network, config: TrainConfig | None = None, labeller: Labeller | None = None,
                 starts: list[Position] | None = None,
                 labelled: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """`starts`: positions the games start from (each game one of them, drawn again at every
        iteration); default the variant's start. `labelled`: (inputs, the predator's exact values)
        the value also learns from, `supervised` minibatches an iteration (`label_set`)."""
        self.labelled = labelled
        self.network = network
        self.config = config = config or TrainConfig()
        self.env = BatchedHuntEnv(network.variant, games=config.games, seed=config.seed, parallel=False)
        self.rng = np.random.default_rng(config.seed)
        self.starts = starts
        self.env.reset(start=self._draw_starts())
        self.random_seat = np.full(config.games, -1, np.int64)  # per game: the side playing random moves, -1 none
        self._draw_seats(np.ones(config.games, np.bool_))
        self.optimiser = Adam(network.trainable(), config.rate)
        self.labeller = labeller
        self.total_steps = 0

    def _draw_seats(self, which: np.ndarray) -> None:
        """New games (`which`): with probability `random_side` one side, either, plays random moves
        (a weak policy's self-play alone never wins as one side, and then the value learns nothing)."""
        draws = self.rng.random(len(which))
        seat = np.where(draws < self.config.random_side, (draws * 1e6).astype(np.int64) % 2, -1)
        self.random_seat = np.where(which, seat, self.random_seat)

    def _draw_starts(self) -> list[Position] | None:
        if not self.starts:
            return None
        return [self.starts[k] for k in self.rng.integers(0, len(self.starts), self.config.games)]

    def _inputs(self) -> np.ndarray:
        env = self.env
        return features(self.network.points, env.fox, env.prey, env.turn, env.chain, env.quiet, env.stall)

    def sample(self, logits: np.ndarray, legal: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One legal action per row from the softmax of `logits` over the row's legal actions
        (`legal[i, :counts[i]]`), by the Gumbel-max trick; (the actions, their places in `legal`)."""
        width = legal.shape[1]
        valid = np.arange(width) < counts[:, None]
        scores = np.take_along_axis(logits, legal, axis=1)
        noise = -np.log(-np.log(self.rng.random(scores.shape, dtype=np.float32) + 1e-12) + 1e-12)
        place = np.argmax(np.where(valid, scores + noise, -np.inf), axis=1)
        return legal[np.arange(len(legal)), place], place

    def iteration(self) -> Stats:
        """`steps` actions in every game, then one learning pass; returns its figures."""
        config, env, network = self.config, self.env, self.network
        began = time.perf_counter()
        t_count, n = config.steps, config.games
        inputs = np.empty((t_count, n, 2 * network.points + 5), np.float32)
        legal = np.empty((t_count, n, env.legal.shape[1]), np.int64)
        counts = np.empty((t_count, n), np.int64)
        places = np.empty((t_count, n), np.int64)
        values = np.empty((t_count, n), np.float32)
        rewards = np.empty((t_count, n), np.float32)
        done = np.empty((t_count, n), np.bool_)
        turns = np.empty((t_count, n), np.int64)
        learned = np.empty((t_count, n), np.bool_)  # the network chose the action (not a random seat)
        states = np.empty((t_count, 5, n), np.int64)  # fox, prey, quiet, stall, chain: for labels
        spent = {"environment": 0.0, "network": 0.0}
        for t in range(t_count):
            clock = time.perf_counter()
            x = self._inputs()
            value, logits, _ = network.forward(x)
            legal[t], counts[t] = env.legal, env.counts
            chosen, places[t] = self.sample(logits, legal[t], counts[t])
            learned[t] = self.random_seat != env.turn
            if not learned[t].all():
                random_place = (self.rng.random(n) * counts[t]).astype(np.int64)
                places[t] = np.where(learned[t], places[t], random_place)
                chosen = legal[t][np.arange(n), places[t]]
            inputs[t], values[t], turns[t] = x, value, env.turn
            states[t] = env.fox, env.prey, env.quiet, env.stall, env.chain
            spent["network"] += time.perf_counter() - clock
            clock = time.perf_counter()
            _, reward, ended = env.step(chosen)
            spent["environment"] += time.perf_counter() - clock
            rewards[t], done[t] = reward[:, 0], ended != 0
            if done[t].any():
                self._draw_seats(done[t])
        clock = time.perf_counter()
        advantage = np.empty_like(values)
        following = network.value(self._inputs())
        running = np.zeros(n, np.float32)
        for t in range(t_count - 1, -1, -1):  # GAE, the predator's view, one vector per step
            going = 1.0 - done[t]
            delta = rewards[t] + going * following - values[t]
            running = delta + config.lam * going * running
            advantage[t], following = running, values[t]
        targets = np.clip(advantage + values, -config.target, config.target)
        weights = np.ones_like(values)
        labelled = self._label(states, turns, targets, weights) if self.labeller is not None else 0
        spent["bookkeeping"] = time.perf_counter() - clock
        clock = time.perf_counter()
        sign = np.where(turns == 0, 1.0, -1.0).astype(np.float32)
        chosen_by_network = learned.reshape(-1)
        mover_advantage = (advantage * sign).reshape(-1)
        centre = mover_advantage[chosen_by_network].mean() if chosen_by_network.any() else 0.0
        mover_advantage = (mover_advantage - centre) * chosen_by_network
        width = int(counts.max())
        value_loss, entropy = self._learn(inputs.reshape(t_count * n, -1), legal[:, :, :width].reshape(t_count * n, -1),
                                          counts.reshape(-1), places.reshape(-1), targets.reshape(-1),
                                          weights.reshape(-1), mover_advantage)
        if self.labelled is not None and len(self.labelled[0]):
            self._supervise()
        spent["learning"] = time.perf_counter() - clock
        if self.starts:  # the next games start elsewhere (those going on play on)
            self.env.set_start(self._draw_starts())
        self.total_steps += t_count * n
        return Stats(t_count * n, time.perf_counter() - began, value_loss, entropy, labelled, int(done.sum()), spent)

    def _label(self, states: np.ndarray, turns: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> int:
        """Exact values (the predator's) for up to `labels` sampled positions between whole moves."""
        assert self.labeller is not None
        env, variant = self.env, self.network.variant
        grid = env.tables.grid
        candidates = np.argwhere(states[:, 4, :] == 0)
        if len(candidates) == 0:
            return 0
        picked = candidates[self.rng.choice(len(candidates), min(self.config.labels, len(candidates)), replace=False)]
        count = 0
        for t, i in picked:
            fox, prey, quiet, stall = (int(v) for v in states[t, :4, i])
            position = Position(variant, int(grid[fox]), env.tables.grid_mask(prey), Side(int(turns[t, i])), quiet,
                                stall)
            sign = self.labeller.value(position).sign
            if sign is None:
                continue
            targets[t, i] = self.config.target * (sign if turns[t, i] == 0 else -sign)
            weights[t, i] = 4.0
            count += 1
        return count

    def _supervise(self) -> None:
        """`supervised` minibatches of the labelled set: the value towards the exact values."""
        assert self.labelled is not None
        inputs, values = self.labelled
        actions = self.network.params["bp"].shape[0]
        for _ in range(self.config.supervised):
            rows = self.rng.integers(0, len(inputs), min(self.config.batch, len(inputs)))
            value, _, cache = self.network.forward(inputs[rows])
            d_value = (4.0 * (value - values[rows]) / len(rows)).astype(np.float32)
            self.optimiser.step(self.network.backward(cache, d_value, np.zeros((len(rows), actions), np.float32)))

    def _learn(self, inputs: np.ndarray, legal: np.ndarray, counts: np.ndarray, places: np.ndarray,
               targets: np.ndarray, weights: np.ndarray, advantage: np.ndarray) -> tuple[float, float]:
        """One pass in shuffled minibatches; (mean value loss, mean policy entropy). The policy's
        softmax runs over each row's legal actions only (`legal[i, :counts[i]]`)."""
        network, config = self.network, self.config
        order = self.rng.permutation(len(inputs))
        actions = network.params["bp"].shape[0]
        losses, entropies = [], []
        for start in range(0, len(order), config.batch):
            rows = order[start:start + config.batch]
            size = len(rows)
            value, logits, cache = network.forward(inputs[rows])
            valid = np.arange(legal.shape[1]) < counts[rows][:, None]
            index = np.where(valid, legal[rows], actions)  # padding: a spare column, dropped below
            scores = np.take_along_axis(logits, np.minimum(index, actions - 1), axis=1)
            scores = np.where(valid, scores, -np.inf)
            scores -= scores.max(axis=1, keepdims=True)
            exp = np.where(valid, np.exp(scores), 0.0)
            probs = exp / exp.sum(axis=1, keepdims=True)
            logp = np.where(valid, np.log(np.maximum(probs, 1e-12)), 0.0)
            entropy = -(probs * logp).sum(axis=1)
            error = value - targets[rows]
            d_value = weights[rows] * error / size
            chosen = np.zeros_like(probs)
            chosen[np.arange(size), places[rows]] = 1.0
            d_scores = -(advantage[rows][:, None] * (chosen - probs)) / size
            d_scores += config.entropy * probs * (logp + entropy[:, None]) / size
            d_logits = np.zeros((size, actions + 1), np.float32)
            np.put_along_axis(d_logits, index, np.where(valid, d_scores, 0.0).astype(np.float32), axis=1)
            grads = network.backward(cache, d_value.astype(np.float32), d_logits[:, :actions])
            self.optimiser.step(grads)
            losses.append(float((error * error).mean()))
            entropies.append(float(entropy.mean()))
        return float(np.mean(losses)), float(np.mean(entropies))


# -- the player's moves ------------------------------------------------------------------------------

def child_scores(network: Network, games: list[Game]) -> list[tuple[list[Move], np.ndarray]]:
    """For each game, its legal moves and what each is worth to the mover (an ending: its result;
    otherwise the network's value of the position after), all positions in one batch."""
    moves_of, pending, slots, exact = [], [], [], []
    for index, game in enumerate(games):
        mover = game.position.turn
        moves = game.legal_moves()
        scores = np.zeros(len(moves), np.float32)
        for k, move in enumerate(moves):
            game.push(move)
            ended = game.outcome()
            if ended is not None:
                side = ended.termination.winner
                scores[k] = 0.0 if side is None else 1.0 if side == mover else -1.0
            else:
                pending.append(game.position)
                slots.append((index, k))
            game.pop()
        moves_of.append(moves)
        exact.append(scores)
    values = network.position_values(pending)
    for (index, k), value in zip(slots, values):
        mover = games[index].position.turn
        exact[index][k] = value if mover == Side.PREDATOR else -value
    return list(zip(moves_of, exact))


def best_moves(network: Network, games: list[Game], rng: random.Random) -> list[Move]:
    """The network's move in each game (its best for the mover; ties by `rng`)."""
    out = []
    for moves, scores in child_scores(network, games):
        top = float(scores.max())
        out.append(rng.choice([move for move, score in zip(moves, scores) if score >= top - 1e-6]))
    return out


def score_against_random(network: Network, games: int, seed: int, max_plies: int = 400) -> dict[str, float]:
    """The network's score (win 1, draw 0.5) against uniformly random moves, as each side, `games`
    games a side played side by side (one network call per ply for all of them)."""
    rng = random.Random(seed)
    out = {}
    for side in (Side.PREDATOR, Side.PREY):
        boards = [Game(network.variant) for _ in range(games)]
        for _ in range(max_plies):
            live = [g for g in boards if g.outcome() is None]
            if not live:
                break
            mine = [g for g in live if g.position.turn == side]
            for game in live:
                if game.position.turn != side:
                    game.push(rng.choice(game.legal_moves()))
            for game, move in zip(mine, best_moves(network, mine, rng)):
                game.push(move)
        total = 0.0
        for game in boards:
            ended = game.outcome()
            winner = None if ended is None else ended.termination.winner
            total += 0.5 if winner is None else 1.0 if winner == side else 0.0
        out[network.variant.side_name(side)] = total / games
    return out


# -- decisions against perfect play ----------------------------------------------------------------

@dataclass(frozen=True)
class Decision:
    """A position where some move loses value, with the moves that keep it (their texts)."""

    position: Position
    keeping: frozenset[str]


def walk(variant: Variant, plies: int, rng: random.Random, labeller: Labeller | None, keep: float = 0.8) -> Game:
    """A game of `plies` plies from the start (fewer if it ends) near good play: with probability
    `keep` a side plays a random move among those that keep its exact value (where the tables know)
    and, for the prey, leave the predator no capture; else any random move. Its positions are ones
    where a move can still throw the value away (uniformly random games reach almost only positions
    where every move keeps it: the geese scatter and the fox wins whatever it does)."""
    game = Game(variant)
    for _ in range(plies):
        if game.outcome() is not None:
            break
        moves = game.legal_moves()
        if rng.random() < keep:
            position = game.position
            if position.turn == Side.PREY and variant.captures:
                safe = [move for move in moves if not any(m.is_capture for m in position.play(move).legal_moves())]
                moves = safe or moves
            if labeller is not None:
                kept = [move for move in moves if labeller.keeps_value(position, move)]
                moves = kept or moves
        game.push(rng.choice(moves))
    return game


def decisions(variant: Variant, count: int, seed: int, labeller: Labeller, geese: range | None = None,
              tries: int = 40, plies: int = 80, seconds: float | None = None) -> list[Decision]:
    """Up to `count` fixed decisions (seeded): the labelled, unfinished positions of `walk`s (with a
    number of geese in `geese`) where some legal move throws the exact value away, at most 8 a
    walk; each with the moves that keep it. `seconds`: stop looking after that much CPU time (the
    set then depends on the machine's speed, not only on the seed)."""
    rng = random.Random(seed)
    found: dict[int, Decision] = {}
    began = time.process_time()
    for _ in range(max(1, count * tries // 20)):
        if len(found) >= count or seconds is not None and time.process_time() - began > seconds:
            break
        game = walk(variant, plies, rng, labeller)
        replay, positions = Game(variant), []
        for move in game.moves:
            positions.append(replay.position)
            replay.push(move)
        rng.shuffle(positions)
        taken = 0
        for position in positions:
            if len(found) >= count or taken >= 8:
                break
            taken += _judge(position, labeller, geese, found)
    return list(found.values())


def scattered_decisions(variant: Variant, count: int, seed: int, labeller: Labeller, geese: range,
                        seconds: float | None = None) -> list[Decision]:
    """Up to `count` fixed decisions per number of geese in `geese` among uniformly scattered
    positions (engine.sampling: any side to move, the pieces anywhere), seeded; `seconds` of CPU at
    most per number of geese. Where play rarely reaches a losing alternative (below 13 geese in
    standard the fox has won whatever it does), this finds the positions that have one."""
    rng = random.Random(seed)
    out: list[Decision] = []
    for prey in geese:
        found: dict[int, Decision] = {}
        began = time.process_time()
        for _ in range(count * 2000):
            if len(found) >= count or seconds is not None and time.process_time() - began > seconds:
                break
            _judge(scattered_position(variant, rng, prey_count=prey), labeller, None, found)
        out.extend(found.values())
    return out


def label_set(network: Network, labeller: Labeller, chosen: list[Decision],
              target: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, the predator's exact values, cut to `target`) of the decisions' positions and of every
    unfinished position one move after them: both sides of each losing alternative, where a value
    must tell them apart."""
    positions: list[Position] = []
    values: list[float] = []
    for decision in chosen:
        for position in [decision.position] + [decision.position.play(m) for m in decision.position.legal_moves()]:
            if position.outcome() is not None:
                continue
            sign = labeller.value(position).sign
            if sign is not None:
                positions.append(position)
                values.append(target * (sign if position.turn == Side.PREDATOR else -sign))
    if not positions:
        return np.zeros((0, 2 * network.points + 5), np.float32), np.zeros(0, np.float32)
    return features(network.points, *network.dense_arrays(positions)), np.array(values, np.float32)


def _judge(position: Position, labeller: Labeller, geese: range | None, found: dict[int, Decision]) -> int:
    """Adds `position` to `found` if it is a decision (1), else 0."""
    if position.outcome() is not None or (geese is not None and position.prey.bit_count() not in geese):
        return 0
    if position.key() in found or not labeller.value(position).known:
        return 0
    kept = {str(move): labeller.keeps_value(position, move) for move in position.legal_moves()}
    if None in kept.values() or all(kept.values()):
        return 0
    found[position.key()] = Decision(position, frozenset(text for text, keeps in kept.items() if keeps))
    return 1


def start_pool(variant: Variant, count: int, seed: int, labeller: Labeller | None, plies: int = 60) -> list[Position]:
    """`count` training starts: positions of `walk`s (the start itself where no tables label them),
    with the ply counter of the walk."""
    rng = random.Random(seed)
    pool: list[Position] = []
    while len(pool) < count:
        game = walk(variant, rng.randrange(0, plies), rng, labeller)
        if game.outcome() is None:
            pool.append(game.position)
    return pool


def network_accuracy(network: Network, chosen: list[Decision], seed: int = 1) -> float:
    """Share of the decisions where the network's move keeps the exact value."""
    if not chosen:
        return float("nan")
    moves = best_moves(network, [Game.from_position(d.position) for d in chosen], random.Random(seed))
    return sum(str(move) in d.keeping for move, d in zip(moves, chosen)) / len(chosen)


def train(network: Network, seconds: float, *, config: TrainConfig | None = None, labeller: Labeller | None = None,
          starts: list[Position] | None = None, labelled: tuple[np.ndarray, np.ndarray] | None = None,
          every: float = 60.0,
          report: Callable[[dict[str, Any]], None] | None = None,
          probe: Callable[[Network], dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Self-play for `seconds` of wall time; every `every` seconds (and at both ends) a curve point:
    steps so far, the loop's steps/s, value loss, entropy, plus what `probe(network)` measures."""
    trainer = SelfPlay(network, config, labeller, starts, labelled)
    curve: list[dict[str, Any]] = []
    began = time.perf_counter()
    last_report, window_steps, window_time, loss, entropy = -1e9, 0, 0.0, float("nan"), float("nan")

    def point() -> None:
        row: dict[str, Any] = {"steps": trainer.total_steps, "seconds": round(time.perf_counter() - began, 1),
                               "steps_per_s": round(window_steps / window_time) if window_time else 0,
                               "value_loss": round(loss, 4), "entropy": round(entropy, 3)}
        if probe is not None:
            row.update(probe(network))
        curve.append(row)
        if report is not None:
            report(row)

    point()
    last_report = time.perf_counter()
    while time.perf_counter() - began < seconds:
        with BlasThreads(1):
            stats = trainer.iteration()
        window_steps += stats.steps
        window_time += stats.seconds
        loss, entropy = stats.value_loss, stats.entropy
        if time.perf_counter() - last_report >= every:
            point()
            last_report, window_steps, window_time = time.perf_counter(), 0, 0.0
    point()
    return curve
