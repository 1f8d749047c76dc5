"""`foxgeese tournament report DIR --html FILE`: the whole tournament as one self-contained page.

Everything is inline (style, script, the Elo plot and every board as SVG), so the file opens from
disk with no network. The numbers are those of results.json (report.summarize); each game of the
journal opens the replay viewer (replay.py) on its record.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path
from typing import Any

import msgspec

from foxgeese.engine.outcome import ending_legend
from foxgeese.protocol.record import BOT_FAULTS, RefereeTermination
from foxgeese.tournaments.entries import GameEntry, JournalLine
from foxgeese.tournaments.failures import bot_failures
from foxgeese.tournaments.rating_text import PAIRS_LEGEND, sprt_lines, standings_legend
from foxgeese.tournaments.replay import ReplayError, asset, replay_data, result_words, script_json
from foxgeese.tournaments.report import (
    accuracy_notes,
    adjudication_lines,
    by_geese,
    cut_warnings,
    elo_text,
    game_entries,
    nelo_text,
    role_line,
)

PLOT_WIDTH = 640
PLOT_LABEL = 130
PLOT_ROW = 30


def write_html_report(results: dict[str, Any], journal: list[JournalLine], path: Path) -> int:
    """Writes the page; returns how many games it can replay."""
    page, replayable = html_report(results, journal)
    Path(path).write_text(page, encoding="utf-8")
    return replayable


def html_report(results: dict[str, Any], journal: list[JournalLine]) -> tuple[str, int]:
    """The page's text and the number of games whose record replays."""
    games = sorted(game_entries(journal), key=lambda game: game.id)
    ratings = results.get("ratings", {})
    rated = ratings.get("players", {})
    order = sorted(results["standings"], key=lambda name: (-rated.get(name, {}).get("elo", 0.0) if rated else
                                                           -results["standings"][name]["score"], name))
    boards: dict[str, list[str]] = {}
    replays: list[dict[str, Any]] = []
    rows = []
    for game in games:
        index, problem = None, ""
        if game.record is not None:
            try:
                replays.append(replay_data(game.record, boards))
                index = len(replays) - 1
            except ReplayError as error:
                problem = str(error)
        rows.append(_game_row(game, index, problem))
    title = f"{results['name']}: {results['played']} of {results['scheduled']} games"
    body = [
        f"<h1>{escape(results['name'])}</h1>",
        f"<p class=summary>{results['played']} of {results['scheduled']} games played"
        + ("" if results.get("complete") else " (not complete)") + "</p>",
        _standings(results, order, rated),
    ]
    if "error" in ratings:
        body.append(f"<p>ratings: {escape(ratings['error'])}</p>")
    elif rated:
        body.append("<h2>Elo with 95% intervals</h2>" + elo_plot_svg(rated, order))
        body += [f"<p class=note>{escape(line)}.</p>" for line in standings_legend(ratings)]
    for variant in results["variants"]:
        body.append(_variant(variant, order, ratings))
    body.append(_los(ratings, [name for name in order if name in rated]))
    body.append(_pairs(results.get("pairs") or []))
    body.append(_accuracy(results.get("accuracy") or {}))
    body += [f"<p class=warning>{escape(line)}</p>" for line in cut_warnings(results.get("cuts") or {})]
    body.append(_endings_per_bot(games, order, results["variants"]))
    failures = results.get("failures") or msgspec.to_builtins(bot_failures(games))
    body.append(_failures(failures, {game.id for game in games}))
    if "sprt" in results:
        body.append("<h2>SPRT</h2>" + "".join(f"<p>{escape(line)}</p>" for line in sprt_lines(results["sprt"])))
    body.append("<h2 id=games>Games</h2><p class=note>Click a game to replay it; step with the buttons "
                "or the arrow keys.</p><table class=games><tr><th>game</th><th>variant</th><th>predator</th>"
                "<th>prey</th><th>result</th><th>ending</th><th>plies</th><th></th></tr>"
                + "".join(rows) + "</table>")
    body.append('<div id="fg-modal" class="fg-modal" hidden><div class="fg-modal-box">'
                '<button type="button" class="fg-close" title="close (Esc)">×</button>'
                '<h2 id="fg-modal-title"></h2><div id="fg-viewer"></div></div></div>')
    page = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{escape(title)}</title><meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<style>{asset('replay.css')}{asset('report.css')}</style></head><body>"
        + "".join(body)
        + f'<script type="application/json" id="fg-data">{script_json({"boards": boards, "games": replays})}</script>'
        + f"<script>{asset('replay.js')}</script><script>{asset('report.js')}</script></body></html>"
    )
    return page, len(replays)


