"""A bot of pyzmq and msgpack only (it starts in a few tens of milliseconds), playing the first legal
move. `--hellos 2` says hello twice in a row; `--hello-delay S` waits S seconds before its hello;
`--after-game-over TYPE` sends a message of that type (naming no game of the referee's) on each game_over,
`--stray-delay S` seconds after it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import msgpack
import zmq


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hellos", type=int, default=1)
    parser.add_argument("--hello-delay", type=float, default=0.0)
    parser.add_argument("--after-game-over", default="", help="a message type to send on each game_over")
    parser.add_argument("--stray-delay", type=float, default=0.0, help="seconds to wait before that message")
    args = parser.parse_args()
    time.sleep(args.hello_delay)
    fd = int(os.environ["FOXGEESE_TOKEN_FD"])
    try:
        token = os.pread(fd, 256, 0).decode().strip()
    except OSError:  # a referee of before issue 24 handed it over on a socket, which has no offsets
        token = os.read(fd, 256).decode().strip()
    os.close(fd)
    socket = zmq.Context().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(os.environ["FOXGEESE_ENDPOINT"])

    def send(kind: str, **fields: object) -> None:
        socket.send(msgpack.packb({"v": 2, "type": kind, **fields}))

    for _ in range(args.hellos):
        send("hello", token=token, name="minimal", author="tests", version="1", variants=["hare-and-hounds"])
    while True:
        message = msgpack.unpackb(socket.recv())
        kind = message["type"]
        print(f"recv {kind} {message.get('reason', '')}".rstrip(), file=sys.stderr, flush=True)
        if kind in ("quit", "refused"):
            return 0
        if kind == "ping":
            send("pong", id=message["id"])
        elif kind == "new_game":
            send("ready", game_id=message["game_id"])
        elif kind == "game_over" and args.after_game_over:
            time.sleep(args.stray_delay)
            send(args.after_game_over, game_id="not-a-game", request_id=1, move="a1-a2", id=0)
            print("sent stray", file=sys.stderr, flush=True)
        elif kind == "turn":
            send("move", game_id=message["game_id"], request_id=message["request_id"], move=message["legal"][0])


if __name__ == "__main__":
    sys.exit(main())
