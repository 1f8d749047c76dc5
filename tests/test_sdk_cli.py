"""`foxgeese bot NAME`: user errors are one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def run_bot_cli(*args: str, env_endpoint: str | None = "ipc:///nonexistent/x.sock") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("FOXGEESE_ENDPOINT", "FOXGEESE_TOKEN")}
    if env_endpoint:
        env["FOXGEESE_ENDPOINT"] = env_endpoint
    return subprocess.run([sys.executable, "-m", "foxgeese", "bot", *args], capture_output=True, text=True,
                          timeout=60, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(
    "args, endpoint, message",
    [
        (["nosuch"], "ipc:///x", "foxgeese: unknown player 'nosuch'; valid: random"),
        (["random", "--option", "depth=3"], "ipc:///x", "foxgeese: unknown option 'depth' for random; valid: seed"),
        (["random", "--opt", "seed"], "ipc:///x", "'seed' is not key=value"),
        (["random"], None, "foxgeese: no referee endpoint: pass endpoint=... (--connect) or set FOXGEESE_ENDPOINT"),
    ],
)
def test_user_errors_are_one_line(args, endpoint, message):
    run = run_bot_cli(*args, env_endpoint=endpoint)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr

