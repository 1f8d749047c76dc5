"""Ratings and SPRT against answers found another way: closed forms, a brute-force fit, finite differences."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from foxgeese.tournaments.pairs import SCORES, _nearest_with_mean, score_of
from foxgeese.tournaments.ratings import (
    GameResult,
    RatingsError,
    elo_from_score,
    expected_score,
    fit,
    leaderboard,
)
from foxgeese.tournaments.simulation import Truth, coverage, round_robin_coverage, simulate_games, standings_many
from foxgeese.tournaments.sprt import sprt


def games(predator: str, prey: str, wins: int, draws: int, losses: int, variant: str = "v") -> list[GameResult]:
    return ([GameResult(predator, prey, variant, 1.0)] * wins + [GameResult(predator, prey, variant, 0.5)] * draws
            + [GameResult(predator, prey, variant, 0.0)] * losses)


def test_two_players_without_role_term_is_the_closed_form() -> None:
    results = games("a", "b", 7, 0, 4) + games("b", "a", 5, 4, 0)  # a: 7 wins, 4 draws as prey: 9 of 20
    score_a = (7 + 0 + 2) / 20
    ratings = fit(results, prior_draws=0, role_advantage=False)
    difference = ratings.elo[0] - ratings.elo[1]
    assert difference == pytest.approx(elo_from_score(score_a), abs=1e-6)
    assert ratings.elo[0] + ratings.elo[1] == pytest.approx(0, abs=1e-9)  # anchor: mean 0


def test_two_players_with_role_term_is_the_closed_form_per_role() -> None:
    # With one advantage term the model fits both role cells exactly:
    # d + a = L(score of a as predator), -d + a = L(score of b as predator).
    results = games("a", "b", 7, 0, 4) + games("b", "a", 5, 4, 0)
    as_predator_a = 7 / 11
    as_predator_b = (5 + 2) / 9
    ratings = fit(results, prior_draws=0)
    difference = ratings.elo[0] - ratings.elo[1]
    assert difference == pytest.approx((elo_from_score(as_predator_a) - elo_from_score(as_predator_b)) / 2, abs=1e-6)
    assert ratings.advantage[0] == pytest.approx(
        (elo_from_score(as_predator_a) + elo_from_score(as_predator_b)) / 2, abs=1e-6)


def test_two_players_interval_is_the_binomial_one() -> None:
    # Without a role term the Fisher information of the difference D is n·p(1−p)·K² at p = score,
    # so the 95% half-width of each mean-0 rating (D/2) is 1.96 / (2·K·sqrt(n·p(1−p))).
    results = games("a", "b", 12, 0, 8) + games("b", "a", 8, 0, 12)
    ratings = fit(results, prior_draws=0, role_advantage=False)
    p, n, k = 24 / 40, 40, math.log(10) / 400
    assert ratings.ci95[0] == pytest.approx(1.959964 / (2 * k * math.sqrt(n * p * (1 - p))), rel=1e-5)


def _random_tournament(seed: int) -> list[GameResult]:
    rng = random.Random(seed)
    strength = {"p0": 0.0, "p1": 120.0, "p2": -80.0, "p3": 250.0, "p4": 30.0}
    advantage = {"std": -60.0, "hh": 150.0}
    out = []
    names = list(strength)
    for variant, edge in advantage.items():
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                for predator, prey in ((a, b), (b, a)) * 3:
                    p = expected_score(strength[predator] - strength[prey] + edge)
                    roll = rng.random()
                    score = 1.0 if roll < p * 0.9 else 0.5 if roll < p * 0.9 + 0.2 else 0.0
                    out.append(GameResult(predator, prey, variant, score))
    return out


def _brute_force(results: list[GameResult], players: list[str], variants: list[str],
                 prior_draws: float) -> np.ndarray:
    """Plain gradient ascent on the same penalised likelihood, written independently (no Hessian)."""
    k = math.log(10) / 400
    rows = [(players.index(g.predator), players.index(g.prey), variants.index(g.variant), g.predator_score, 1.0)
            for g in results]
    met = {(min(players.index(g.predator), players.index(g.prey)), max(players.index(g.predator),
            players.index(g.prey)), variants.index(g.variant)) for g in results}
    for a, b, v in met:
        rows += [(a, b, v, 0.5, prior_draws / 2), (b, a, v, 0.5, prior_draws / 2)]
    params = np.zeros(len(players) + len(variants))
    for _ in range(20000):
        gradient = np.zeros_like(params)
        for p, q, v, s, w in rows:
            e = 1 / (1 + math.exp(-k * (params[p] - params[q] + params[len(players) + v])))
            gradient[p] += w * k * (s - e)
            gradient[q] -= w * k * (s - e)
            gradient[len(players) + v] += w * k * (s - e)
        params += 4000.0 * gradient / len(rows)
        params[: len(players)] -= params[: len(players)].mean()
        if np.max(np.abs(gradient)) < 1e-9:
            break
    return params


def test_many_players_match_an_independent_gradient_ascent() -> None:
    results = _random_tournament(3)
    players = ["p0", "p1", "p2", "p3", "p4"]
    variants = ["std", "hh"]
    ratings = fit(results, players=players, variants=variants, prior_draws=1.0)
    expected = _brute_force(results, players, variants, prior_draws=1.0)
    assert ratings.elo == pytest.approx(list(expected[:5]), abs=0.05)
    assert ratings.advantage == pytest.approx(list(expected[5:]), abs=0.05)
    assert sum(ratings.elo) == pytest.approx(0, abs=1e-9)
    # The strongest and weakest simulated players come out in order.
    assert ratings.elo[3] == max(ratings.elo) and ratings.elo[2] == min(ratings.elo)


def test_intervals_come_from_the_curvature_of_the_likelihood() -> None:
    """The covariance is the inverse of minus the Hessian: check it by finite differences of the
    log-likelihood as a function of (r1..r4, a) with r0 fixed, then map to mean-0 ratings."""
    from foxgeese.tournaments.ratings import K, _rows, log_likelihood

    results = _random_tournament(5)
    players, variants = ["p0", "p1", "p2", "p3", "p4"], ["std", "hh"]
    ratings = fit(results, players=players, variants=variants)
    design, scores, weights = _rows(results, players, variants, 1.0)
    full = np.array(ratings.elo + ratings.advantage)
    theta = np.concatenate([full[1:5] - full[0], full[5:]])
    h = 1e-2
    size = len(theta)
    hessian = np.zeros((size, size))
    for i in range(size):
        for j in range(size):
            def f(di: float, dj: float) -> float:
                point = theta.copy()
                point[i] += di
                point[j] += dj
                return log_likelihood(point, design, scores, weights)
            hessian[i, j] = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4 * h * h)
    covariance = np.linalg.inv(-hessian)
    # variance of r3 - r0 in the fit's parametrisation equals that of the difference of mean-0 ratings
    reported = np.array(ratings.covariance)
    variance_difference = reported[3, 3] + reported[0, 0] - 2 * reported[3, 0]
    assert variance_difference == pytest.approx(covariance[2, 2], rel=1e-3)
    assert ratings.advantage_ci95[1] == pytest.approx(1.959964 * math.sqrt(covariance[5, 5]), rel=1e-3)
    assert K > 0


def test_likelihood_of_superiority_is_consistent() -> None:
    ratings = fit(_random_tournament(7))
    n = len(ratings.players)
    for i in range(n):
        for j in range(n):
            if i != j:
                assert ratings.los[i][j] + ratings.los[j][i] == pytest.approx(1.0)
                assert (ratings.los[i][j] > 0.5) == (ratings.elo[i] > ratings.elo[j])


def test_perfect_score_needs_the_prior() -> None:
    results = games("a", "b", 4, 0, 0) + games("b", "a", 0, 0, 4)
    with pytest.raises(RatingsError, match="no finite maximum"):
        fit(results, prior_draws=0)
    ratings = fit(results)  # one virtual draw per pair: finite and clearly ordered
    assert math.isfinite(ratings.elo[0]) and ratings.elo[0] > 200


def test_disconnected_players_are_refused() -> None:
    with pytest.raises(RatingsError, match="not connected"):
        fit(games("a", "b", 1, 1, 1) + games("c", "d", 1, 1, 1))


def test_sprt_is_the_gsprt_of_the_nearest_pentanomials_and_decides() -> None:
    """The LLR compares the two most likely pentanomial distributions with the means s0 and s1: each
    must have that mean and beat every other distribution with it (random feasible moves), and with
    many pairs the LLR comes near the normal approximation N·(s1−s0)·(2m−s0−s1)/(2σ²)."""
    pairs = [1.0, 0.5, 0.75, 0.5, 1.0, 0.25]
    state = sprt(pairs, elo0=0, elo1=50, alpha=0.05, beta=0.05)
    counts = [0, 1, 2, 1, 2]
    weights = [c if c else 1e-3 for c in counts]
    observed = [w / sum(weights) for w in weights]
    s0, s1 = 0.5, 1 / (1 + 10 ** (-50 / 400))
    rng = random.Random(3)
    for target in (s0, s1):
        q = _nearest_with_mean(observed, target)
        assert sum(q) == pytest.approx(1) and sum(a * b for a, b in zip(q, SCORES)) == pytest.approx(target)
        best = sum(p * math.log(v) for p, v in zip(observed, q))
        for _ in range(200):  # a move that keeps the sum and the mean: orthogonal to (1,..) and SCORES
            step = [rng.gauss(0, 0.01) for _ in SCORES]
            for basis in ([1.0] * 5, [x - 0.5 for x in SCORES]):
                dot = sum(a * b for a, b in zip(step, basis)) / sum(b * b for b in basis)
                step = [a - dot * b for a, b in zip(step, basis)]
            moved = [a + b for a, b in zip(q, step)]
            if min(moved) > 0:
                assert sum(p * math.log(v) for p, v in zip(observed, moved)) <= best + 1e-12
    q0, q1 = _nearest_with_mean(observed, s0), _nearest_with_mean(observed, s1)
    assert state.llr == pytest.approx(sum(weights) * sum(p * math.log(b / a) for p, a, b in zip(observed, q0, q1)))
    assert state.lower == pytest.approx(math.log(0.05 / 0.95)) and state.decision is None
    many = [0.0] * 100 + [0.25] * 400 + [0.5] * 900 + [0.75] * 450 + [1.0] * 150
    mean = sum(many) / len(many)
    variance = sum((x - mean) ** 2 for x in many) / len(many)
    normal = len(many) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert sprt(many, 0, 50, 0.05, 0.05).llr == pytest.approx(normal, rel=0.05)
    assert sprt([1.0] * 30, 0, 50, 0.05, 0.05).decision == "H1"
    assert sprt([0.0] * 30, 0, 50, 0.05, 0.05).decision == "H0"
    assert sprt([], 0, 50, 0.05, 0.05).decision is None


def _paired(first: np.ndarray, second: np.ndarray) -> tuple[list[GameResult], list[str]]:
    """Games of A and B from A's scores as the predator and as the prey, one twin pair per index."""
    games, labels = [], []
    for index, (a_first, a_second) in enumerate(zip(first.tolist(), second.tolist())):
        games += [GameResult("a", "b", "v", a_first), GameResult("b", "a", "v", 1 - a_second)]
        labels += [str(index), str(index)]
    return games, labels


