"""Statistics of paired, asymmetric games, as fishtest does for chess, with roles in place of colours.

Every opening is played twice with the roles swapped (a twin pair). The two games of a pair are not
independent (an opening that favours the fox favours it in both), but pairs are. So the unit is
the pair: the first player's total over its two games is 0, ½, 1, 1½ or 2 points, a *pentanomial*
count (`Pentanomial`). From the pairs' mean score `m` and their variance `v`:

- Elo = 400·log10(m / (1 − m)), its 95% interval from m ± 1.96·sqrt(v / N) mapped the same way;
- normalized Elo = (m − ½) / sqrt(2·v) · 800 / ln 10 (fishtest's nElo: the per-game standard
  deviation is sqrt(2·v) for pairs); its interval by the delta method for t = (m − ½)/σ with σ
  estimated too: Var(t̂) = (1 − t·γ₁ + t²·(κ − 1)/4) / N, γ₁ and κ the pairs' skewness and
  kurtosis. Treating σ as known (the "1" alone) covers only 0.87–0.90 at nElo ≈ 180 however many
  pairs; the delta term is exact to first order, closed form (cheap for the arena's refits) and
  needs no random numbers, where a bootstrap over pairs would;
- LOS = Φ((m − ½) / sqrt(v / N)) of the first player over the second (the order as asked, so it
  is below ½ when the first is the weaker);
- the generalized SPRT on pairs (`gsprt`): LLR = N · Σ p̂ᵢ · log(q₁ᵢ / q₀ᵢ), where q_j is the
  distribution over the five pair scores nearest the observed one (maximum likelihood) whose mean
  is the expected score at elo_j (fishtest's `LLR_logistic`).

The variance behind an interval counts half a virtual pair at each extreme (0 and 2 points)
besides the real ones: three pairs that all scored 1 of 2 say little about how pairs vary, and
without it their interval would be a few Elo wide; with many pairs it fades out (benchmarks/
bench_pairs.py: coverage stays at 95%). The SPRT uses fishtest's regularization instead (1e-3 of
a pair in each empty cell). A player who won (or lost) every pair has no finite Elo: it gets the
finite end of its interval as a one-sided bound instead.

The role advantage is measured the same way with the predator in place of a player: over a pair
each player is the predator once, so their strengths cancel, and the predator's pair score says
how much the role is worth. The Elo measured from pairs is the pair score's Elo: with a role
advantage A it is a little nearer 0 than a game model's difference D ((σ(D+A) + σ(D−A)) / 2 is
the expected pair score). benchmarks/bench_pairs.py checks coverage and error rates by simulation.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from foxgeese.tournaments.entries import GameEntry

Z95 = 1.959963984540054
NELO_PER_T = 800.0 / math.log(10.0)  # fishtest's nelo_divided_by_nt
REGULARIZE = 1e-3
SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # the mean score over a pair, per pentanomial cell


def elo_of(score: float) -> float:
    return 400.0 * math.log10(score / (1.0 - score))


def score_of(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def pair_score_of(difference: float, advantage: float) -> float:
    """The expected score over a twin pair of a player `difference` Elo stronger in the standings'
    model (ratings.py) when the predator's edge is `advantage` Elo: (σ(D + A) + σ(D − A)) / 2."""
    return (score_of(difference + advantage) + score_of(difference - advantage)) / 2


def standings_elo_of(pair_elo: float, advantage: float) -> float:
    """The standings' difference D whose expected pair score is `pair_elo`'s, at the role edge
    `advantage` (both Elo): how an SPRT bound reads in the standings' unit. |D| ≥ |pair_elo|."""
    target = score_of(pair_elo)
    low, high = -4000.0, 4000.0
    for _ in range(100):
        middle = (low + high) / 2
        if pair_score_of(middle, advantage) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


