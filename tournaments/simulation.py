"""Simulated twin pairs from a known truth, to check pairs.py's and ratings.py's intervals and the
SPRT (numpy, vectorized).

The model: player A is `elo` Elo stronger than B; each opening gives the predator an advantage
drawn around `role` with spread `opening_spread` (Elo, normal), the same in both games of its
pair, which is what makes a pair's games correlated; a game is drawn with probability `draws`
(less where the expectation leaves no room), with the win and loss chances set so that the
predator's expected score is the logistic one. A's pair score is its mean over the pair's games.

The truths the estimates aim at are expectations over openings: A's pair score
(σ(D + a) + σ(D − a)) / 2 and the predator's (σ(a + D) + σ(a − D)) / 2, a the opening's role
advantage, σ the logistic Elo curve (`truth`); the true nElo from the true pentanomial distribution
(`pentanomial_truth`, Gauss–Hermite over openings); the standings' true difference is what the
Bradley–Terry fit converges to, (L(E σ(D + a)) − L(E σ(−D + a))) / 2 (L the Elo of a score), which
is D itself when openings do not vary. `standings_many` is ratings.fit for two players and one
variant, many runs at once (tests/test_ratings.py checks that it matches fit). benchmarks/
bench_pairs.py prints the observed coverage and error rates beside the nominal ones;
tests/test_pairs.py and tests/test_ratings.py check them at small scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from foxgeese.tournaments.pairs import NELO_PER_T, REGULARIZE, SCORES, VIRTUAL, Z95, elo_of, score_of
from foxgeese.tournaments.ratings import DEFAULT_PRIOR_DRAWS, VIRTUAL_PAIRS, VIRTUAL_WEIGHT, GameResult, K, fit

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


def _game_probabilities(expected: np.ndarray, draws: float) -> np.ndarray:
    """(..., 3): the chances of a score 0, ½ and 1 in games with the given expected scores (`_game`'s rule)."""
    draw = np.minimum(draws, 2 * np.minimum(expected, 1 - expected))
    return np.stack([1 - expected - draw / 2, draw, expected - draw / 2], axis=-1)


def pentanomial_truth(truth: Truth, nodes: int = 200) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The true pentanomial distributions of A's pair score and of the predator's, and A's expected
    score as the predator and B's (Gauss–Hermite over the openings' role advantage)."""
    points, weights = np.polynomial.hermite.hermgauss(nodes)
    advantage = truth.role + truth.opening_spread * math.sqrt(2.0) * points
    weights = weights / math.sqrt(math.pi)
    a_first = _logistic(truth.elo + advantage)
    b_first = _logistic(-truth.elo + advantage)
    game_a = _game_probabilities(a_first, truth.draws)  # A's score as the predator
    game_b = _game_probabilities(b_first, truth.draws)  # B's score as the predator
    a_pairs = np.zeros((nodes, 5))
    role_pairs = np.zeros((nodes, 5))
    for i in range(3):
        for j in range(3):
            a_pairs[:, i + 2 - j] += game_a[:, i] * game_b[:, j]  # A scores i/2 then 1 − j/2
            role_pairs[:, i + j] += game_a[:, i] * game_b[:, j]
    return weights @ a_pairs, weights @ role_pairs, float(weights @ a_first), float(weights @ b_first)


def true_nelo(distribution: np.ndarray) -> float:
    mean = float(distribution @ SCORE_ARRAY)
    variance = float(distribution @ (SCORE_ARRAY - mean) ** 2)
    return (mean - 0.5) / math.sqrt(2 * variance) * NELO_PER_T


def true_standings(truth: Truth) -> tuple[float, float]:
    """The difference and the predator's edge that the standings' fit converges to (Elo)."""
    _, _, a_first, b_first = pentanomial_truth(truth)
    return (elo_of(a_first) - elo_of(b_first)) / 2, (elo_of(a_first) + elo_of(b_first)) / 2


def nelo_intervals(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """pairs.estimate's nElo interval for many count rows at once (the delta method on t = (m − ½)/σ)."""
    pairs = counts.sum(axis=-1)
    mean = (counts * SCORE_ARRAY).sum(axis=-1) / pairs
    weights = counts + np.array(VIRTUAL)
    shifts = SCORE_ARRAY - mean[..., None]
    moments = [(weights * shifts**k).sum(axis=-1) / weights.sum(axis=-1) for k in (2, 3, 4)]
    variance, third, fourth = moments
    t = (mean - 0.5) / np.sqrt(variance)
    spread = np.sqrt(np.maximum(1 - t * third / variance**1.5 + t * t * (fourth / variance**2 - 1) / 4, 0.0))
    error = Z95 * spread / np.sqrt(pairs)
    per_t = NELO_PER_T / math.sqrt(2.0)
    return (t - error) * per_t, (t + error) * per_t