def _standings(results: dict[str, Any], order: list[str], rated: dict[str, Any]) -> str:
    out = ["<h2>Standings</h2><table class=standings><tr><th>#</th><th>player</th><th>Elo</th><th>±95%</th>"
           "<th>games</th><th>score</th><th>W</th><th>D</th><th>L</th><th>adjudicated</th><th>forfeits</th></tr>"]
    for rank, name in enumerate(order, 1):
        line = results["standings"][name]
        rating = rated.get(name)
        elo = f"{round(rating['elo']) + 0:.0f}" if rating else "–"
        ci = _ci_text(rating["ci95"]) if rating else "–"
        out.append(f"<tr><td>{rank}</td><td>{escape(name)}</td><td>{elo}</td><td>{ci}</td><td>{line['games']}</td>"
                   f"<td>{line['score']:g}</td><td>{line['wins']}</td><td>{line['draws']}</td>"
                   f"<td>{line['losses']}</td><td>{line.get('adjudicated', 0)}</td>"
                   f"<td>{sum(line['forfeits'].values())}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _ci_text(value: float) -> str:
    return f"{value:.0f}" if math.isfinite(value) else "∞"


def elo_plot_svg(rated: dict[str, dict[str, float]], order: list[str]) -> str:
    """Each player's Elo as a dot with its 95% interval as an error bar, best at the top."""
    names = [name for name in order if name in rated]
    spans = []
    for name in names:
        elo, ci = rated[name]["elo"], rated[name]["ci95"]
        ci = ci if math.isfinite(ci) else 1000.0
        spans.append((elo - ci, elo + ci))
    low = min(a for a, _ in spans)
    high = max(b for _, b in spans)
    tick = _tick_step(high - low)
    low, high = math.floor(low / tick) * tick, math.ceil(high / tick) * tick
    if high <= low:
        low, high = low - tick, high + tick
    height = 40 + PLOT_ROW * len(names)
    plot_left, plot_right = PLOT_LABEL, PLOT_WIDTH - 20

    def x_of(value: float) -> int:
        return round(plot_left + (value - low) / (high - low) * (plot_right - plot_left))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="elo-plot" viewBox="0 0 {PLOT_WIDTH} {height}" '
           f'width="{PLOT_WIDTH}" height="{height}" font-family="sans-serif" font-size="13">']
    value = low
    while value <= high + 1e-9:
        x = x_of(value)
        out.append(f'<line x1="{x}" y1="10" x2="{x}" y2="{height - 24}" stroke="#e2d7bf"/>'
                   f'<text x="{x}" y="{height - 8}" text-anchor="middle" fill="#6b5535">{value:+.0f}</text>')
        value += tick
    zero = x_of(0.0) if low <= 0 <= high else None
    if zero is not None:
        out.append(f'<line x1="{zero}" y1="10" x2="{zero}" y2="{height - 24}" stroke="#9b8b6b" '
                   'stroke-dasharray="4 3"/>')
    for row, (name, (a, b)) in enumerate(zip(names, spans)):
        y = 24 + row * PLOT_ROW
        elo = rated[name]["elo"]
        out.append(
            f'<g class="elo-row" data-player="{escape(name)}">'
            f'<text x="{PLOT_LABEL - 10}" y="{y + 4}" text-anchor="end">{escape(name)}</text>'
            f'<line x1="{x_of(a)}" y1="{y}" x2="{x_of(b)}" y2="{y}" stroke="#2f7fd0" stroke-width="2"/>'
            f'<line x1="{x_of(a)}" y1="{y - 6}" x2="{x_of(a)}" y2="{y + 6}" stroke="#2f7fd0" stroke-width="2"/>'
            f'<line x1="{x_of(b)}" y1="{y - 6}" x2="{x_of(b)}" y2="{y + 6}" stroke="#2f7fd0" stroke-width="2"/>'
            f'<circle cx="{x_of(elo)}" cy="{y}" r="5" fill="#d8641e"/>'
            f'<title>{escape(name)}: {elo:+.0f} ± {_ci_text(rated[name]["ci95"])}</title></g>'
        )
    out.append("</svg>")
    return "".join(out)


def _tick_step(span: float) -> float:
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 8:
            return float(step)
    return 2000.0


