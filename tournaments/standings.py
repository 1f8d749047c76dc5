"""The standings, the one place they are counted, and what the SPRT tallies game by game.

`Standings` adds one journal game at a time in constant time: the runner keeps one while it plays
(its `rows()` are the `standings` event's rows), the summary (report.py, results.json's
`standings`) and the live page's view of a journal count with the same object. `TwinPairs` is
what a running SPRT needs of the pairs. tests/test_tournament_run.py checks that the runner's
tallies and a report computed afresh from the journal agree.
"""

from __future__ import annotations

from collections import Counter

import msgspec

from foxgeese.protocol.record import RefereeTermination
from foxgeese.tournaments.entries import GameEntry

ADJUDICATED = RefereeTermination.ADJUDICATED.value


class Line(msgspec.Struct):
    """One player's standing: games, points, wins, draws and losses, forfeits by ending (the bot's
    own failures), games the tables adjudicated. results.json keeps it by player."""

    games: int = 0
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: dict[str, int] = {}
    adjudicated: int = 0


class Row(msgspec.Struct):
    """One row of the `standings` event (docs/tournaments.md) and of the live page: `score` is the
    points per game (0..1)."""

    name: str
    games: int
    points: float
    score: float


class Standings:
    """Every player's `Line`, in config order (see the module doc)."""

    def __init__(self, players: list[str]) -> None:
        self.players = list(players)
        self.lines = {name: Line() for name in self.players}

    def add(self, entry: GameEntry) -> None:
        """Counts one journal game line."""
        for name, score in ((entry.predator, entry.predator_score), (entry.prey, 1.0 - entry.predator_score)):
            line = self.lines[name]
            line.games += 1
            line.score += score
            if score == 1:
                line.wins += 1
            elif score == 0:
                line.losses += 1
            else:
                line.draws += 1
            if entry.termination == ADJUDICATED:
                line.adjudicated += 1
        if entry.forfeit:
            forfeits = self.lines[entry.forfeit].forfeits
            forfeits[entry.termination] = forfeits.get(entry.termination, 0) + 1

    def rows(self) -> list[Row]:
        """Best first (ties in config order)."""
        ranked = sorted(self.players, key=lambda name: -self.lines[name].score)
        return [Row(name, line.games, line.score, line.score / line.games if line.games else 0.0)
                for name in ranked for line in (self.lines[name],)]


class TwinPairs:
    """The first player's score over each twin pair whose two games are both in, counted by value
    (0, 0.25, 0.5, 0.75 or 1): all that the SPRT needs (`sprt.sprt_of_counts`)."""

    def __init__(self, first: str) -> None:
        self.first = first
        self.counts: Counter[float] = Counter()
        self._waiting: dict[str, float] = {}  # game id -> the first player's score, its twin not in yet

    def add(self, entry: GameEntry) -> None:
        score = entry.score_of(self.first)
        twin = self._waiting.pop(entry.twin, None)
        if twin is None:
            self._waiting[entry.id] = score
        else:
            self.counts[(score + twin) / 2] += 1
