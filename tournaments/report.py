"""Results of a tournament directory: crosstables, endings, forfeits, ratings; JSON, CSV and tables.

Everything is computed from `tournament.json` and the journal alone, so `foxgeese tournament
report DIR` gives the same answer during a run, after a crash and after the end.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec
from rich.console import Console

from foxgeese.engine import Side, get_variant
from foxgeese.engine.outcome import ending_legend
from foxgeese.files import write_json_atomic
from foxgeese.players.solver.adjudicate import short
from foxgeese.players.solver.analyse import tournament_accuracy
from foxgeese.terminal import print_table, table
from foxgeese.tournaments.entries import GameEntry, JournalLine, SprtStop, variant_label
from foxgeese.tournaments.failures import bot_failures, failure_lines
from foxgeese.tournaments.journal import belonging, load_identity, scan_journal
from foxgeese.tournaments.pairs import head_to_head, role_advantage, twin_pairs
from foxgeese.tournaments.rating_text import PAIRS_LEGEND, SPRT_UNIT, in_standings_unit, sprt_lines, standings_legend
from foxgeese.tournaments.ratings import GameResult, RatingsError, fit
from foxgeese.tournaments.sprt import sprt
from foxgeese.tournaments.standings import ADJUDICATED, Row, Standings

RESULTS_JSON = "results.json"
RESULTS_CSV = "results.csv"
GAMES_CSV = "games.csv"


def game_entries(entries: Iterable[JournalLine]) -> list[GameEntry]:
    """The game lines of a journal, first occurrence of each id (a journal never repeats one)."""
    seen: set[str] = set()
    games = []
    for entry in entries:
        if isinstance(entry, GameEntry) and entry.id not in seen:
            seen.add(entry.id)
            games.append(entry)
    return games


def sprt_stop(entries: Iterable[JournalLine]) -> SprtStop | None:
    return next((entry for entry in entries if isinstance(entry, SprtStop)), None)


def pair_scores(games: list[GameEntry], first: str) -> list[float]:
    """Mean score of `first` over each complete twin pair, in order of the pair's first game id."""
    return [(game.score_of(first) + twin.score_of(first)) / 2 for game, twin in twin_pairs(games)]


def summarize(identity: dict[str, Any], entries: list[JournalLine]) -> dict[str, Any]:
    """The whole result as plain data (what results.json holds)."""
    config = identity["config"]
    players = [player["name"] for player in config["players"]]
    games = game_entries(entries)
    variants = []
    for variant in config["variants"]:
        label = variant_label(variant["id"], variant["options"])
        in_variant = [g for g in games if g.label == label]
        variants.append(_variant_summary(label, variant, players, in_variant))
    standings = Standings(players)
    for game in games:
        standings.add(game)
    results: dict[str, Any] = {
        "name": config["name"],
        "config_hash": identity["config_hash"],
        "scheduled": identity["scheduled"],
        "played": len(games),
        "standings": msgspec.to_builtins(standings.lines),
        "variants": variants,
    }
    try:
        ratings = fit([GameResult(g.predator, g.prey, g.label, g.predator_score) for g in games],
                      players=players, variants=[v["label"] for v in variants],
                      clusters=[min(g.id, g.twin) for g in games])
        results["ratings"] = ratings.to_json()
        results["ratings"]["differences"] = [
            {"first": a, "second": b, "elo": ratings.difference(a, b)[0], "ci95": ratings.difference(a, b)[1]}
            for index, a in enumerate(ratings.players) for b in ratings.players[index + 1:]]
    except RatingsError as error:
        results["ratings"] = {"error": str(error)}
    results["pairs"] = head_to_head(games, players)
    results["cuts"] = cut_moves(games)
    stop = sprt_stop(entries)
    complete = len(games) == identity["scheduled"] or stop is not None
    if config.get("sprt"):
        test = config["sprt"]
        # A stopped test is judged on the games journaled before its stop line: games in progress
        # then are journaled after it and count in the standings, not in the decision.
        tested = games if stop is None else game_entries(entries[: next(
            index for index, entry in enumerate(entries) if entry is stop)])
        state = sprt(pair_scores(tested, players[0]), test["elo0"], test["elo1"], test["alpha"], test["beta"])
        results["sprt"] = {"first_player": players[0], "second_player": players[1], **test, **state.to_json(),
                           "unit": SPRT_UNIT, **in_standings_unit(results, test)}
        results["sprt"]["stopped"] = stop is not None
        if state.decision is None and complete:
            results["sprt"]["why_undecided"] = (
                f"the game limit was reached: all {identity['scheduled']} games "
                f"(games_per_pairing {config.get('games_per_pairing')}) were played before the LLR "
                f"crossed a bound; raise games_per_pairing and run again with the same --out to extend it "
                "(the games played count)")
    results["complete"] = complete
    results["accuracy"] = accuracy(entries)
    results["failures"] = [msgspec.to_builtins(failure) for failure in bot_failures(games)]
    return results


