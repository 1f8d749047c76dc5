"""`foxgeese serve` attacked as a hostile site, a visitor and an uploader would: a real server
process, a second local HTTP server for the hostile page (another origin), real headless Chromium,
real WebSocket clients. What each attack gets is in docs/web.md, "Security"."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import re
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import browser_missing, csrf_token, post_json, wait_for, web_server
from tournament_support import foxgeese_here
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from foxgeese.engine import Game, get_variant
from foxgeese.web.app import create_app
from foxgeese.web.records import MAX_KEPT_RECORDS
from foxgeese.web.security import BOT_API_PREFIX, RateLimiter
from foxgeese.web.store import GameStore

needs_browser = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "browser present")
INJECTION = "cmd:echo </script><script>window.x=1</script>"


@contextlib.contextmanager
def hostile_site(page: str) -> Iterator[str]:
    """Another origin on this machine: a local HTTP server answering every GET with `page`."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def home_config(base: str) -> dict:
    """The home page's embedded JSON (the games on the server, among others)."""
    with urllib.request.urlopen(base + "/") as response:
        page = response.read().decode()
    return json.loads(re.search(r"<script type=application/json id=fg-config>(.*?)</script>", page).group(1))


def raw_get(base: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """A GET with exactly these headers (urllib would set Host itself)."""
    address = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def ws_url(base: str, path: str) -> str:
    return base.replace("http://", "ws://") + path


def a_record(plies: int = 6, **changes: object) -> dict:
    """A real game record (format 1) of `plies` legal moves from the standard start."""
    variant = get_variant("standard")
    game = Game(variant)
    for _ in range(plies):
        game.push(sorted(game.legal_moves(), key=str)[0])
    record = {"format": 1, "game_id": "up1", "variant": "standard", "options": dict(variant.options),
              "start": variant.start_position().text(), "bots": {"fox": {"name": "a"}, "geese": {"name": "b"}},
              "time_control": "60+0", "winner": "draw", "termination": "max-plies", "plies": plies,
              "moves": [{"move": str(move), "think_ms": 5} for move in game.moves]}
    return record | changes


@needs_browser
def test_a_page_of_another_site_cannot_start_a_game_or_run_a_command(tmp_path: Path, base: str,
                                                                    browser: object) -> None:
    """The issue's attack: a no-cors text/plain POST from a page of another origin, in Chromium."""
    marker = tmp_path / "pwned"
    games = home_config(base)["games"]
    body = json.dumps({"variant": "standard", "tc": "5+0",
                       "players": {"fox": f"cmd:touch {marker}", "geese": "random"}})
    page = ("<!doctype html><title>cats</title><script>"
            "window.sent = null; window.stolen = null;"
            f"fetch({json.dumps(base + '/api/games')}, {{method: 'POST', mode: 'no-cors', "
            f"headers: {{'Content-Type': 'text/plain'}}, body: {json.dumps(body)}}})"
            ".then(function () { window.sent = 'answered'; }, function (e) { window.sent = 'failed: ' + e; });"
            f"fetch({json.dumps(base + '/')}).then(function (r) {{ return r.text(); }})"
            ".then(function (t) { window.stolen = t; }, function () { window.stolen = 'blocked'; });"
            "</script>")
    with hostile_site(page) as hostile:
        assert urllib.parse.urlsplit(hostile).port != urllib.parse.urlsplit(base).port
        browser.get(hostile)
        wait_for(browser, "window.sent && window.stolen")
    assert browser.execute_script("return window.sent") == "answered"  # the request reached the server
    assert browser.execute_script("return window.stolen") == "blocked"  # its token stays unread
    assert home_config(base)["games"] == games
    status, answer = post_json(base, "/api/games", json.loads(body))  # the same game from its own page
    assert status == 400 and answer["error"].startswith("cmd: bots are off on this server")
    assert home_config(base)["games"] == games
    assert not marker.exists()


def test_host_and_origin_are_checked_and_same_origin_still_works(base: str) -> None:
    games = home_config(base)["games"]
    port = urllib.parse.urlsplit(base).port
    assert raw_get(base, "/", {"Host": "attacker.example"})[0] == 400  # DNS rebinding
    assert raw_get(base, "/", {"Host": f"attacker.example:{port}"})[0] == 400
    assert raw_get(base, "/", {"Host": f"localhost:{port}"})[0] == 200
    assert raw_get(base, "/", {"Host": f"127.0.0.1:{port}"})[0] == 200

    human = {"variant": "standard", "tc": "60+0", "players": {"fox": "human", "geese": "human"}}
    token = csrf_token(base)
    status, answer = post_json(base, "/api/games", human, headers={"Origin": "http://attacker.example"})
    assert status == 403 and "only from its own pages" in answer["error"]
    status, answer = post_json(base, "/api/games", human, token="wrong")
    assert status == 403 and "X-Foxgeese-Csrf" in answer["error"]
    status, answer = post_json(base, "/api/games", human, token=token, headers={"Content-Type": "text/plain"})
    assert status == 415 and answer == {"error": "send JSON with Content-Type: application/json"}
    assert home_config(base)["games"] == games
    status, answer = post_json(base, "/api/games", human, token=token, headers={"Origin": base})
    assert status == 200, answer

    watch = ws_url(base, f"/ws/game/{answer['id']}")
    with pytest.raises(InvalidStatus) as refused:
        connect(watch, origin="http://attacker.example", open_timeout=10)
    assert refused.value.response.status_code == 403
    with pytest.raises(InvalidStatus):
        connect(ws_url(base, "/ws/tournament"), origin=f"http://attacker.example:{port}", open_timeout=10)
    with connect(watch, origin=base, open_timeout=10) as same_site:  # the page's own socket
        assert json.loads(same_site.recv(timeout=10))["type"] == "state"


def test_every_post_route_is_guarded_and_an_action_refused_changes_nothing(tmp_path: Path, base: str) -> None:
    """Every POST route the app has (the in-game actions, the coach's, any added later) refuses a
    foreign Origin, a missing or wrong token and a non-JSON type; a refused resign leaves the game on."""
    app = create_app(data_path=tmp_path / "routes.sqlite3", tables=str(tmp_path))
    posts = sorted(route.path for route in app.routes if "POST" in (getattr(route, "methods", None) or ()))
    assert {"/api/games", "/api/records", "/api/game/{game_id}/action", "/api/analyse", "/api/review"} <= set(posts)
    app.state.server.store.close()
    token = csrf_token(base)
    status, game = post_json(base, "/api/games", {"variant": "hare-and-hounds", "tc": "60+0",
                                                  "players": {"hare": "random", "hounds": "human"}}, token=token)
    assert status == 200, game
    secret = game["links"]["hounds"].partition("?seat=")[2]
    with connect(ws_url(base, f"/ws/game/{game['id']}?seat={secret}"), origin=base, open_timeout=10) as ws:
        def state(until: object) -> dict:
            while True:
                message = json.loads(ws.recv(timeout=20))
                if message["type"] == "state" and until(message):
                    return message

        state(lambda m: m["status"] == "playing")
        resign = {"seat": secret, "action": "resign"}
        for path in posts:
            url = path.replace("{game_id}", game["id"])
            refusals = [post_json(base, url, resign, token=token, headers={"Origin": "http://attacker.example"}),
                        post_json(base, url, resign, token=""),
                        post_json(base, url, resign, token="wrong"),
                        post_json(base, url, resign, token=token, headers={"Content-Type": "text/plain"})]
            if path.startswith(BOT_API_PREFIX):  # a bot's bearer token, never a page's secret (tests/test_botapi.py)
                refused = {status for status, _ in refusals[1:]}
                assert refusals[0][0] == 403 and refused <= {401, 403, 429}, (path, refusals)
                continue
            assert [status for status, _ in refusals] == [403, 403, 403, 415], (path, refusals)
        ws.send(json.dumps({"type": "view", "flipped": False}))  # the state now, after every refusal
        assert state(lambda m: True)["status"] == "playing"
        status, answer = post_json(base, f"/api/game/{game['id']}/action", resign, token=token)
        assert status == 200 and answer == {"ok": "you resigned"}
        assert state(lambda m: m["status"] == "over")["result"].endswith("the hounds resigned")


@needs_browser
def test_a_stored_script_does_not_run_and_the_form_still_works(browser: object) -> None:
    from selenium.webdriver.support.ui import Select

    with web_server("--allow-commands") as base:
        status, answer = post_json(base, "/api/games", {"variant": "standard", "tc": "60+0",
                                                         "players": {"fox": INJECTION, "geese": "human"}})
        assert status == 200, answer
        driver = browser
        driver.get_log("browser")  # what earlier tests left there
        driver.get(base + "/")
        wait_for(driver, "document.querySelectorAll('#games li').length === 1")
        assert driver.execute_script("return window.x") is None
        assert INJECTION in driver.find_element("id", "games").text  # shown as text
        assert driver.execute_script("return document.querySelectorAll('#variant option').length") == 3
        # One missed escape is not enough: the policy stops an inline script the page did not ship.
        assert driver.get_log("browser") == []  # the page loaded with no script refused, no error
        assert driver.execute_script("var s = document.createElement('script'); s.textContent = 'window.y = 1';"
                                     "document.body.appendChild(s); return window.y") is None
        assert "Content Security Policy" in " ".join(entry["message"] for entry in driver.get_log("browser"))
        Select(driver.find_element("css selector", "select[data-side='geese']")).select_by_value("random")
        driver.find_element("id", "start").click()
        wait_for(driver, "window.fgState && window.fgState.status === 'playing'")
        assert driver.execute_script("return window.fgState.you") == "fox"
        assert driver.get_log("browser") == []  # the game page too
        with urllib.request.urlopen(base + "/") as response:
            policy = response.headers["Content-Security-Policy"]
            assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert "script-src 'self'" in policy and "unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
        assert "frame-ancestors 'none'" in policy


def test_every_bad_upload_gets_one_clean_message(base: str) -> None:
    deep = b'{"format": 1, "moves": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    without_start = {key: value for key, value in a_record().items() if key != "start"}
    cases = {
        "think_ms null": (a_record(moves=[{"move": "d4-d5", "think_ms": None}]),
                          "not a game record: moves[0].think_ms: expected int, not None"),
        "bots a list": (a_record(bots=[]), "not a game record: record.bots: expected dict, not []"),
        "nested 100,000 deep": (deep, "not a game record: JSON nested too deep"),
        "no start": (without_start, "not a game record: record: missing key 'start'"),
        "not JSON": (b"hello", "not a game record: not valid JSON: Expecting value: line 1 column 1 (char 0)"),
        "an illegal move": (a_record(moves=[{"move": "a1-a2"}]), "the record does not replay: ply 1: "),
    }
    for name, (body, message) in cases.items():
        status, answer = post_json(base, "/api/records", body)
        assert status == 400, (name, status, answer)
        assert answer["error"].startswith(message), (name, answer)
        assert answer["error"].count("not a game record") <= 1
    status, answer = post_json(base, "/api/records", a_record())
    assert status == 200 and answer["url"].startswith("/replay/record/")
    with urllib.request.urlopen(base + answer["url"]) as response:
        assert "'nonce-" in response.headers["Content-Security-Policy"]
        assert 'id="fg-data"' in response.read().decode()


@needs_browser
def test_the_page_shows_the_servers_message_for_a_bad_file(tmp_path: Path, base: str, browser: object) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(a_record(moves=[{"move": "d4-d5", "think_ms": None}])))
    browser.get(base + "/")
    browser.find_element("id", "record-file").send_keys(str(bad))
    text = wait_for(browser, "!document.getElementById('record-problem').hidden && "
                             "document.getElementById('record-problem').textContent")
    assert text == "not a game record: moves[0].think_ms: expected int, not None"


