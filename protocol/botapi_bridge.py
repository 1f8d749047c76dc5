"""The bridge of a `remote:NAME` seat: a launched bot that relays its games to a server's Bot API hub.

The referee launches it as it launches any bot (`python -m foxgeese.protocol.botapi_bridge NAME`,
its endpoint and token as for every launched bot), so its clocks, peer checks and fault rules
are the referee's own. The bridge reads the hub's loopback address and its seat key from the
environment (`FOXGEESE_BOTAPI_HUB`, `FOXGEESE_BOTAPI_KEY`, set by `BotHub.bridge_env`), and:

- `new_game`: announces the game to the hub (`POST /api/bot/bridge/games`, the seat key), gets the
  game's id and secret, answers `ready`, and keeps one long poll open for the bot's next action;
- `turn`: posts the turn (moves, position, clocks, legal moves) to the hub at once;
- the long poll answers with the bot's move (sent to the referee as it came), a resignation, or
  `gone` (the bot's game stream closed): then the bridge says why on stderr and exits with status
  3, which the referee records as the bot's `crash`;
- `game_over`: posted to the hub, which streams it to the bot; `ping` is answered; `quit` ends it.

Standard library HTTP (http.client) and one zmq poller over the referee's socket and the poll's
TCP socket: one thread, nothing shared.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import urllib.parse
from typing import Any

import zmq

from foxgeese import __version__
from foxgeese.engine import VARIANT_IDS, get_variant
from foxgeese.protocol import codec, messages
from foxgeese.protocol.sdk import token_from_environment

ENV_HUB = "FOXGEESE_BOTAPI_HUB"
ENV_KEY = "FOXGEESE_BOTAPI_KEY"
GONE_EXIT = 3  # the remote bot left its game (or the hub is unreachable): the referee records a crash
POLL_MS = 500
HTTP_TIMEOUT_S = 30.0


# What sending on a keep-alive connection the server has closed meanwhile raises.
STALE_CONNECTION = (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected)

class HubError(Exception):
    """The hub did not answer as it should (unreachable, or it refused the bridge)."""


class Hub:
    """The hub's bridge routes, over one connection for posts and one for the long poll."""

    def __init__(self, base_url: str, key: str) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise HubError(f"{ENV_HUB} must be http://HOST:PORT, not {base_url[:80]!r}")
        self.host, self.port = parts.hostname, parts.port or 80
        self.key = key
        self.posts = self._connection()
        self.waiter: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=HTTP_TIMEOUT_S)

    def _headers(self, secret: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"}

    def post(self, path: str, secret: str, body: dict[str, Any]) -> dict[str, Any]:
        payload = json.dumps(body).encode()
        for attempt in (1, 2):
            try:
                self.posts.request("POST", path, payload, self._headers(secret))
                response = self.posts.getresponse()
                data = response.read()
                return _answer(path, response.status, data)
            except STALE_CONNECTION:
                # The server closes a keep-alive connection that sat idle (uvicorn: after 5 s); the
                # request never reached it, so it is sent once more on a new connection.
                self.posts.close()
                if attempt == 2:
                    raise HubError(f"the hub at {self.host}:{self.port} closed the connection to {path}") from None
            except (OSError, http.client.HTTPException) as error:
                self.posts.close()
                raise HubError(f"the hub at {self.host}:{self.port} did not answer {path} ({error})") from None
        raise AssertionError("unreachable")

    def start_wait(self, game_id: str, secret: str) -> int:
        """Opens the long poll for the game's next action; returns the socket's descriptor to poll."""
        if self.waiter is None:
            self.waiter = self._connection()
        path = f"/api/bot/bridge/games/{game_id}/next"
        try:
            try:
                self.waiter.request("POST", path, b"{}", self._headers(secret))
            except STALE_CONNECTION:  # an idle keep-alive connection the server closed (see `post`)
                self.waiter.close()
                self.waiter.request("POST", path, b"{}", self._headers(secret))
        except (OSError, http.client.HTTPException) as error:
            raise HubError(f"the hub at {self.host}:{self.port} did not take the long poll ({error})") from None
        assert self.waiter.sock is not None  # request() connected it
        return int(self.waiter.sock.fileno())

    def finish_wait(self) -> dict[str, Any]:
        assert self.waiter is not None
        try:
            response = self.waiter.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.waiter.close()
            self.waiter = None
            raise HubError(f"the hub at {self.host}:{self.port} broke the long poll ({error})") from None
        return _answer("next", response.status, data)

    def drop_wait(self) -> None:
        if self.waiter is not None:
            self.waiter.close()
            self.waiter = None


def _answer(path: str, status: int, data: bytes) -> dict[str, Any]:
    try:
        answer = json.loads(data or b"{}")
    except ValueError:
        answer = {}
    if status != 200 or not isinstance(answer, dict):
        why = str(answer.get("error", "")) if isinstance(answer, dict) else ""
        raise HubError(f"the hub refused {path}: {status} {why[:200]}")
    return answer


class Bridge:
    """The loop: the referee's messages and the hub's answers, one at a time."""

    def __init__(self, name: str, hub: Hub, endpoint: str, token: str) -> None:
        self.name, self.hub, self.endpoint, self.token = name, hub, endpoint, token
        self.game_id = ""  # the referee's
        self.hub_game = ""
        self.secret = ""
        self.request_id = 0
        self.wait_fd: int | None = None

    def run(self) -> int:
        parent = os.getppid()
        with zmq.Context() as context, context.socket(zmq.DEALER) as socket:
            socket.setsockopt(zmq.LINGER, 0)
            socket.connect(self.endpoint)
            self._send(socket, codec.HELLO, token=self.token, name=f"remote:{self.name}", author="foxgeese bot api",
                       version=__version__, variants=list(VARIANT_IDS))
            poller = zmq.Poller()
            poller.register(socket, zmq.POLLIN)
            while True:
                events = dict(poller.poll(POLL_MS))
                if not events:
                    if os.getppid() != parent:
                        return 0
                    continue
                if socket in events and not self._on_frame(socket, socket.recv()):
                    return 0  # one message a round: the poller says again if more wait
                if self.wait_fd is not None and self.wait_fd in events:
                    poller.unregister(self.wait_fd)
                    self.wait_fd = None
                    self._on_action(socket, self.hub.finish_wait())
                if self.hub_game and self.wait_fd is None:
                    self.wait_fd = self.hub.start_wait(self.hub_game, self.secret)
                    poller.register(self.wait_fd, zmq.POLLIN)
                elif not self.hub_game and self.wait_fd is not None:
                    poller.unregister(self.wait_fd)
                    self.wait_fd = None
                    self.hub.drop_wait()

    def _on_frame(self, socket: zmq.Socket, frame: bytes) -> bool:
        try:
            message = codec.decode_referee(frame)
        except codec.ProtocolError as error:  # a message of a later version: ignored, as the SDK does
            print(f"foxgeese bridge: ignoring a message from the referee: {error}", file=sys.stderr, flush=True)
            return True
        return self._on_referee(socket, message)

    def _on_referee(self, socket: zmq.Socket, message: messages.RefereeMessage) -> bool:
        if isinstance(message, messages.NewGame):
            variant = get_variant(message.variant, **message.options)
            fields = {**messages.to_fields(message), "sides": [variant.predator_name, variant.prey_name]}
            fields.pop("v", None)
            fields.pop("type", None)
            answer = self.hub.post("/api/bot/bridge/games", self.hub.key, fields)
            self.game_id, self.hub_game, self.secret = message.game_id, str(answer["id"]), str(answer["secret"])
            self.request_id = 0
            self._send(socket, codec.READY, game_id=message.game_id)
        elif isinstance(message, messages.Turn) and message.game_id == self.game_id and self.hub_game:
            self.request_id = message.request_id
            self.hub.post(f"/api/bot/bridge/games/{self.hub_game}/turn", self.secret,
                          {"request_id": message.request_id, "position": message.position,
                           "moves": list(message.moves) if isinstance(message.moves, list) else [],
                           "legal": list(message.legal) if isinstance(message.legal, list) else [],
                           "clocks": message.clocks, "increment_ms": message.increment_ms,
                           "per_move_ms": message.per_move_ms})
        elif isinstance(message, messages.GameOver) and message.game_id == self.game_id and self.hub_game:
            fields = messages.to_fields(message)
            self.hub.post(f"/api/bot/bridge/games/{self.hub_game}/over", self.secret,
                          {key: fields.get(key, "") for key in ("winner", "termination", "reason", "last_move",
                                                                "position")})
            self.hub_game = ""
        elif isinstance(message, messages.Ping):
            self._send(socket, codec.PONG, id=message.id)
        elif isinstance(message, messages.Quit):
            return False
        elif isinstance(message, messages.Refused):
            raise HubError(f"the referee refused the bridge: {message.reason}")
        return True

    def _on_action(self, socket: zmq.Socket, action: dict[str, Any]) -> None:
        if "gone" in action:
            print(f"foxgeese bridge: {str(action['gone'])[:300]}", file=sys.stderr, flush=True)
            raise SystemExit(GONE_EXIT)
        if "move" in action and self.hub_game and int(action.get("request_id", -1)) == self.request_id:
            text = str(action["move"])[: messages.MOVE_TEXT_CHARS]
            self._send(socket, codec.MOVE, game_id=self.game_id, request_id=self.request_id, move=text)
        elif action.get("resign") and self.hub_game:
            self._send(socket, codec.RESIGN, game_id=self.game_id, request_id=self.request_id)

    @staticmethod
    def _send(socket: zmq.Socket, message_type: str, **fields: Any) -> None:
        socket.send(messages.encode_fields(message_type, fields))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("foxgeese bridge: usage: python -m foxgeese.protocol.botapi_bridge NAME (launched by a referee)",
              file=sys.stderr)
        return 2
    hub_url, key = os.environ.get(ENV_HUB, ""), os.environ.pop(ENV_KEY, "")
    endpoint = os.environ.get(codec.ENV_ENDPOINT, "")
    if not hub_url or not key or not endpoint:
        print(f"foxgeese bridge: remote:{argv[0][:60]} is seated by a server's Bot API hub, which sets "
              f"{ENV_HUB}, {ENV_KEY} and the referee's {codec.ENV_ENDPOINT}; one of them is missing",
              file=sys.stderr)
        return 2
    try:
        return Bridge(argv[0], Hub(hub_url, key), endpoint, token_from_environment()).run()
    except HubError as error:
        print(f"foxgeese bridge: {error}", file=sys.stderr, flush=True)
        return GONE_EXIT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
