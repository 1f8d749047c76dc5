"""scripts/install-test-deps.sh while another apt holds apt's locks: it waits, then says in one line
of its own what is wrong and what to do (the lock is really held, with fcntl as apt takes it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "install-test-deps.sh"
# apt's own locks: update takes the lists lock, install the dpkg frontend and archives locks.
LOCKS = ("/var/lib/apt/lists/lock", "/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock",
         "/var/cache/apt/archives/lock")
HOLDER = """
import fcntl, os, sys
held = []
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o640)
    fcntl.lockf(fd, fcntl.LOCK_EX)  # apt's own kind of lock (fcntl), waited for if apt has it now
    held.append(fd)
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


def test_a_held_apt_lock_is_waited_for_then_named_in_one_line(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.fail("the install script needs root (it runs apt-get); run the tests as root, as CI does")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "dpkg-query").write_text("#!/bin/sh\nexit 1\n")  # every package missing: apt-get must run
    (fake / "dpkg-query").chmod(0o755)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, *LOCKS], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "FOXGEESE_APT_LOCK_WAIT": "2"}
        done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)
    last = done.stderr.splitlines()[-1] if done.stderr else ""
    assert done.returncode == 1, done.stderr
    assert last.startswith("install-test-deps: another apt or dpkg process"), done.stderr
    assert f"(process {holder.pid} (python" in last and "still holds apt's lock after 2 s of waiting" in last, last
    assert "let it finish (or stop it), then run this script again" in last
    assert done.stderr.count("\n") == 1, done.stderr  # the one line, none of apt's own


def test_a_bad_wait_is_refused_before_apt_runs() -> None:
    env = {**os.environ, "FOXGEESE_APT_LOCK_WAIT": "soon"}
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "install-test-deps: FOXGEESE_APT_LOCK_WAIT=soon: give whole seconds\n"