def _variant(variant: dict[str, Any], order: list[str], ratings: dict[str, Any]) -> str:
    sides = variant["sides"]
    players = [name for name in order if name in variant["crosstable"]]
    out = [f"<h2>{escape(variant['label'])}: {variant['games']} games</h2><table class=crosstable><tr><th>player</th>"]
    out += [f"<th>{escape(name)}</th>" for name in players]
    out.append(f"<th>as {escape(sides['predator'])}</th><th>as {escape(sides['prey'])}</th><th>total</th></tr>")
    for name in players:
        line = variant["crosstable"][name]
        out.append(f"<tr><td>{escape(name)}</td>")
        for other in players:
            cell = line["opponents"].get(other)
            text = "·" if other == name else f"{cell['score']:g}/{cell['games']}" if cell else ""
            out.append(f"<td>{text}</td>")
        for role in ("as_predator", "as_prey"):
            out.append(f"<td>{line[role]['score']:g}/{line[role]['games']}</td>")
        out.append(f"<td>{line['score']:g}/{line['games']}</td></tr>")
    out.append("</table>")
    endings = ", ".join(f"{escape(kind)} {count}" for kind, count in variant["terminations"].items()) or "none"
    out.append(f"<p>endings: {endings}</p>")
    legend = ending_legend(variant["terminations"], sides["predator"], sides["prey"])
    if legend:
        out.append("<p class=note>" + "; ".join(escape(line) for line in legend) + "</p>")
    out += [f"<p>{escape(line)}</p>" for line in adjudication_lines(variant)]
    out.append(f"<p>{escape(role_line(sides['predator'], variant.get('role_advantage')))}</p>")
    return "".join(out)


