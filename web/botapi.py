"""The Bot API's hub: remote bots (hosted anywhere) in referee games, lichess style (docs/botapi.md).

The referee stays as it is. A seat `remote:NAME` is a launched bot like any other: a small bridge
process (protocol/botapi_bridge.py) that the referee starts, clocks and judges. The bridge speaks
the bot protocol to the referee over ZeroMQ and relays each game to this hub over loopback HTTP
(its seat key, then a per-game secret); the hub streams the game to the bot `NAME` (ndjson) and
hands the bot's move back to the bridge. So the referee's peer checks, clocks and fault rules are
the ones every bot has: a bot that moves too late loses on time, an illegal move loses as one, and
a bot whose game stream closes (and does not come back within `disconnect_grace_s`) makes its
bridge quit, which the referee records as a `crash` (the bridge's log says why).

One `BotHub` belongs to one web app (no module state). Its game state lives on the app's event
loop; `register`, `revoke`, `bot_config` and `challenge` may be called from any thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import secrets
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foxgeese.engine import Move
from foxgeese.protocol.botapi_bridge import ENV_HUB, ENV_KEY
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.web.botapi_store import BotApiError, BotRegistry, token_hash
from foxgeese.web.security import RateLimiter

REMOTE_PREFIX = "remote:"
KEEPALIVE_S = 6.0  # an empty line on every open stream at least this often (lichess: 6 s)
DISCONNECT_GRACE_S = 1.0  # a game stream closed mid-game may be opened again within this
WAIT_S = 20.0  # a bridge's long poll for the bot's next action returns empty after this
CHALLENGE_S = 30.0  # an unanswered challenge expires
MAX_GAMES = 2000  # games kept (finished ones go first)
MAX_SEAT_KEYS = 10_000
MAX_CHALLENGES = 1000
TOKEN_RATE = (50.0, 100)  # a bot's requests: 100 at once, then 50 a second (a fast bot against a fast
# opponent posts a move every few milliseconds; at 10 a second such games stalled on the bot's clock)
ADDRESS_RATE = (100.0, 200)  # one address's, whatever the bots
WRONG_TOKEN_RATE = (1.0, 10)  # an address's requests with a wrong token
MAX_QUEUED = 1000  # events waiting for a slow stream reader: past this its stream is ended


def line(event: dict[str, Any]) -> bytes:
    return json.dumps(event, separators=(",", ":")).encode() + b"\n"


@dataclass(eq=False)
class Challenge:
    """A game offered to a remote bot: `answer` resolves to `accepted`, `declined` or `expired`."""

    id: str
    bot: str
    details: dict[str, Any]
    on_accept: Callable[[Challenge], Any] | None = None
    answer: concurrent.futures.Future[str] = field(default_factory=concurrent.futures.Future)
    created: float = field(default_factory=time.monotonic)

    def event(self) -> dict[str, Any]:
        return {"type": "challenge", "challenge": {"id": self.id, **self.details}}


@dataclass(eq=False)
class RemoteGame:
    """One referee game of a remote bot, as its bridge reports it."""

    id: str
    bot: str
    secret: str
    new_game: dict[str, Any]  # the referee's new_game fields
    moves: list[str] = field(default_factory=list)
    position: str = ""
    clocks: dict[str, int] = field(default_factory=dict)
    turn: str = ""
    request_id: int | None = None  # the referee's turn the bot is to answer, if it is its turn
    turn_at: float = 0.0
    legal: list[str] = field(default_factory=list)
    finish: dict[str, Any] | None = None
    actions: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    streams: set[asyncio.Queue[dict[str, Any] | None]] = field(default_factory=set)
    gone: str = ""  # why the bot is out of the game (disconnected), once it is
    watch: asyncio.TimerHandle | None = None

    @property
    def side(self) -> str:
        return str(self.new_game["side"])

    def state(self) -> dict[str, Any]:
        mine = self.request_id is not None and self.finish is None
        event: dict[str, Any] = {"type": "gameState", "moves": list(self.moves), "position": self.position,
                                 "turn": self.turn, "clocks": dict(self.clocks), "yourTurn": mine,
                                 "status": "over" if self.finish else "started"}
        if mine:
            event["legal"] = list(self.legal)
        return event

    def full(self) -> dict[str, Any]:
        fields = self.new_game
        control = fields["time_control"]
        return {"type": "gameFull", "id": self.id, "variant": fields["variant"], "options": fields["options"],
                "side": self.side, "sides": fields.get("sides", []),
                "timeControl": {"baseMs": control["base_ms"], "incrementMs": control["increment_ms"],
                                "perMoveMs": control["per_move_ms"]},
                "start": fields["start"], "seed": fields["seed"], "state": self.state()}

    def start_event(self) -> dict[str, Any]:
        fields = self.new_game
        return {"type": "gameStart", "game": {"id": self.id, "variant": fields["variant"],
                                              "options": fields["options"], "side": self.side}}


class BotHub:
    """Remote bots, their event streams, challenges and games (see the module doc)."""

    def __init__(self, data_path: Path | str, *, base_url: str = "", disconnect_grace_s: float = DISCONNECT_GRACE_S,
                 keepalive_s: float = KEEPALIVE_S, rate_per_s: float = TOKEN_RATE[0], burst: int = TOKEN_RATE[1],
                 address_rate_per_s: float = ADDRESS_RATE[0], address_burst: int = ADDRESS_RATE[1]) -> None:
        self.registry = BotRegistry(data_path)
        self.base_url = base_url  # where bridges reach this server (loopback), set once it listens
        self.disconnect_grace_s = disconnect_grace_s
        self.challenge_s = CHALLENGE_S
        self.keepalive_s = keepalive_s
        self.by_token = RateLimiter(rate_per_s, burst)
        self.by_address = RateLimiter(address_rate_per_s, address_burst)
        self.failures = RateLimiter(*WRONG_TOKEN_RATE)  # wrong tokens, per address
        self.lock = threading.Lock()
        self._seat_keys: OrderedDict[str, str] = OrderedDict()  # sha256(seat key) -> bot name
        self.games: OrderedDict[str, RemoteGame] = OrderedDict()
        self._by_secret: dict[str, RemoteGame] = {}
        self.listeners: dict[str, set[asyncio.Queue[dict[str, Any] | None]]] = {}
        self.challenges: OrderedDict[str, Challenge] = OrderedDict()
        self.loop: asyncio.AbstractEventLoop | None = None
        # Set by the web app: a game of bot NAME against a built-in player (`POST /api/bot/challenge/ai`).
        self.play_ai: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None

    # -- from any thread ----------------------------------------------------------------------

    def register(self, name: str) -> str:
        """A new remote bot and its token, shown once (the database keeps its SHA-256)."""
        return self.registry.register(name)

    def revoke(self, name: str) -> bool:
        """Forgets the bot and its token; its open streams end now, so a game it plays is lost as a disconnect."""
        done = self.registry.revoke(name)
        if done and self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._close_streams, name)
        return done

    def online(self, name: str) -> bool:
        """Whether the bot has its event stream open now."""
        return bool(self.listeners.get(name))

    def bridge_command(self, name: str) -> list[str]:
        """The command line of the bridge for bot `name` (the referee launches it like any bot)."""
        return [sys.executable, "-m", "foxgeese.protocol.botapi_bridge", name]

    def bridge_env(self, name: str) -> dict[str, str]:
        """What the bridge needs in its environment: this server's loopback address and a fresh seat
        key, good for games of `name` only (kept hashed, at most MAX_SEAT_KEYS of them)."""
        if not self.base_url:
            raise BotApiError("the Bot API hub does not know its own address yet (the server is not listening)")
        if not self.registry.exists(name):
            raise BotApiError(f"no remote bot named {name[:60]!r} is registered on this server "
                              f"(foxgeese botapi register {name[:60]})")
        key = secrets.token_urlsafe(32)
        with self.lock:
            self._seat_keys[token_hash(key)] = name
            while len(self._seat_keys) > MAX_SEAT_KEYS:
                self._seat_keys.popitem(last=False)
        return {ENV_HUB: self.base_url, ENV_KEY: key}

    def bot_config(self, name: str, seat_name: str | None = None) -> BotConfig:
        """A referee seat for the remote bot `name`: its bridge, launched and judged like any bot."""
        return BotConfig(seat_name or f"{REMOTE_PREFIX}{name}", self.bridge_command(name), env=self.bridge_env(name),
                         spec=f"{REMOTE_PREFIX}{name}")

    def challenge(self, name: str, details: dict[str, Any],
                  on_accept: Callable[[Challenge], Any] | None = None) -> Challenge:
        """Offers the bot a game (`details`: variant, options, timeControl, side, from, as the
        challenge event shows them); `on_accept` runs on the event loop when it accepts (start the game there)."""
        if not self.registry.exists(name):
            raise BotApiError(f"no remote bot named {name[:60]!r} is registered on this server")
        challenge = Challenge(secrets.token_urlsafe(8), name, dict(details), on_accept)
        loop = self.loop
        if loop is None or loop.is_closed():  # bound by the first Bot API request
            raise BotApiError(f"the remote bot {name[:60]!r} is not connected (no Bot API request reached this "
                              "server yet)")
        loop.call_soon_threadsafe(self._offer, challenge)
        return challenge

    # -- on the event loop --------------------------------------------------------------------

    def bind_loop(self) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()

    def _offer(self, challenge: Challenge) -> None:
        self.challenges[challenge.id] = challenge
        while len(self.challenges) > MAX_CHALLENGES:
            _, old = self.challenges.popitem(last=False)
            self._settle(old, "expired")
        self._emit(challenge.bot, challenge.event())
        assert self.loop is not None
        self.loop.call_later(self.challenge_s, self._settle, challenge, "expired")

    def _settle(self, challenge: Challenge, answer: str) -> None:
        self.challenges.pop(challenge.id, None)
        if not challenge.answer.done():
            challenge.answer.set_result(answer)

    def answer(self, name: str, challenge_id: str, accept: bool) -> str:
        """The bot's answer to a challenge ('' when taken, else why not)."""
        challenge = self.challenges.get(challenge_id)
        if challenge is None or challenge.bot != name:
            return (f"no open challenge {challenge_id[:40]!r} for this bot (answered already, or expired after "
                    f"{self.challenge_s:g} s)")
        self._settle(challenge, "accepted" if accept else "declined")
        if accept and challenge.on_accept is not None:
            challenge.on_accept(challenge)
        return ""

    def _emit(self, name: str, event: dict[str, Any] | None) -> None:
        for queue in list(self.listeners.get(name, ())):
            _put(queue, event)

    def _emit_game(self, game: RemoteGame, event: dict[str, Any] | None) -> None:
        for queue in list(game.streams):
            _put(queue, event)

    def _close_streams(self, name: str) -> None:
        self._emit(name, None)
        for game in self.games.values():
            if game.bot == name:
                self._emit_game(game, None)

    # -- the bridge's side --------------------------------------------------------------------

    def announce(self, key: str, fields: dict[str, Any]) -> dict[str, Any]:
        """A bridge's new_game: the game is the bot's from now on; returns its id and secret."""
        with self.lock:
            name = self._seat_keys.get(token_hash(key))
        if name is None:
            raise PermissionError("unknown seat key")
        game = RemoteGame(secrets.token_urlsafe(8), name, secrets.token_urlsafe(24), fields,
                          position=str(fields["start"]), turn="")
        self.games[game.id] = game
        self._by_secret[token_hash(game.secret)] = game
        self._forget_old()
        self._emit(name, game.start_event())
        return {"id": game.id, "secret": game.secret}

    def _forget_old(self) -> None:
        if len(self.games) <= MAX_GAMES:
            return
        for old in [g for g in self.games.values() if g.finish is not None][: len(self.games) // 4 or 1]:
            self.games.pop(old.id, None)
            self._by_secret.pop(token_hash(old.secret), None)

    def game_by_secret(self, secret: str) -> RemoteGame | None:
        wanted = token_hash(secret)
        game = self._by_secret.get(wanted)
        return game if game is not None and secrets.compare_digest(token_hash(game.secret), wanted) else None

    def turn(self, game: RemoteGame, fields: dict[str, Any]) -> None:
        """The referee asks the bot for a move: the game so far, the clocks, the legal moves."""
        game.moves = [str(move) for move in fields["moves"]]
        game.position, game.clocks = str(fields["position"]), dict(fields["clocks"])
        game.turn, game.legal = game.side, [str(move) for move in fields["legal"]]
        game.request_id, game.turn_at = int(fields["request_id"]), time.monotonic()
        self._emit_game(game, game.state())
        if game.gone:  # it left during the other side's move
            _put(game.actions, {"gone": game.gone})

    def over(self, game: RemoteGame, fields: dict[str, Any]) -> None:
        """The referee's game_over: to the game stream and the event stream."""
        game.request_id = None
        game.finish = {"type": "gameFinish", "id": game.id, "winner": fields["winner"],
                       "termination": fields["termination"], "reason": fields["reason"],
                       "lastMove": fields.get("last_move", ""), "position": fields.get("position", "")}
        if game.watch is not None:
            game.watch.cancel()
        self._emit_game(game, game.finish)
        self._emit(game.bot, {"type": "gameFinish", "game": {key: value for key, value in game.finish.items()
                                                             if key != "type"}})
        _put(game.actions, {"over": True})

    async def next_action(self, game: RemoteGame) -> dict[str, Any]:
        """What the bridge is to do next: {move, request_id}, {resign}, {gone: why}, {over} or {} (ask again)."""
        try:
            return await asyncio.wait_for(game.actions.get(), WAIT_S)
        except TimeoutError:
            return {}

    # -- the bot's side -----------------------------------------------------------------------

    def move(self, name: str, game_id: str, text: str) -> tuple[int, dict[str, Any]]:
        game = self._bots_game(name, game_id)
        if game.finish is not None:
            return 409, {"error": f"game {game_id} is over: {game.finish['reason']}"}
        if game.request_id is None:
            return 409, {"error": "it is not your turn: wait for a gameState with yourTurn true"}
        request_id, game.request_id = game.request_id, None
        _put(game.actions, {"move": text, "request_id": request_id})
        try:
            canonical = str(Move.parse(text))
        except ValueError:
            canonical = ""
        if canonical not in game.legal:
            return 400, {"error": f"{text[:60]!r} is not a legal move here: the referee ends the game (illegal-move)"}
        spent_ms = round((time.monotonic() - game.turn_at) * 1000)
        control = game.new_game["time_control"]
        if game.side in game.clocks and not control["per_move_ms"]:
            game.clocks[game.side] = max(0, game.clocks[game.side] - spent_ms) + int(control["increment_ms"])
        game.moves.append(canonical)
        sides = game.new_game.get("sides", [])
        game.turn = next((side for side in sides if side != game.side), "")
        self._emit_game(game, game.state())
        return 200, {"ok": True}

    def resign(self, name: str, game_id: str) -> tuple[int, dict[str, Any]]:
        game = self._bots_game(name, game_id)
        if game.finish is not None:
            return 409, {"error": f"game {game_id} is over: {game.finish['reason']}"}
        _put(game.actions, {"resign": True})
        return 200, {"ok": True}

    def _bots_game(self, name: str, game_id: str) -> RemoteGame:
        game = self.games.get(game_id)
        if game is None or game.bot != name:
            raise LookupError(f"no game {game_id[:40]!r} of this bot on this server")
        return game

    def event_stream(self, name: str) -> tuple[AsyncIterator[bytes], Callable[[], None]]:
        """The bot's events: its games in play (gameStart), open challenges, then what comes; and
        the call that ends it (the bot is online from now until then)."""
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.listeners.setdefault(name, set()).add(queue)
        # what is open now, taken now: anything later comes through the queue
        opened = [game.start_event() for game in self.games.values() if game.bot == name and game.finish is None]
        opened += [challenge.event() for challenge in self.challenges.values() if challenge.bot == name]

        async def chunks() -> AsyncIterator[bytes]:
            for event in opened:
                yield line(event)
            async for chunk in self._follow(name, queue):
                yield chunk

        def close() -> None:
            self.listeners.get(name, set()).discard(queue)
            if not self.listeners.get(name):
                self.listeners.pop(name, None)

        return chunks(), close

    def game_stream(self, name: str, game_id: str) -> tuple[AsyncIterator[bytes], Callable[[], None]]:
        """One game: gameFull, a gameState after each move, gameFinish (then the stream ends); and
        the call that ends it (a game stream closed mid-game starts the disconnect rule).
        LookupError if the game is not this bot's."""
        game = self._bots_game(name, game_id)
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        game.streams.add(queue)
        if game.watch is not None:
            game.watch.cancel()
            game.watch = None

        async def chunks() -> AsyncIterator[bytes]:
            yield line(game.full())
            if game.finish is not None:
                yield line(game.finish)
                return
            async for chunk in self._follow(name, queue, finish=True):
                yield chunk

        def close() -> None:
            game.streams.discard(queue)
            if not game.streams and game.finish is None and not game.gone and self.loop is not None:
                game.watch = self.loop.call_later(self.disconnect_grace_s, self._left, game)

        return chunks(), close

    def _left(self, game: RemoteGame) -> None:
        """The bot's game stream stayed closed: it has left its game, which it loses (its bridge quits)."""
        game.watch = None
        if game.streams or game.finish is not None:
            return
        game.gone = (f"remote bot {game.bot} disconnected: its game stream closed mid-game and was not opened "
                     f"again within {self.disconnect_grace_s:g} s")
        if game.request_id is not None:
            _put(game.actions, {"gone": game.gone})

    async def _follow(self, name: str, queue: asyncio.Queue[dict[str, Any] | None],
                      finish: bool = False) -> AsyncIterator[bytes]:
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), self.keepalive_s)
            except TimeoutError:
                if not self.registry.exists(name):  # revoked (perhaps by another process)
                    return
                yield b"\n"
                continue
            if event is None:
                return
            yield line(event)
            if finish and event.get("type") == "gameFinish":
                return


def _put(queue: asyncio.Queue[Any], item: Any) -> None:
    """Queues an event; a reader that let MAX_QUEUED pile up is ended (None) instead."""
    if queue.qsize() >= MAX_QUEUED:
        while not queue.empty():
            queue.get_nowait()
        item = None
    queue.put_nowait(item)
