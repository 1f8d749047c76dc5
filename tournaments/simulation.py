"""Simulated twin pairs from a known truth, to check pairs.py's intervals and SPRT (numpy, vectorized).

The model: player A is `elo` Elo stronger than B; each opening gives the predator an advantage
drawn around `role` with spread `opening_spread` (Elo, normal), the same in both games of its
pair, which is what makes a pair's games correlated; a game is drawn with probability `draws`
(less where the expectation leaves no room), with the win and loss chances set so that the
predator's expected score is the logistic one. A's pair score is its mean over the pair's games.

The truths the estimates aim at are expectations over openings: A's pair score
(σ(D + a) + σ(D − a)) / 2 and the predator's (σ(a + D) + σ(a − D)) / 2, a the opening's role
advantage, σ the logistic Elo curve (`truth`). benchmarks/bench_pairs.py prints the observed
coverage and error rates beside the nominal ones; tests/test_pairs.py checks them at small scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from foxgeese.tournaments.pairs import REGULARIZE, SCORES, VIRTUAL, Z95, elo_of, score_of

SCORE_ARRAY = np.array(SCORES)


@dataclass(frozen=True)
class Truth:
    elo: float  # D: A's strength minus B's
    role: float  # the predator's mean advantage, Elo
    opening_spread: float  # standard deviation of an opening's role advantage, Elo
    draws: float  # draw probability where the expectation allows it


def _logistic(elo: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _game(expected: np.ndarray, draws: float, rng: np.random.Generator) -> np.ndarray:
    """Scores (1, 0.5, 0) of games with the given expected scores."""
    draw = np.minimum(draws, 2 * np.minimum(expected, 1 - expected))
    win = expected - draw / 2
    u = rng.random(expected.shape)
    return np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))


def simulate_games(truth: Truth, shape: tuple[int, ...], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A's score in each game of each pair: as the predator, then as the prey (same opening)."""
    advantage = truth.role + truth.opening_spread * rng.standard_normal(shape)
    a_as_predator = _game(_logistic(truth.elo + advantage), truth.draws, rng)
    b_as_predator = _game(_logistic(-truth.elo + advantage), truth.draws, rng)
    return a_as_predator, 1 - b_as_predator