def _pairs(pairs: list[dict[str, Any]]) -> str:
    """The head-to-head table over twin pairs (report.summarize's `pairs`)."""
    if not pairs:
        return ""
    out = ["<h2>Head to head over twin pairs</h2><p class=note>pentanomial: pairs scoring 0, ½, 1, 1½, 2 points "
           "of 2; pair-score Elo and normalized Elo with 95% intervals</p>"
           + "".join(f"<p class=note>{escape(line)}</p>" for line in PAIRS_LEGEND)
           + "<table class=pairs><tr><th>pair</th><th>pairs</th><th>0-½-1-1½-2</th><th>pair Elo [95%]</th>"
           "<th>nElo [95%]</th><th>LOS</th></tr>"]
    for line in pairs:
        out.append(f"<tr><td>{escape(line['first'])} − {escape(line['second'])}</td><td>{line['pairs']}</td>"
                   f"<td>{'-'.join(map(str, line['pentanomial']))}</td>"
                   f"<td>{escape(elo_text(line).replace(' Elo', ''))}</td><td>{escape(nelo_text(line))}</td>"
                   f"<td>{line['los']:.2f}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _accuracy(accuracy: dict[str, Any]) -> str:
    """Mistakes against perfect play per bot, and which tables judged (or what would)."""
    bots = accuracy.get("bots") or {}
    notes = accuracy_notes(accuracy)
    if not bots and not notes:
        return ""
    out = ["<h2>Accuracy against perfect play</h2><p class=note>judged: moves with a real choice in a solved "
           "position (some move there would have been a mistake); forced: solved positions where no move could "
           "be; a mistake throws away a win or a draw</p>"]
    if bots:
        out.append("<table class=accuracy><tr><th>player</th><th>games</th><th>judged</th><th>forced</th>"
                   "<th>mistakes</th><th>per game</th><th>first mistake ply</th><th>judged per goose count</th></tr>")
        for name, line in sorted(bots.items()):
            first = line["mean_first_mistake_ply"]
            out.append(f"<tr><td>{escape(name)}</td><td>{line['games']}</td><td>{line['judged_moves']}</td>"
                       f"<td>{line['forced_moves']}</td><td>{line['mistakes']}</td>"
                       f"<td>{line['mistakes_per_game']:.2f}</td><td>{'–' if first is None else f'{first:.1f}'}</td>"
                       f"<td>{escape(by_geese(line['judged_by_geese']))}</td></tr>")
        out.append("</table>")
    out += [f"<p class=note>{escape(note)}</p>" for note in notes]
    return "".join(out)


def _los(ratings: dict[str, Any], names: list[str]) -> str:
    if len(names) < 2:
        return ""
    los = ratings["los"]
    out = ["<h2>Likelihood of superiority</h2><p class=note>row stronger than column, from the standings' fit"
           "</p><table class=los><tr><th></th>"]
    out += [f"<th>{escape(name)}</th>" for name in names]
    out.append("</tr>")
    for name in names:
        cells = "".join("<td>·</td>" if other == name else f"<td>{los[name][other]:.2f}</td>" for other in names)
        out.append(f"<tr><td>{escape(name)}</td>{cells}</tr>")
    out.append("</table>")
    return "".join(out)


def _endings_per_bot(games: list[GameEntry], order: list[str], variants: list[dict[str, Any]]) -> str:
    """For each bot and each ending: games won / drawn / lost that way; forfeits are the bot's own."""
    counts: dict[str, dict[str, list[int]]] = {name: {} for name in order}
    for game in games:
        score = game.predator_score
        for name, mine in ((game.predator, score), (game.prey, 1 - score)):
            cell = counts.setdefault(name, {}).setdefault(game.termination, [0, 0, 0])
            cell[0 if mine == 1 else 1 if mine == 0.5 else 2] += 1
    kinds = sorted({kind for per_bot in counts.values() for kind in per_bot})
    if not kinds:
        return ""
    faults = ", ".join(ending.value for ending in RefereeTermination if ending.value in BOT_FAULTS)  # its order
    out = ["<h2>Endings and forfeits per bot</h2><p class=note>won / drawn / lost by each ending; "
           f"forfeits ({faults}) lost by the bot's own fault are counted in its "
           "standings</p><table class=endings><tr><th>player</th>"]
    out += [f"<th>{escape(kind)}</th>" for kind in kinds]
    out.append("</tr>")
    for name in counts:
        cells = []
        for kind in kinds:
            won, drawn, lost = counts[name].get(kind, [0, 0, 0])
            cells.append(f"<td>{won}/{drawn}/{lost}</td>" if won + drawn + lost else "<td></td>")
        out.append(f"<tr><td>{escape(name)}</td>{''.join(cells)}</tr>")
    out.append("</table>")
    predators = "/".join(dict.fromkeys(variant["sides"]["predator"] for variant in variants)) or "fox"
    prey = "/".join(dict.fromkeys(variant["sides"]["prey"] for variant in variants)) or "geese"
    out.append("<p class=note>" + "; ".join(escape(line) for line in ending_legend(kinds, predators, prey)) + "</p>")
    return "".join(out)


FAILURES_LISTED = 200


def _failures(failures: list[dict[str, Any]], ids: set[str]) -> str:
    """The games lost by a bot's own failure, each with the path of the bot's log (on the machine
    that ran the tournament: DIR/logs/)."""
    if not failures:
        return ""
    out = [f"<h2 id=failures>Games lost by a bot's own failure ({len(failures)})</h2><p class=note>each bot's "
           "log (its stderr) is named: open it on the machine that ran the tournament</p><table class=failures>"
           "<tr><th>game</th><th>bot</th><th>side</th><th>ending</th><th>reason</th><th>log</th></tr>"]
    for failure in failures[:FAILURES_LISTED]:
        # `#game=ID` opens its replay (report.js)
        game = escape(failure["game"])
        link = f'<a href="#game={game}" title="replay">{game}</a>' if failure["game"] in ids else game
        out.append(f"<tr><td>{link}</td><td>{escape(failure['bot'])}</td><td>{escape(failure['side'])}</td>"
                   f"<td>{escape(failure['termination'])}</td><td>{escape(failure['reason'])}</td>"
                   f"<td class=log>{escape(failure['log'] or 'none here (started elsewhere)')}</td></tr>")
    out.append("</table>")
    if len(failures) > FAILURES_LISTED:
        out.append(f"<p class=note>and {len(failures) - FAILURES_LISTED} more: every one is in results.json "
                   "(<code>failures</code>)</p>")
    return "".join(out)


def _game_row(game: GameEntry, index: int | None, problem: str) -> str:
    result = result_words(game.winner, game.termination, game.plies)
    if index is None:
        action = f"<td class=problem>{escape(problem or 'no record')}</td>"
        attributes = ""
    else:
        action = f'<td><button type="button" class="fg-open" data-game="{index}">replay</button></td>'
        attributes = f' class="fg-game" data-game="{index}" id="game-{escape(game.id)}"'
    return (f"<tr{attributes}><td>{escape(game.id)}</td><td>{escape(game.label)}</td><td>{escape(game.predator)}</td>"
            f"<td>{escape(game.prey)}</td><td>{escape(result.split(' by ')[0])}</td>"
            f"<td>{escape(game.termination)}</td><td>{game.plies}</td>{action}</tr>")
