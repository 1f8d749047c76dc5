"""Elo ratings by maximum likelihood, with a predator-advantage term per variant.

Model (Bradley–Terry in logistic form, a draw counted as half a win and half a loss): when player
`p` plays the predator (fox/hare) against player `q` in variant `v`,

    E[score of p] = 1 / (1 + 10 ** (-(r_p - r_q + a_v) / 400))

and the log-likelihood is the sum over games of `s·log E + (1 − s)·log(1 − E)`. `a_v` is the
predator side's advantage in Elo points in variant `v` (negative when the prey side is stronger).
The maximum is found by Newton's method on the exact gradient and Hessian; the 95% intervals come
from the observed Fisher information (the inverse of minus the Hessian at the maximum).

Anchor: ratings are reported with mean 0 (the fit fixes the first player to 0, then shifts, and
the covariance is carried through the same linear map).

A player who wins or loses everything has no finite maximum. `prior_draws` virtual draws per pair
of players that met in a variant (half with each in the predator role) keep every estimate finite;
`prior_draws=0` gives the plain maximum-likelihood estimate when it exists.

Paired games: the two games of a twin pair (one opening, roles swapped) are not independent. Given
`clusters` (a label per game: its pair), the covariance is the cluster-robust (sandwich) one,
H⁻¹·(Σ over pairs of gᶜ·gᶜᵀ)·H⁻¹·C/(C−1) (gᶜ: the pair's score vector, C pairs): the paired
design's own variance. It is narrower than the model's H⁻¹ where openings favour a role (within a
pair the role's effect cancels, so a player's pair score varies less than two lone games would)
and wider where an opening favours a player in both games; with two players its variance of the
difference is the pentanomial one of pairs.py. Like pairs.py's intervals, the sum counts one
virtual pair per two players that met in a variant, a quarter of each kind (either player winning
both games, the predator winning both, the prey winning both): a few pairs that all went alike do
not make a narrow interval. With no more pairs than parameters the model's H⁻¹ stays (and `robust` is False).

Two Elo numbers for one difference: this fit's difference D takes the predator's edge out before
the logistic curve; pairs.py's head to head is the Elo of the expected score over a twin pair, in
which the edge is averaged out after it: with an edge A, (σ(D+A) + σ(D−A)) / 2 < σ(D), so the
head-to-head Elo is nearer 0 (37 against 50 at D = 50, A = 200). Reports say which is which.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
import numpy as np

K = math.log(10) / 400.0  # Elo points -> natural logit units
Z95 = 1.959963984540054
DEFAULT_PRIOR_DRAWS = 1.0
ELO_UNIT = ("standings' Elo: the Bradley-Terry difference fitted over all games with the predator's "
            "edge per variant taken out (a player ELO stronger scores 1/(1+10^(-ELO/400)) where no side "
            "is favoured)")
_NO_MAXIMUM = "no finite maximum: some player (or side) won or lost every game; fit with prior_draws > 0"


class RatingsError(ValueError):
    """The data have no finite maximum-likelihood rating (or no games at all)."""


@dataclass(frozen=True)
class GameResult:
    """One game as the rating model sees it: who played which role, and the predator's score."""

    predator: str
    prey: str
    variant: str
    predator_score: float  # 1 win, 0.5 draw, 0 loss


