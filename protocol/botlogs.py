"""What a bot that failed left in its log: the path and its last lines, for `foxgeese play` (and any
caller that shows a result to people), so a crash's traceback is never hidden in a temporary folder."""

from __future__ import annotations

import os

from foxgeese.engine.userinput import one_line
from foxgeese.protocol.record import BOT_FAULTS, DRAW, GameRecord

TAIL_BYTES = 4096


def last_lines(path: str, count: int) -> list[str]:
    """The last `count` non-empty lines of a text file (each made one printable line), [] if none."""
    with open(path, "rb") as log:
        log.seek(max(0, os.path.getsize(path) - TAIL_BYTES))
        text = log.read().decode("utf-8", "replace")
    return [one_line(line) for line in text.splitlines() if line.strip()][-count:]


def failure_notes(record: GameRecord, count: int = 5) -> list[str]:
    """For a game a bot lost by its own failure: `SIDE log: PATH` and its last lines (`  | ...`)."""
    if record.termination not in BOT_FAULTS:
        return []
    losers = [side for side in record.bots if record.winner == DRAW or side != record.winner]
    notes = []
    for side in losers:
        path = record.bots[side].stderr
        if not path:
            continue  # a remote bot: its output is where it was started
        try:
            tail = last_lines(path, count)
        except OSError:
            notes.append(f"{side} log: {path} (gone: the bot wrote nothing)")
            continue
        notes.append(f"{side} log: {path}" + ("" if tail else " (empty)"))
        notes += [f"  | {line}" for line in tail]
    return notes
