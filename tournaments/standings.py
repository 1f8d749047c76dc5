"""What a running tournament tallies game by game: points per player and the SPRT's pair scores.

Each finished game updates them in constant time, so a long tournament does not recount every game
after each one; report.py's `summarize` computes the same from a whole journal, and
tests/test_tournament_run.py checks that the two agree on a real journal.
"""

from __future__ import annotations

from collections import Counter
from typing import Any


class Standings:
    """Points and games per player, in config order; `rows()` is the `standings` event's `rows`."""

    def __init__(self, players: list[str]) -> None:
        self.players = list(players)
        self.points = dict.fromkeys(self.players, 0.0)
        self.games = dict.fromkeys(self.players, 0)

    def add(self, entry: dict[str, Any]) -> None:
        """Counts one journal game line."""
        self.points[entry["predator"]] += entry["predator_score"]
        self.points[entry["prey"]] += 1 - entry["predator_score"]
        self.games[entry["predator"]] += 1
        self.games[entry["prey"]] += 1

    def rows(self) -> list[dict[str, Any]]:
        """[{name, games, points, score (0..1)}], best first (ties in config order)."""
        ranked = sorted(self.players, key=lambda name: -self.points[name])
        return [{"name": name, "games": self.games[name], "points": self.points[name],
                 "score": self.points[name] / self.games[name] if self.games[name] else 0.0} for name in ranked]


class TwinPairs:
    """The first player's score over each twin pair whose two games are both in, counted by value
    (0, 0.25, 0.5, 0.75 or 1): all that the SPRT needs (`sprt.sprt_of_counts`)."""

    def __init__(self, first: str) -> None:
        self.first = first
        self.counts: Counter[float] = Counter()
        self._waiting: dict[str, float] = {}  # game id -> the first player's score, its twin not in yet

    def add(self, entry: dict[str, Any]) -> None:
        score = entry["predator_score"] if entry["predator"] == self.first else 1 - entry["predator_score"]
        twin = self._waiting.pop(entry["twin"], None)
        if twin is None:
            self._waiting[entry["id"]] = score
        else:
            self.counts[(score + twin) / 2] += 1