@dataclass(frozen=True)
class PairEstimate:
    """What N pairs say about a difference: Elo and nElo with 95% intervals, LOS."""

    counts: tuple[int, ...]  # pairs scoring 0, ½, 1, 1½, 2 points (of 2)
    pairs: int
    score: float  # mean score per game, 0..1
    elo: float | None  # None: every pair was won (or lost); `elo_bound` is then the one-sided bound
    elo_low: float | None  # None: the interval reaches a score of 0 (no finite Elo)
    elo_high: float | None  # None: it reaches 1
    nelo: float | None
    nelo_low: float | None
    nelo_high: float | None
    los: float
    elo_bound: float | None = None  # with `elo` None: a 95% lower bound (won every pair) or upper (lost every one)

    def to_json(self) -> dict[str, Any]:
        return {"pentanomial": list(self.counts), "pairs": self.pairs, "score": self.score, "elo": self.elo,
                "elo_ci95": [self.elo_low, self.elo_high], "nelo": self.nelo,
                "nelo_ci95": [self.nelo_low, self.nelo_high], "los": self.los, "elo_bound": self.elo_bound,
                "bound": None if self.elo is not None else "lower" if self.score == 1.0 else "upper"}


VIRTUAL = (0.5, 0.0, 0.0, 0.0, 0.5)  # half a pair at each extreme, in the variance of an interval


def _moments(counts: Sequence[int]) -> tuple[float, float, float, float]:
    """The mean pair score, and the pairs' second, third and fourth central moments about it with
    the virtual pairs added."""
    pairs = sum(counts)
    mean = sum(c * s for c, s in zip(counts, SCORES)) / pairs
    weights = [c + v for c, v in zip(counts, VIRTUAL)]
    total = sum(weights)
    central = [sum(w * (s - mean) ** k for w, s in zip(weights, SCORES)) / total for k in (2, 3, 4)]
    return mean, central[0], central[1], central[2]


def nelo_spread(t: float, variance: float, third: float, fourth: float) -> float:
    """sqrt(N·Var(t̂)) for t = (m − ½)/σ with both m and σ estimated (the delta method)."""
    skew = third / variance**1.5
    kurtosis = fourth / variance**2
    return math.sqrt(max(1.0 - t * skew + t * t * (kurtosis - 1.0) / 4.0, 0.0))


def estimate(counts: Sequence[int]) -> PairEstimate | None:
    """Elo, nElo and LOS of the first player from pentanomial counts (None without pairs)."""
    counts = tuple(int(c) for c in counts)
    pairs = sum(counts)
    if not pairs:
        return None
    mean, variance, third, fourth = _moments(counts)
    raw = mean
    error = math.sqrt(variance / pairs)
    los = normal_cdf((mean - 0.5) / error)
    t = (mean - 0.5) / math.sqrt(variance)
    per_t = NELO_PER_T / math.sqrt(2.0)  # nElo = t · 800 / ln 10 / sqrt 2
    nelo_error = Z95 * nelo_spread(t, variance, third, fourth) / math.sqrt(pairs)
    nelo, nelo_low, nelo_high = t * per_t, (t - nelo_error) * per_t, (t + nelo_error) * per_t
    low, high = mean - Z95 * error, mean + Z95 * error
    if raw in (0.0, 1.0):  # won or lost every pair: no finite estimate, only the interval's finite end
        elo_bound = elo_of(low) if raw == 1.0 else elo_of(high)
        return PairEstimate(counts, pairs, raw, None, None, None, None, None, None, los, elo_bound)
    return PairEstimate(counts, pairs, raw, elo_of(mean), elo_of(low) if low > 0 else None,
                        elo_of(high) if high < 1 else None, nelo, nelo_low, nelo_high, los)


