"""What a side knows about time when asked for a move; the referee enforces it, not the engine."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Clock:
    """Milliseconds; None means no limit of that kind."""

    remaining_ms: float | None = None
    opponent_ms: float | None = None
    increment_ms: float | None = None
    per_move_ms: float | None = None