@dataclass(frozen=True)
class Ratings:
    players: list[str]
    elo: list[float]  # mean 0
    ci95: list[float]  # half-width of the 95% interval of each rating
    variants: list[str]
    advantage: list[float]  # predator-side advantage per variant, Elo points
    advantage_ci95: list[float]
    los: list[list[float]]  # los[i][j] = P(player i stronger than j)
    covariance: list[list[float]]  # of (elo..., advantage...)
    games: int
    prior_draws: float
    log_likelihood: float
    robust: bool = False  # covariance from the twin pairs' spread (the sandwich), not the model's

    def difference(self, first: str, second: str) -> tuple[float, float]:
        """Elo of `first` minus `second` and the half-width of its 95% interval (from the covariance)."""
        i, j = self.players.index(first), self.players.index(second)
        variance = self.covariance[i][i] + self.covariance[j][j] - 2 * self.covariance[i][j]
        return self.elo[i] - self.elo[j], Z95 * math.sqrt(max(variance, 0.0))

    def to_json(self) -> dict[str, object]:
        return {
            "model": "Bradley-Terry (logistic Elo), draws = half a win, one predator-advantage term per variant",
            "anchor": "mean rating 0",
            "unit": ELO_UNIT,
            "interval": "95%, normal approximation: " + (
                "the twin pairs' own variance (cluster-robust sandwich, a pair per cluster)" if self.robust
                else "the observed Fisher information (games taken as independent)"),
            "prior_draws": self.prior_draws,
            "games": self.games,
            "log_likelihood": self.log_likelihood,
            "players": {
                name: {"elo": self.elo[i], "ci95": self.ci95[i]} for i, name in enumerate(self.players)
            },
            "predator_advantage": {
                v: {"elo": self.advantage[i], "ci95": self.advantage_ci95[i]} for i, v in enumerate(self.variants)
            },
            "los": {a: {b: self.los[i][j] for j, b in enumerate(self.players) if j != i}
                    for i, a in enumerate(self.players)},
        }