def cut_moves(games: list[GameEntry]) -> dict[str, dict[str, int]]:
    """Per player: moves made, and moves whose fixed budget the clock cut (`cut` in the move's info)."""
    out: dict[str, dict[str, int]] = {}
    for game in games:
        if game.record is None:
            continue
        seats = {side: seat.name for side, seat in game.record.bots.items()}
        for move in game.record.moves:
            name = seats.get(move.side)
            if name is None or move.book:
                continue
            line = out.setdefault(name, {"moves": 0, "cut": 0})
            line["moves"] += 1
            line["cut"] += bool(move.info.get("cut"))
    return out


def cut_warnings(cuts: dict[str, dict[str, int]]) -> list[str]:
    """One line per player whose fixed budget the clock cut: such games depend on the machine's load."""
    return [f"warning: the clock cut {line['cut']} of {line['moves']} moves of {name} before its fixed budget "
            "was spent, so its games depend on the machine's load; give it a longer time_control"
            for name, line in sorted(cuts.items()) if line["cut"]]


def _variant_summary(label: str, variant: dict[str, Any], players: list[str],
                     games: list[GameEntry]) -> dict[str, Any]:
    engine_variant = get_variant(variant["id"], **variant["options"])
    sides = {"predator": engine_variant.side_name(Side.PREDATOR), "prey": engine_variant.side_name(Side.PREY)}
    table: dict[str, Any] = {}
    for name in players:
        table[name] = {"score": 0.0, "games": 0, "as_predator": {"score": 0.0, "games": 0},
                       "as_prey": {"score": 0.0, "games": 0}, "opponents": {}}
    terminations: dict[str, int] = {}
    for game in games:
        terminations[game.termination] = terminations.get(game.termination, 0) + 1
        for name, opponent, role, score in (
            (game.predator, game.prey, "as_predator", game.predator_score),
            (game.prey, game.predator, "as_prey", 1 - game.predator_score),
        ):
            line = table[name]
            line["score"] += score
            line["games"] += 1
            line[role]["score"] += score
            line[role]["games"] += 1
            cell = line["opponents"].setdefault(opponent, {"score": 0.0, "games": 0})
            cell["score"] += score
            cell["games"] += 1
    return {"label": label, "id": variant["id"], "options": variant["options"], "sides": sides,
            "games": len(games), "crosstable": table, "terminations": dict(sorted(terminations.items())),
            "adjudicated": terminations.get("adjudicated", 0), "adjudicated_by": _adjudicating_tables(games),
            "role_advantage": role_advantage(games)}


def _adjudicating_tables(games: list[GameEntry]) -> list[dict[str, Any]]:
    """The tables named by the adjudicated games (journal `tables`), each with its games and plies."""
    found: dict[str, dict[str, Any]] = {}
    for game in games:
        if game.termination != ADJUDICATED or game.tables is None:
            continue
        line = found.setdefault(game.tables.digest, {**msgspec.to_builtins(game.tables), "games": 0, "plies": 0})
        line["games"] += 1
        line["plies"] += game.plies
    return list(found.values())


