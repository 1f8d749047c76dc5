"""Time controls and the clocks the referee keeps with them.

Two forms exist: Fischer (`10+0.1`: base seconds, plus an increment added after each move) and a
fixed time per move (`move=0.5`). The referee is the only clock that counts; bots are told what is
left in every `turn` message.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

ACCEPTED_FORMS = "'BASE+INC' in seconds (e.g. '10+0.1', '60+0') or 'move=SECONDS' (e.g. 'move=0.5')"

_FISCHER = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*\+\s*(\d+(?:\.\d*)?|\.\d+)\s*$")
_PER_MOVE = re.compile(r"^\s*move\s*=\s*(\d+(?:\.\d*)?|\.\d+)\s*$", re.IGNORECASE)


class TimeControlError(ValueError):
    """A time control text that is not one of the accepted forms."""


def _ms(seconds_text: str) -> int:
    return int(round(float(seconds_text) * 1000))


@dataclass(frozen=True)
class TimeControl:
    """Either Fischer (`base_ms` > 0, `increment_ms` >= 0) or fixed per move (`per_move_ms` > 0)."""

    base_ms: int = 0
    increment_ms: int = 0
    per_move_ms: int = 0

    def __post_init__(self) -> None:
        if min(self.base_ms, self.increment_ms, self.per_move_ms) < 0:
            raise TimeControlError("time control values must not be negative")
        if self.per_move_ms and (self.base_ms or self.increment_ms):
            raise TimeControlError("a time control is either Fischer or fixed per move, not both")
        if not self.per_move_ms and not self.base_ms:
            raise TimeControlError(f"a time control needs some time; accepted forms: {ACCEPTED_FORMS}")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Reads `10+0.1` or `move=0.5`; anything else raises TimeControlError listing the forms."""
        if not isinstance(text, str):
            raise TimeControlError(f"time control must be text; accepted forms: {ACCEPTED_FORMS}")
        match = _FISCHER.match(text)
        if match:
            return cls(base_ms=_ms(match.group(1)), increment_ms=_ms(match.group(2)))
        match = _PER_MOVE.match(text)
        if match:
            return cls(per_move_ms=_ms(match.group(1)))
        raise TimeControlError(f"bad time control {text!r}; accepted forms: {ACCEPTED_FORMS}")

    @property
    def is_per_move(self) -> bool:
        return self.per_move_ms > 0

    def text(self) -> str:
        """The canonical text, which `parse` reads back to an equal value."""
        if self.is_per_move:
            return f"move={_seconds(self.per_move_ms)}"
        return f"{_seconds(self.base_ms)}+{_seconds(self.increment_ms)}"

    def to_wire(self) -> dict[str, int]:
        """The `time_control` map of `new_game` (unused fields are 0)."""
        return {"base_ms": self.base_ms, "increment_ms": self.increment_ms, "per_move_ms": self.per_move_ms}

    def __str__(self) -> str:
        return self.text()


def _seconds(ms: int) -> str:
    text = f"{ms / 1000:.3f}".rstrip("0").rstrip(".")
    return text or "0"


class ChessClock:
    """Time left for each of two seats; the referee charges each move's measured duration.

    The lag margin is grace on top of the clock for the trip through the sockets: a move that
    arrives within `left + lag_margin_ms` counts (the clock then reads 0 before the increment).
    """

    def __init__(self, control: TimeControl, seats: list[str], lag_margin_ms: int = 0) -> None:
        self.control = control
        self.lag_margin_ms = lag_margin_ms
        start = control.per_move_ms if control.is_per_move else control.base_ms
        self.left_ms: dict[str, int] = {seat: start for seat in seats}

    def budget_ms(self, seat: str) -> int:
        """How long `seat` may take for its next move, including the lag margin."""
        if self.control.is_per_move:
            return self.control.per_move_ms + self.lag_margin_ms
        return self.left_ms[seat] + self.lag_margin_ms

    def charge(self, seat: str, elapsed_ms: float) -> bool:
        """Charges one move; returns False when it came too late (a time forfeit)."""
        if elapsed_ms > self.budget_ms(seat):
            if not self.control.is_per_move:
                self.left_ms[seat] = 0
            return False
        if self.control.is_per_move:
            self.left_ms[seat] = max(0, self.control.per_move_ms - math.ceil(elapsed_ms))
        else:
            left = max(0, self.left_ms[seat] - math.ceil(elapsed_ms))
            self.left_ms[seat] = left + self.control.increment_ms
        return True

    def on_turn_ms(self, seat: str) -> int:
        """What `seat` has on its clock as a turn starts (the whole allowance with per-move time)."""
        if self.control.is_per_move:
            return self.control.per_move_ms
        return self.left_ms[seat]