def expected_score(elo_difference: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def elo_from_score(score: float) -> float:
    """The closed form for two players without a role term: 400·log10(s / (1 − s))."""
    return 400.0 * math.log10(score / (1.0 - score))


def _rows(
    results: Sequence[GameResult], players: list[str], variants: list[str], prior_draws: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Design matrix over (r_1..r_{n-1}, a_1..a_V) (r_0 fixed at 0), scores, weights."""
    n, m = len(players), len(variants)
    index = {name: i for i, name in enumerate(players)}
    vindex = {name: i for i, name in enumerate(variants)}
    cells: dict[tuple[int, int, int], list[float]] = {}
    for game in results:
        key = (index[game.predator], index[game.prey], vindex[game.variant])
        cell = cells.setdefault(key, [0.0, 0.0])
        cell[0] += game.predator_score
        cell[1] += 1.0
    if prior_draws > 0:
        met = {(min(p, q), max(p, q), v) for p, q, v in cells}
        for p, q, v in met:
            for key in ((p, q, v), (q, p, v)):
                cell = cells.setdefault(key, [0.0, 0.0])
                cell[0] += prior_draws / 4.0
                cell[1] += prior_draws / 2.0
    keys = sorted(cells)
    design = np.zeros((len(keys), n - 1 + m))
    scores = np.zeros(len(keys))
    weights = np.zeros(len(keys))
    for row, (p, q, v) in enumerate(keys):
        if p:
            design[row, p - 1] += 1.0
        if q:
            design[row, q - 1] -= 1.0
        design[row, n - 1 + v] = 1.0
        total, count = cells[(p, q, v)]
        scores[row] = total / count
        weights[row] = count
    return design, scores, weights


def log_likelihood(theta: np.ndarray, design: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> float:
    x = K * (design @ theta)
    # s·log σ(x) + (1−s)·log σ(−x), written stably
    return float(np.sum(weights * (-scores * np.logaddexp(0.0, -x) - (1 - scores) * np.logaddexp(0.0, x))))


def fit(
    results: Sequence[GameResult],
    players: Sequence[str] | None = None,
    variants: Sequence[str] | None = None,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    role_advantage: bool = True,
    clusters: Sequence[str] | None = None,
) -> Ratings:
    """Maximum-likelihood Elo (mean 0) with per-variant predator advantage and 95% intervals."""
    if not results:
        raise RatingsError("no games to rate")
    seen_players = {g.predator for g in results} | {g.prey for g in results}
    seen_variants = {g.variant for g in results}
    # Only who and what has games can be rated; the given orders are kept.
    players = [p for p in players if p in seen_players] if players is not None else sorted(seen_players)
    variants = [v for v in variants if v in seen_variants] if variants is not None else sorted(seen_variants)
    unknown = (seen_players - set(players)) | (seen_variants - set(variants))
    if unknown:
        raise RatingsError(f"games name players or variants not listed: {', '.join(sorted(unknown))}")
    if len(players) < 2:
        raise RatingsError("ratings need games between at least two players")
    n, m = len(players), len(variants)
    _check_connected(results, players)
    design, scores, weights = _rows(results, players, variants, prior_draws)
    if not role_advantage:
        design = design[:, : n - 1]
    theta = np.zeros(design.shape[1])
    value = log_likelihood(theta, design, scores, weights)
    for _ in range(200):
        x = K * (design @ theta)
        p = 1.0 / (1.0 + np.exp(-x))
        gradient = K * design.T @ (weights * (scores - p))
        information = K * K * (design.T * (weights * p * (1 - p))) @ design
        try:  # connected players always give a regular matrix, unless estimates run off to infinity
            step = np.linalg.solve(information, gradient)
        except np.linalg.LinAlgError:
            raise RatingsError(_NO_MAXIMUM) from None
        scale = 1.0
        while True:  # Newton with step halving: the log-likelihood never decreases
            candidate = theta + scale * step
            new_value = log_likelihood(candidate, design, scores, weights)
            if new_value >= value - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta, value = candidate, new_value
        if np.max(np.abs(scale * step)) < 1e-9:
            break
    else:
        raise RatingsError(_NO_MAXIMUM)
    if np.max(np.abs(theta)) > 4000:
        raise RatingsError(_NO_MAXIMUM)
    x = K * (design @ theta)
    p = 1.0 / (1.0 + np.exp(-x))
    information = K * K * (design.T * (weights * p * (1 - p))) @ design
    covariance_theta = np.linalg.inv(information)
    robust = False
    if clusters is not None:
        if len(clusters) != len(results):
            raise RatingsError(f"{len(clusters)} cluster labels for {len(results)} games")
        sandwich = _clustered(results, clusters, players, variants, theta, covariance_theta)
        if sandwich is not None:
            covariance_theta, robust = sandwich, True
    if not role_advantage:
        theta = np.concatenate([theta, np.zeros(m)])
        padded = np.zeros((n - 1 + m, n - 1 + m))
        padded[: n - 1, : n - 1] = covariance_theta
        covariance_theta = padded
    # (r_1..r_{n-1}, a) -> (r_0..r_{n-1} centred on their mean, a)
    to_full = np.zeros((n, n - 1))
    to_full[1:, :] = np.eye(n - 1)
    centre = np.eye(n) - 1.0 / n
    transform = np.zeros((n + m, n - 1 + m))
    transform[:n, : n - 1] = centre @ to_full
    transform[n:, n - 1:] = np.eye(m)
    estimate = transform @ theta
    covariance = transform @ covariance_theta @ transform.T
    sd = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    los = [[0.5] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j:
                variance = covariance[i, i] + covariance[j, j] - 2 * covariance[i, j]
                difference = estimate[i] - estimate[j]
                los[i][j] = _normal_cdf(difference / math.sqrt(variance)) if variance > 0 else 0.5
    return Ratings(
        players=players,
        elo=[float(v) for v in estimate[:n]],
        ci95=[float(Z95 * v) for v in sd[:n]],
        variants=variants,
        advantage=[float(v) for v in estimate[n:]],
        advantage_ci95=[float(Z95 * v) for v in sd[n:]] if role_advantage else [0.0] * m,
        los=los,
        covariance=covariance.tolist(),
        games=len(results),
        prior_draws=prior_draws,
        log_likelihood=value,
        robust=robust,
    )


def _game_rows(predators: np.ndarray, preys: np.ndarray, kinds: np.ndarray, n: int, m: int) -> np.ndarray:
    """Design rows over (r_1..r_{n-1}, a_1..a_m) for games given by player and variant indices."""
    rows = np.zeros((len(predators), n - 1 + m))
    count = np.arange(len(predators))
    np.add.at(rows, (count[predators > 0], predators[predators > 0] - 1), 1.0)
    np.add.at(rows, (count[preys > 0], preys[preys > 0] - 1), -1.0)
    rows[count, n - 1 + kinds] = 1.0
    return rows


VIRTUAL_PAIRS = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0))  # scores of p and of q as predators
VIRTUAL_WEIGHT = 0.25  # a quarter pair of each kind: one virtual pair in all, as pairs.VIRTUAL


def _clustered(results: Sequence[GameResult], clusters: Sequence[str], players: list[str], variants: list[str],
               theta: np.ndarray, bread: np.ndarray) -> np.ndarray | None:
    """The sandwich covariance with the games' scores summed per cluster, and half a virtual pair of
    each kind per two players that met in a variant (None: no more clusters than parameters)."""
    n, m = len(players), len(variants)
    width = len(theta)
    index = {name: i for i, name in enumerate(players)}
    vindex = {name: i for i, name in enumerate(variants)}
    predators = np.array([index[g.predator] for g in results])
    preys = np.array([index[g.prey] for g in results])
    kinds = np.array([vindex[g.variant] for g in results])
    rows = _game_rows(predators, preys, kinds, n, m)[:, :width]
    expected = 1.0 / (1.0 + np.exp(-K * (rows @ theta)))
    scores = K * rows * (np.array([g.predator_score for g in results]) - expected)[:, None]
    labels, which = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)
    count = len(labels)
    if count <= width:
        return None
    sums = np.zeros((count, width))
    np.add.at(sums, which, scores)
    meat = np.einsum("ci,cj->ij", sums, sums)  # not sums.T @ sums: a threaded BLAS crawls on a loaded machine
    met = np.unique(np.stack([np.minimum(predators, preys), np.maximum(predators, preys), kinds], axis=1), axis=0)
    if len(met):
        low, high, kind = met[:, 0], met[:, 1], met[:, 2]
        first = _game_rows(low, high, kind, n, m)[:, :width]  # the lower index as the predator
        second = _game_rows(high, low, kind, n, m)[:, :width]
        e_first = 1.0 / (1.0 + np.exp(-K * (first @ theta)))
        e_second = 1.0 / (1.0 + np.exp(-K * (second @ theta)))
        for s_first, s_second in VIRTUAL_PAIRS:
            virtual = K * (first * (s_first - e_first)[:, None] + second * (s_second - e_second)[:, None])
            meat += VIRTUAL_WEIGHT * np.einsum("ci,cj->ij", virtual, virtual)
    return bread @ meat @ bread * (count / (count - 1))


def _normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _check_connected(results: Sequence[GameResult], players: list[str]) -> None:
    """Ratings of players who never met, even indirectly, cannot be compared."""
    neighbours: dict[str, set[str]] = {name: set() for name in players}
    for game in results:
        neighbours[game.predator].add(game.prey)
        neighbours[game.prey].add(game.predator)
    seen = {players[0]}
    frontier = [players[0]]
    while frontier:
        for other in neighbours[frontier.pop()]:
            if other not in seen:
                seen.add(other)
                frontier.append(other)
    missing = [name for name in players if name not in seen]
    if missing:
        raise RatingsError(f"players not connected by games to {players[0]}: {', '.join(missing)}")


class Placing(msgspec.Struct, frozen=True):
    """One line of a leaderboard (see `leaderboard`); `msgspec.json.encode` gives it as JSON."""

    rank: int  # 1 = best
    player: str
    elo: float  # standings' Elo (ELO_UNIT), mean 0 over the rated players
    ci95: float  # half-width of the 95% interval of `elo`
    games: int
    los_next: float | None  # P(this player is stronger than the one ranked just below); None for the last


def leaderboard(results: Sequence[GameResult], pairs: Sequence[str], players: Sequence[str] | None = None,
                prior_draws: float = DEFAULT_PRIOR_DRAWS) -> list[Placing]:
    """Rank, Elo ± 95% interval and LOS over the next player down, for every player with games.

    `results` are the games (each with its predator, prey, variant and the predator's score) and
    `pairs` a label per game naming its twin pair (the two games of one opening, roles swapped; a
    game whose twin is not played yet has a label of its own). This is `fit` with the pairs as
    clusters: the intervals and LOS come from the twin pairs' own spread (they hold the truth about
    95% of the time by simulation, docs/tournaments.md), one predator-edge term per variant.
    Players are ranked by Elo (ties in `players` order, else by name); a player with no games is
    left out (no rating to give). Raises RatingsError when there is nothing to rate or the players
    are not all connected by games."""
    found = fit(results, players=players, prior_draws=prior_draws, clusters=pairs)
    games = dict.fromkeys(found.players, 0)
    for game in results:
        games[game.predator] += 1
        games[game.prey] += 1
    order = sorted(range(len(found.players)), key=lambda i: (-found.elo[i], i))
    return [Placing(rank, found.players[i], found.elo[i], found.ci95[i], games[found.players[i]],
                    found.los[i][order[rank]] if rank < len(order) else None)
            for rank, i in enumerate(order, 1)]
