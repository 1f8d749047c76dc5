#!/usr/bin/env python3
"""A random foxgeese bot written straight against the wire protocol (PROTOCOL.md), without the SDK.

Needs only pyzmq, msgpack and the standard library. It reads the position text itself, generates
the legal moves itself (all three variants, fox jump chains included) and plays a random one.

    FOXGEESE_ENDPOINT=ipc:///tmp/x FOXGEESE_TOKEN=secret python3 bot.py
"""

import os
import random
import sys

import msgpack
import zmq

VARIANTS = ["standard", "hare-and-hounds", "great-cross"]
LETTERS = "abcdefghi"
DIRECTIONS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]


# --- boards: a set of points (column, row) and a set of lines between neighbours ----------------

def grid_board(size, low, high, diagonals):
    """A cross-shaped board; `diagonals(c, r)` lists which diagonals a full unit square has."""
    def is_point(c, r):
        return 0 <= c < size and 0 <= r < size and (low <= c <= high or low <= r <= high)

    points = {(c, r) for c in range(size) for r in range(size) if is_point(c, r)}
    lines = set()
    for c, r in points:
        if (c + 1, r) in points:
            lines.add(frozenset([(c, r), (c + 1, r)]))
        if (c, r + 1) in points:
            lines.add(frozenset([(c, r), (c, r + 1)]))
        if (c + 1, r) in points and (c, r + 1) in points and (c + 1, r + 1) in points:
            for kind in diagonals(c, r):
                if kind == "up":
                    lines.add(frozenset([(c, r), (c + 1, r + 1)]))
                else:
                    lines.add(frozenset([(c, r + 1), (c + 1, r)]))
    return points, lines


def great_cross_diagonal(c, r):
    # One diagonal per square: the one through the corner whose c + r is odd.
    return ["up"] if (c + r) % 2 == 1 else ["down"]


def hare_board():
    points = {(c, r) for c in range(3) for r in range(1, 4)} | {(1, 0), (1, 4)}
    lines = set()
    for c in range(3):
        for r in range(1, 4):
            if c < 2:
                lines.add(frozenset([(c, r), (c + 1, r)]))
            if r < 3:
                lines.add(frozenset([(c, r), (c, r + 1)]))
    for corner in [(0, 1), (2, 1), (0, 3), (2, 3)]:
        lines.add(frozenset([corner, (1, 2)]))
    for c in range(3):
        lines.add(frozenset([(1, 0), (c, 1)]))
        lines.add(frozenset([(1, 4), (c, 3)]))
    return points, lines


BOARDS = {
    "standard": grid_board(7, 2, 4, lambda c, r: ["up", "down"]),
    "great-cross": grid_board(9, 3, 5, great_cross_diagonal),
    "hare-and-hounds": hare_board(),
}


def step(lines, point, direction):
    """The point one line-step from `point` in `direction`, or None."""
    target = (point[0] + direction[0], point[1] + direction[1])
    return target if frozenset([point, target]) in lines else None


# --- positions and moves ---------------------------------------------------------------------------

def parse_point(text):
    return LETTERS.index(text[0]), int(text[1:]) - 1


def name(point):
    return LETTERS[point[0]] + str(point[1] + 1)


def parse_position(text):
    """`VARIANT OPTIONS TURN PREDATOR PREY QUIET STALL PLY` -> a dict."""
    tokens = text.split()
    if len(tokens) != 8:
        raise ValueError("position text needs 8 tokens: " + text)
    options = {}
    if tokens[1] != "-":
        for item in tokens[1].split(","):
            key, _, value = item.partition("=")
            options[key] = value
    prey = set() if tokens[4] == "-" else {parse_point(p) for p in tokens[4].split(",")}
    return {
        "variant": tokens[0],
        "sideways": options.get("sideways", "0") in ("1", "true"),
        "predator_to_move": tokens[2] in ("fox", "hare"),
        "predator": parse_point(tokens[3]),
        "prey": prey,
    }


