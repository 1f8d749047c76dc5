"""A remote bot for a server's Bot API (docs/botapi.md), in the standard library: http.client only.

The author writes what an SDK bot is (protocol/sdk.py): a function `choose(position, clock) ->
move` or any `Player` (`choose(game, clock)`, `new_game(variant, side, seed=None)`), and runs

    RemoteBot("http://127.0.0.1:8000", token, choose).run()

The bot opens its event stream, accepts the challenges `accept` approves, and plays each game it
is given in a thread of its own: the game's stream in, a move posted for every state that is its
turn. `foxgeese bot remote --server URL --token-file FILE SPEC_OR_SCRIPT` runs a built-in player or
a script's `choose` this way.
"""

from __future__ import annotations

import http.client
import inspect
import json
import runpy
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from foxgeese.engine import Clock, Game, Move, Position, get_variant
from foxgeese.players.registry import make_player, warm

TIMEOUT_S = 60.0  # a stream beats every few seconds; this much silence is a dead server


MAX_RATE_RETRIES = 5  # a request answered 429 is sent again this often, after the wait the server asks
MAX_RATE_WAIT_S = 2.0

class RemoteBotError(Exception):
    """The server refused the bot (its token, its request) or could not be reached: one line says why."""


@dataclass
class Finished:
    """A game's end as the server streamed it."""

    id: str
    winner: str
    termination: str
    reason: str


