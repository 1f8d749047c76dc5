"""A raw pyzmq+msgpack bot for referee tests: behaves, or misbehaves on purpose with --mode.

It plays random legal moves found with the engine until its `--after`-th turn, where the mode
takes over. Every message it receives is logged to stderr as `recv TYPE` so tests can see what the
referee sent (the referee keeps a bot's stderr in a file).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time

import msgpack
import zmq

from foxgeese.engine import Position
from foxgeese.protocol.sdk import token_from_environment

MODES = (
    "normal", "crash", "hang", "slow", "garbage", "wrong-types", "oversize", "old-request",
    "wrong-game", "illegal", "no-hello", "wrong-token", "bad-version", "resign", "first", "move-then-resign",
    "ignore-term",
)


def send(socket: zmq.Socket, message_type: str, protocol: int = 2, **fields: object) -> None:
    socket.send(msgpack.packb({"v": protocol, "type": message_type, **fields}, use_bin_type=True))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=MODES, default="normal")
    parser.add_argument("--after", type=int, default=1, help="the turn (1 = first) where the mode acts")
    parser.add_argument("--sleep", type=float, default=1.0, help="seconds, for --mode slow")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--hello-delay", type=float, default=0.0, help="seconds to wait before reading the token")
    args = parser.parse_args()
    if args.mode == "ignore-term":  # a hung bot that a polite SIGTERM does not stop
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(args.hello_delay)
    rng = random.Random(args.seed)
    log = sys.stderr

    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(os.environ["FOXGEESE_ENDPOINT"])
    token = token_from_environment()

    if args.mode == "no-hello":
        socket.poll()  # nothing will ever come: wait to be killed
        return 0
    hello = {"name": f"scripted-{args.mode}", "author": "tests", "version": "1.0",
             "variants": ["standard", "hare-and-hounds", "great-cross"]}
    if args.mode == "wrong-token":
        send(socket, "hello", token="not-the-token", **hello)
    elif args.mode == "bad-version":
        send(socket, "hello", protocol=1, token=token, **hello)
    else:
        send(socket, "hello", token=token, **hello)

    turns = 0
    while True:
        message = msgpack.unpackb(socket.recv(), raw=False)
        kind = message["type"]
        print(f"recv {kind} {message.get('game_id', '-')} {message.get('reason', '')}".rstrip(), file=log, flush=True)
        if kind == "refused":
            return 0
        if kind == "quit":
            return 0
        if kind == "ping":
            send(socket, "pong", id=message["id"])
            continue
        if kind == "new_game":
            send(socket, "ready", game_id=message["game_id"])
            continue
        if kind != "turn":
            continue
        turns += 1
        game_id, request_id = message["game_id"], message["request_id"]
        if args.mode == "first":
            send(socket, "move", game_id=game_id, request_id=request_id, move=message["legal"][0])
            continue
        moves = Position.from_text(message["position"]).legal_moves()
        move = str(rng.choice(moves))
        if turns < args.after or args.mode == "normal":
            send(socket, "move", game_id=game_id, request_id=request_id, move=move,
                 info={"depth": 1, "nodes": len(moves), "pv": [move]})
            continue
        mode = args.mode
        if mode == "crash":
            os._exit(3)
        elif mode == "hang":
            while True:  # ignore everything from now on
                socket.recv()
        elif mode == "slow":
            time.sleep(args.sleep)
            send(socket, "move", game_id=game_id, request_id=request_id, move=move)
        elif mode == "garbage":
            socket.send(b"\xc1\xc1 this is not msgpack")
        elif mode == "wrong-types":
            send(socket, "move", game_id=game_id, request_id=str(request_id), move=move)
        elif mode == "oversize":
            send(socket, "move", game_id=game_id, request_id=request_id, move=move, info={"pv": ["x" * 100_000]})
        elif mode == "old-request":
            send(socket, "move", game_id=game_id, request_id=request_id - 1, move=move)
        elif mode == "wrong-game":
            send(socket, "move", game_id="some-other-game", request_id=request_id, move=move)
        elif mode == "illegal":
            send(socket, "move", game_id=game_id, request_id=request_id, move="a1-g7")
        elif mode == "resign":
            send(socket, "resign", game_id=game_id, request_id=request_id)
        elif mode == "move-then-resign":
            send(socket, "move", game_id=game_id, request_id=request_id, move=move)
            send(socket, "resign", game_id=game_id, request_id=request_id)
        elif mode == "ignore-term":
            while True:
                time.sleep(1)


if __name__ == "__main__":
    sys.exit(main())