def good_entries(directory: Path, problems: list[str] | None = None) -> tuple[dict[str, Any], list[JournalLine]]:
    """The identity and what is good in the journal. Damaged lines and games of another
    tournament are left out, each described in `problems` when given (`run` refuses them;
    `foxgeese tournament repair` drops them)."""
    identity = load_identity(directory)
    scan = scan_journal(directory)
    why_foreign = belonging(identity)
    good = []
    notes = [(line, f"damaged ({scan.problems[line]})") for line in scan.damaged]
    for entry, line in zip(scan.entries, scan.lines):
        reason = why_foreign(entry)
        if reason is None:
            good.append(entry)
        else:
            notes.append((line, reason))
    if problems is not None:
        problems += [f"{directory}/journal.jsonl: line {line} left out: {reason}" for line, reason in sorted(notes)]
    return identity, good


def load_results(directory: Path, problems: list[str] | None = None) -> dict[str, Any]:
    """The results of what is good in the journal (see `good_entries`)."""
    return summarize(*good_entries(directory, problems))


def write_results(directory: Path, results: dict[str, Any], journal: list[JournalLine] | None = None) -> None:
    """results.json (everything), results.csv (one line per player), games.csv (one per game).
    `journal`: the journal's lines when the caller has them already (else it is read from disk)."""
    directory = Path(directory)
    lines = good_entries(directory)[1] if journal is None else journal
    write_json_atomic(directory / RESULTS_JSON, results)
    ratings = results["ratings"].get("players", {})
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["player", "elo", "ci95", "games", "score", "wins", "draws", "losses", "forfeits"])
    for name, line in results["standings"].items():
        rating = ratings.get(name, {})
        writer.writerow([name, _number(rating.get("elo")), _number(rating.get("ci95")), line["games"],
                         line["score"], line["wins"], line["draws"], line["losses"],
                         sum(line["forfeits"].values())])
    (directory / RESULTS_CSV).write_text(buffer.getvalue(), encoding="utf-8")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["id", "variant", "predator", "prey", "winner", "predator_score", "termination",
                     "plies", "forfeit", "reason"])
    for game in sorted(game_entries(lines), key=lambda g: g.id):
        writer.writerow([game.id, game.label, game.predator, game.prey, game.winner, game.predator_score,
                         game.termination, game.plies, game.forfeit or "", game.reason])
    (directory / GAMES_CSV).write_text(buffer.getvalue(), encoding="utf-8")


def accuracy(lines: list[JournalLine]) -> dict[str, Any]:
    """Mistakes against perfect play per bot, the tables that judged them, and what no table knew
    (`analyse.tournament_accuracy`)."""
    return tournament_accuracy(entry.record.to_dict() for entry in game_entries(lines) if entry.record is not None)


def accuracy_notes(accuracy: dict[str, Any]) -> list[str]:
    """Which tables judged, and the command that builds what was missing: lines under the table."""
    notes = [f"judged by: {short(tables)}" for tables in accuracy.get("tables") or [] if tables.get("files")]
    return notes + [f"not judged: {hint}" for hint in accuracy.get("missing") or []]


def by_geese(counts: dict[Any, int]) -> str:
    """`13:40 12:7` (judged moves per goose count, most geese first)."""
    return " ".join(f"{geese}:{count}" for geese, count in sorted(counts.items(), key=lambda i: -int(i[0])))


def _render_accuracy(accuracy: dict[str, Any], console: Console) -> None:
    bots = accuracy.get("bots") or {}
    if bots:
        shown = table("Accuracy against perfect play (judged: moves with a real choice in a solved position; "
                      "forced: no move there could be a mistake)",
                      ("player", "games", "judged", "forced", "mistakes", "per game", "first mistake ply",
                       "judged per goose count"))
        for name, line in sorted(bots.items()):
            first = line["mean_first_mistake_ply"]
            shown.add_row(name, str(line["games"]), str(line["judged_moves"]), str(line["forced_moves"]),
                          str(line["mistakes"]), f"{line['mistakes_per_game']:.2f}",
                          "-" if first is None else f"{first:.1f}", by_geese(line["judged_by_geese"]))
        print_table(console, shown)
    for note in accuracy_notes(accuracy):
        console.print(note)


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _elo(value: float) -> str:
    return f"{round(value) + 0:.0f}"  # never "-0"


