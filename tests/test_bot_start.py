"""The launched form of a built-in bot (`python -m foxgeese bot NAME --option k=v`, protocol/bot_start.py)."""

from __future__ import annotations

import pytest

from foxgeese.protocol import bot_start, codec


def test_a_launched_builtin_bot_loads_its_compiled_code_before_it_says_hello(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tournaments' fast path warms the player as `foxgeese bot` does: loading numba's cache takes
    seconds on a loaded machine, which the 15 s `hello` window has and the 5 s `ready` window has not."""
    calls: list[tuple[str, str]] = []
    monkeypatch.setenv(codec.ENV_ENDPOINT, "ipc:///tmp/foxgeese-no-referee")
    monkeypatch.setattr(bot_start, "warm", lambda spec: calls.append(("warm", spec)))
    monkeypatch.setattr(bot_start, "run_bot", lambda player, **fields: calls.append(("hello", fields["name"])))
    assert bot_start.run_launched_bot(["bot", "minimax", "--option", "depth=2"]) == 0
    assert calls == [("warm", "minimax:depth=2"), ("hello", "minimax:depth=2")]
