"""Moves per second through the referee, next to raw DEALER/ROUTER round trips in the same run.

    python benchmarks/bench_referee.py [--rounds 30] [--max-plies 100] [--variant great-cross] [--transport tcp]

Both sides use the same transport (ipc://, or loopback TCP with --transport tcp; one bot process
per seat): the raw figure is a ROUTER in this process sending a turn-sized msgpack map to a bot
process that answers at once;
the referee figure is whole games (setup included) between two bots that play a random move of
`legal`, seeded by the game's id, so every game is a different game and the referee's caches of
positions seen before help only as much as they would in a tournament. Their ratio is what the
referee's own work (rules, clocks, records) costs per ply.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

import msgpack
import zmq


def token_from_fd() -> str:
    """Protocol 2: a launched bot reads its token from the descriptor FOXGEESE_TOKEN_FD names."""
    fd = os.environ.get("FOXGEESE_TOKEN_FD")
    if not fd:
        return os.environ.get("FOXGEESE_TOKEN", "")
    with os.fdopen(int(fd), "rb") as source:
        return source.read().decode().strip()


def run_bot(role: str) -> int:
    """The bot side: `echo` answers every map, `random` plays a legal move chosen by a generator
    seeded by the game's id (protocol 2)."""
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(os.environ["FOXGEESE_ENDPOINT"])
    pack, unpack = msgpack.packb, msgpack.unpackb
    socket.send(pack({"v": 2, "type": "hello", "token": token_from_fd(), "name": role,
                      "author": "bench", "version": "1", "variants": []}))
    choose = random.Random(0).choice
    while True:
        message = unpack(socket.recv(), raw=False)
        kind = message["type"]
        if kind == "quit":
            return 0
        if kind == "turn":
            socket.send(pack({"v": 2, "type": "move", "game_id": message["game_id"],
                              "request_id": message["request_id"], "move": choose(message["legal"])}))
        elif kind == "new_game":
            choose = random.Random(message["game_id"]).choice
            socket.send(pack({"v": 2, "type": "ready", "game_id": message["game_id"]}))
        elif kind == "ping":
            socket.send(pack({"v": 2, "type": "pong", "id": message["id"]}))


class RawPair:
    """A ROUTER here and two echo bot processes: the same traffic as a game, with no referee work.

    Two bots alternate as the two seats of a game do, so both figures pay the same wake-ups.
    """

    def __init__(self, moves_in_turn: int, transport: str) -> None:
        self.context = zmq.Context()
        self.router = self.context.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.LINGER, 0)
        self.path = f"/tmp/bench-referee-{os.getpid()}.sock"
        self.router.bind(f"ipc://{self.path}" if transport == "ipc" else "tcp://127.0.0.1:0")
        endpoint = self.router.getsockopt_string(zmq.LAST_ENDPOINT)
        env = {**os.environ, "FOXGEESE_ENDPOINT": endpoint, "FOXGEESE_TOKEN": "-"}
        self.bots = [subprocess.Popen([sys.executable, __file__, "--role", "echo"], env=env) for _ in range(2)]
        self.turn = {"v": 2, "type": "turn", "game_id": "g1", "request_id": 0,
                     "position": "great-cross - fox e7 d1,e1,f1,d2,e2,f2,d3,e3,f3,a4,b4,c4,d4,e4,f4,g4,h4,i4 0 0 0",
                     "moves": ["e7-e6"] * moves_in_turn, "legal": ["e7-e8", "e7-d7", "e7-f7", "e7-e6"],
                     "clocks": {"fox": 10000, "geese": 10000}, "increment_ms": 100, "per_move_ms": 0}
        self.identities: list[bytes] = []
        while len(self.identities) < 2:  # each bot speaks first (its hello), as in the protocol
            if not self.router.poll(10_000):
                raise RuntimeError("echo bots did not start")
            self.identities.append(self.router.recv_multipart()[0])

    def rate(self, count: int) -> float:
        """Round trips per second over `count` turn-sized maps, answered at once."""
        router, turn, identities = self.router, self.turn, self.identities
        start = time.perf_counter()
        for request_id in range(1, count + 1):
            turn["request_id"] = request_id
            router.send_multipart([identities[request_id & 1], msgpack.packb(turn)])
            reply = msgpack.unpackb(router.recv_multipart()[1], raw=False)
            assert reply["request_id"] == request_id
        return count / (time.perf_counter() - start)

    def close(self) -> None:
        for identity in self.identities:
            self.router.send_multipart([identity, msgpack.packb({"v": 2, "type": "quit"})])
        for bot in self.bots:
            bot.wait(5)
        self.router.close()
        self.context.term()
        if os.path.exists(self.path):
            os.unlink(self.path)


def measure(rounds: int, variant_id: str, max_plies: int, transport: str) -> tuple[float, float, int, float]:
    """Best rates over `rounds` of (one refereed game, as many raw round trips), interleaved, and
    the median of the records' `referee_ms`: the referee's own time from a reply's arrival to the
    next turn's sending (its critical path, part of every ply's round trip).

    Taking the best of short interleaved rounds keeps other work on the machine out of both.
    """
    from foxgeese.engine import Side, get_variant
    from foxgeese.protocol.botconfig import BotConfig
    from foxgeese.protocol.referee import Referee

    variant = get_variant(variant_id)
    bot = [sys.executable, __file__, "--role", "random"]
    seats = {Side.PREDATOR: BotConfig("random-a", bot, transport=transport),
             Side.PREY: BotConfig("random-b", bot, transport=transport)}
    raw = RawPair(moves_in_turn=max_plies // 2, transport=transport)
    best_referee = best_raw = 0.0
    plies = 0
    referee_ms: list[float] = []
    try:
        with Referee() as referee:
            referee.play_game(variant, seats, "60+1", max_plies=4)  # launch and warm up, not timed
            for _ in range(rounds):
                start = time.perf_counter()
                record = referee.play_game(variant, seats, "600+1", max_plies=max_plies)
                best_referee = max(best_referee, record.plies / (time.perf_counter() - start))
                best_raw = max(best_raw, raw.rate(record.plies))
                plies += record.plies
                referee_ms += [move.referee_ms for move in record.moves[1:]]
    finally:
        raw.close()
    return best_referee, best_raw, plies, statistics.median(referee_ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--role", choices=("echo", "random"), help=argparse.SUPPRESS)
    parser.add_argument("--variant", default="great-cross")
    parser.add_argument("--max-plies", type=int, default=100, help="adjudicate each game after this many")
    parser.add_argument("--rounds", type=int, default=30, help="games, each followed by as many raw round trips")
    parser.add_argument("--transport", choices=("ipc", "tcp"), default="ipc", help="ipc:// or loopback TCP, both sides")
    args = parser.parse_args()
    if args.role:
        sys.exit(run_bot(args.role))
    refereed, raw, plies, referee_ms = measure(args.rounds, args.variant, args.max_plies, args.transport)
    where = "ipc://" if args.transport == "ipc" else "loopback TCP"
    # One table (a header row, then figures two spaces or more apart) that compare_commits.py reads.
    games = f"{args.variant}, {args.max_plies} plies a game, best of {args.rounds} interleaved rounds"
    print(f"{games}  per second/s  own us")
    print(f"raw pyzmq+msgpack round trips (turn-sized maps, 2 bot processes, {where})  {raw:.0f}  -")
    print(f"referee plies (own time: median reply in to next turn out)  {refereed:.0f}  {referee_ms * 1000:.1f}")
    print(f"ratio referee/raw ({plies} plies each way)  {refereed / raw:.2f}  -")


if __name__ == "__main__":
    main()
