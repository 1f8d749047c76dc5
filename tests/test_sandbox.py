"""The opt-in bubblewrap sandbox, tried for real from `foxgeese play --sandbox` by an attacking bot.

bubblewrap comes from scripts/install-test-deps.sh (Debian package `bubblewrap`); without it this
test fails rather than skips.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from foxgeese.protocol.botconfig import BotConfig, BotSpecError

ROOT = Path(__file__).parent.parent
PROBE = ROOT / "tests" / "bots" / "sandbox_probe.py"


def test_a_sandboxed_bot_can_neither_see_signal_nor_reach_anything(tmp_path):
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    listener = socket.create_server(("127.0.0.1", 0))
    secret = Path(tempfile.mkdtemp(prefix="sandbox-secret-")) / "secret"
    secret.write_text("host secret")
    escaped = Path("/tmp/sandbox-probe-written")
    escaped.unlink(missing_ok=True)
    try:
        hare = f"cmd:{sys.executable} {PROBE} {victim.pid} {listener.getsockname()[1]} {secret}"
        run = subprocess.run(
            [sys.executable, "-m", "foxgeese", "play", "hare-and-hounds", "--hare", hare, "--hounds", "random",
             "--sandbox", "hare", "--max-plies", "6", "--seed", "1", "--quiet", "--log-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert run.returncode == 0, run.stdout + run.stderr
        assert "result: draw by max-plies" in run.stdout, run.stdout  # the sandboxed bot played its game
        (log,) = [path for path in tmp_path.iterdir() if path.name.startswith("cmd_")]
        (line,) = [line for line in log.read_text().splitlines() if line.startswith("PROBE ")]
        report = json.loads(line[len("PROBE "):])
        assert report["sees_victim"] is False and report["processes"] <= 3, report
        assert report["signal"] == "ProcessLookupError"
        assert report["network"] != "ok"
        assert report["write_tmp"] == "ok" and not escaped.exists()  # a private /tmp
        assert report["read_host_tmp"] == "FileNotFoundError"
        assert report["write_own_dir"] == "OSError" or report["write_own_dir"] == "PermissionError"
        assert not (PROBE.parent / "sandbox-probe-written").exists()
        assert victim.poll() is None  # alive: the signal never reached it
    finally:
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        listener.close()
        secret.unlink()
        os.rmdir(secret.parent)


def test_sandbox_options_are_checked_before_any_game():
    assert BotConfig.from_spec("random", sandbox=True).to_json()["sandbox"] is True
    assert BotConfig.from_spec("random").sandboxed().sandbox is True
    with pytest.raises(BotSpecError, match="cannot be sandboxed"):
        BotConfig.from_spec("remote", sandbox=True)
    run = subprocess.run([sys.executable, "-m", "foxgeese", "play", "standard", "--fox", "random", "--geese", "random",
                          "--sandbox", "hare"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "--sandbox hare: standard has the sides fox and geese (or say all)" in run.stderr


def test_a_bot_in_a_virtual_environment_under_tmp_keeps_that_environment(tmp_path):
    """A venv's python links out of the venv: without its folder the bot's packages stay hidden
    (a clone and venv under /tmp gave every sandboxed bot a no-show)."""
    from foxgeese.protocol.sandbox import _own_folders

    venv = Path(tempfile.mkdtemp(prefix="sandbox-venv-"))
    elsewhere = Path(tempfile.mkdtemp(prefix="sandbox-other-"))
    try:
        (venv / "bin").mkdir()
        (venv / "bin" / "python").symlink_to(sys.executable)
        (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        folders = _own_folders([str(venv / "bin" / "python"), "-m", "foxgeese", "bot", "random"], "/")
        assert str(venv.resolve()) in folders and str(elsewhere.resolve()) not in folders
        (venv / "pyvenv.cfg").unlink()  # not a venv: only the program's own folder, as before
        assert str(venv.resolve()) not in _own_folders([str(venv / "bin" / "python")], "/")
    finally:
        subprocess.run(["rm", "-rf", str(venv), str(elsewhere)], check=False)
