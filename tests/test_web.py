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

from browser import post_json, web_server
from websockets.sync.client import connect


def post(url: str, data: object) -> tuple[int, dict]:
    """A page's POST (its CSRF token, application/json) to the full `url`."""
    base, path = re.match(r"(http://[^/]+)(/.*)", url).groups()
    return post_json(base, path, data)


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
    seen: list[dict] = []
    while True:
        try:
            message = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        except TimeoutError:  # what did come is what tells why: a game that ended, a turn that never came
            shown = [{key: value for key, value in m.items() if key != "svg"} for m in seen[-3:]]
            raise AssertionError(f"no awaited message within {timeout_s} s; the last ones: {shown}") from None
        seen.append(message)
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
        assert over["clocks"]["hounds"] == 0  # the flag fell: 0:00.0, not the time it had at its turn
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
    with web_server("--allow-commands") as base:
        players = {"fox": "human", "geese": f"cmd:{sys.executable} {bot}"}
        status, answer = post(base + "/api/games", {"variant": "great-cross", "tc": "60+0", "players": players})
        assert status == 200, answer
        with connect(socket_url(base, answer["links"]["fox"])) as fox:
            state = receive(fox, my_turn)
            fox.send(json.dumps({"type": "move", "move": state["legal"][0]}))
            reply = receive(fox, lambda m: m["type"] == "state" and len(m["moves"]) == 2
                            and m["moves"][1]["think_ms"] is not None)
            assert reply["moves"][1]["side"] == "geese" and reply["seats"]["geese"]["name"].startswith("cmd:")


def action(base: str, link: str, name: str) -> tuple[int, dict]:
    game_id, _, secret = link.removeprefix("/game/").partition("?seat=")
    return post(base + f"/api/game/{game_id}/action", {"seat": secret, "action": name})


def test_a_takeback_against_an_ai_restores_both_clocks_as_they_were_at_that_ply() -> None:
    """Not the time control's 20 s again: each side gets back what its clock showed after its last kept move."""
    with web_server() as base:
        _, answer = post(base + "/api/games", {"variant": "hare-and-hounds", "tc": "20+0",
                                               "players": {"hare": "random", "hounds": "human"}})
        link = answer["links"]["hounds"]
        with connect(socket_url(base, link)) as ws:
            state = receive(ws, my_turn)
            for plies in (2, 4):
                ws.send(json.dumps({"type": "move", "move": state["legal"][0]}))
                state = receive(ws, lambda m: my_turn(m) and len(m["moves"]) == plies
                                and m["moves"][-1].get("clock_ms") is not None)
            kept = state["moves"][:2]
            assert kept[0]["clock_ms"] < 20_000 and state["clocks"]["hounds"] < kept[0]["clock_ms"]
            assert action(base, link, "takeback") == (200, {"ok": "your last move is taken back"})
            back = receive(ws, lambda m: my_turn(m) and len(m["moves"]) == 2)
            assert back["clocks"]["hare"] == kept[1]["clock_ms"]  # the clock that is not running: exactly
            assert kept[0]["clock_ms"] - 5_000 < back["clocks"]["hounds"] <= kept[0]["clock_ms"]
            ws.send(json.dumps({"type": "move", "move": back["legal"][0]}))
            reply = receive(ws, lambda m: my_turn(m) and len(m["moves"]) == 4)
            assert reply["moves"][3]["clock_ms"] <= kept[1]["clock_ms"]  # the hare played on from its kept time
            assert reply["moves"][2]["clock_ms"] <= kept[0]["clock_ms"]
            assert action(base, link, "resign")[0] == 200
            over = receive(ws, lambda m: m["type"] == "state" and m["replay"])
        status, page = get(base + over["replay"])
        record = json.loads(re.search(r'id="fg-data">(.*?)</script>', page).group(1))["games"][0]
        assert status == 200 and record["plies"][2]["clocks"]["hare"] == kept[1]["clock_ms"]