def legal_moves(position):
    points, lines = BOARDS[position["variant"]]
    predator, prey = position["predator"], position["prey"]
    moves = []
    if position["predator_to_move"]:
        for d in DIRECTIONS:
            target = step(lines, predator, d)
            if target is not None and target not in prey:
                moves.append(name(predator) + "-" + name(target))
        if position["variant"] != "hare-and-hounds":
            add_jumps(lines, predator, set(prey), [predator], moves)
    else:
        sideways = position["variant"] != "standard" or position["sideways"]
        for goose in sorted(prey):
            for d in DIRECTIONS:
                if d[1] < 0 or (d[1] == 0 and not sideways):
                    continue
                target = step(lines, goose, d)
                if target is not None and target != predator and target not in prey:
                    moves.append(name(goose) + "-" + name(target))
    return moves


def add_jumps(lines, at, geese, path, moves):
    """Every non-empty jump chain from `at` (the fox's start point counts as empty)."""
    for d in DIRECTIONS:
        over = step(lines, at, d)
        if over is None or over not in geese:
            continue
        land = step(lines, over, d)
        if land is None or land in geese:  # points the fox left or passed are empty
            continue
        geese.discard(over)
        chain = path + [land]
        moves.append("x".join(name(p) for p in chain))
        add_jumps(lines, land, geese, chain, moves)
        geese.add(over)


# --- the protocol loop -----------------------------------------------------------------------------

def list_moves():
    """`bot.py --moves`: for each position text on stdin, print its legal moves on one line."""
    for line in sys.stdin:
        print(" ".join(legal_moves(parse_position(line))), flush=True)


def read_token():
    """A launched bot reads its token from the inherited descriptor FOXGEESE_TOKEN_FD names (a sealed
    memory file: read it with pread from offset 0, then close it); a bot started by hand for a
    remote seat takes FOXGEESE_TOKEN."""
    fd = os.environ.get("FOXGEESE_TOKEN_FD")
    if fd:
        try:
            return os.pread(int(fd), 256, 0).decode("ascii").strip()
        finally:
            os.close(int(fd))
    return os.environ.get("FOXGEESE_TOKEN", "")


def main():
    if sys.argv[1:] == ["--moves"]:
        return list_moves()
    endpoint = os.environ.get("FOXGEESE_ENDPOINT")
    if not endpoint:
        sys.exit("bot.py: set FOXGEESE_ENDPOINT (and FOXGEESE_TOKEN) to the referee's address")
    rng = random.Random(os.environ.get("BOT_SEED"))
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)

    def send(kind, **fields):
        socket.send(msgpack.packb(dict(v=2, type=kind, **fields), use_bin_type=True))

    send("hello", token=read_token(), name="python-example",
         author="foxgeese examples", version="1.0", variants=VARIANTS)
    parent = os.getppid()
    while True:
        if not socket.poll(1000):
            if os.getppid() != parent:  # whoever launched us is gone: so is the referee
                break
            continue
        message = msgpack.unpackb(socket.recv(), raw=False)
        kind = message.get("type")
        if kind == "quit":
            break
        if kind == "refused":
            sys.exit("bot.py: refused: " + str(message.get("reason")))
        if kind == "new_game":
            if "seed" in message and "BOT_SEED" not in os.environ:
                rng.seed(message["seed"])  # the game's seed: the same seed replays the same game
            send("ready", game_id=message["game_id"])
        elif kind == "turn":
            moves = legal_moves(parse_position(message["position"]))
            if moves:
                send("move", game_id=message["game_id"], request_id=message["request_id"],
                     move=rng.choice(moves))
            else:
                send("resign", game_id=message["game_id"], request_id=message["request_id"])
        elif kind == "ping":
            send("pong", id=message["id"])
    socket.close()
    context.term()


if __name__ == "__main__":
    main()
