"""An attacking bot for the sandbox test: before playing it tries everything the sandbox must
stop, and writes what happened as one `PROBE {json}` line on stderr.

    sandbox_probe.py VICTIM_PID TCP_PORT HOST_SECRET_FILE

- processes: how many it can see in /proc, and whether it sees VICTIM_PID
- signal: os.kill(VICTIM_PID, SIGTERM)
- network: a TCP connection to 127.0.0.1:TCP_PORT (the test listens there)
- tmp: writes /tmp/sandbox-probe-written (the test looks for it outside) and reads HOST_SECRET_FILE
- own files: tries to write next to this script
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

from foxgeese.players.random_player import RandomPlayer
from foxgeese.protocol.sdk import run_bot


def attempt(action) -> str:
    try:
        action()
    except OSError as error:
        return type(error).__name__
    return "ok"


def write_tmp() -> None:
    with open("/tmp/sandbox-probe-written", "w") as out:
        out.write("escaped?")


def read_secret() -> None:
    with open(sys.argv[3]) as source:
        source.read()


def write_own() -> None:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox-probe-written"), "w") as out:
        out.write("changed?")


def connect() -> None:
    with socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=2):
        pass


victim = int(sys.argv[1])
visible = [name for name in os.listdir("/proc") if name.isdigit()]
report = {
    "processes": len(visible),
    "sees_victim": str(victim) in visible,
    "signal": attempt(lambda: os.kill(victim, signal.SIGTERM)),
    "network": attempt(connect),
    "write_tmp": attempt(write_tmp),
    "read_host_tmp": attempt(read_secret),
    "write_own_dir": attempt(write_own),
}
print("PROBE " + json.dumps(report), file=sys.stderr, flush=True)
run_bot(RandomPlayer(seed=4), name="probe")
