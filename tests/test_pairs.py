"""Paired statistics (tournaments/pairs.py): hand-computed figures, and by simulation from a known
truth (tournaments/simulation.py) that the 95% intervals hold it about 95% of the time and the
SPRT errs about as often as its alpha and beta say (benchmarks/bench_pairs.py: thousands of runs)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.pairs import Z95, estimate, gsprt, head_to_head, role_advantage
from foxgeese.tournaments.simulation import (
    Truth,
    coverage,
    elo_for_pair_score,
    intervals,
    llr_many,
    nelo_intervals,
    run_sprts,
)


def test_estimate_is_the_pentanomial_mean_and_variance() -> None:
    counts = [1, 2, 5, 6, 2]  # pairs scoring 0, 0.25, ... 1
    scores = [0.0] * 1 + [0.25] * 2 + [0.5] * 5 + [0.75] * 6 + [1.0] * 2
    mean = sum(scores) / len(scores)
    virtual = [(0.0, 0.5), (1.0, 0.5)]  # half a pair at each extreme in the variance
    variance = (sum((x - mean) ** 2 for x in scores) + sum(w * (x - mean) ** 2 for x, w in virtual)) / (len(scores) + 1)
    found = estimate(counts)
    assert found is not None and found.pairs == 16
    assert found.elo == pytest.approx(400 * math.log10(mean / (1 - mean)))
    high = mean + Z95 * math.sqrt(variance / 16)
    assert found.elo_high == pytest.approx(400 * math.log10(high / (1 - high)))
    assert found.nelo == pytest.approx((mean - 0.5) / math.sqrt(2 * variance) * 800 / math.log(10))
    # nElo's interval: the delta method for t = (m − ½)/σ with σ estimated too (skewness, kurtosis)
    weighted = [(x, 1.0) for x in scores] + virtual
    third = sum(w * (x - mean) ** 3 for x, w in weighted) / (len(scores) + 1)
    fourth = sum(w * (x - mean) ** 4 for x, w in weighted) / (len(scores) + 1)
    t = (mean - 0.5) / math.sqrt(variance)
    spread = math.sqrt(1 - t * third / variance**1.5 + t * t * (fourth / variance**2 - 1) / 4)
    assert found.nelo_high == pytest.approx((t + Z95 * spread / 4) * 800 / math.log(10) / math.sqrt(2))
    assert found.nelo_low == pytest.approx((t - Z95 * spread / 4) * 800 / math.log(10) / math.sqrt(2))
    assert found.los == pytest.approx(0.5 * (1 + math.erf((mean - 0.5) / math.sqrt(variance / 16) / math.sqrt(2))))
    assert estimate([0, 0, 0, 0, 0]) is None


def test_three_equal_pairs_do_not_make_a_narrow_interval() -> None:
    found = estimate([0, 0, 3, 0, 0])
    assert found is not None and found.elo == 0 and found.elo_high is not None and found.elo_high > 150


def test_a_player_who_won_every_pair_gets_a_bound_not_an_estimate() -> None:
    found = estimate([0, 0, 0, 0, 10])
    assert found is not None and found.elo is None and found.nelo is None
    assert found.to_json()["bound"] == "lower"
    variance = 0.5 / 11  # the ten real pairs sit at the mean 1; the virtual ones at 0 (and at 1)
    low = 1 - Z95 * math.sqrt(variance / 10)
    assert found.elo_bound == pytest.approx(400 * math.log10(low / (1 - low)))


def _game(game_id: str, twin: str, predator: str, prey: str, score: float) -> GameEntry:
    winner = "fox" if score == 1 else "geese" if score == 0 else "draw"
    return GameEntry(id=game_id, twin=twin, variant="standard", options={}, predator=predator, prey=prey,
                     opening=[], winner=winner, predator_score=score, termination="captured", reason="", plies=9)


def test_head_to_head_and_role_advantage_count_twin_pairs() -> None:
    games = [_game("r1", "r2", "a", "b", 1.0), _game("r2", "r1", "b", "a", 1.0),  # a 1 of 2, the fox 2 of 2
             _game("r3", "r4", "a", "b", 1.0), _game("r4", "r3", "b", "a", 0.0),  # a 2 of 2
             _game("r5", "r6", "a", "b", 0.5)]  # its twin not played yet: no pair
    (line,) = head_to_head(games, ["b", "a"])  # in the order asked: b first though a scored more
    assert (line["first"], line["second"], line["pentanomial"], line["pairs"]) == ("b", "a", [1, 0, 1, 0, 0], 2)
    assert line["elo"] < 0 and line["los"] < 0.5
    (other,) = head_to_head(games, ["a", "b"])
    assert other["pentanomial"] == [0, 0, 1, 0, 1] and other["los"] == pytest.approx(1 - line["los"])
    assert other["elo"] == pytest.approx(-line["elo"])
    role = role_advantage(games)
    assert role is not None and role["pentanomial"] == [0, 0, 1, 0, 1] and role["score"] == 0.75


def test_vectorized_figures_match_the_scalar_ones() -> None:
    rows = np.array([[3, 5, 9, 4, 2], [0, 1, 0, 5, 0], [2, 0, 0, 0, 7]])
    low, high = intervals(rows)
    llr = llr_many(rows, -10, 30)
    nelo_low, nelo_high = nelo_intervals(rows)
    for index, row in enumerate(rows.tolist()):
        found = estimate(row)
        assert found is not None
        if found.nelo is not None:
            assert (nelo_low[index], nelo_high[index]) == pytest.approx((found.nelo_low, found.nelo_high))
        if found.elo_low is not None:
            assert 400 * math.log10(low[index] / (1 - low[index])) == pytest.approx(found.elo_low)
        assert llr[index] == pytest.approx(gsprt(row, -10, 30, 0.05, 0.05).llr, rel=1e-9)


TRUTH = Truth(elo=40.0, role=120.0, opening_spread=150.0, draws=0.2)


def test_intervals_hold_the_truth_about_95_percent_of_the_time() -> None:
    found = coverage(TRUTH, pairs=60, runs=600, rng=np.random.default_rng(7))
    # 600 runs: one standard error of a 95% rate is 0.9 points; these bounds are about 3 of them
    assert 0.92 <= found["elo"] <= 0.98, found
    assert 0.92 <= found["role"] <= 0.98, found
    assert 0.92 <= found["nelo"] <= 0.98, found


def test_sprt_errs_about_as_often_as_alpha_and_beta() -> None:
    rng = np.random.default_rng(11)
    base = Truth(0.0, TRUTH.role, TRUTH.opening_spread, TRUTH.draws)
    at_h0 = run_sprts(base, 0, 60, 0.05, 0.05, runs=300, max_pairs=3000, rng=rng)
    strong = Truth(elo_for_pair_score(60, base), base.role, base.opening_spread, base.draws)
    at_h1 = run_sprts(strong, 0, 60, 0.05, 0.05, runs=300, max_pairs=3000, rng=rng)
    assert at_h0.undecided == at_h1.undecided == 0
    assert at_h0.h1 / 300 <= 0.09 and at_h1.h0 / 300 <= 0.09, (at_h0, at_h1)
    assert at_h0.h1 >= 1 or at_h1.h0 >= 1  # the test is not simply blind to one side
