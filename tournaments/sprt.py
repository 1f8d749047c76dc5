"""Sequential probability ratio test for a two-player match, over role-swapped game pairs.

Fox and geese are not symmetric, so single games are not exchangeable; the two games of a twin
pair (same opening, roles swapped) are. The test therefore looks at the pair score of the first
player (0, 0.25, 0.5, 0.75 or 1 per pair, a pentanomial count) and runs the generalized SPRT on
those counts as fishtest does (`pairs.gsprt`: the log-likelihood ratio of the two pentanomial
distributions nearest the observed one whose means are the expected scores at elo0 and elo1).
Bounds: log(β/(1−α)) accepts H0, log((1−β)/α) accepts H1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from foxgeese.tournaments.pairs import SprtResult, counts_of, gsprt

SprtState = SprtResult


def sprt(pair_scores: Iterable[float], elo0: float, elo1: float, alpha: float, beta: float) -> SprtState:
    """The test after the given pair scores (each the first player's mean score over a twin pair)."""
    return sprt_of_counts(Counter(pair_scores), elo0, elo1, alpha, beta)


def sprt_of_counts(counts: Mapping[float, int], elo0: float, elo1: float, alpha: float, beta: float) -> SprtState:
    """The test from how many pairs had each score: the same figures in any order of the pairs."""
    return gsprt(counts_of(counts), elo0, elo1, alpha, beta)
