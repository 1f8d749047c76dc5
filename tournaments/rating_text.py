"""What the reports say about their ratings: which Elo each table gives, the SPRT's unit.

One difference between two players gets two Elo numbers, each the honest answer to its own
question: the standings' (ratings.py: the strength difference with the predator's edge taken out,
fitted over all games) and the head to head's (pairs.py: the Elo of the expected score over a twin
pair). With a role edge the second is nearer 0. The SPRT runs in the second (its error rates hold
there whatever the role edge); the report also reads its bounds in the first, at the fitted edge.
Shared by the text report (report.py) and the HTML one (html_report.py).
"""

from __future__ import annotations

from typing import Any

from foxgeese.tournaments.pairs import standings_elo_of

SPRT_UNIT = ("pair-score Elo: the Elo of the first player's expected score over a twin pair (one game in "
             "each role), the head to head's unit, fishtest's logistic Elo")


def in_standings_unit(results: dict[str, Any], test: dict[str, Any]) -> dict[str, Any]:
    """What elo0 and elo1 read as in the standings' unit at the standings' predator edge (one
    variant only): for reading; the test itself stays in pair-score Elo, where its error rates hold."""
    ratings, variants = results["ratings"], results["variants"]
    edges = ratings.get("predator_advantage") or {}
    if len(variants) != 1 or variants[0]["label"] not in edges:
        return {}
    edge = edges[variants[0]["label"]]["elo"]
    return {"standings_unit": {"predator_advantage": edge, "elo0": standings_elo_of(test["elo0"], edge),
                               "elo1": standings_elo_of(test["elo1"], edge)}}


def standings_legend(ratings: dict[str, Any]) -> list[str]:
    """What the standings' Elo and its interval are: under the table, in both reports."""
    if "players" not in ratings:
        return []
    return ["Elo: the Bradley-Terry fit over all games with the predator's edge per variant taken out (a "
            "strength difference where neither side is favoured), mean 0; ±95%: "
            + ratings.get("interval", "").removeprefix("95%, normal approximation: ")
            + "; the head to head's Elo (pair-score Elo) is another measure of the same difference"]


PAIRS_LEGEND = [
    "first minus second, in config order (LOS: of first over second, below 0.5 when first is the weaker)",
    "Elo here: the Elo of first's expected score over a twin pair (one game in each role), the role edge "
    "averaged out after the logistic curve; with a role edge it is nearer 0 than the standings' difference, "
    "which takes the edge out before it (e.g. 37 against 50 at a true 50 with a 200 edge); SPRT bounds are in "
    "this unit",
    "nElo: how far first's mean pair score is from ½ in the pairs' own standard deviations (fishtest's "
    "normalized Elo); its interval counts that the deviation is estimated too",
]


def sprt_lines(test: dict[str, Any]) -> list[str]:
    """The SPRT's bounds (with their unit), its LLR and decision, and why it is undecided."""
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}[test["decision"]]
    second = f" − {test['second_player']}" if test.get("second_player") else ""
    lines = [f"SPRT {test['first_player']}{second} elo0={test['elo0']:g} elo1={test['elo1']:g} (pair-score Elo, "
             f"the head to head's unit) alpha={test['alpha']} beta={test['beta']}: LLR {test['llr']:.2f} "
             f"[{test['lower']:.2f}, {test['upper']:.2f}] after {test['pairs']} pairs: {verdict}"
             + (" (match stopped)" if test.get("stopped") else "")]
    converted = test.get("standings_unit")
    if converted:
        edge = converted["predator_advantage"]
        lines.append(f"  in the standings' unit, at the predator edge the standings fitted, {edge:+.0f}: "
                     f"elo0 ≈ {round(converted['elo0']) + 0:.0f}, elo1 ≈ {round(converted['elo1']) + 0:.0f} "
                     "(for reading; the test "
                     "runs in pair-score Elo)")
    if test.get("why_undecided"):
        lines.append(f"SPRT undecided: {test['why_undecided']}")
    return lines
