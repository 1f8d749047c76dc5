"""Time controls and the clocks the referee keeps with them.

Two forms exist: Fischer (`10+0.1`: base seconds, plus an increment added after each move) and a
fixed time per move (`move=0.5`). The referee is the only clock that counts; bots are told what is
left in every `turn` message.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from foxgeese.engine.userinput import NumberError, parse_float, shown

ACCEPTED_FORMS = "'BASE+INC' in seconds (e.g. '10+0.1', '60+0') or 'move=SECONDS' (e.g. 'move=0.5')"
# Every clock value fits a signed 32-bit integer of milliseconds (about 24.8 days), so a bot in any
# language can hold what `new_game` and `turn` send.
MAX_CLOCK_MS = 2**31 - 1

_FISCHER = re.compile(r"^\s*([^+\s]+)\s*\+\s*([^+\s]+)\s*$")
_PER_MOVE = re.compile(r"^\s*move\s*=\s*(\S+)\s*$", re.IGNORECASE)


class TimeControlError(ValueError):
    """A time control text that is not one of the accepted forms."""


def _ms(seconds_text: str, name: str) -> int:
    """Seconds as the user wrote them -> whole milliseconds, bounded by MAX_CLOCK_MS."""
    try:
        return int(round(parse_float(seconds_text, f"{name} seconds", 0, MAX_CLOCK_MS / 1000) * 1000))
    except NumberError as error:
        raise TimeControlError(f"{error}; accepted forms: {ACCEPTED_FORMS}") from None


@dataclass(frozen=True)
class TimeControl:
    """Either Fischer (`base_ms` > 0, `increment_ms` >= 0) or fixed per move (`per_move_ms` > 0)."""

    base_ms: int = 0
    increment_ms: int = 0
    per_move_ms: int = 0

    def __post_init__(self) -> None:
        values = (self.base_ms, self.increment_ms, self.per_move_ms)
        if any(isinstance(value, bool) or not isinstance(value, int) for value in values):
            raise TimeControlError("time control values are whole milliseconds")
        if max(values) > MAX_CLOCK_MS:
            raise TimeControlError(f"time control values must be at most {MAX_CLOCK_MS} ms (about 24 days)")
        if min(values) < 0:
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
        match = _PER_MOVE.match(text)
        if match:
            return cls(per_move_ms=_ms(match.group(1), "per-move"))
        match = _FISCHER.match(text)
        if match:
            return cls(base_ms=_ms(match.group(1), "base"), increment_ms=_ms(match.group(2), "increment"))
        raise TimeControlError(f"bad time control {shown(text)}; accepted forms: {ACCEPTED_FORMS}")

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
        # Plain attributes: the referee reads them on every move, between a reply and the next turn.
        self._per_move_ms, self._increment_ms = control.per_move_ms, control.increment_ms
        start = control.per_move_ms or control.base_ms  # a fixed time per move, or Fischer's base
        self.left_ms: dict[str, int] = dict.fromkeys(seats, start)
        self._seats = tuple(seats)
        self.overrun_budget_ms = 0  # see charge

    def budget_ms(self, seat: str) -> int:
        """How long `seat` may take for its next move, including the lag margin."""
        return (self._per_move_ms or self.left_ms[seat]) + self.lag_margin_ms

    def charge(self, seat: str, elapsed_ms: float) -> bool:
        """Charges one move; returns False when it came too late (a time forfeit), and then
        `overrun_budget_ms` is the budget (`budget_ms`) it overran.

        With a fixed time per move, what is left is that move's allowance less its time (no
        increment exists then); with Fischer, the clock less the time, plus the increment.
        """
        left_ms = self.left_ms
        allowed_ms = self._per_move_ms or left_ms[seat]
        if elapsed_ms > allowed_ms + self.lag_margin_ms:
            self.overrun_budget_ms = allowed_ms + self.lag_margin_ms
            if not self._per_move_ms:
                left_ms[seat] = 0
            return False
        spent_ms = math.ceil(elapsed_ms)
        left_ms[seat] = (allowed_ms - spent_ms if spent_ms < allowed_ms else 0) + self._increment_ms
        return True

    def on_turn_ms(self, seat: str) -> int:
        """What `seat` has on its clock as a turn starts (the whole allowance with per-move time)."""
        return self._per_move_ms or self.left_ms[seat]

    def on_turn(self) -> tuple[int, int]:
        """`on_turn_ms` of both seats, in the order given (one call per turn on the referee's critical path)."""
        first, second = self._seats
        return (self._per_move_ms or self.left_ms[first], self._per_move_ms or self.left_ms[second])
