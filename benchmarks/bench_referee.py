"""Moves per second through the referee, next to raw DEALER/ROUTER round trips in the same run.

    python benchmarks/bench_referee.py [--plies 3000] [--rounds 3] [--variant great-cross]

Both sides use the same transport (ipc://, one bot process per seat): the raw figure is a
ROUTER in this process sending a turn-sized msgpack map to a bot process that answers at once;
the referee figure is whole games between two bots that play the first move of `legal`. Their
ratio is what the referee's own work (rules, clocks, records) costs per ply.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import msgpack
import zmq


def run_bot(role: str) -> int:
    """The bot side: `echo` answers every map, `first` plays the first legal move (protocol 1)."""
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(os.environ["FOXGEESE_ENDPOINT"])
    pack, unpack = msgpack.packb, msgpack.unpackb
    socket.send(pack({"v": 1, "type": "hello", "token": os.environ["FOXGEESE_TOKEN"], "name": "first",
                      "author": "bench", "version": "1", "variants": []}))
    while True:
        message = unpack(socket.recv(), raw=False)
        kind = message["type"]
        if kind == "quit":
            return 0
        if kind == "turn":
            socket.send(pack({"v": 1, "type": "move", "game_id": message["game_id"],
                              "request_id": message["request_id"], "move": message["legal"][0]}))
        elif kind == "new_game":
            socket.send(pack({"v": 1, "type": "ready", "game_id": message["game_id"]}))
        elif kind == "ping":
            socket.send(pack({"v": 1, "type": "pong", "id": message["id"]}))


def raw_round_trips(count: int, moves_in_turn: int) -> float:
    """Round trips per second of a turn-like map to two bot processes in turn, answered at once.

    Two bots alternate as the two seats of a game do, so both figures pay the same wake-ups.
    """
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    path = f"/tmp/bench-referee-{os.getpid()}.sock"
    router.bind(f"ipc://{path}")
    env = {**os.environ, "FOXGEESE_ENDPOINT": f"ipc://{path}", "FOXGEESE_TOKEN": "-"}
    bots = [subprocess.Popen([sys.executable, __file__, "--role", "echo"], env=env) for _ in range(2)]
    turn = {"v": 1, "type": "turn", "game_id": "g1", "request_id": 0,
            "position": "great-cross - fox e7 d1,e1,f1,d2,e2,f2,d3,e3,f3,a4,b4,c4,d4,e4,f4,g4,h4,i4 0 0 0",
            "moves": ["e7-e6"] * moves_in_turn, "legal": ["e7-e8", "e7-d7", "e7-f7", "e7-e6"],
            "clocks": {"fox": 10000, "geese": 10000}, "increment_ms": 100, "per_move_ms": 0}
    identities = []
    try:
        while len(identities) < 2:  # each bot speaks first (its hello), as in the protocol
            if not router.poll(10_000):
                raise RuntimeError("echo bots did not start")
            identities.append(router.recv_multipart()[0])
        start = time.perf_counter()
        for request_id in range(1, count + 1):
            turn["request_id"] = request_id
            router.send_multipart([identities[request_id & 1], msgpack.packb(turn)])
            reply = msgpack.unpackb(router.recv_multipart()[1], raw=False)
            assert reply["request_id"] == request_id
        elapsed = time.perf_counter() - start
        for identity in identities:
            router.send_multipart([identity, msgpack.packb({"v": 1, "type": "quit"})])
    finally:
        for bot in bots:
            bot.wait(5)
        router.close()
        context.term()
        os.unlink(path)
    return count / elapsed


def referee_moves(plies: int, variant_id: str, max_plies: int) -> tuple[float, int, int]:
    """Plies per second through Referee.play_game between two first-legal-move bots."""
    from foxgeese.engine import Side, get_variant
    from foxgeese.protocol.botconfig import BotConfig
    from foxgeese.protocol.referee import Referee

    variant = get_variant(variant_id)
    bot = [sys.executable, __file__, "--role", "first"]
    seats = {Side.PREDATOR: BotConfig("first-a", bot), Side.PREY: BotConfig("first-b", bot)}
    with Referee() as referee:
        referee.play_game(variant, seats, "60+1", max_plies=4)  # launch and warm up, not timed
        done = games = 0
        start = time.perf_counter()
        while done < plies:
            record = referee.play_game(variant, seats, "600+1", max_plies=max_plies)
            done += record.plies
            games += 1
        elapsed = time.perf_counter() - start
    return done / elapsed, done, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--role", choices=("echo", "first"), help=argparse.SUPPRESS)
    parser.add_argument("--plies", type=int, default=3000, help="plies to time through the referee")
    parser.add_argument("--variant", default="great-cross")
    parser.add_argument("--max-plies", type=int, default=100, help="adjudicate each game after this many")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.role:
        sys.exit(run_bot(args.role))
    # Rounds of each, interleaved, best taken: other work on the machine shifts both alike.
    raw = refereed = 0.0
    for _ in range(args.rounds):
        rate, plies, games = referee_moves(args.plies // args.rounds, args.variant, args.max_plies)
        refereed = max(refereed, rate)
        raw = max(raw, raw_round_trips(args.plies // args.rounds, moves_in_turn=args.max_plies // 2))
    print(f"raw pyzmq+msgpack round trips: {raw:9.0f} /s  (turn-sized maps to 2 bot processes, ipc://)")
    print(f"referee plies:                 {refereed:9.0f} /s  ({plies} plies in {games} {args.variant} games)")
    print(f"ratio referee/raw:             {refereed / raw:9.2f}  (target >= 0.50; best of {args.rounds} rounds)")

if __name__ == "__main__":
    main()
