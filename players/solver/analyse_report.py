"""What `foxgeese analyse` prints: mistakes per game and per bot."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from foxgeese.players.solver.analyse import (
    STRONG_BUILDS,
    AnalyseError,
    Judge,
    accuracy_by_bot,
    analyse_record,
    records_in,
)
from foxgeese.players.solver.tables import TableError
from foxgeese.usage import fail


def analyse(path: str, tables: str | None, as_json: bool) -> None:
    try:
        records = records_in(path)
        judge = Judge(tables)
        games = [analyse_record(record, judge) for record in records]
    except (AnalyseError, TableError, ValueError, KeyError, OSError) as error:  # engine errors are ValueErrors
        fail(str(error) if not isinstance(error, KeyError) else f"{path}: a record lacks {error}")
    by_bot = accuracy_by_bot(games)
    if as_json:
        click.echo(json.dumps({"games": [asdict(game) for game in games], "bots": by_bot}, indent=1))
        return
    for game in games:
        parts = []
        for side_name, side in game.sides.items():
            forced = f" ({side.forced} forced)" if side.forced else ""
            if not side.judged:
                parts.append(f"{side_name} {side.bot}: no move with a real choice in a solved position{forced}")
                continue
            first = f", first at ply {side.first_mistake_ply}" if side.first_mistake_ply else ""
            parts.append(f"{side_name} {side.bot}: {side.mistakes} mistakes in {side.judged} judged moves"
                         f"{forced}{first}")
        click.echo(f"{game.game_id or 'game'} ({game.result}): " + "; ".join(parts))
    if not any(line["judged_moves"] or line["forced_moves"] for line in by_bot.values()):
        click.echo("no move was made in a solved position: build tables with `foxgeese solve standard --geese 13` "
                   f"({STRONG_BUILDS[13]})")
        return
    click.echo(f"{'bot':<24} {'games':>5} {'judged':>7} {'forced':>7} {'mistakes':>8} {'per game':>8} {'games w/':>8} "
               f"{'first ply':>9}")
    for bot, line in sorted(by_bot.items()):
        first = "-" if line["mean_first_mistake_ply"] is None else f"{line['mean_first_mistake_ply']:.1f}"
        click.echo(f"{bot:<24} {line['games']:>5} {line['judged_moves']:>7} {line['forced_moves']:>7} "
                   f"{line['mistakes']:>8} {line['mistakes_per_game']:>8.2f} {line['games_with_mistake']:>8} "
                   f"{first:>9}")
    click.echo("(judged: moves with a real choice in a solved position, where some move would have been a mistake; "
               "forced: solved positions where no move could be; a mistake throws away a win or a draw; "
               "first ply: mean ply of a game's first mistake)")