def _score(value: float) -> str:
    return f"{value:g}"


def render(results: dict[str, Any], console: Console) -> None:
    """Tables for people: standings with ratings, a crosstable per variant, endings, forfeits."""
    console.print(f"[bold]{results['name']}[/bold]: {results['played']} of {results['scheduled']} games played")
    ratings = results["ratings"]
    standings = table("Standings (Elo: the standings' fit over all games, mean 0, 95% interval)",
                      ("player", "Elo", "±95%", "games", "score", "W", "D", "L", "adjudicated", "forfeits"))
    rated = ratings.get("players", {})
    order = sorted(results["standings"], key=lambda n: -(rated.get(n, {}).get("elo", 0.0) if rated
                                                       else results["standings"][n]["score"]))
    for name in order:
        line = results["standings"][name]
        rating = rated.get(name)
        standings.add_row(name, _elo(rating["elo"]) if rating else "-", f"{rating['ci95']:.0f}" if rating else "-",
                          str(line["games"]), _score(line["score"]), str(line["wins"]), str(line["draws"]),
                          str(line["losses"]), str(line.get("adjudicated", 0)), str(sum(line["forfeits"].values())))
    print_table(console, standings, standings_legend(ratings))
    if "error" in ratings:
        console.print(f"ratings: {ratings['error']}")
    for variant in results["variants"]:
        _render_variant(variant, order, ratings, console)
    forfeits = {name: line["forfeits"] for name, line in results["standings"].items() if line["forfeits"]}
    if forfeits:
        kinds = sorted({kind for counts in forfeits.values() for kind in counts})
        shown = table("Forfeits per bot", ("player", *kinds))
        for name, counts in forfeits.items():
            shown.add_row(name, *(str(counts.get(kind, 0)) for kind in kinds))
        print_table(console, shown, ending_legend(kinds))
    rated_order = [name for name in order if name in rated]
    if len(rated_order) > 1:
        shown = table("Likelihood of superiority (row stronger than column, from the standings' fit)",
                      ("", *rated_order))
        for name in rated_order:
            shown.add_row(name, *("" if other == name else f"{ratings['los'][name][other]:.2f}"
                                  for other in rated_order))
        print_table(console, shown)
    _render_pairs(results.get("pairs") or [], console)
    _render_accuracy(results.get("accuracy") or {}, console)
    for warning in cut_warnings(results.get("cuts") or {}):
        console.print(warning)
    if "sprt" in results:
        for line in sprt_lines(results["sprt"]):
            console.print(line, markup=False, highlight=False)
    for line in failure_lines(results.get("failures") or []):  # last: what a user reads first after a run
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def _render_variant(variant: dict[str, Any], order: list[str], ratings: dict[str, Any], console: Console) -> None:
    sides = variant["sides"]
    players = [name for name in order if name in variant["crosstable"]]
    shown = table(f"{variant['label']}: {variant['games']} games",
                  ("player", *players, f"as {sides['predator']}", f"as {sides['prey']}", "total"))
    for name in players:
        line = variant["crosstable"][name]
        cells = []
        for other in players:
            cell = line["opponents"].get(other)
            cells.append("·" if other == name else f"{_score(cell['score'])}/{cell['games']}" if cell else "")
        shown.add_row(name, *cells,
                      f"{_score(line['as_predator']['score'])}/{line['as_predator']['games']}",
                      f"{_score(line['as_prey']['score'])}/{line['as_prey']['games']}",
                      f"{_score(line['score'])}/{line['games']}")
    print_table(console, shown)
    endings = ", ".join(f"{kind} {count}" for kind, count in variant["terminations"].items()) or "none"
    console.print(f"endings: {endings}", markup=False, highlight=False)
    for line in ending_legend(variant["terminations"], sides["predator"], sides["prey"]):
        console.print(f"  {line}", markup=False, highlight=False)
    for line in adjudication_lines(variant):
        console.print(line)
    console.print(role_line(sides["predator"], variant.get("role_advantage")))


