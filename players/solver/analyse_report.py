"""What `foxgeese analyse` prints: mistakes per game and per bot."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import click

from foxgeese.engine import Side
from foxgeese.engine.outcome import ending_legend
from foxgeese.players.solver.analyse import (
    AnalyseError,
    Judge,
    accuracy_by_bot,
    analyse_record,
    missing_hints,
    record_variant,
    records_in,
)
from foxgeese.players.solver.tables import TableError
from foxgeese.terminal import make_console, print_table, table
from foxgeese.usage import fail


def record_legend(record: dict[str, Any]) -> list[str]:
    """What the ending of `record` means, in its variant's side names."""
    variant = record_variant(record)
    return ending_legend([str(record.get("termination", ""))], variant.side_name(Side.PREDATOR),
                         variant.side_name(Side.PREY))


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
    for meaning in dict.fromkeys(text for record in records for text in record_legend(record)):
        click.echo(f"  {meaning}")
    if not any(line["judged_moves"] or line["forced_moves"] for line in by_bot.values()):
        click.echo("no move was made in a solved position")
    for hint in missing_hints(records, games):
        click.echo(f"not judged: {hint}")
    if not any(line["judged_moves"] or line["forced_moves"] for line in by_bot.values()):
        return
    shown = table("", ("bot", "games", "judged", "forced", "mistakes", "per game", "games w/", "first ply"))
    for bot, line in sorted(by_bot.items()):
        first = "-" if line["mean_first_mistake_ply"] is None else f"{line['mean_first_mistake_ply']:.1f}"
        shown.add_row(bot, str(line["games"]), str(line["judged_moves"]), str(line["forced_moves"]),
                      str(line["mistakes"]), f"{line['mistakes_per_game']:.2f}", str(line["games_with_mistake"]), first)
    print_table(make_console(), shown, ["judged: moves with a real choice in a solved position, where some move would "
                                        "have been a mistake; forced: solved positions where no move could be; a "
                                        "mistake throws away a win or a draw; games w/: games with a mistake; first "
                                        "ply: mean ply of a game's first mistake"])