def test_twin_pairs_give_the_intervals_their_own_variance() -> None:
    """Pairs whose two games go the same way (the opening decides for one player) carry less than two
    independent games: the paired interval is wider than the model's. Pairs whose games cancel (the
    opening decides for a role, now one, now the other) carry more: it is narrower. The report says
    which variance it used."""
    agree, cancel = [], []
    for index in range(12):  # a wins both games of 7 pairs, b both of 5
        a_wins = index < 7
        agree += [GameResult("a", "b", "v", 1.0 if a_wins else 0.0), GameResult("b", "a", "v", 0.0 if a_wins else 1.0)]
    # openings that favour a role, some the predator and some the prey: 18 pairs each side's predator
    # wins both games, 18 its prey does; a wins both games of 2 pairs, b of 2
    for both in [(1.0, 1.0)] * 18 + [(0.0, 0.0)] * 18 + [(1.0, 0.0)] * 2 + [(0.0, 1.0)] * 2:
        cancel += [GameResult("a", "b", "v", both[0]), GameResult("b", "a", "v", both[1])]
    for results, wider in ((agree, True), (cancel, False)):
        pairs = [str(index // 2) for index in range(len(results))]
        plain, paired = fit(results), fit(results, clusters=pairs)
        assert paired.robust and not plain.robust and paired.elo == pytest.approx(plain.elo)
        assert (paired.ci95[0] > 1.3 * plain.ci95[0]) if wider else (paired.ci95[0] < 0.8 * plain.ci95[0])
        difference, half_width = paired.difference("a", "b")
        assert difference == pytest.approx(paired.elo[0] - paired.elo[1])
        assert half_width == pytest.approx(2 * paired.ci95[0])
        assert "twin pairs' own variance" in paired.to_json()["interval"]
        assert "independent" in plain.to_json()["interval"] and "widened" not in paired.to_json()["interval"]
    few = fit(agree[:4], clusters=["0", "0", "1", "1"])  # two pairs for two parameters: the model's
    assert not few.robust and "independent" in few.to_json()["interval"]


def test_the_two_player_interval_is_the_pentanomial_one_in_the_standings_unit() -> None:
    """With two players the standings' variance of the difference is pairs.py's variance of the pair
    score, carried to the standings' unit by the slope of the expected pair score
    (σ(D+A) + σ(D−A)) / 2 in D: the same information, two units (docs/tournaments.md)."""
    from foxgeese.tournaments.pairs import counts_of, estimate, pair_score_of

    first, second = simulate_games(Truth(60.0, 150.0, 100.0, 0.2), (400,), np.random.default_rng(4))
    games, labels = _paired(first, second)
    found = fit(games, clusters=labels)
    difference, half_width = found.difference("a", "b")
    pairs = estimate(counts_of(((first + second) / 2).tolist()))
    assert pairs is not None and pairs.elo_low is not None and pairs.elo_high is not None
    score_half_width = (score_of(pairs.elo_high) - score_of(pairs.elo_low)) / 2
    slope = (pair_score_of(difference + 0.5, found.advantage[0]) - pair_score_of(difference - 0.5, found.advantage[0]))
    assert half_width == pytest.approx(score_half_width / slope, rel=0.03)
    assert found.los[0][1] == pytest.approx(pairs.los, abs=0.02)


def test_the_many_runs_version_is_fit() -> None:
    first, second = simulate_games(Truth(30.0, 200.0, 150.0, 0.1), (4, 9), np.random.default_rng(2))
    many = standings_many(first, second)
    for run in range(4):
        games, labels = _paired(first[run], second[run])
        found = fit(games, clusters=labels)
        difference, half_width = found.difference("a", "b")
        assert (many["elo"][run], many["ci95"][run]) == pytest.approx((difference, half_width))
        assert (many["advantage"][run], many["advantage_ci95"][run]) == pytest.approx(
            (found.advantage[0], found.advantage_ci95[0]))
        assert many["los"][run] == pytest.approx(found.los[0][1], abs=1e-6)


# The truths of the independent check: nElo about 180 (where treating the spread as known covered
# 0.87-0.90), a +50 difference with a 200 role edge, openings whose edge varies.
TRUTHS = (Truth(150.0, 0.0, 0.0, 0.2), Truth(50.0, 200.0, 0.0, 0.2), Truth(40.0, 120.0, 150.0, 0.2))


@pytest.mark.parametrize("truth", TRUTHS)
def test_every_interval_holds_the_truth_about_95_percent_of_the_time(truth: Truth) -> None:
    """2,000 simulated matches of 60 twin pairs: one standard error of a 95% rate is 0.5 points;
    the bounds are 3 of them. The standings' LOS and the head-to-head one agree."""
    found = coverage(truth, pairs=60, runs=2000, rng=np.random.default_rng(17))
    for name in ("elo", "nelo", "role", "standings", "edge"):
        assert 0.935 <= found[name] <= 0.965, (name, found)
    assert abs(found["pair_los_95"] - found["standings_los_95"]) <= 0.03, found


def test_the_standings_of_a_round_robin_hold_the_truth() -> None:
    """fit itself on 150 round robins of four players (10 twin pairs per two players, openings whose
    edge varies): the intervals of the three differences between neighbours."""
    found = round_robin_coverage({"a": 150.0, "b": 100.0, "c": 50.0, "d": 0.0}, 120.0, 150.0, 0.2, pairs=10,
                                 runs=150, rng=np.random.default_rng(5))
    assert 0.92 <= found["standings"] <= 0.985, found


def test_the_leaderboard_ranks_with_intervals_and_the_los_over_the_next() -> None:
    import msgspec

    rng = np.random.default_rng(8)
    strengths = {"low": 0.0, "top": 300.0, "mid": 150.0}
    games, labels = [], []
    for a, b in (("low", "top"), ("low", "mid"), ("top", "mid")):
        first, second = simulate_games(Truth(strengths[a] - strengths[b], 100.0, 100.0, 0.2), (12,), rng)
        more, more_labels = _paired(first, second)
        games += [GameResult(a if g.predator == "a" else b, b if g.predator == "a" else a, g.variant,
                             g.predator_score) for g in more]
        labels += [f"{a}-{b}-{label}" for label in more_labels]
    board = leaderboard(games, labels)
    found = fit(games, clusters=labels)
    assert [line.player for line in board] == ["top", "mid", "low"] and [line.rank for line in board] == [1, 2, 3]
    for line, below in zip(board, board[1:]):
        i, j = found.players.index(line.player), found.players.index(below.player)
        assert line.elo == found.elo[i] and line.ci95 == found.ci95[i] and line.los_next == found.los[i][j]
    assert board[-1].los_next is None and all(line.games == 48 for line in board)
    assert msgspec.json.decode(msgspec.json.encode(board[0]))["player"] == "top"
    with pytest.raises(RatingsError, match="no games"):
        leaderboard([], [])


def test_the_reports_say_the_unit_of_every_elo() -> None:
    """The SPRT's bounds are pair-score Elo, said on its line and read in the standings' unit at the
    fitted edge; the standings' legend names the variance its interval came from."""
    from foxgeese.tournaments.pairs import pair_score_of
    from foxgeese.tournaments.rating_text import in_standings_unit, sprt_lines, standings_legend

    test = {"elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05}
    results = {"ratings": {"predator_advantage": {"standard": {"elo": 200.0, "ci95": 30.0}}},
               "variants": [{"label": "standard"}]}
    converted = in_standings_unit(results, test)["standings_unit"]
    assert converted["elo0"] == pytest.approx(0, abs=1e-6)
    assert pair_score_of(converted["elo1"], 200.0) == pytest.approx(score_of(50.0))
    assert converted["elo1"] == pytest.approx(68.2, abs=0.1)  # as 50 standings' Elo is 37 pair-score Elo
    assert in_standings_unit({**results, "variants": [{"label": "a"}, {"label": "b"}]}, test) == {}
    lines = sprt_lines({**test, "first_player": "x", "second_player": "y", "llr": 1.0, "lower": -2.9,
                        "upper": 2.9, "pairs": 10, "decision": None, "standings_unit": converted})
    assert "SPRT x − y elo0=0 elo1=50 (pair-score Elo" in lines[0] and "elo1 ≈ 68" in lines[1]
    paired = fit(games("a", "b", 3, 2, 3) + games("b", "a", 3, 2, 3), clusters=[str(i // 2) for i in range(16)])
    assert "twin pairs' own variance" in standings_legend(paired.to_json())[0]
    assert standings_legend({"error": "no games to rate"}) == []
