"""A variant's standing ladder: its ratings, and which pair of bots to play next.

Ratings are the tournaments' own: a Bradley–Terry fit of every ladder game of the variant with a
predator-advantage term, its covariance clustered by twin pair (tournaments/ratings.py), so one
number per bot with a 95% interval; head-to-head figures are the pentanomial ones
(tournaments/pairs.py). The next pair is where a pair of games tells most: a bot with fewer than
`NEW_PAIRS` pairs first (against the bot it met least), else the two bots whose difference is least
certain (the widest interval of their difference, times how close they are, since a game between
far-apart bots is nearly always won by the stronger and says little).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from foxgeese.protocol.record import BOT_FAULTS
from foxgeese.tournaments import pairs as paired
from foxgeese.tournaments.ratings import GameResult, Ratings, RatingsError, fit

NEW_PAIRS = 3  # a bot with fewer pairs than this is new: it plays first
UNKNOWN_WIDTH = 2000.0  # the interval width of two bots no game connects
CRASHES = ("crash", "no-show", "protocol-error")


@dataclass
class Row:
    """One bot's line on the leaderboard."""

    name: str
    spec: str
    rung: bool
    elo: float | None = None
    ci95: float | None = None
    games: int = 0
    pairs: int = 0
    points: float = 0.0
    judged: int = 0
    mistakes: int = 0
    crashes: int = 0
    time_losses: int = 0
    other_forfeits: int = 0

    def accuracy(self) -> float | None:
        """The share of its judged moves that kept the position's value (None: no move judged)."""
        return None if not self.judged else 1.0 - self.mistakes / self.judged

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "rung": self.rung, "elo": self.elo, "ci95": self.ci95,
                "games": self.games, "pairs": self.pairs, "points": self.points, "accuracy": self.accuracy(),
                "judged_moves": self.judged, "mistakes": self.mistakes, "crashes": self.crashes,
                "time_losses": self.time_losses, "other_forfeits": self.other_forfeits}


@dataclass
class Standings:
    """The ladder of one variant from its games: rows best first, the fit, pair counts."""

    variant: str
    rows: list[Row]
    ratings: Ratings | None
    meetings: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # sorted names -> pentanomial
    problem: str = ""  # why there are no ratings yet

    def to_json(self) -> dict[str, Any]:
        advantage = None
        if self.ratings is not None and self.ratings.variants:
            advantage = {"elo": self.ratings.advantage[0], "ci95": self.ratings.advantage_ci95[0]}
        return {"variant": self.variant, "rows": [row.to_json() for row in self.rows], "problem": self.problem,
                "predator_advantage": advantage,
                "interval": "95%: Bradley-Terry (logistic Elo, mean 0), its covariance clustered by twin pair"}


def standings(variant: str, bots: Sequence[dict[str, Any]], games: Sequence[dict[str, Any]]) -> Standings:
    """The ladder of `variant`: `bots` (arena_bots rows) and its non-void ladder games (arena_games rows)."""
    rows = {bot["name"]: Row(bot["name"], bot["spec"], bool(bot["rung"])) for bot in bots}
    by_pair: dict[int, list[dict[str, Any]]] = {}
    for game in games:
        by_pair.setdefault(game["pair"], []).append(game)
        for side, name in (("predator", game["predator"]), ("prey", game["prey"])):
            row = rows.get(name)
            if row is None:
                continue
            row.games += 1
            row.points += game["predator_score"] if side == "predator" else 1.0 - game["predator_score"]
            judged = game["judged"].get(side) or {}
            row.judged += int(judged.get("judged", 0))
            row.mistakes += int(judged.get("mistakes", 0))
            if game["forfeit"] == name:
                if game["termination"] in CRASHES:
                    row.crashes += 1
                elif game["termination"] == "time-forfeit":
                    row.time_losses += 1
                else:
                    row.other_forfeits += 1
    meetings: dict[tuple[str, str], list[int]] = {}
    for pair in by_pair.values():
        if len(pair) != 2:
            continue
        a, b = sorted((pair[0]["predator"], pair[0]["prey"]))
        total = sum(game["predator_score"] if game["predator"] == a else 1.0 - game["predator_score"] for game in pair)
        meetings.setdefault((a, b), [0] * 5)[int(round(total * 2))] += 1
        for name in (a, b):
            if name in rows:
                rows[name].pairs += 1
    ratings, problem = None, ""
    played = [g for g in games if g["predator"] in rows and g["prey"] in rows]
    if played:
        try:
            ratings = fit([GameResult(g["predator"], g["prey"], variant, g["predator_score"]) for g in played],
                          clusters=[str(g["pair"]) for g in played])
        except RatingsError as error:
            problem = str(error)
    else:
        problem = "no ladder games yet"
    if ratings is not None:
        for name, elo, ci95 in zip(ratings.players, ratings.elo, ratings.ci95):
            rows[name].elo, rows[name].ci95 = elo, ci95
    ordered = sorted(rows.values(), key=lambda r: (r.elo is None, -(r.elo or 0.0), -r.points, r.name))
    return Standings(variant, ordered, ratings, meetings, problem)


def next_pair(table: Standings, inflight: Sequence[tuple[str, str]] = ()) -> tuple[str, str] | None:
    """The two bots whose next pair of games tells most (see the module doc), or None (< 2 bots).
    `inflight`: pairs being played now, counted as if done (so workers spread over the ladder)."""
    names = [row.name for row in table.rows]
    if len(names) < 2:
        return None
    busy: dict[tuple[str, str], int] = {}
    for a, b in inflight:
        key = (min(a, b), max(a, b))
        busy[key] = busy.get(key, 0) + 1
    met = {key: sum(cells) + busy.get(key, 0) for key, cells in table.meetings.items()}
    for key, count in busy.items():
        met.setdefault(key, count)
    played = {name: 0 for name in names}
    for (a, b), count in met.items():
        for name in (a, b):
            if name in played:
                played[name] += count
    order = {name: index for index, name in enumerate(names)}
    newest = min(names, key=lambda n: (played[n], -order[n]))  # new bots first, the last registered first
    if played[newest] < NEW_PAIRS:
        elo = {row.name: row.elo for row in table.rows}

        def closeness(other: str) -> float:
            mine, theirs = elo.get(newest), elo.get(other)
            return abs(mine - theirs) if mine is not None and theirs is not None else 0.0

        partner = min((n for n in names if n != newest),
                      key=lambda n: (met.get((min(n, newest), max(n, newest)), 0), closeness(n), order[n]))
        return newest, partner
    best, best_value = None, -1.0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            value = information(table, a, b, met.get((min(a, b), max(a, b)), 0))
            if value > best_value:
                best, best_value = (a, b), value
    return best


def information(table: Standings, a: str, b: str, pairs_met: int) -> float:
    """How much one more pair between `a` and `b` tells: the width of their difference's interval
    (narrowed as sqrt(n / (n + 1)) for the pairs in flight too) times p(1 − p) at their gap."""
    width, gap = UNKNOWN_WIDTH, 0.0
    if table.ratings is not None and a in table.ratings.players and b in table.ratings.players:
        gap, width = table.ratings.difference(a, b)
    cells = table.meetings.get((min(a, b), max(a, b)))
    done = sum(cells) if cells else 0
    if pairs_met > done:  # games in flight narrow it as much as finished ones will
        width *= math.sqrt((done + 1) / (pairs_met + 1))
    p = paired.score_of(gap)
    return width * 4.0 * p * (1.0 - p)


def is_forfeit(game: dict[str, Any]) -> bool:
    return game["termination"] in BOT_FAULTS and game["forfeit"] is not None
