"""The games a bot lost by its own failure, each with its bot's log: what the end of `tournament run`,
`tournament report` and the HTML report show, so a crash's traceback is never only a count.

The list is plain data from the journal (results.json keeps it as `failures`); the lines for people
add each log's last lines, read from the log file when it is on this machine.
"""

from __future__ import annotations

import os
from typing import Any

from foxgeese.engine import Side, get_variant
from foxgeese.protocol.botlogs import last_lines
from foxgeese.tournaments.journal import FORFEITS

SHOWN = 10  # games listed at the end of a run; the rest are counted and found in results.json
TAIL = 3  # last lines of each log


def bot_failures(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per game lost by a bot's own failure (both bots in a drawn no-show): the game, the bot, its
    side, the ending, the referee's reason and the bot's log (None for a bot started elsewhere)."""
    failures = []
    for game in games:
        if game["termination"] not in FORFEITS:
            continue
        record = game.get("record")
        seats = (record.get("bots") if isinstance(record, dict) else None) or {}
        names = dict(zip(_sides(game), (game["predator"], game["prey"])))
        for side, name in names.items():
            if game["winner"] != "draw" and side == game["winner"]:
                continue
            seat = seats.get(side)
            log = (seat.get("stderr") if isinstance(seat, dict) else None) or None
            failures.append({"game": game["id"], "bot": name, "side": side, "termination": game["termination"],
                             "reason": game.get("reason") or "", "log": log})
    return failures


def _sides(game: dict[str, Any]) -> tuple[str, str]:
    """(predator side name, prey side name) of the game's variant."""
    variant = get_variant(game["variant"], **game.get("options", {}))
    return variant.side_name(Side.PREDATOR), variant.side_name(Side.PREY)


def failure_lines(failures: list[dict[str, Any]], shown: int = SHOWN, tail: int = TAIL) -> list[str]:
    """The first `shown` failures as lines for a terminal: the game, then the log's path and last lines."""
    if not failures:
        return []
    lines = [f"Games lost by a bot's own failure: {len(failures)} (each bot's log, and its last lines)"]
    for failure in failures[:shown]:
        lines.append(f"{failure['game']} {failure['bot']} ({failure['side']}) {failure['termination']}: "
                     f"{failure['reason']}")
        lines += _log_lines(failure["log"], tail)
    if len(failures) > shown:
        # Absolute paths (a Ray run of an older version kept relative ones: those count from here).
        logs = [os.path.abspath(failure["log"]) for failure in failures if failure["log"]]
        folder = f"; their logs are under {os.path.commonpath(logs)}" if logs else ""
        lines.append(f"and {len(failures) - shown} more: every one is in results.json (`failures`){folder}")
    return lines


def _log_lines(path: str | None, tail: int) -> list[str]:
    if not path:
        return ["  log: none here (a bot started elsewhere keeps its output where it ran)"]
    try:
        last = last_lines(path, tail)
    except OSError:
        return [f"  log: {path} (not on this machine, or removed)"]
    return [f"  log: {path}" + ("" if last else " (empty)"), *(f"  | {line}" for line in last)]