def simulate_pairs(truth: Truth, shape: tuple[int, ...], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A's pair scores and the predator's pair scores (each 0, .25, .5, .75 or 1), of the given shape."""
    first, second = simulate_games(truth, shape, rng)
    return (first + second) / 2, (first + 1 - second) / 2


def truth_scores(truth: Truth, samples: int = 400_000, seed: int = 12345) -> tuple[float, float]:
    """The expected pair score of A and of the predator (Gauss–Hermite would do; this is exact enough:
    a standard error below 0.1 Elo)."""
    rng = np.random.default_rng(seed)
    advantage = truth.role + truth.opening_spread * rng.standard_normal(samples)
    a_first = _logistic(truth.elo + advantage)
    b_first = _logistic(-truth.elo + advantage)
    return float(np.mean((a_first + 1 - b_first) / 2)), float(np.mean((a_first + b_first) / 2))


def elo_for_pair_score(target_elo: float, truth: Truth) -> float:
    """The strength difference D whose expected pair score is `target_elo`'s (bisection)."""
    low, high = target_elo - 400.0, target_elo + 400.0
    for _ in range(40):
        middle = (low + high) / 2
        score, _ = truth_scores(Truth(middle, truth.role, truth.opening_spread, truth.draws), samples=100_000)
        if score < score_of(target_elo):
            low = middle
        else:
            high = middle
    return (low + high) / 2


def counts_of_scores(pair_scores: np.ndarray) -> np.ndarray:
    """Pentanomial counts along the last axis: (..., N) pair scores -> (..., 5)."""
    cells = np.rint(pair_scores * 4).astype(int)
    return np.stack([(cells == k).sum(axis=-1) for k in range(5)], axis=-1)


def intervals(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """pairs.estimate's 95% interval of the mean pair score, for many count rows at once."""
    pairs = counts.sum(axis=-1)
    mean = (counts * SCORE_ARRAY).sum(axis=-1) / pairs
    weights = counts + np.array(VIRTUAL)
    variance = (weights * (SCORE_ARRAY - mean[..., None]) ** 2).sum(axis=-1) / weights.sum(axis=-1)
    error = np.sqrt(variance / pairs)
    return mean - Z95 * error, mean + Z95 * error


def naive_intervals(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The interval if the 2N games were independent (trinomial): what pairing corrects."""
    games = np.concatenate([first, second], axis=-1)
    mean = games.mean(axis=-1)
    error = np.sqrt(games.var(axis=-1) / games.shape[-1])
    return mean - Z95 * error, mean + Z95 * error


def llr_many(counts: np.ndarray, elo0: float, elo1: float) -> np.ndarray:
    """pairs.gsprt's LLR for many count rows at once (bisection on every row together)."""
    weights = np.where(counts > 0, counts, REGULARIZE).astype(float)
    total = weights.sum(axis=-1)
    observed = weights / total[..., None]
    q0 = _nearest_many(observed, score_of(elo0))
    q1 = _nearest_many(observed, score_of(elo1))
    return total * (observed * np.log(q1 / q0)).sum(axis=-1)


def _nearest_many(observed: np.ndarray, target: float) -> np.ndarray:
    shifts = SCORE_ARRAY - target
    low = np.full(observed.shape[:-1], -1.0 / shifts.max() + 1e-12)
    high = np.full(observed.shape[:-1], -1.0 / shifts.min() - 1e-12)
    for _ in range(60):
        middle = (low + high) / 2
        excess = (observed * shifts / (1.0 + middle[..., None] * shifts)).sum(axis=-1)
        positive = excess > 0
        low = np.where(positive, middle, low)
        high = np.where(positive, high, middle)
    lam = (low + high) / 2
    q = observed / (1.0 + lam[..., None] * shifts)
    return q / q.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class SprtRuns:
    h0: int  # runs that accepted H0
    h1: int
    undecided: int  # ran out of pairs
    mean_pairs: float


def run_sprts(truth: Truth, elo0: float, elo1: float, alpha: float, beta: float, runs: int, max_pairs: int,
              rng: np.random.Generator) -> SprtRuns:
    """`runs` independent SPRTs, each adding one pair at a time until a bound or `max_pairs`."""
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    counts = np.zeros((runs, 5), dtype=int)
    decided = np.zeros(runs, dtype=int)  # 0 running, -1 H0, +1 H1
    stopped_at = np.full(runs, max_pairs)
    for step in range(1, max_pairs + 1):
        live = decided == 0
        if not live.any():
            break
        scores, _ = simulate_pairs(truth, (int(live.sum()),), rng)
        counts[live, np.rint(scores * 4).astype(int)] += 1
        llr = llr_many(counts[live], elo0, elo1)
        verdict = np.where(llr >= upper, 1, np.where(llr <= lower, -1, 0))
        index = np.flatnonzero(live)
        decided[index] = verdict
        stopped_at[index[verdict != 0]] = step
    return SprtRuns(int((decided == -1).sum()), int((decided == 1).sum()), int((decided == 0).sum()),
                    float(stopped_at.mean()))


def coverage(truth: Truth, pairs: int, runs: int, rng: np.random.Generator) -> dict[str, float]:
    """How often the 95% intervals hold the truth: A's pair-score Elo, the role advantage, and the
    naive interval (games taken as independent) of A's, for comparison."""
    a_true, role_true = truth_scores(truth)
    first, second = simulate_games(truth, (runs, pairs), rng)
    a_pairs, role_pairs = (first + second) / 2, (first + 1 - second) / 2
    low, high = intervals(counts_of_scores(a_pairs))
    role_low, role_high = intervals(counts_of_scores(role_pairs))
    naive_low, naive_high = naive_intervals(first, second)
    return {
        "elo_true": elo_of(a_true), "role_true": elo_of(role_true),
        "elo": float(np.mean((low <= a_true) & (a_true <= high))),
        "role": float(np.mean((role_low <= role_true) & (role_true <= role_high))),
        "naive_elo": float(np.mean((naive_low <= a_true) & (a_true <= naive_high))),
    }
