"""The checks that take a worker out of rotation (fishtest's, on twin pairs).

1. Consistency, on every pair a worker sends: each game's summary (its winner and the predator's
   score: what the standings and the pentanomial counts add up) must agree with its record (the
   winner and ending the record states, and for a rule ending the position its moves reach). A
   worker whose pair disagrees sent results nobody can trust: it is out at once.
2. Residuals, once there are at least `MIN_WORKERS` workers with games: per matchup (first bot,
   second bot), a worker's mean pair score against the other workers' as a z value (the pairs'
   pooled variance); the sum of their squares is chi-square with one degree of freedom per matchup.
   A worker whose p-value is below `RESIDUAL_P` stands out, and is out.
3. Forfeits: a worker on which bots crash or lose on time far more than on the others (at least
   `MIN_FORFEITS`, and a binomial tail below `FORFEIT_P` at the other workers' rate, at least
   `FLOOR_RATE`) is out: the bot is not at fault, its machine is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from foxgeese.engine import Game, Position, Side, Termination, get_variant

MIN_WORKERS = 3
MIN_PAIRS = 4  # a worker's pairs before its residual counts
RESIDUAL_P = 1e-3
MIN_FORFEITS = 3
FORFEIT_P = 1e-3
FLOOR_RATE = 0.01
SUSPECT_ENDINGS = ("crash", "no-show", "time-forfeit", "protocol-error")
RULE_ENDINGS = frozenset(t.value for t in Termination)


def inconsistency(entries: Sequence[dict[str, Any]]) -> str | None:
    """Why a worker's pair of journal entries cannot be right, or None."""
    for entry in entries:
        record = entry["record"]
        variant = get_variant(entry["variant"], **dict(entry.get("options") or {}))
        predator = variant.side_name(Side.PREDATOR)
        expected = 0.5 if entry["winner"] == "draw" else 1.0 if entry["winner"] == predator else 0.0
        if entry["predator_score"] != expected:
            return (f"game {entry['id']}: its predator score {entry['predator_score']} disagrees with its winner "
                    f"{entry['winner']} (the pair's pentanomial count would not match its wins and losses)")
        if str(record.get("winner")) != entry["winner"] or str(record.get("termination")) != entry["termination"]:
            return (f"game {entry['id']}: its summary says {entry['winner']} by {entry['termination']}, its record "
                    f"{record.get('winner')} by {record.get('termination')}")
        if entry["termination"] in RULE_ENDINGS:
            game = Game.from_position(Position.from_text(record["start"])) if record.get("start") else Game(variant)
            try:
                for move in record.get("moves") or []:
                    game.push(game.parse_move(move["move"]))
            except ValueError as error:
                return f"game {entry['id']}: its record's moves do not replay ({error})"
            outcome = game.outcome()
            if outcome is None or outcome.termination.value != entry["termination"] or \
                    outcome.winner.value != entry["winner"]:
                reached = "no ending" if outcome is None else f"{outcome.winner.value} by {outcome.termination.value}"
                return f"game {entry['id']}: it claims {entry['winner']} by {entry['termination']}; its moves reach " \
                       f"{reached}"
    return None


def pair_scores(games: Sequence[dict[str, Any]]) -> list[tuple[str, tuple[str, str], float]]:
    """(worker, (first, second), first's mean pair score) of every complete pair of `games`."""
    by_pair: dict[int, list[dict[str, Any]]] = {}
    for game in games:
        by_pair.setdefault(game["pair"], []).append(game)
    out = []
    for pair in by_pair.values():
        if len(pair) == 2:
            first = min(pair, key=lambda g: g["slot"])
            a, b = first["predator"], first["prey"]
            total = sum(g["predator_score"] if g["predator"] == a else 1.0 - g["predator_score"] for g in pair)
            out.append((first["worker"], (a, b), total / 2))
    return out


def residual_outlier(games: Sequence[dict[str, Any]]) -> tuple[str, str] | None:
    """(worker, why) of the worker whose pair scores stand out most, if one does (see the module doc)."""
    scores = pair_scores(games)
    workers = sorted({worker for worker, _, _ in scores})
    if len(workers) < MIN_WORKERS:
        return None
    worst: tuple[float, str, str] | None = None
    for worker in workers:
        mine = [(m, s) for w, m, s in scores if w == worker]
        if len(mine) < MIN_PAIRS:
            continue
        chi2, df = 0.0, 0
        for matchup in {m for m, _ in mine}:
            own = [s for m, s in mine if m == matchup]
            rest = [s for w, m, s in scores if w != worker and m == matchup]
            if len(rest) < MIN_PAIRS:
                continue
            every = own + rest
            mean = sum(every) / len(every)
            variance = max(sum((s - mean) ** 2 for s in every) / max(1, len(every) - 1), 1 / 64)
            z = (sum(own) / len(own) - sum(rest) / len(rest)) / math.sqrt(variance * (1 / len(own) + 1 / len(rest)))
            chi2 += z * z
            df += 1
        if not df:
            continue
        p = chi2_survival(chi2, df)
        if p < RESIDUAL_P and (worst is None or p < worst[0]):
            worst = (p, worker, f"its pair scores stand out from the other workers' (chi-square {chi2:.1f} on {df} "
                                f"matchup(s), p = {p:.1e} < {RESIDUAL_P:g})")
    return None if worst is None else (worst[1], worst[2])


def forfeit_outlier(games: Sequence[dict[str, Any]]) -> tuple[str, str] | None:
    """(worker, why) of a worker whose bots crash or lose on time far more than on the others."""
    counts: dict[str, list[int]] = {}
    for game in games:
        cell = counts.setdefault(game["worker"], [0, 0])
        cell[0] += 1
        cell[1] += game["termination"] in SUSPECT_ENDINGS and game["forfeit"] is not None
    for worker, (played, forfeits) in sorted(counts.items(), key=lambda item: -item[1][1]):
        others = [cell for name, cell in counts.items() if name != worker]
        others_played = sum(cell[0] for cell in others)
        if forfeits < MIN_FORFEITS or others_played < 2 * MIN_FORFEITS:
            continue
        rate = max(FLOOR_RATE, sum(cell[1] for cell in others) / others_played)
        p = binomial_tail(forfeits, played, rate)
        if p < FORFEIT_P:
            return worker, (f"bots crashed or lost on time in {forfeits} of its {played} games, against a rate of "
                            f"{rate:.1%} on the other workers (binomial p = {p:.1e} < {FORFEIT_P:g})")
    return None


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p)."""
    return min(1.0, sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def chi2_survival(x: float, df: int) -> float:
    """P(X ≥ x) for X chi-square with `df` degrees of freedom (the regularized upper gamma Q(df/2, x/2))."""
    a, z = df / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    if z < a + 1:  # the series of the lower function
        term = total = 1.0 / a
        n = a
        for _ in range(500):
            n += 1
            term *= z / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-z + a * math.log(z) - math.lgamma(a)))
    b = z + 1 - a  # Lentz's continued fraction of the upper function
    c, d = 1e300, 1.0 / b
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(-z + a * math.log(z) - math.lgamma(a)) * h