def adjudication_lines(variant: dict[str, Any]) -> list[str]:
    """What adjudication did in a variant: how many games, after how many plies, by which tables."""
    count = variant.get("adjudicated", 0)
    if not count:
        return []
    by = variant.get("adjudicated_by") or []
    named = "; ".join(f"{line['key']} {_geese(line['geese'])} (digest {line['digest']}): {line['games']} games, "
                      f"{line['plies'] / line['games']:.0f} plies on average" for line in by) or "tables not named"
    lines = [f"adjudicated by tables: {count} of {variant['games']} games (their results are the tables' verdicts, "
             f"not played out): {named}"]
    if len(by) > 1:
        lines.append("warning: the adjudicated games were judged by different tables (they changed during the run)")
    if count * 2 > variant["games"]:
        lines.append(f"warning: most games of {variant['label']} were decided by tables, not by the players")
    return lines


def _geese(counts: list[int]) -> str:
    if not counts:
        return ""
    return f"{counts[0]}-{counts[-1]} geese" if len(counts) > 1 else f"{counts[0]} geese"


def role_line(predator: str, advantage: dict[str, Any] | None) -> str:
    """`fox advantage (12 twin pairs, roles swapped): +58 Elo [-51, +181] pair-score, fox scored 58%`
    (pairs.py: the predator's pair-score Elo; the standings fit their own edge, results.json's
    `ratings.predator_advantage`)."""
    if not advantage:
        return f"{predator} advantage: no complete twin pair yet"
    count = advantage["pairs"]
    head = f"{predator} advantage ({count} twin pair{'' if count == 1 else 's'}, roles swapped): "
    tail = f" pair-score, {predator} scored {advantage['score']:.0%}"
    return head + elo_text(advantage) + tail


def _signed(value: float) -> str:
    text = _elo(value)
    return text if text.startswith("-") or text == "0" else "+" + text


def elo_text(line: dict[str, Any]) -> str:
    """`+58 Elo [-51, +181]`, or a one-sided bound when every pair went one way."""
    if line["elo"] is None:
        sign = "≥" if line["bound"] == "lower" else "≤"
        what = "won" if line["bound"] == "lower" else "lost"
        return f"{sign} {_signed(line['elo_bound'])} Elo (95%; {what} all {line['pairs']} pairs)"
    low, high = line["elo_ci95"]
    return (f"{_signed(line['elo'])} Elo [{'-∞' if low is None else _signed(low)}, "
            f"{'+∞' if high is None else _signed(high)}]")


def nelo_text(line: dict[str, Any]) -> str:
    if line["nelo"] is None:
        return "-"
    low, high = line["nelo_ci95"]
    return f"{_signed(line['nelo'])} [{_signed(low)}, {_signed(high)}]"


def _render_pairs(pairs: list[dict[str, Any]], console: Console) -> None:
    if not pairs:
        return
    shown = table("Head to head over twin pairs (first minus second; pentanomial: pairs scoring 0, ½, 1, "
                  "1½, 2 points of 2; 95% intervals)",
                  ("pair", "pairs", "0-½-1-1½-2", "pair Elo [95%]", "nElo [95%]", "LOS"))
    for line in pairs:
        shown.add_row(f"{line['first']} − {line['second']}", str(line["pairs"]),
                      "-".join(map(str, line["pentanomial"])), elo_text(line).replace(" Elo", ""),
                      nelo_text(line), f"{line['los']:.2f}")
    print_table(console, shown, PAIRS_LEGEND)


def standings_line(rows: list[Row]) -> str:
    """One short line of points for progress output: `mm2 5/6  mcts 3/6  random 1/6`."""
    return "  ".join(f"{row.name} {_score(row.points)}/{row.games}" for row in rows)
