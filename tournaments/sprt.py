"""Sequential probability ratio test for a two-player match, over role-swapped game pairs.

Fox and geese are not symmetric, so single games are not exchangeable; the two games of a twin
pair (same opening, roles swapped) are. The test therefore looks at the pair score of the first
player (0, 0.25, 0.5, 0.75 or 1 per pair) and uses the generalised SPRT in its normal
approximation (as fishtest does with pentanomial counts):

    LLR = N · (s1 − s0) · (2·m − s0 − s1) / (2·σ²)

where m and σ² are the mean and variance of the pair scores, and s0, s1 the expected scores at
elo0 and elo1 (logistic Elo). Half a virtual pair at each extreme (0 and 1) keeps σ² above 0, so
a match won pair after pair still decides. Bounds: log(β/(1−α)) accepts H0, log((1−β)/α) accepts H1.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from foxgeese.tournaments.ratings import expected_score


@dataclass(frozen=True)
class SprtState:
    llr: float
    lower: float
    upper: float
    pairs: int
    decision: str | None  # "H0" (not better than elo0), "H1" (at least elo1) or None (keep playing)

    def to_json(self) -> dict[str, object]:
        return {"llr": self.llr, "lower": self.lower, "upper": self.upper, "pairs": self.pairs,
                "decision": self.decision}


def sprt(pair_scores: Iterable[float], elo0: float, elo1: float, alpha: float, beta: float) -> SprtState:
    """The test after the given pair scores (each the first player's mean score over a twin pair)."""
    return sprt_of_counts(Counter(pair_scores), elo0, elo1, alpha, beta)


def sprt_of_counts(counts: Mapping[float, int], elo0: float, elo1: float, alpha: float, beta: float) -> SprtState:
    """The test from how many pairs had each score: the same figures in any order of the pairs."""
    lower = math.log(beta / (1 - alpha))
    upper = math.log((1 - beta) / alpha)
    pairs = sum(counts.values())
    if not pairs:
        return SprtState(0.0, lower, upper, 0, None)
    weighted = [(score, float(count)) for score, count in sorted(counts.items()) if count] + [(0.0, 0.5), (1.0, 0.5)]
    total = sum(weight for _, weight in weighted)
    mean = sum(score * weight for score, weight in weighted) / total
    variance = sum(weight * (score - mean) ** 2 for score, weight in weighted) / total
    s0, s1 = expected_score(elo0), expected_score(elo1)
    llr = pairs * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtState(llr, lower, upper, pairs, decision)
