"""An attacking bot: before its hello it looks for other seats' tokens wherever a process of the
same user could find them among the bots of its own referee (/proc/PID/environ, /proc/PID/fd of any
descriptor named there) and says hello with each one on a new connection, hoping to take that seat.
It writes what it found and how each try was answered to stderr (`THIEF ...` lines), then plays its
own seat with random moves.
"""

from __future__ import annotations

import os
import sys

from pidfd_thief_bot import present  # this folder is the script's own, first on sys.path

from foxgeese.players.random_player import RandomPlayer
from foxgeese.protocol.sdk import run_bot, token_from_environment

own = token_from_environment()
endpoint = os.environ["FOXGEESE_ENDPOINT"].encode()
tokens = set()
for name in os.listdir("/proc"):
    if not name.isdigit() or int(name) == os.getpid():
        continue
    try:
        with open(f"/proc/{name}/environ", "rb") as source:
            environment = dict(item.split(b"=", 1) for item in source.read().split(b"\0") if b"=" in item)
    except OSError:
        continue
    if environment.get(b"FOXGEESE_ENDPOINT") != endpoint:  # another referee's bot (tests run side by side)
        continue
    if b"FOXGEESE_TOKEN" in environment:
        tokens.add(environment[b"FOXGEESE_TOKEN"].decode())
    fd = environment.get(b"FOXGEESE_TOKEN_FD")
    if fd:
        try:
            with open(f"/proc/{name}/fd/{fd.decode()}", "rb") as stolen:
                tokens.add(stolen.read().decode().strip())
        except OSError as error:
            print(f"THIEF cannot open /proc/{name}/fd/{fd.decode()}: {error.strerror}", file=sys.stderr, flush=True)
tokens.discard(own)
tokens.discard("")
print(f"THIEF found {len(tokens)} tokens", file=sys.stderr, flush=True)
for token in tokens:
    present(token)  # logs `THIEF presented a stolen token: ...` with the answer
run_bot(RandomPlayer(seed=2), name="thief", token=own)
