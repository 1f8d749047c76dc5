"""A queued test's figures and verdict: "bot A against bot B" as an SPRT or a fixed number of pairs.

A test's unit is the twin pair (A plays the predator in one game, the prey in the other, from one
opening), so its figures are the pentanomial ones of tournaments/pairs.py: A's pair-score Elo with
its 95% interval, LOS, and for an SPRT the generalized SPRT's LLR against its bounds. The SPRT's
elo0/elo1 are in the same pair-score Elo (the pairs' mean score mapped by 400·log10(s/(1−s))), not in
the ladder's Bradley–Terry Elo, and the page says so. A test ends once the SPRT decides or its
pairs are played; its verdict says which hypothesis, at what LLR, within which bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from foxgeese.tournaments.pairs import estimate, gsprt

ELO_SCALE = "pair-score Elo (the mean score over twin pairs, 400·log10(s/(1−s)))"


def pentanomial(test: dict[str, Any], games: Sequence[dict[str, Any]]) -> list[int]:
    """The first bot's pair scores (0, ½, 1, 1½, 2 points of 2) over the test's complete pairs."""
    by_pair: dict[int, list[dict[str, Any]]] = {}
    for game in games:
        by_pair.setdefault(game["pair"], []).append(game)
    cells = [0] * 5
    first = test["first"]
    for pair in by_pair.values():
        if len(pair) == 2:
            total = sum(g["predator_score"] if g["predator"] == first else 1.0 - g["predator_score"] for g in pair)
            cells[int(round(total * 2))] += 1
    return cells


def figures(test: dict[str, Any], games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What the test page shows: W/D/L of the first bot, the pentanomial, Elo, LOS, the SPRT."""
    cells = pentanomial(test, games)
    first = test["first"]
    wins = draws = losses = 0
    for game in games:
        score = game["predator_score"] if game["predator"] == first else 1.0 - game["predator_score"]
        wins += score == 1.0
        draws += score == 0.5
        losses += score == 0.0
    found = estimate(cells)
    out: dict[str, Any] = {"pentanomial": cells, "pairs": sum(cells), "games": len(games),
                           "wdl": [wins, draws, losses], "estimate": found.to_json() if found else None,
                           "elo_scale": ELO_SCALE}
    if test["kind"] == "sprt":
        out["sprt"] = gsprt(cells, test["elo0"], test["elo1"], test["alpha"], test["beta"]).to_json()
    return out


def verdict(test: dict[str, Any], shown: dict[str, Any]) -> str | None:
    """The line that ends the test, or None while it goes on."""
    pairs = shown["pairs"]
    if test["kind"] == "sprt":
        result = shown["sprt"]
        if result["decision"] is None:
            return None
        hypothesis = ("H1 accepted (the first is at least elo1 better)" if result["decision"] == "H1"
                      else "H0 accepted (the first is not elo1 better; at most elo0)")
        edge = "upper" if result["decision"] == "H1" else "lower"
        return (f"{test['first']} vs {test['second']}: {hypothesis}: LLR {result['llr']:.2f} reached the {edge} "
                f"bound of [{result['lower']:.2f}, {result['upper']:.2f}] after {pairs} pairs "
                f"(elo0 {test['elo0']:g}, elo1 {test['elo1']:g} in pair-score Elo, "
                f"alpha {test['alpha']:g}, beta {test['beta']:g})")
    if pairs < test["pairs"]:
        return None
    found = shown["estimate"]
    elo = found["elo"] if found else None
    low, high = found["elo_ci95"] if found else (None, None)
    if elo is None:
        bound = found["elo_bound"] if found else None
        said = (f"{'won' if found and found['score'] == 1.0 else 'lost'} every pair: no finite Elo; its 95% "
                f"{'lower' if found and found['score'] == 1.0 else 'upper'} bound is {_end(bound)} pair-score Elo")
    else:
        said = f"Elo {elo:+.0f} [{_end(low)}, {_end(high)}] (pair-score Elo, 95%), LOS {found['los']:.3f}"
    return f"{test['first']} vs {test['second']}: {pairs} pairs played: {said}"


def _end(value: float | None) -> str:
    return "–" if value is None else f"{value:+.0f}"
