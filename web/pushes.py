"""What a web game shows apart from its moves: its clocks as the browsers see them, and the pacing
of its pushes to them (which state went out last, how long the next may wait, its board drawn once).

Both are a `WebGame`'s (games.py), changed under its lock; the server's `push` (server.py) reads
`Pushes` to send each state once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class ShownClocks:
    """Each side's clock (ms, by side name) as last reported, and which one runs since when."""

    left_ms: dict[str, int] = field(default_factory=dict)
    running: str | None = None  # the side whose clock runs
    running_since: float = 0.0

    def start(self, side: str) -> None:
        self.running, self.running_since = side, time.monotonic()

    def stop(self) -> None:
        self.running = None

    def now(self, ticking: bool) -> dict[str, int]:
        """The clocks at this moment: the running one less the time since it started, if `ticking`
        (Fischer clocks; a fixed time per move shows what the turn began with)."""
        clocks = dict(self.left_ms)
        if self.running is not None and ticking:
            spent_ms = round((time.monotonic() - self.running_since) * 1000)
            clocks[self.running] = max(0, clocks[self.running] - spent_ms)
        return clocks


@dataclass
class Pushes:
    """The versions of a game's state: the latest, the one last pushed, how long a push may wait
    for the state that follows at once, and the board drawn for the latest (per orientation)."""

    HOLD_S = 0.05  # a person's move to an AI: wait this long for the reply before pushing
    TURN_HOLD_S = 0.02  # an AI's move to a person: wait for the turn that asks the person

    version: int = 0
    pushed: int = -1  # the version last sent to the browsers (server.Server.push)
    hold_until: float = 0.0
    _svg: dict[bool, tuple[int, str]] = field(default_factory=dict)

    def changed(self) -> None:
        self.version += 1

    def hold_after(self, mover_human: bool, next_human: bool) -> None:
        """Holds the push for the event that follows at once: the AI's reply to a person's move, the
        `turn` that asks the person after an AI's move (one state, drawn once)."""
        hold = self.HOLD_S if mover_human and not next_human else (
            self.TURN_HOLD_S if next_human and not mover_human else 0.0)
        self.hold_until = time.monotonic() + hold if hold else 0.0

    def release(self) -> None:
        self.hold_until = 0.0

    def hold_s(self) -> float:
        """How long a push should wait for the AI's reply to a person's move (0: push now)."""
        return max(0.0, self.hold_until - time.monotonic())

    def to_push(self) -> bool:
        """Whether the latest version still has to go out (then it counts as pushed)."""
        if self.version == self.pushed:  # a held push after the state it waited for went out
            return False
        self.pushed = self.version
        return True

    def svg(self, flipped: bool, draw: Callable[[], str]) -> str:
        """The board of the latest version, drawn (by `draw`) once per orientation."""
        if self._svg.get(flipped, (-1, ""))[0] != self.version:
            self._svg[flipped] = (self.version, draw())
        return self._svg[flipped][1]
