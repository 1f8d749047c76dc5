"""Time from a person's click to the AI's reply drawn in the page, minus the AI's think time.

    python benchmarks/bench_web.py [--games 2] [--variant standard]

Plays whole games against `random` in real headless Chromium (Debian's chromium + chromium-driver,
tests/browser.py), clicking lit pieces and targets like the browser test does, and prints the
median per game. Beside it, in the same run: the same round trip from a plain WebSocket client
(no browser: what the server, the relay and the referee cost) and the 100 ms target. The page
measures with `performance.now()` from the click to the first animation frame after the reply
arrived, and subtracts the think time the referee recorded for that reply.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from browser import browser_missing, chrome, play_by_clicking, post_json, wait_for, web_server  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

TARGET_MS = 100.0


def new_game(base: str, variant: str) -> dict:
    sides = ("hare", "hounds") if variant == "hare-and-hounds" else ("fox", "geese")
    status, answer = post_json(base, "/api/games",
                               {"variant": variant, "tc": "600+5", "players": {sides[0]: "human", sides[1]: "random"}})
    if status != 200:
        sys.exit(f"bench_web: the server refused the game: {answer.get('error')}")
    return answer


def browser_game(base: str, variant: str, seed: int) -> list[float]:
    link = next(iter(new_game(base, variant)["links"].values()))
    with chrome() as driver:
        driver.get(base + link)
        wait_for(driver, "window.fgState && window.fgState.status === 'playing'")
        play_by_clicking(driver, seed=seed)
        return list(driver.execute_script("return window.fgLatency"))


def socket_game(base: str, variant: str) -> list[float]:
    """The same round trip without a browser: send a move, wait for the state with the reply."""
    link = next(iter(new_game(base, variant)["links"].values()))
    game_id, _, secret = link.removeprefix("/game/").partition("?seat=")
    latencies: list[float] = []
    pending: list | None = None
    with connect(base.replace("http://", "ws://") + f"/ws/game/{game_id}?seat={secret}") as ws:
        while True:
            message = json.loads(ws.recv(timeout=60))
            if message["type"] != "state":
                continue
            now = time.perf_counter()
            moves = message["moves"]
            if pending and len(moves) > pending[1] + 1 and pending[2] is None:
                pending[2] = now
            if pending and pending[2] and moves[pending[1] + 1]["think_ms"] is not None:
                latencies.append((pending[2] - pending[0]) * 1000 - moves[pending[1] + 1]["think_ms"])
                pending = None
            if message["status"] == "over":
                return latencies
            if message["legal"] and pending is None:
                pending = [time.perf_counter(), len(moves), None]
                ws.send(json.dumps({"type": "move", "move": max(message["legal"], key=len)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--variant", default="standard")
    args = parser.parse_args()
    problem = browser_missing()
    if problem:
        sys.exit(f"bench_web: {problem}")
    with web_server() as base:
        medians = []
        for number in range(args.games):
            browser = browser_game(base, args.variant, seed=number)
            raw = socket_game(base, args.variant)
            medians.append(statistics.median(browser))
            print(f"game {number + 1}: browser median {statistics.median(browser):6.1f} ms over {len(browser)} replies "
                  f"(max {max(browser):.1f}) | WebSocket client, no browser: median {statistics.median(raw):5.1f} ms "
                  f"over {len(raw)} | target {TARGET_MS:.0f} ms", flush=True)
        print(f"click to AI reply drawn, minus think time: median of game medians {statistics.median(medians):.1f} ms "
              f"(target < {TARGET_MS:.0f} ms)")


if __name__ == "__main__":
    main()
