"""The games a bot lost by its own failure, each with its bot's log: what the end of `tournament run`,
`tournament report` and the HTML report show, so a crash's traceback is never only a count.

The list is plain data from the journal (results.json keeps it as `failures`); the lines for people
add each log's last lines, read from the log file when it is on this machine.
"""

from __future__ import annotations

import os
from typing import Any

import msgspec

from foxgeese.protocol.botlogs import last_lines
from foxgeese.protocol.record import BOT_FAULTS, DRAW
from foxgeese.tournaments.entries import GameEntry

SHOWN = 10  # games listed at the end of a run; the rest are counted and found in results.json
TAIL = 3  # last lines of each log


class Failure(msgspec.Struct):
    """A game a bot lost by its own failure: the game, the bot, its side, the ending, the referee's
    reason and the bot's log (None for a bot started elsewhere). results.json's `failures` items."""

    game: str
    bot: str
    side: str
    termination: str
    reason: str
    log: str | None


def bot_failures(games: list[GameEntry]) -> list[Failure]:
    """Per game lost by a bot's own failure (both bots in a drawn no-show), in the games' order."""
    failures = []
    for game in games:
        if game.termination not in BOT_FAULTS:
            continue
        seats = game.record.bots if game.record is not None else {}
        for side, name in zip(game.sides(), (game.predator, game.prey)):
            if game.winner != DRAW and side == game.winner:
                continue
            seat = seats.get(side)
            failures.append(Failure(game.id, name, side, game.termination, game.reason,
                                    (seat.stderr if seat is not None else None) or None))
    return failures


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