def nelo_known_spread(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nElo interval as it was: the pair score's interval divided by the spread as if it were known."""
    low, high = intervals(counts)
    weights = counts + np.array(VIRTUAL)
    mean = (counts * SCORE_ARRAY).sum(axis=-1) / counts.sum(axis=-1)
    spread = np.sqrt(2 * (weights * (SCORE_ARRAY - mean[..., None]) ** 2).sum(axis=-1) / weights.sum(axis=-1))
    return (low - 0.5) / spread * NELO_PER_T, (high - 0.5) / spread * NELO_PER_T


def standings_many(first: np.ndarray, second: np.ndarray, prior_draws: float = DEFAULT_PRIOR_DRAWS
                   ) -> dict[str, np.ndarray]:
    """ratings.fit with twin pairs as clusters for two players A, B and one variant, for many runs:
    `first`, `second` (runs, pairs) are A's scores as the predator and as the prey. Gives the
    difference A − B and the predator's edge (Elo) with their 95% half-widths, and A's LOS."""
    pairs = first.shape[-1]
    b_first = 1 - second  # B's score as the predator
    count = pairs + prior_draws / 2
    p_a = (first.sum(axis=-1) + prior_draws / 4) / count
    p_b = (b_first.sum(axis=-1) + prior_draws / 4) / count
    logit_a, logit_b = np.log(p_a / (1 - p_a)) / K, np.log(p_b / (1 - p_b)) / K
    h_a, h_b = count * p_a * (1 - p_a), count * p_b * (1 - p_b)
    # (D, a) coordinates: A as the predator is (+1, +1), B as the predator (−1, +1)
    bread = np.linalg.inv(K * K * np.stack([np.stack([h_a + h_b, h_a - h_b], -1),
                                            np.stack([h_a - h_b, h_a + h_b], -1)], -2))
    r_a, r_b = first - p_a[..., None], b_first - p_b[..., None]
    g = K * np.stack([r_a - r_b, r_a + r_b], axis=-1)  # (runs, pairs, 2)
    meat = np.einsum("...ni,...nj->...ij", g, g)
    for s_a, s_b in VIRTUAL_PAIRS:
        v = K * np.stack([(s_a - p_a) - (s_b - p_b), (s_a - p_a) + (s_b - p_b)], axis=-1)
        meat = meat + VIRTUAL_WEIGHT * np.einsum("...i,...j->...ij", v, v)
    covariance = bread @ meat @ bread * (pairs / (pairs - 1)) if pairs > 2 else bread
    difference = (logit_a - logit_b) / 2
    sd = np.sqrt(covariance[..., 0, 0])
    return {"elo": difference, "ci95": Z95 * sd, "advantage": (logit_a + logit_b) / 2,
            "advantage_ci95": Z95 * np.sqrt(covariance[..., 1, 1]),
            "los": 0.5 * (1 + _erf(difference / sd / math.sqrt(2)))}


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to 1.5e-7 (Abramowitz and Stegun 7.1.26): numpy has none."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1 / (1 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1 - poly * np.exp(-x * x))


def _normal_cdf(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + _erf(z / math.sqrt(2)))


def coverage(truth: Truth, pairs: int, runs: int, rng: np.random.Generator) -> dict[str, float]:
    """How often the 95% intervals hold the truth: A's pair-score Elo and nElo, the role advantage,
    the standings' difference and edge, and the naive interval (games taken as independent) of A's
    pair score, for comparison; and how often each LOS of A over B exceeds 0.95."""
    a_true, role_true = truth_scores(truth)
    a_dist, _, _, _ = pentanomial_truth(truth)
    nelo_true = true_nelo(a_dist)
    standings_true, edge_true = true_standings(truth)
    first, second = simulate_games(truth, (runs, pairs), rng)
    a_pairs, role_pairs = (first + second) / 2, (first + 1 - second) / 2
    counts = counts_of_scores(a_pairs)
    low, high = intervals(counts)
    nelo_low, nelo_high = nelo_intervals(counts)
    known_low, known_high = nelo_known_spread(counts)
    role_low, role_high = intervals(counts_of_scores(role_pairs))
    naive_low, naive_high = naive_intervals(first, second)
    standings = standings_many(first, second)
    mean = a_pairs.mean(axis=-1)
    pair_error = (high - low) / (2 * Z95)
    with np.errstate(divide="ignore", invalid="ignore"):
        pair_los = np.where(pair_error > 0, _normal_cdf((mean - 0.5) / pair_error), 0.5)

    def holds(value: float, low: np.ndarray, high: np.ndarray) -> float:
        return float(np.mean((low <= value) & (value <= high)))

    return {
        "elo_true": elo_of(a_true), "role_true": elo_of(role_true), "nelo_true": nelo_true,
        "standings_true": standings_true, "edge_true": edge_true,
        "elo": holds(a_true, low, high), "role": holds(role_true, role_low, role_high),
        "nelo": holds(nelo_true, nelo_low, nelo_high), "naive_elo": holds(a_true, naive_low, naive_high),
        "nelo_known_spread": holds(nelo_true, known_low, known_high),
        "standings": holds(standings_true, standings["elo"] - standings["ci95"], standings["elo"] + standings["ci95"]),
        "edge": holds(edge_true, standings["advantage"] - standings["advantage_ci95"],
                      standings["advantage"] + standings["advantage_ci95"]),
        "pair_los_95": float(np.mean(pair_los > 0.95)), "standings_los_95": float(np.mean(standings["los"] > 0.95)),
    }


def round_robin_coverage(strengths: dict[str, float], role: float, opening_spread: float, draws: float,
                         pairs: int, runs: int, rng: np.random.Generator) -> dict[str, float]:
    """ratings.fit itself (not a copy) on simulated round robins of twin pairs (`pairs` per two
    players): how often the 95% interval of each difference between neighbours in `strengths`'
    order holds what the fit converges to (the fit of the expected scores), and how often the
    fit's LOS and the head-to-head LOS of each such neighbour over the next exceed 0.95."""
    names = list(strengths)
    truth_games = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            _, _, a_first, b_first = pentanomial_truth(Truth(strengths[a] - strengths[b], role, opening_spread, draws))
            truth_games += [GameResult(a, b, "v", a_first), GameResult(b, a, "v", b_first)]
    target = fit(truth_games, players=names, prior_draws=0)
    held = fit_los = pair_los = 0
    for _ in range(runs):
        games, clusters = [], []
        neighbours: dict[tuple[str, str], np.ndarray] = {}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                truth = Truth(strengths[a] - strengths[b], role, opening_spread, draws)
                first, second = simulate_games(truth, (pairs,), rng)
                for k in range(pairs):
                    label = f"{a}-{b}-{k}"
                    games += [GameResult(a, b, "v", float(first[k])), GameResult(b, a, "v", 1 - float(second[k]))]
                    clusters += [label, label]
                if i + 1 == names.index(b):
                    neighbours[(a, b)] = counts_of_scores((first + second) / 2)
        found = fit(games, players=names, clusters=clusters)
        for (a, b), counts in neighbours.items():
            difference, half = found.difference(a, b)
            wanted = target.difference(a, b)[0]
            held += difference - half <= wanted <= difference + half
            fit_los += found.los[names.index(a)][names.index(b)] > 0.95
            low, high = intervals(counts)
            mean = float((counts * SCORE_ARRAY).sum() / counts.sum())
            error = float(high - low) / (2 * Z95)
            pair_los += error > 0 and float(_normal_cdf(np.array((mean - 0.5) / error))) > 0.95
    total = runs * (len(names) - 1)
    return {"standings": held / total, "standings_los_95": fit_los / total, "pair_los_95": pair_los / total}
