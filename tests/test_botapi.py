"""The Bot API end to end: a real `foxgeese serve` process, remote bots in other processes (the
SDK's client, `foxgeese bot remote`) and a bot written here at the level of HTTP, as a bot author
in another language would; full games against built-in bots, and remote bots that time out, move
illegally and vanish mid-game, each losing with its reason while the server goes on."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import post_json
from tournament_support import foxgeese_here
from websockets.sync.client import connect

from foxgeese.web.botapi import ADDRESS_RATE, TOKEN_RATE, WRONG_TOKEN_RATE
from foxgeese.web.botapi_store import BotRegistry, token_hash

ROOT = Path(__file__).resolve().parents[1]
FAULTS = ROOT / "tests" / "bots" / "remote_faults.py"
RULE_ENDINGS = {"captured", "trapped", "immobilized", "escaped", "stalling", "repetition", "fifty-moves"}


class Served:
    """A `foxgeese serve` of this module: its address, database, stderr file and bots' tokens."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.data = folder, folder / "serve.sqlite3"
        self.log = folder / "serve.log"
        self.tokens: dict[str, str] = {}
        self.url = ""
        self.process: subprocess.Popen[bytes] | None = None

    def token_file(self, name: str) -> Path:
        """Registers bot `name` (straight in the server's database, as `foxgeese botapi register` does)."""
        path = self.folder / f"{name}.token"
        if name not in self.tokens:
            registry = BotRegistry(self.data)
            self.tokens[name] = registry.register(name)
            registry.close()
            path.write_text(self.tokens[name] + "\n")
        return path

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def game(self, game_id: str, until: str = "over", timeout_s: float = 30.0) -> dict:
        """The server's stored game once its status is `until` (polled in its database)."""
        deadline = time.monotonic() + timeout_s
        while True:
            with sqlite3.connect(self.data) as db:
                row = db.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()
            data = json.loads(row[0]) if row else {}
            if data.get("status") == until:
                return data
            assert time.monotonic() < deadline, f"game {game_id} is {data.get('status')!r}, not {until!r}"
            time.sleep(0.05)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("botapi"))
    with open(server.log, "wb") as log:
        server.process = subprocess.Popen(
            [sys.executable, "-m", "foxgeese", "serve", "--port", "0", "--data", str(server.data),
             "--tables", str(server.folder)], stderr=log, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (found := re.search(r"http://127\.0\.0\.1:\d+", server.log.read_text())):
            assert server.process.poll() is None and time.monotonic() < deadline, server.log.read_text()
            time.sleep(0.05)
        server.url = found.group(0)
        yield server
    finally:
        server.process.send_signal(signal.SIGINT)
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait()


def remote(served: Served, name: str, player: str, *args: str, fault: str = "") -> subprocess.Popen[str]:
    """`foxgeese bot remote` for bot `name` in a process of its own."""
    env = {**os.environ, "FOXGEESE_REMOTE_FAULT": fault}
    return subprocess.Popen([sys.executable, "-m", "foxgeese", "bot", "remote", "--server", served.url,
                             "--token-file", str(served.token_file(name)), "--games", "1", *args, player],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def watched_game(output: str) -> str:
    found = re.search(r"watch it at /game/(\S+)", output)
    assert found, output
    return found.group(1)


def request(served: Served, method: str, path: str, token: str | None = None, body: bytes | None = None,
            headers: dict[str, str] | None = None, source: str = "127.0.0.1") -> tuple[int, dict, dict]:
    """One request (from loopback address `source`): status, JSON answer, headers."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10, source_address=(source, 0))
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    connection.request(method, path, body, sent)
    response = connection.getresponse()
    text = response.read()
    connection.close()
    try:
        answer = json.loads(text) if text.strip() else {}
    except ValueError:
        answer = {"text": text.decode(errors="replace")}
    return response.status, answer, {key.lower(): value for key, value in response.getheaders()}


class Stream:
    """An ndjson stream read line by line (keep-alive lines skipped)."""

    def __init__(self, served: Served, path: str, token: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=20)
        self.connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.read()
        assert self.response.getheader("content-type", "").startswith("application/x-ndjson")

    def next(self) -> dict:
        while True:
            raw = self.response.readline()
            assert raw, "the stream ended"
            if raw.strip():
                return json.loads(raw)

    def close(self) -> None:
        self.connection.close()


def test_a_client_process_plays_a_full_game_against_a_built_in_bot(served: Served) -> None:
    bot = remote(served, "alpha", "random", "--play", "minimax-py:depth=2", "--side", "geese", "--tc", "60+1")
    out, err = bot.communicate(timeout=60)
    assert bot.returncode == 0, out + err
    game = served.game(watched_game(out))
    record = game["record"]
    assert game["seats"]["geese"]["name"] == "remote:alpha" and game["seats"]["fox"]["name"] == "minimax-py:depth=2"
    assert record["termination"] in RULE_ENDINGS and record["plies"] == len(record["moves"]) > 10, game["result"]
    assert f"{record['winner']} won by {record['termination']}" in out
    geese_moves = [move for move in record["moves"] if move["side"] == "geese"]
    assert all(move["clock_ms"] > 0 for move in geese_moves)  # the referee's clock ran for the remote bot


def test_a_bot_written_at_the_http_level_sees_every_event_and_field(served: Served) -> None:
    """What docs/botapi.md promises a bot author with curl-level tools: the events and their fields."""
    served.token_file("beta")
    token = served.tokens["beta"]
    events = Stream(served, "/api/bot/stream/event", token)
    status, answer, _ = request(served, "POST", "/api/bot/challenge/ai", token, json.dumps(
        {"opponent": "random:seed=3", "side": "hare", "variant": "hare-and-hounds", "tc": "30+0"}).encode())
    assert status == 200 and answer["watch"] == f"/game/{answer['id']}"
    web_game = answer["id"]
    start = events.next()
    assert start["type"] == "gameStart" and start["game"]["variant"] == "hare-and-hounds"
    assert start["game"]["side"] == "hare"
    game_id = start["game"]["id"]
    stream = Stream(served, f"/api/bot/game/stream/{game_id}", token)
    full = stream.next()
    assert full["type"] == "gameFull" and full["id"] == game_id and full["side"] == "hare"
    assert full["sides"] == ["hare", "hounds"] and full["options"] == {}
    assert full["timeControl"] == {"baseMs": 30000, "incrementMs": 0, "perMoveMs": 0}
    assert full["start"].startswith("hare-and-hounds - hounds") and isinstance(full["seed"], int)
    state, moves_seen = full["state"], 0
    while True:
        if state.get("yourTurn"):
            assert set(state) >= {"moves", "position", "turn", "clocks", "legal"} and state["turn"] == "hare"
            assert state["clocks"]["hare"] <= 30000
            move = urllib.parse.quote(state["legal"][0])
            status, answer, _ = request(served, "POST", f"/api/bot/game/{game_id}/move/{move}", token)
            assert status == 200 and answer == {"ok": True}
        state = stream.next()
        if state["type"] == "gameFinish":
            break
        assert state["type"] == "gameState" and len(state["moves"]) >= moves_seen
        moves_seen = len(state["moves"])
    assert set(state) == {"type", "id", "winner", "termination", "reason", "lastMove", "position"}
    assert state["termination"] in RULE_ENDINGS
    status, answer, _ = request(served, "POST", f"/api/bot/game/{game_id}/move/a1-a2", token)
    assert status == 409 and answer["error"].startswith(f"game {game_id} is over")
    finish = events.next()
    assert finish["type"] == "gameFinish" and finish["game"]["id"] == game_id
    assert finish["game"]["reason"] == state["reason"]
    assert served.game(web_game)["record"]["termination"] == state["termination"]
    stream.close()
    events.close()


def test_faulty_remote_bots_each_lose_with_their_reason_and_the_server_goes_on(served: Served) -> None:
    # the slow one's clock is short; the others' long enough that only their fault can end the game
    controls = {"slow": "move=0.3", "illegal": "60+0", "vanish": "60+0"}
    bots = {fault: remote(served, f"faulty-{fault}", str(FAULTS), "--play", "random", "--side", "geese",
                          "--tc", tc, fault=fault) for fault, tc in controls.items()}
    outputs = {fault: bot.communicate(timeout=60) for fault, bot in bots.items()}
    games = {fault: served.game(watched_game(out)) for fault, (out, _) in outputs.items()}
    assert {fault: game["record"]["termination"] for fault, game in games.items()} == {
        "slow": "time-forfeit", "illegal": "illegal-move", "vanish": "crash"}
    for fault, game in games.items():
        assert game["record"]["winner"] == "fox", (fault, game["result"])
    assert "a1-a1" in games["illegal"]["record"]["reason"]
    assert "is not a legal move here" in outputs["illegal"][1]  # the client was told at once
    # the bridge quit (status 3): the referee saw its connection close, or its process end, first
    reason = games["vanish"]["record"]["reason"]
    assert bots["vanish"].returncode == 7 and reason.startswith("geese (remote:faulty-vanish) ")
    assert "exited with status 3" in reason or "disconnected: its connection closed" in reason
    bridge_log = Path(games["vanish"]["record"]["bots"]["geese"]["stderr"]).read_text()
    assert "remote bot faulty-vanish disconnected: its game stream closed mid-game" in bridge_log
    for fault in ("slow", "illegal"):  # these clients saw their game's end and its reason
        assert f"fox won by {games[fault]['record']['termination']}" in outputs[fault][0]
    again = remote(served, "alpha", "random", "--play", "random", "--side", "fox", "--tc", "60+1")
    out, err = again.communicate(timeout=60)
    assert again.returncode == 0, out + err
    assert served.game(watched_game(out))["record"]["termination"] in RULE_ENDINGS


# -- security ------------------------------------------------------------------------------------
# Each test sends from a loopback address of its own (127.0.0.N): the per-address limits of one do
# not reach another.


def keep_alive(served: Served, source: str) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", served.port, timeout=10, source_address=(source, 0))


def test_tokens_are_kept_hashed_and_wrong_missing_or_revoked_ones_are_refused_unechoed(served: Served) -> None:
    served.token_file("gamma")
    token = served.tokens["gamma"]
    with sqlite3.connect(served.data) as db:
        rows = db.execute("SELECT name, token_hash FROM remote_bots").fetchall()
    assert ("gamma", token_hash(token)) in rows and not any(token in str(row) for row in rows)
    assert request(served, "GET", "/api/bot/account", token, source="127.0.0.5")[:2] == (
        200, {"name": "gamma", "online": False})
    status, answer, headers = request(served, "GET", "/api/bot/account", source="127.0.0.5")
    assert status == 401 and "Authorization: Bearer TOKEN" in answer["error"]
    assert headers["www-authenticate"] == "Bearer"
    wrong = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    for path, method in (("/api/bot/account", "GET"), ("/api/bot/stream/event", "GET"),
                         ("/api/bot/game/x/move/d4-d5", "POST"), ("/api/bot/challenge/ai", "POST")):
        status, answer, _ = request(served, method, path, wrong, source="127.0.0.5")
        assert status == 401 and "not valid on this server" in answer["error"] and wrong not in json.dumps(answer)
    registry = BotRegistry(served.data)
    assert registry.revoke("gamma")
    registry.close()
    status, answer, _ = request(served, "GET", "/api/bot/account", token, source="127.0.0.5")
    assert status == 401 and token not in json.dumps(answer)
    status, answer, _ = request(served, "POST", "/api/bot/bridge/games", "not-a-seat-key", b"{}",
                                source="127.0.0.5")
    assert status == 403  # a bridge's route wants a seat key the hub made
    status, answer, _ = request(served, "POST", "/api/bot/bridge/games/x/turn", "nor-a-secret", b"{}",
                                source="127.0.0.5")
    assert status == 403


def test_no_page_of_another_origin_or_host_drives_the_bot_api(served: Served) -> None:
    served.token_file("delta")
    token = served.tokens["delta"]
    foreign = {"Origin": "http://evil.example"}
    for method, path in (("POST", "/api/bot/game/x/resign"), ("GET", "/api/bot/stream/event"),
                         ("POST", "/api/bot/challenge/ai")):
        status, answer, headers = request(served, method, path, token, headers=foreign, source="127.0.0.6")
        assert status == 403 and "another site" in answer["error"], (method, path)
        assert "access-control-allow-origin" not in headers
    preflight = {**foreign, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
    status, _, headers = request(served, "OPTIONS", "/api/bot/challenge/ai", headers=preflight, source="127.0.0.6")
    assert status >= 400 and not any(name.startswith("access-control-") for name in headers)  # never granted
    status, _, _ = request(served, "GET", "/api/bot/account", token, headers={"Host": "evil.example"},
                           source="127.0.0.6")
    assert status == 400  # a rebound name is refused as on every path
    same = {"Origin": served.url}
    assert request(served, "GET", "/api/bot/account", token, headers=same, source="127.0.0.6")[0] == 200
    status, answer, _ = request(served, "POST", "/api/bot/game/x/resign", headers=same, source="127.0.0.6")
    assert status == 401  # a page's own CSRF secret is no credential here: only a bot's token


def test_bodies_are_bounded(served: Served) -> None:
    served.token_file("epsilon")
    token = served.tokens["epsilon"]
    status, answer, _ = request(served, "POST", "/api/bot/game/x/resign", token, b"x" * 2048, source="127.0.0.7")
    assert status == 413 and "at most 1024 bytes" in answer["error"]
    status, answer, _ = request(served, "POST", "/api/bot/challenge/ai", token, b"{" * 5000, source="127.0.0.7")
    assert status == 413
    status, answer, _ = request(served, "POST", "/api/bot/challenge/ai", token, b"[1, 2]", source="127.0.0.7")
    assert status == 400 and "JSON object" in answer["error"]
    status, answer, _ = request(served, "POST", "/api/bot/challenge/ai", token,
                                json.dumps({"opponent": "remote:epsilon", "side": "fox"}).encode(), source="127.0.0.7")
    assert status == 400 and "built-in player" in answer["error"]


def flood(served: Served, source: str, tokens: list[str], count: int) -> tuple[list[int], float]:
    """`count` requests on one connection from `source`, the tokens in turn: their statuses and the seconds taken."""
    connection = keep_alive(served, source)
    statuses, started = [], time.monotonic()
    for index in range(count):
        token = tokens[index % len(tokens)]
        connection.request("GET", "/api/bot/account", headers={"Authorization": f"Bearer {token}"})
        response = connection.getresponse()
        answer = json.loads(response.read())
        assert response.status != 429 or answer["error"].startswith("too many requests") and response.getheader(
            "retry-after", "").isdigit()
        statuses.append(response.status)
    connection.close()
    return statuses, time.monotonic() - started


def test_floods_are_cut_per_token_and_per_address(served: Served) -> None:
    """Each flood is let in up to its bucket (burst + rate x time taken) and refused past it."""
    (token_rate, token_burst), (address_rate, address_burst) = TOKEN_RATE, ADDRESS_RATE
    served.token_file("zeta")
    statuses, taken_s = flood(served, "127.0.0.8", [served.tokens["zeta"]], 400)
    assert statuses[:token_burst] == [200] * token_burst and 429 in statuses
    assert statuses.count(200) <= token_burst + token_rate * taken_s + 1
    names = [f"flood{index}" for index in range(20)]
    for name in names:
        served.token_file(name)
    statuses, taken_s = flood(served, "127.0.0.9", [served.tokens[name] for name in names], 1200)
    assert statuses[:address_burst] == [200] * address_burst and 429 in statuses  # no bot passed its own burst
    assert statuses.count(200) <= address_burst + address_rate * taken_s + 1
    statuses, _ = flood(served, "127.0.0.10", [f"wrong{index}" for index in range(30)], 30)
    assert statuses[:WRONG_TOKEN_RATE[1]] == [401] * WRONG_TOKEN_RATE[1] and 429 in statuses
    assert request(served, "GET", "/api/bot/account", served.tokens["flood1"], source="127.0.0.11")[0] == 200


def test_the_cli_registers_lists_and_revokes_and_says_each_mistake_in_one_line(tmp_path: Path) -> None:
    data, token_file = str(tmp_path / "db.sqlite3"), tmp_path / "omega.token"
    done = foxgeese_here("botapi", "register", "omega", "--data", data, "--token-file", str(token_file))
    assert done.returncode == 0 and "omega" in done.stderr and len(token_file.read_text().strip()) == 43
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    assert token_file.read_text().strip() not in done.stdout + done.stderr
    printed = foxgeese_here("botapi", "register", "omega2", "--data", data)
    assert printed.returncode == 0 and len(printed.stdout.strip()) == 43
    assert foxgeese_here("botapi", "list", "--data", data).stdout.split() == ["omega", "omega2"]
    for args, words in ((("register", "omega"), "registered already"),
                        (("register", "9lives"), "starting with a letter"),
                        (("revoke", "nobody"), "no remote bot named 'nobody'"),
                        (("register", "psi", "--token-file", str(token_file)), "exists already")):
        done = foxgeese_here("botapi", *args, "--data", data)
        assert done.returncode != 0 and done.stderr.startswith("foxgeese: ") and words in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert foxgeese_here("botapi", "revoke", "omega", "--data", data).returncode == 0
    assert foxgeese_here("botapi", "list", "--data", data).stdout.split() == ["omega2"]


def test_a_refused_client_says_why_in_one_line(served: Served, tmp_path: Path) -> None:
    (tmp_path / "bad.token").write_text("not-a-token\n")
    done = foxgeese_here("bot", "remote", "--server", served.url, "--token-file", str(tmp_path / "bad.token"), "random")
    assert done.returncode != 0 and done.stderr.startswith("foxgeese: the server answered GET /api/bot/stream/event "
                                                           "with 401: this token is not valid")
    assert "not-a-token" not in done.stderr
    done = foxgeese_here("bot", "remote", "--server", served.url, "--token-file", str(tmp_path / "none"), "random")
    assert done.returncode != 0 and done.stderr.startswith("foxgeese: --token-file") and "Traceback" not in done.stderr


def test_the_web_form_seats_a_connected_remote_bot_which_may_resign(served: Served) -> None:
    status, answer = post_json(served.url, "/api/games", {"players": {"fox": "random", "geese": "remote:nobody"}})
    assert status == 400 and "not connected to this server now" in answer["error"]
    served.token_file("eta")
    token = served.tokens["eta"]
    events = Stream(served, "/api/bot/stream/event", token)
    status, answer = post_json(served.url, "/api/games", {"variant": "standard", "tc": "60+0",
                                                          "players": {"fox": "random", "geese": "remote:eta"}})
    assert status == 200, answer
    start = events.next()
    assert start["type"] == "gameStart" and start["game"]["side"] == "geese"
    assert request(served, "POST", f"/api/bot/game/{start['game']['id']}/resign", token)[:2] == (200, {"ok": True})
    finish = events.next()
    assert finish["type"] == "gameFinish" and finish["game"]["termination"] == "resignation"
    stored = served.game(answer["id"])
    assert stored["record"]["termination"] == "resignation" and stored["seats"]["geese"]["name"] == "remote:eta"
    events.close()


def test_a_person_in_the_web_app_plays_a_remote_bot(served: Served) -> None:
    """A person's seat (its link, over the page's WebSocket) against a remote bot: moves both ways,
    then the person resigns."""
    served.token_file("theta")
    token = served.tokens["theta"]
    events = Stream(served, "/api/bot/stream/event", token)
    status, game = post_json(served.url, "/api/games", {"variant": "hare-and-hounds", "tc": "60+0",
                                                        "players": {"hare": "remote:theta", "hounds": "human"}})
    assert status == 200, game
    secret = game["links"]["hounds"].partition("?seat=")[2]
    socket_url = served.url.replace("http://", "ws://") + f"/ws/game/{game['id']}?seat={secret}"
    with connect(socket_url, origin=served.url, open_timeout=10) as page:
        start = events.next()  # the game starts once the person opened their seat
        stream = Stream(served, f"/api/bot/game/stream/{start['game']['id']}", token)
        state = stream.next()["state"]
        for _ in range(3):
            while True:  # the person's turn (the hounds move first)
                view = json.loads(page.recv(timeout=20))
                if view.get("type") == "state" and view["legal"]:
                    break
            page.send(json.dumps({"type": "move", "move": view["legal"][0]}))
            while not state.get("yourTurn"):  # the bot's turn, with the person's move in it
                state = stream.next()
            assert state["moves"][-1] == view["legal"][0]
            move = urllib.parse.quote(state["legal"][0])
            assert request(served, "POST", f"/api/bot/game/{start['game']['id']}/move/{move}", token)[0] == 200
            state = stream.next()
        status, answer = post_json(served.url, f"/api/game/{game['id']}/action", {"seat": secret, "action": "resign"})
        assert status == 200, answer
    finish = stream.next()
    while finish["type"] != "gameFinish":
        finish = stream.next()
    assert finish["winner"] == "hare" and finish["termination"] == "resignation"
    assert served.game(game["id"])["record"]["termination"] == "resignation"
    stream.close()
    events.close()


def doc_block(after: str) -> str:
    """The first fenced block of docs/botapi.md after the line holding `after`."""
    text = (ROOT / "docs" / "botapi.md").read_text()
    found = re.search(r"^```\w*\n(.*?)^```", text[text.index(after):], re.S | re.M)
    assert found, after
    return found.group(1)


def test_the_docs_curl_session_runs_as_written(served: Served, tmp_path: Path) -> None:
    """docs/botapi.md's session (test_docs skips it: it needs a server) against this module's server."""
    (tmp_path / "my_remote_bot.py").write_text(doc_block("<!-- doc-test: file my_remote_bot.py -->"))
    (tmp_path / "session.sh").write_text(doc_block("## A whole session with curl"))
    env = {**os.environ, "SERVER": served.url, "DATA": str(served.data),
           "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
    with open(tmp_path / "out.txt", "w") as out, open(tmp_path / "err.txt", "w") as err:
        code = subprocess.run(["bash", "session.sh"], cwd=tmp_path, env=env, stdout=out, stderr=err, timeout=100,
                              start_new_session=True).returncode
    done = subprocess.CompletedProcess([], code, (tmp_path / "out.txt").read_text(), (tmp_path / "err.txt").read_text())
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == '{"name":"mybot","online":false}' and lines[2].startswith('{"type":"gameFull"')
    assert any(line.startswith('{"type":"gameFinish","game":{') for line in lines)
    assert re.search(r"^game \S+: \w+ won by \S+ ", done.stdout, re.M), done.stdout


def test_no_token_is_ever_in_the_servers_log(served: Served) -> None:
    log = served.log.read_text()
    assert served.tokens and not any(token in log for token in served.tokens.values())
