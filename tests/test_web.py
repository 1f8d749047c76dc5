"""`foxgeese serve` without a browser: a real server process, real referee games, WebSocket
clients; what a user gets wrong is a message and the server stays up."""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from browser import web_server
from websockets.sync.client import connect


def post(url: str, data: object) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(data).encode(), method="POST")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def socket_url(base: str, link: str) -> str:
    game_id, _, secret = link.removeprefix("/game/").partition("?seat=")
    return base.replace("http://", "ws://") + f"/ws/game/{game_id}" + (f"?seat={secret}" if secret else "")


def receive(ws, until, timeout_s: float = 20.0) -> dict:
    """Messages until one satisfies `until`; returns it."""
    deadline = time.monotonic() + timeout_s
    while True:
        message = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if until(message):
            return message


def my_turn(message: dict) -> bool:
    return message["type"] == "state" and bool(message["legal"])


def test_mistakes_get_a_message_and_the_server_stays_up() -> None:
    with web_server() as base:
        status, answer = post(base + "/api/games", {"variant": "standard", "players": {"fox": "minimax:dept=2",
                                                                                      "geese": "random"}})
        assert status == 400 and answer["error"].startswith("unknown option 'dept' for minimax")
        status, answer = post(base + "/api/games", {"variant": "chess", "players": {}})
        assert status == 400 and "valid variants: standard" in answer["error"]
        status, answer = post(base + "/api/games", {"variant": "standard", "tc": "fast",
                                                    "players": {"fox": "human", "geese": "random"}})
        assert status == 400 and answer["error"].startswith("time control:")
        status, page = get(base + "/game/no-such-game")
        assert status == 404 and "There is no game &#x27;no-such-game&#x27; on this server" in page
        with connect(base.replace("http://", "ws://") + "/ws/game/no-such-game") as ws:
            message = json.loads(ws.recv(timeout=10))
            assert message == {"type": "error", "fatal": True, "stored": False, "message": "this game is not being "
                               "played on this server: there is no game with this link"}

        status, answer = post(base + "/api/games", {"variant": "standard", "tc": "60+0",
                                                    "players": {"fox": "human", "geese": "random"}})
        assert status == 200 and set(answer["links"]) == {"fox"}
        with connect(socket_url(base, answer["links"]["fox"])) as fox:
            state = receive(fox, my_turn)
            assert state["you"] == "fox" and "d4-d5" in state["legal"] and state["svg"].startswith("<svg")
            with connect(socket_url(base, answer["links"]["fox"])) as second:
                message = json.loads(second.recv(timeout=10))
                assert message["type"] == "error" and "already open in another tab or browser" in message["message"]
                assert json.loads(second.recv(timeout=10))["you"] is None  # it watches instead
                second.send(json.dumps({"type": "move", "move": "d4-d5"}))
                assert "you are watching" in receive(second, lambda m: m["type"] == "error")["message"]
            with connect(socket_url(base, answer["links"]["fox"].split("?")[0] + "?seat=wrong")) as stranger:
                assert "does not match any seat" in json.loads(stranger.recv(timeout=10))["message"]
            fox.send(json.dumps({"type": "move", "move": "d4-d6"}))
            error = receive(fox, lambda m: m["type"] == "error")
            assert error["message"] == "d4-d6: d4 and d6 are not joined by a line"
            fox.send("not json")
            assert receive(fox, lambda m: m["type"] == "error")["message"].startswith("expected")
            fox.send(json.dumps({"type": "move", "move": "d4-d5"}))
            after = receive(fox, lambda m: m["type"] == "state" and len(m["moves"]) >= 2)
            assert after["moves"][0]["move"] == "d4-d5" and after["moves"][1]["side"] == "geese"
        assert get(base + "/")[0] == 200


def test_a_closed_tab_leaves_the_game_waiting_until_its_clock_falls() -> None:
    with web_server() as base:
        _, answer = post(base + "/api/games", {"variant": "hare-and-hounds", "tc": "3+0",
                                               "players": {"hare": "random", "hounds": "human"}})
        with connect(socket_url(base, answer["links"]["hounds"])) as tab:
            receive(tab, my_turn)  # the hounds move first; then the tab is closed
        with connect(socket_url(base, answer["watch"])) as watcher:
            state = receive(watcher, lambda m: m["type"] == "state")
            assert state["status"] == "playing" and state["seats"]["hounds"]["present"] is False
        with connect(socket_url(base, answer["links"]["hounds"])) as back:  # the seat is still there
            state = receive(back, my_turn)
            assert state["you"] == "hounds" and state["moves"] == []
        with connect(socket_url(base, answer["watch"])) as watcher:
            over = receive(watcher, lambda m: m["type"] == "state" and m["status"] == "over", timeout_s=30)
        assert over["result"].startswith("hare wins by time-forfeit")
        status, page = get(base + over["replay"])
        assert status == 200 and 'id="fg-data"' in page