def _nearest_with_mean(probabilities: Sequence[float], target: float) -> list[float]:
    """The distribution over SCORES with mean `target` of highest likelihood for the observed
    `probabilities`: qᵢ = pᵢ / (1 + λ·(sᵢ − target)), λ found by bisection."""
    shifts = [s - target for s in SCORES]
    low = -1.0 / max(shifts) + 1e-12  # every 1 + λ·shift stays positive
    high = -1.0 / min(shifts) - 1e-12

    def excess(lam: float) -> float:  # decreasing in λ
        return sum(p * d / (1.0 + lam * d) for p, d in zip(probabilities, shifts))

    for _ in range(200):
        middle = (low + high) / 2
        if excess(middle) > 0:
            low = middle
        else:
            high = middle
    lam = (low + high) / 2
    q = [p / (1.0 + lam * d) for p, d in zip(probabilities, shifts)]
    total = sum(q)
    return [value / total for value in q]


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float
    upper: float
    pairs: int
    decision: str | None  # "H0" (not better than elo0), "H1" (at least elo1) or None (keep playing)

    def to_json(self) -> dict[str, object]:
        return {"llr": self.llr, "lower": self.lower, "upper": self.upper, "pairs": self.pairs,
                "decision": self.decision}


def gsprt(counts: Sequence[float], elo0: float, elo1: float, alpha: float, beta: float) -> SprtResult:
    """The generalized SPRT on pentanomial pair counts (logistic Elo bounds, fishtest's way)."""
    lower = math.log(beta / (1 - alpha))
    upper = math.log((1 - beta) / alpha)
    pairs = int(round(sum(counts)))
    if not pairs:
        return SprtResult(0.0, lower, upper, 0, None)
    weights = [count if count > 0 else REGULARIZE for count in counts]
    total = sum(weights)
    observed = [w / total for w in weights]
    q0 = _nearest_with_mean(observed, score_of(elo0))
    q1 = _nearest_with_mean(observed, score_of(elo1))
    llr = total * sum(p * math.log(b / a) for p, a, b in zip(observed, q0, q1))
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtResult(llr, lower, upper, pairs, decision)


def counts_of(pair_scores: Mapping[float, int] | Iterable[float]) -> list[int]:
    """Pentanomial counts from pair scores (each a mean over two games: 0, .25, .5, .75, 1),
    given one by one or counted by value."""
    counts = [0] * 5
    items = pair_scores.items() if isinstance(pair_scores, Mapping) else ((s, 1) for s in pair_scores)
    for score, count in items:
        counts[int(round(score * 4))] += count
    return counts


def twin_pairs(games: Sequence[GameEntry]) -> list[tuple[GameEntry, GameEntry]]:
    """The complete twin pairs of journal game lines, in order of the pair's first game id."""
    by_id = {game.id: game for game in games}
    out = []
    for game in sorted(games, key=lambda g: g.id):
        twin = by_id.get(game.twin)
        if twin is not None and game.id < game.twin:
            out.append((game, twin))
    return out


def head_to_head(games: Sequence[GameEntry], players: Sequence[str]) -> list[dict[str, Any]]:
    """Per two players that met, in the order of `players` (config order; unknown names last, by
    name): the first one's pentanomial counts and its estimate, first minus second. The order does
    not depend on who scored more, so Elo can be negative and LOS below ½ (LOS of first over second)."""
    counts: dict[tuple[str, str], list[int]] = {}
    order = {name: index for index, name in enumerate(players)}

    def rank(name: str) -> tuple[int, str]:
        return order.get(name, len(order)), name

    for first, second in twin_pairs(games):
        a, b = sorted((first.predator, first.prey), key=rank)
        total = first.score_of(a) + second.score_of(a)
        counts.setdefault((a, b), [0] * 5)[int(round(total * 2))] += 1
    out = []
    for (a, b), cells in sorted(counts.items(), key=lambda item: (rank(item[0][0]), rank(item[0][1]))):
        found = estimate(cells)
        assert found is not None
        out.append({"first": a, "second": b, **found.to_json()})
    return out


def role_advantage(games: Sequence[GameEntry]) -> dict[str, Any] | None:
    """The predator's pair score over complete twin pairs (each player the predator once)."""
    cells = [0] * 5
    for first, second in twin_pairs(games):
        cells[int(round((first.predator_score + second.predator_score) * 2))] += 1
    found = estimate(cells)
    return None if found is None else found.to_json()