def test_two_people_agree_a_draw_in_a_variant_with_draws_and_none_where_it_has_none() -> None:
    with web_server() as base:
        _, answer = post(base + "/api/games", {"variant": "great-cross", "tc": "60+0",
                                               "players": {"fox": "human", "geese": "human"}})
        fox, geese = answer["links"]["fox"], answer["links"]["geese"]
        with connect(socket_url(base, fox)) as fox_ws, connect(socket_url(base, geese)) as geese_ws:
            # the first turn waits for the referee and both relays to start: 20 s once ran out in a
            # fresh clone's CI run (twice, at this test only), so this wait is generous
            receive(fox_ws, my_turn, timeout_s=60)
            assert action(base, fox, "takeback") == (400, {"error": "takebacks are off in this game (they are for "
                                                                    "games against an AI)"})
            assert action(base, fox, "accept-draw") == (400, {"error": "there is no draw offer to accept"})
            status, reply = action(base, fox, "claim-draw")
            assert status == 400 and "no table knows this position" in reply["error"]
            assert action(base, fox, "offer-draw")[0] == 200
            offered = receive(geese_ws, lambda m: m["type"] == "state" and m["draw_offer"] == "fox")
            assert offered["you"] == "geese"
            assert action(base, answer["watch"], "accept-draw")[1]["error"].startswith("only a player's link")
            assert action(base, geese, "accept-draw") == (200, {"ok": "draw agreed"})
            over = receive(fox_ws, lambda m: m["type"] == "state" and m["replay"])  # once the referee has stopped
            assert over["result"] == "draw by agreement after 0 plies: both players agreed to a draw"
            status, page = get(base + f"/replay/game/{answer['id']}")
            assert status == 200 and "great-cross: human vs human" in page  # not the raw game id
            status, rematch = action(base, fox, "rematch")
            assert status == 200 and set(rematch["links"]) == {"fox", "geese"}
            assert receive(geese_ws, lambda m: m["type"] == "state" and m["rematch"])["rematch"] == \
                rematch["links"]["geese"]
        _, cross = post(base + "/api/games", {"variant": "great-cross", "tc": "60+0",
                                              "players": {"fox": "human", "geese": "random"}})
        with connect(socket_url(base, cross["links"]["fox"])) as ws:
            receive(ws, my_turn)
            assert action(base, cross["links"]["fox"], "offer-draw") == (
                200, {"ok": "the AI declines the draw (no table knows this position)"})
            status, hint = action(base, cross["links"]["fox"], "hint")  # no table: a search's move, said so
            assert status == 200 and hint["ok"].endswith("(no table knows this position: a depth-3 search's choice)")
            ws.send(json.dumps({"type": "move", "move": hint["move"]}))
            assert receive(ws, lambda m: m["type"] == "state" and m["moves"])["moves"][0]["move"] == hint["move"]
        _, standard = post(base + "/api/games", {"variant": "standard", "tc": "60+0",
                                                 "players": {"fox": "human", "geese": "random"}})
        with connect(socket_url(base, standard["links"]["fox"])) as ws:
            receive(ws, my_turn)
            status, reply = action(base, standard["links"]["fox"], "offer-draw")
            assert status == 400 and reply["error"] == "standard (geese=13,sideways=0) has no draws: every game ends " \
                                                       "with a winner"


def test_a_draw_offer_stands_past_the_offerers_move_and_its_refusal_is_told_to_both_players() -> None:
    """In a game by link: the fox offers with its move, the geese decline, and the fox's page is told
    (not left with "draw offered"); a second offer lapses when the geese move on, and both are told so."""
    with web_server() as base:
        _, answer = post(base + "/api/games", {"variant": "great-cross", "tc": "60+0",
                                               "players": {"fox": "human", "geese": "human"}})
        fox, geese = answer["links"]["fox"], answer["links"]["geese"]
        with connect(socket_url(base, fox)) as fox_ws, connect(socket_url(base, geese)) as geese_ws:
            state = receive(fox_ws, my_turn)
            assert action(base, fox, "offer-draw") == (200, {"ok": "draw offered; it stands until the geese move",
                                                             "offered": True})
            fox_ws.send(json.dumps({"type": "move", "move": state["legal"][0]}))
            state = receive(geese_ws, lambda m: my_turn(m) and len(m["moves"]) == 1)
            assert state["draw_offer"] == "fox"  # the offer stands past the offerer's own move
            assert action(base, geese, "decline-draw") == (200, {"ok": "draw declined"})
            told = receive(fox_ws, lambda m: m["type"] == "state" and m["draw_refused"])
            assert told["draw_offer"] is None and told["draw_refused"] == {"offer": "fox", "how": "declined"}
            geese_ws.send(json.dumps({"type": "move", "move": state["legal"][0]}))
            state = receive(fox_ws, lambda m: my_turn(m) and len(m["moves"]) == 2)
            assert state["draw_refused"] == {"offer": "fox", "how": "declined"}  # until the fox plays on
            assert action(base, fox, "offer-draw")[0] == 200
            assert receive(fox_ws, lambda m: m["type"] == "state" and m["draw_offer"])["draw_refused"] is None
            fox_ws.send(json.dumps({"type": "move", "move": state["legal"][0]}))
            state = receive(geese_ws, lambda m: my_turn(m) and len(m["moves"]) == 3)
            geese_ws.send(json.dumps({"type": "move", "move": state["legal"][0]}))  # moving on declines it
            lapsed = receive(fox_ws, lambda m: m["type"] == "state" and len(m["moves"]) == 4)
            assert lapsed["draw_offer"] is None and lapsed["draw_refused"] == {"offer": "fox", "how": "moved"}
            assert action(base, geese, "accept-draw") == (400, {"error": "there is no draw offer to accept"})
            assert action(base, fox, "resign")[0] == 200
            over = receive(geese_ws, lambda m: m["type"] == "state" and m["status"] == "over")
            assert over["draw_refused"] is None and over["result"] == "geese win by resignation after 4 plies: " \
                                                                      "the fox resigned"


