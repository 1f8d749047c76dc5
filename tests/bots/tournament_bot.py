"""A raw pyzmq bot for tournament tests: plays reproducibly, or crashes, hangs or cheats on purpose.

`--mode hash` picks the legal move indexed by a hash of (seed, position): the same position always
gets the same move, whatever games the process played before, so a tournament of these bots
replays exactly, even across a killed and resumed runner. The other modes act on the bot's first
turn of every game: `crash` exits, `hang` stops reading for good, `illegal` sends an impossible move.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

import msgpack
import zmq

from foxgeese.engine import Position
from foxgeese.protocol.sdk import token_from_environment


def send(socket: zmq.Socket, message_type: str, **fields: object) -> None:
    socket.send(msgpack.packb({"v": 2, "type": message_type, **fields}, use_bin_type=True))


def choose(position: str, seed: int) -> str:
    moves = sorted(str(move) for move in Position.from_text(position).legal_moves())
    digest = hashlib.sha256(f"{seed}|{position}".encode()).digest()
    return moves[int.from_bytes(digest[:8], "big") % len(moves)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("hash", "crash", "hang", "illegal"), default="hash")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each move")
    args = parser.parse_args()
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(os.environ["FOXGEESE_ENDPOINT"])
    send(socket, "hello", token=token_from_environment(), name=f"tournament-{args.mode}",
         author="tests", version="1", variants=["standard", "hare-and-hounds", "great-cross"])
    parent = os.getppid()
    while True:
        if not socket.poll(200):
            if os.getppid() != parent:
                return 0  # the referee that launched us is gone (a worker killed mid-game)
            continue
        message = msgpack.unpackb(socket.recv(), raw=False)
        kind = message["type"]
        if kind in ("quit", "refused"):
            return 0
        if kind == "ping":
            send(socket, "pong", id=message["id"])
        elif kind == "new_game":
            send(socket, "ready", game_id=message["game_id"])
        elif kind == "turn":
            reply = {"game_id": message["game_id"], "request_id": message["request_id"]}
            if args.mode == "crash":
                print(f"tournament bot: crashing on purpose in game {message['game_id']}", file=sys.stderr, flush=True)
                os._exit(3)
            if args.mode == "hang":
                while os.getppid() == parent:
                    if socket.poll(200):
                        socket.recv()
                return 0
            if args.delay:
                time.sleep(args.delay)
            move = "a1-g7" if args.mode == "illegal" else choose(message["position"], args.seed)
            send(socket, "move", move=move, **reply)


if __name__ == "__main__":
    sys.exit(main())