def real_tournament(folder: Path) -> Path:
    """A small real run (two variants, four games) with its events.jsonl, journal and identity."""
    from foxgeese.tournaments.config import load_config
    from foxgeese.tournaments.runner import Runner

    config = folder / "t.yaml"
    config.write_text("name: live\nvariants:\n  - id: standard\n  - id: hare-and-hounds\nplayers:\n"
                      "  - name: mm1\n    spec: minimax:depth=1\n  - name: rnd\n    spec: random:seed=2\n"
                      "games_per_pairing: 2\ntime_control: 5+0.1\nconcurrency: 2\nseed: 4\nopening_plies: 2\n"
                      "max_plies: 100\n")
    out = folder / "out"
    Runner(load_config(config), out).run()
    return out


def test_live_view_follows_a_real_runs_event_stream_and_replays_from_its_journal(tmp_path: Path) -> None:
    run = real_tournament(tmp_path)
    events = (run / "events.jsonl").read_text().splitlines(keepends=True)
    first_end = next(n for n, line in enumerate(events) if '"game_ended"' in line)
    live = tmp_path / "live"  # the run's files, its event stream written in two steps
    live.mkdir()
    for name in ("tournament.json", "journal.jsonl"):
        (live / name).write_bytes((run / name).read_bytes())
    with web_server("--tournament", str(live)) as base:
        with connect(base.replace("http://", "ws://") + "/ws/tournament") as ws:
            before = receive(ws, lambda m: m["type"] == "tournament")
            assert "not there" in before["problem"] and before["games_done"] == 4  # the journal, until events come
            (live / "events.jsonl").write_text("".join(events[:first_end]))
            during = receive(ws, lambda m: m["type"] == "tournament" and m["live"] and not m["problem"])
            assert during["name"] == "live" and during["games_done"] == 0 and during["games_total"] == 4
            game = during["live"][0]
            assert game["svg"].startswith("<svg") and f'data-move="{game["last"]}"' in game["svg"]
            assert set(game["seats"].values()) == {"mm1", "rnd"}
            with open(live / "events.jsonl", "a") as stream:
                stream.write("".join(events[first_end:]))
            done = receive(ws, lambda m: m["type"] == "tournament" and m["finished"])
            assert done["games_done"] == 4 and done["live"] == [] and len(done["ended"]) == 4
            assert sorted(row["name"] for row in done["standings"]) == ["mm1", "rnd"]
        game_id = done["ended"][0]["id"]
        status, page = get(base + f"/tournament/games/{game_id}")
        assert status == 200
        replay = json.loads(re.search(r'id="fg-data">(.*?)</script>', page).group(1).replace("<\\/", "</"))["games"][0]
        lines = (run / "journal.jsonl").read_text().splitlines()
        journal = {json.loads(line)["id"]: json.loads(line) for line in lines}
        assert len(replay["plies"]) == len(journal[game_id]["record"]["moves"]) + 1
        assert get(base + "/tournament/games/r9999")[0] == 404


def test_a_cmd_bot_plays_in_the_browser_game() -> None:
    bot = Path(__file__).resolve().parent.parent / "examples" / "bots" / "python" / "bot.py"
    with web_server() as base:
        players = {"fox": "human", "geese": f"cmd:{sys.executable} {bot}"}
        status, answer = post(base + "/api/games", {"variant": "great-cross", "tc": "60+0", "players": players})
        assert status == 200, answer
        with connect(socket_url(base, answer["links"]["fox"])) as fox:
            state = receive(fox, my_turn)
            fox.send(json.dumps({"type": "move", "move": state["legal"][0]}))
            reply = receive(fox, lambda m: m["type"] == "state" and len(m["moves"]) == 2
                            and m["moves"][1]["think_ms"] is not None)
            assert reply["moves"][1]["side"] == "geese" and reply["seats"]["geese"]["name"].startswith("cmd:")