def test_a_killed_server_keeps_its_finished_games_and_marks_the_running_one_interrupted(tmp_path: Path) -> None:
    """A real `foxgeese serve` is killed with SIGKILL in the middle of a game and started again on
    the same database: the finished game is all there, the running one says it was interrupted."""
    import os
    import signal
    import sqlite3
    import subprocess

    data = tmp_path / "serve.sqlite3"
    process = subprocess.Popen([sys.executable, "-m", "foxgeese", "serve", "--port", "0", "--data", str(data),
                                "--tables", str(tmp_path)], stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        base = re.search(r"http://127\.0\.0\.1:\d+", process.stderr.readline()).group(0)
        _, done = post(base + "/api/games", {"variant": "hare-and-hounds", "tc": "60+0",
                                             "players": {"hare": "random", "hounds": "human"}})
        with connect(socket_url(base, done["links"]["hounds"])) as ws:
            state = receive(ws, my_turn)
            ws.send(json.dumps({"type": "move", "move": state["legal"][0]}))
            receive(ws, lambda m: m["type"] == "state" and len(m["moves"]) == 2)
            assert action(base, done["links"]["hounds"], "resign")[0] == 200
            finished = receive(ws, lambda m: m["type"] == "state" and m["status"] == "over" and m["replay"])
        _, running = post(base + "/api/games", {"variant": "standard", "tc": "60+0",
                                                "players": {"fox": "human", "geese": "random"}})
        with connect(socket_url(base, running["links"]["fox"])) as ws:
            state = receive(ws, my_turn)
            ws.send(json.dumps({"type": "move", "move": "d4-d5"}))
            receive(ws, lambda m: m["type"] == "state" and len(m["moves"]) == 2 and m["legal"])
            with sqlite3.connect(data) as db:  # each move is in the database before the next turn
                assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
                row = db.execute("SELECT status, data FROM games WHERE id = ?", (running["id"],)).fetchone()
                assert row[0] == "playing" and len(json.loads(row[1])["moves"]) == 2
            with sqlite3.connect(data) as db:  # the finished game's record, uploaded as a file would be
                row = db.execute("SELECT data FROM games WHERE id = ?", (done["id"],)).fetchone()
                record = json.loads(row[0])["record"]
            status, uploaded = post(base + "/api/records", record)
            assert status == 200, uploaded
            os.killpg(process.pid, signal.SIGKILL)  # mid-game, no chance to tidy up
            process.wait()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with web_server("--data", str(data), "--tables", str(tmp_path)) as base:
        status, page = get(base + f"/game/{running['id']}")
        stored = json.loads(re.search(r'id=fg-stored>(.*?)</script>', page).group(1))
        assert status == 200 and stored["status"] == "interrupted" and len(stored["moves"]) == 2
        assert stored["result"].startswith("interrupted: the server stopped after 2 plies")
        status, page = get(base + f"/game/{done['id']}")
        stored = json.loads(re.search(r'id=fg-stored>(.*?)</script>', page).group(1))
        assert stored["status"] == "over" and stored["result"] == finished["result"]
        assert stored["moves"] == [{k: v for k, v in m.items()} for m in finished["moves"]]
        assert get(base + f"/replay/game/{done['id']}")[0] == 200
        with connect(socket_url(base, running["links"]["fox"])) as ws:  # an old tab comes back
            message = json.loads(ws.recv(timeout=10))
            assert message["fatal"] and message["stored"] and "interrupted" in message["message"]
        status, listed = get(base + "/api/past-games?result=interrupted")
        assert [game["id"] for game in json.loads(listed)["games"]] == [running["id"]]
        status, listed = get(base + "/api/past-games?variant=hare-and-hounds&result=hare&player=random")
        assert [game["id"] for game in json.loads(listed)["games"]] == [done["id"]]
        status, review = post(base + "/api/review", {"game": done["id"]})
        assert status == 200 and review["sides"]["hounds"]["judged"] == 1 and len(review["plies"]) == 2
        status, page = get(base + uploaded["url"])  # the uploaded record is still there, and its review
        assert status == 200 and "hare-and-hounds: random vs human" in page
        status, from_record = post(base + "/api/review", {"record": uploaded["url"].rsplit("/", 1)[1]})
        assert status == 200 and from_record["sides"] == review["sides"]
        _, stopped = post(base + "/api/games", {"variant": "hare-and-hounds", "tc": "60+0",
                                                "players": {"hare": "random", "hounds": "human"}})
        with connect(socket_url(base, stopped["links"]["hounds"])) as ws:
            receive(ws, my_turn)
    # that server was stopped by Ctrl-C (SIGINT) while the game waited for the hounds' first move
    with web_server("--data", str(data), "--tables", str(tmp_path)) as base:
        page = get(base + f"/game/{stopped['id']}")[1]
        stored = json.loads(re.search(r'id=fg-stored>(.*?)</script>', page).group(1))
        assert stored["status"] == "interrupted" and stored["result"].startswith("interrupted: the server stopped")


def test_a_rematch_of_a_finished_game_after_a_restart_from_its_seats_link_only(tmp_path: Path) -> None:
    data = tmp_path / "serve.sqlite3"
    with web_server("--data", str(data), "--tables", str(tmp_path)) as base:
        _, answer = post(base + "/api/games", {"variant": "hare-and-hounds", "tc": "60+0",
                                               "players": {"hare": "random", "hounds": "human"}})
        link = answer["links"]["hounds"]
        with connect(socket_url(base, link)) as ws:
            receive(ws, my_turn)
            assert action(base, link, "resign")[0] == 200
            receive(ws, lambda m: m["type"] == "state" and m["replay"])
    with web_server("--data", str(data), "--tables", str(tmp_path)) as base:  # a new server, the same store
        page = get(base + link)[1]
        stored = json.loads(re.search(r'id=fg-stored>(.*?)</script>', page).group(1))
        assert stored["you"] == "hounds" and stored["rematch"] == ""  # the seat's link is known again
        page = get(base + answer["watch"])[1]
        assert json.loads(re.search(r'id=fg-stored>(.*?)</script>', page).group(1))["you"] is None
        assert action(base, answer["watch"], "rematch")[1] == {"error": "only a player's link can do that; "
                                                                        "you are watching"}
        assert action(base, link, "resign")[1]["error"].endswith("a rematch is what is left")
        status, rematch = action(base, link, "rematch")
        assert status == 200 and set(rematch["links"]) == {"hounds"}
        assert action(base, link, "rematch") == (200, rematch)  # a second click: the same game
        with connect(socket_url(base, rematch["links"]["hounds"])) as ws:  # roles swapped: now the hare
            state = receive(ws, my_turn)
            assert state["you"] == "hare" and state["seats"]["hounds"]["name"] == "random"
        page = get(base + link)[1]
        assert json.loads(re.search(r'id=fg-stored>(.*?)</script>', page).group(1))["rematch"] == \
            rematch["links"]["hounds"]


def test_a_bot_named_like_markup_cannot_close_the_home_pages_data_block() -> None:
    with web_server("--allow-commands") as base:  # a cmd: seat needs it (docs/web.md, "Security")
        spec = "cmd:echo </script><script>alert(1)</script>"
        status, answer = post(base + "/api/games", {"variant": "standard", "tc": "60+0",
                                                    "players": {"fox": "human", "geese": spec}})
        assert status == 200, answer
        page = get(base + "/")[1]
        block = re.search(r"id=fg-config>(.*?)</script>", page).group(1)
        assert "<" not in block and json.loads(block)["games"][0]["seats"]["geese"] == spec


def test_the_analysis_board_answers_a_position_with_a_hound_taken_off(base: str) -> None:
    status, answer = post(base + "/api/analyse", {"position": "hare-and-hounds - hounds b5 b1,a2 0 0 0"})
    assert status == 200, answer  # a hound taken off on the way to another position: no server failure
    assert answer["problem"].startswith("a Hare and Hounds position has 3 hounds, this one has 2")
    assert answer["svg"].count('class="piece hound"') == 2 and answer["moves"] == []  # drawn as it is


def test_the_review_of_a_game_still_played_gives_its_variants_board_and_a_person_is_named_human(base: str) -> None:
    _, game = post(base + "/api/games", {"variant": "hare-and-hounds", "tc": "60+0",
                                         "players": {"hare": "random", "hounds": "human"}})
    with connect(socket_url(base, game["links"]["hounds"])) as ws:
        receive(ws, my_turn)
        status, listed = get(base + "/api/past-games")
        seats = [row["seats"] for row in json.loads(listed)["games"] if row["id"] == game["id"]]
        assert seats == [{"hare": "random", "hounds": "human"}]  # not "hounds player"
        status, review = post(base + "/api/review", {"game": game["id"]})
        assert status == 404 and review["error"].startswith("the review comes when the game is over")
        assert review["start"] == "hare-and-hounds - hounds b5 b1,a2,c2 0 0 0"  # the game's board, not standard's