class Server:
    """The Bot API of one server: a fresh connection per request (streams hold theirs)."""

    def __init__(self, url: str, token: str, timeout_s: float = TIMEOUT_S) -> None:
        parts = urllib.parse.urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteBotError(f"--server {url[:80]!r}: give the server's address, e.g. http://127.0.0.1:8000")
        self.scheme, self.host, self.port = parts.scheme, parts.hostname, parts.port
        self.token, self.timeout_s = token.strip(), timeout_s

    def _connection(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return kind(self.host, self.port, timeout=self.timeout_s)

    def _open(self, method: str, path: str, body: bytes | None = None) -> tuple[http.client.HTTPConnection,
                                                                                http.client.HTTPResponse]:
        connection = self._connection()
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/x-ndjson"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        for _ in range(MAX_RATE_RETRIES):
            try:
                connection.request(method, path, body, headers)
                response = connection.getresponse()
            except (OSError, http.client.HTTPException) as error:
                connection.close()
                raise RemoteBotError(f"cannot reach {self.host}:{self.port} ({error})") from None
            if response.status != 429:
                break
            # Too many requests: the server says how long to wait (Retry-After); a move waits that
            # long on the bot's clock, so it is asked again, not dropped.
            response.read()
            time.sleep(min(float(response.getheader("retry-after") or 1), MAX_RATE_WAIT_S))
        if response.status != 200:
            text = response.read()
            connection.close()
            try:
                why = str(json.loads(text).get("error", ""))
            except (ValueError, AttributeError):
                why = text[:200].decode("utf-8", "replace")
            raise RemoteBotError(f"the server answered {method} {path} with {response.status}: {why}")
        return connection, response

    def post(self, path: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        connection, response = self._open("POST", path, json.dumps(data).encode() if data is not None else None)
        try:
            answer = json.loads(response.read() or b"{}")
        finally:
            connection.close()
        return answer if isinstance(answer, dict) else {}

    def stream(self, path: str) -> Iterator[dict[str, Any]]:
        """The events of an ndjson stream, keep-alive lines skipped, until the server ends it (the
        request is made now: a refusal raises here)."""
        connection, response = self._open("GET", path)
        return self._events(path, connection, response)

    @staticmethod
    def _events(path: str, connection: http.client.HTTPConnection,
                response: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
        try:
            while True:
                try:
                    raw = response.readline()
                except (OSError, http.client.HTTPException) as error:
                    raise RemoteBotError(f"the stream {path} broke ({error})") from None
                if not raw:
                    return
                if raw.strip():
                    event = json.loads(raw)
                    if isinstance(event, dict):
                        yield event
        finally:
            connection.close()


class RemoteBot:
    """One bot on one server: `run()` plays until `games` games have finished (None: forever)."""

    def __init__(self, server: str, token: str, player: Any, *, games: int | None = None,
                 accept: Callable[[dict[str, Any]], bool] | None = None, play: dict[str, Any] | None = None,
                 out: Callable[[str], None] | None = None) -> None:
        self.server = Server(server, token)
        self.player = player  # one player for every game: games in parallel share it
        self.games = games
        self.accept = accept or (lambda challenge: True)
        self.play = play  # a game against a built-in player to ask for once connected (challenge/ai)
        self.out = out or (lambda text: print(text, flush=True))
        self.finished: list[Finished] = []
        self.threads: list[threading.Thread] = []
        self.problems: list[str] = []

    def run(self) -> list[Finished]:
        """Plays; returns the games that finished, in order. RemoteBotError if the server refuses the token."""
        events = self.server.stream("/api/bot/stream/event")  # online from here
        if self.play is not None:
            answer = self.server.post("/api/bot/challenge/ai", self.play)
            self.out(f"asked for a game against {self.play.get('opponent')}: watch it at {answer.get('watch', '')}")
        for event in events:
            kind = event.get("type")
            if kind == "challenge":
                challenge = event.get("challenge", {})
                verdict = "accept" if self.accept(challenge) else "decline"
                self.server.post(f"/api/bot/challenge/{challenge.get('id')}/{verdict}")
            elif kind == "gameStart":
                thread = threading.Thread(target=self._play_game, args=(str(event["game"]["id"]),), daemon=True)
                thread.start()
                self.threads.append(thread)
            elif kind == "gameFinish":
                game = event.get("game", {})
                done = Finished(str(game.get("id")), str(game.get("winner")), str(game.get("termination")),
                                str(game.get("reason")))
                self.finished.append(done)
                self.out(f"game {done.id}: {done.winner} won by {done.termination} ({done.reason})")
                if self.games is not None and len(self.finished) >= self.games:
                    break
        for thread in self.threads:
            thread.join(timeout=5)
        if self.problems:
            raise RemoteBotError(self.problems[0])
        return self.finished

    def _play_game(self, game_id: str) -> None:
        try:
            GamePlay(self.server, game_id, self.player).run()
        except RemoteBotError as error:
            self.problems.append(str(error))


class GamePlay:
    """One game: its stream read, a move posted for each state that is the bot's turn."""

    def __init__(self, server: Server, game_id: str, player: Any) -> None:
        self.server, self.game_id, self.player = server, game_id, player
        self.full: dict[str, Any] = {}

    def run(self) -> None:
        for event in self.server.stream(f"/api/bot/game/stream/{self.game_id}"):
            kind = event.get("type")
            if kind == "gameFull":
                self.full = event
                variant = get_variant(event["variant"], **event["options"])
                if hasattr(self.player, "new_game"):
                    side = variant.side_by_name(event["side"])
                    if takes_seed(self.player.new_game):
                        self.player.new_game(variant, side, seed=event.get("seed"))
                    else:  # a player written before games had seeds
                        self.player.new_game(variant, side)
                self._on_state(event["state"])
            elif kind == "gameState":
                self._on_state(event)
            elif kind == "gameFinish":
                return

    def _on_state(self, state: dict[str, Any]) -> None:
        if not state.get("yourTurn"):
            return
        game = Game.from_position(Position.from_text(self.full["start"]))
        for text in state["moves"]:
            game.push(Move.parse(text))
        side = self.full["side"]
        other = next((name for name in self.full["sides"] if name != side), "")
        control = self.full["timeControl"]
        clocks = state.get("clocks", {})
        clock = Clock(clocks.get(side), clocks.get(other), control["incrementMs"], control["perMoveMs"] or None)
        if hasattr(self.player, "choose"):
            choice = self.player.choose(game, clock)
            move = getattr(choice, "move", choice)
        else:
            move = self.player(game.position, clock)
        if move is None:
            self.server.post(f"/api/bot/game/{self.game_id}/resign")
            return
        text = urllib.parse.quote(str(move), safe="")
        try:
            self.server.post(f"/api/bot/game/{self.game_id}/move/{text}")
        except RemoteBotError as error:  # an illegal move: the referee has ended the game, its finish follows
            print(f"foxgeese bot remote: {error}", file=sys.stderr, flush=True)


def load_player(spec_or_script: str) -> Any:
    """A built-in player from its SPEC, or the `choose` function of a Python script (a path ending in .py)."""
    if spec_or_script.endswith(".py"):
        try:
            namespace = runpy.run_path(spec_or_script, run_name="foxgeese_remote_bot")
        except OSError as error:
            raise RemoteBotError(f"{spec_or_script}: {error.strerror}") from None
        choose = namespace.get("choose")
        if not callable(choose):
            raise RemoteBotError(f"{spec_or_script} defines no choose(position, clock) function")
        return choose
    try:
        player = make_player(spec_or_script)
        warm(spec_or_script)  # a compiled search compiles (or loads) now, not on its first move's clock
    except ValueError as error:
        raise RemoteBotError(str(error)) from None
    return player


def takes_seed(method: Callable[..., Any]) -> bool:
    """Whether a player's `new_game` accepts the game's seed (as `seed=` or **kwargs), as the SDK asks."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "seed" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