def test_kept_records_are_bounded_by_count_on_the_server(base: str) -> None:
    token, urls = csrf_token(base), []
    for _ in range(MAX_KEPT_RECORDS + 1):
        status, answer = post_json(base, "/api/records", a_record(), token=token)
        assert status == 200, answer
        urls.append(answer["url"])
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(base + urls[0])
    assert gone.value.code == 404
    with urllib.request.urlopen(base + urls[-1]) as response:
        assert response.status == 200


def test_kept_records_drop_the_oldest_by_count_and_by_bytes(tmp_path: Path) -> None:
    record = a_record()
    size = len(json.dumps(record, separators=(",", ":")))
    by_count = GameStore(tmp_path / "count.sqlite3", max_records=3)
    for index in range(5):
        by_count.save_record(f"r{index}", record)
    assert by_count.count("records") == 3 and by_count.record("r1") is None and by_count.record("r4") == record
    by_count.close()
    by_bytes = GameStore(tmp_path / "bytes.sqlite3", max_records=100, max_record_bytes=2 * size + size // 2)
    for index in range(5):
        by_bytes.save_record(f"r{index}", record)
    assert by_bytes.count("records") == 2 and by_bytes.table_bytes["records"] == 2 * size
    assert by_bytes.record("r2") is None and by_bytes.record("r4") == record
    by_bytes.close()


def test_new_games_are_rate_limited_per_client() -> None:
    human = {"variant": "hare-and-hounds", "tc": "60+0", "players": {"hare": "human", "hounds": "human"}}
    with web_server() as base:
        token = csrf_token(base)
        statuses = []
        for _ in range(12):
            status, answer = post_json(base, "/api/games", human, token=token)
            statuses.append(status)
        assert statuses[:10] == [200] * 10 and statuses[10:] == [429, 429]
        assert answer["error"].startswith("too many new games from your address: wait ")


def test_the_token_bucket_refills_with_time_and_forgets_old_clients() -> None:
    now = [0.0]
    limiter = RateLimiter(rate_per_s=0.5, burst=2, max_clients=2, clock=lambda: now[0])
    assert [limiter.wait_s("a") for _ in range(3)] == [0.0, 0.0, 2.0]
    assert limiter.wait_s("b") == 0.0  # another client has its own bucket
    now[0] = 2.0
    assert limiter.wait_s("a") == 0.0 and limiter.wait_s("a") > 0
    limiter.wait_s("c")  # a third client: the least recently seen one ("b") is forgotten
    assert set(limiter._buckets) == {"a", "c"}


@pytest.mark.timeout(30)  # a regression would serve (in this process) instead of refusing
def test_serve_options_that_would_open_the_server_are_refused_in_one_line() -> None:
    anywhere = foxgeese_here("serve", "--host", "0.0.0.0", "--public", "--port", "0")
    assert anywhere.returncode == 2
    assert anywhere.stderr.startswith("foxgeese: --host 0.0.0.0 answers on every address")
    assert len(anywhere.stderr.splitlines()) == 1


def test_a_public_server_runs_cmd_bots_in_the_sandbox(tmp_path: Path) -> None:
    """With --public, --allow-commands runs a page's cmd: bot in bubblewrap: it cannot write the
    user's files (the same command on a loopback-only server with the option does)."""
    for args, written in ((("--public", "--allow-commands"), False), (("--allow-commands",), True)):
        marker = tmp_path / f"written-{written}"
        with web_server(*args) as base:
            status, answer = post_json(base, "/api/games", {"variant": "standard", "tc": "5+0", "players": {
                "fox": f"cmd:touch {marker}", "geese": "random"}})
            assert status == 200, answer
            with connect(ws_url(base, answer["watch"].replace("/game/", "/ws/game/")), open_timeout=10) as watch:
                state: dict = {}
                while state.get("status") != "over":
                    state = json.loads(watch.recv(timeout=60))
        assert state["result"].startswith("geese win by"), state["result"]  # touch is no bot
        assert marker.exists() is written
