"""What the Bot API costs a remote bot: the time the referee's clock charges per move.

A real `foxgeese serve` plays random against random, first with both players launched by the
referee (the yardstick: ZeroMQ over ipc://), then with the geese a remote bot of the Bot API
(the SDK's `RemoteBot` in this process, over loopback HTTP: referee -> bridge -> hub -> game stream
-> client -> POST move -> hub -> bridge -> referee). Each move's charge is the record's
`think_ms + transport_ms` (the reply's arrival less the turn's sending); a random player thinks
for well under a millisecond, so the charge is the relay. Prints the median and 90th percentile
per move for both, and the load.

    python benchmarks/bench_botapi.py [--games 5]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from foxgeese.protocol.botapi_client import RemoteBot
from foxgeese.web.botapi_store import BotRegistry


def stored(data: Path, game_id: str) -> dict:
    while True:
        with sqlite3.connect(data) as db:
            row = db.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()
        game = json.loads(row[0]) if row else {}
        if game.get("status") == "over":
            return game
        time.sleep(0.05)


def charges(game: dict, side: str) -> list[int]:
    return [move["think_ms"] + move["transport_ms"] for move in game["record"]["moves"] if move["side"] == side]


def new_game(url: str, players: dict[str, str]) -> str:
    page = urllib.request.urlopen(url + "/").read().decode()
    token = re.search(r"<meta name=foxgeese-csrf content='([^']+)'>", page).group(1)  # type: ignore[union-attr]
    body = json.dumps({"variant": "standard", "tc": "60+0", "players": players}).encode()
    request = urllib.request.Request(url + "/api/games", body, {"Content-Type": "application/json",
                                                                 "X-Foxgeese-Csrf": token})
    return str(json.load(urllib.request.urlopen(request))["id"])


def summary(name: str, values: list[int]) -> str:
    values = sorted(values)
    return (f"{name:<34} {len(values):>5} moves  median {statistics.median(values):6.1f} ms  "
            f"90th {values[int(len(values) * 0.9)]:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-botapi-"))
    data, log = folder / "serve.sqlite3", folder / "serve.log"
    registry = BotRegistry(data)
    token = registry.register("bench")
    registry.close()
    with open(log, "wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "foxgeese", "serve", "--port", "0", "--data", str(data),
                                   "--tables", str(folder)], stderr=out, start_new_session=True)
    try:
        while not (found := re.search(r"http://127\.0\.0\.1:\d+", log.read_text())):
            time.sleep(0.1)
        url = found.group(0)
        launched: list[int] = []
        for _ in range(args.games):
            launched += charges(stored(data, new_game(url, {"fox": "random", "geese": "random"})), "geese")
        remote: list[int] = []
        for _ in range(args.games):
            bot = RemoteBot(url, token, lambda position, clock: position.legal_moves()[0], games=1,
                            play={"opponent": "random", "side": "geese", "tc": "60+0"}, out=lambda text: None)
            thread = threading.Thread(target=bot.run)
            thread.start()
            thread.join()
            with sqlite3.connect(data) as db:
                game_id = db.execute("SELECT id FROM games ORDER BY created DESC LIMIT 1").fetchone()[0]
            remote += charges(stored(data, game_id), "geese")
        print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; random vs random, {args.games} games each")
        print(summary("launched bot (ZeroMQ, ipc://)", launched))
        print(summary("remote bot (Bot API, loopback HTTP)", remote))
        print(f"the Bot API's relay costs {statistics.median(remote) - statistics.median(launched):.1f} ms a move "
              "(median), on the remote bot's clock")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)


if __name__ == "__main__":
    main()
