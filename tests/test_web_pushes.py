"""A web game's push pacing and shown clocks (web/pushes.py), the parts of `WebGame` with a job of their own."""

from __future__ import annotations

import time

from foxgeese.web.pushes import Pushes, ShownClocks


def test_each_version_goes_out_once_and_a_push_after_a_persons_move_waits_for_the_reply() -> None:
    pushes = Pushes()
    assert pushes.to_push() and not pushes.to_push()  # version 0 once
    pushes.changed()
    assert pushes.to_push() and not pushes.to_push()
    pushes.hold_after(mover_human=True, next_human=False)
    assert 0 < pushes.hold_s() <= Pushes.HOLD_S
    pushes.hold_after(mover_human=False, next_human=True)
    assert 0 < pushes.hold_s() <= Pushes.TURN_HOLD_S
    pushes.hold_after(mover_human=True, next_human=True)
    assert pushes.hold_s() == 0.0
    drawn: list[bool] = []
    assert pushes.svg(False, lambda: drawn.append(False) or "a") == "a"
    assert pushes.svg(False, lambda: drawn.append(False) or "b") == "a"  # the same version: drawn once
    pushes.changed()
    assert pushes.svg(False, lambda: drawn.append(False) or "c") == "c" and len(drawn) == 2


def test_the_running_clock_shows_the_time_since_it_started() -> None:
    clocks = ShownClocks({"fox": 1000, "geese": 2000})
    assert clocks.now(ticking=True) == {"fox": 1000, "geese": 2000}
    clocks.start("fox")
    clocks.running_since = time.monotonic() - 0.5
    shown = clocks.now(ticking=True)
    assert 400 <= shown["fox"] <= 500 and shown["geese"] == 2000
    assert clocks.now(ticking=False)["fox"] == 1000  # a fixed time per move shows what the turn began with
    clocks.running_since = time.monotonic() - 5
    assert clocks.now(ticking=True)["fox"] == 0
    clocks.stop()
    assert clocks.running is None and clocks.now(ticking=True)["fox"] == 1000
