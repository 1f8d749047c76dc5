"""The Bot API's HTTP routes (docs/botapi.md): a bot's bearer token in, ndjson streams and small JSON out.

Every route takes `Authorization: Bearer TOKEN` and nothing else as a credential (no cookie is
ever read), so a page of another site cannot use a browser's standing to drive it; the app's
RequestGuard refuses a foreign `Origin` on these paths and no CORS header is ever sent (a
foreign page's request with an Authorization header needs a preflight, which is never granted).
Host is checked by the app's TrustedHostMiddleware as for every path. Requests are rate-limited
per address and per bot; a wrong token is answered 401 (429 once an address keeps sending wrong
ones) and never echoed; bodies are bounded. The bridge's routes (`/api/bot/bridge/...`) take a
seat key or a game secret instead, from this machine only (loopback, or the server's own address).
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from foxgeese.engine import DEFAULT_VARIANT, get_variant
from foxgeese.engine.userinput import JsonInputError, load_json
from foxgeese.web.botapi import REMOTE_PREFIX, BotHub, RemoteGame
from foxgeese.web.botapi_store import BotApiError
from foxgeese.web.games import WebGameError, new_game
from foxgeese.web.security import read_body

MAX_SMALL_BODY = 1 << 10  # a move, a resignation, an answer: nothing needs a body
MAX_CHALLENGE_BODY = 4 << 10
MAX_BRIDGE_BODY = 512 << 10  # a turn: the moves so far and the legal ones
NDJSON = "application/x-ndjson"


class NdjsonStream(StreamingResponse):
    """A stream that ends (and runs its generator's `finally`) the moment the client goes away,
    whatever ASGI version the server speaks: the hub's disconnect rule depends on it."""

    def __init__(self, content: AsyncIterator[bytes], on_close: Callable[[], None]) -> None:
        super().__init__(content, media_type=NDJSON, headers={"cache-control": "no-store"})
        self.on_close = on_close  # the generator's own `finally` does not run if it never started

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as group:
                async def stream() -> None:
                    try:
                        await self.stream_response(send)
                    except OSError:
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        finally:
            self.on_close()


def error(message: str, status: int = 400, **headers: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def too_many(wait_s: float, what: str) -> JSONResponse:
    seconds = max(1, math.ceil(wait_s))
    return error(f"too many requests {what}: wait {seconds} s", 429, **{"retry-after": str(seconds)})


def bearer(request: Request) -> str:
    kind, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if kind.lower() == "bearer" else ""


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def botapi_routes(server: Any) -> list[Route]:
    """The routes, and the hub they share (`server.botapi`), for the app's route list."""
    hub = BotHub(server.store.path)
    server.botapi = hub

    def play_ai(name: str, data: dict[str, Any]) -> dict[str, Any]:
        side, opponent = str(data.get("side") or ""), str(data.get("opponent") or "").strip()
        if opponent.startswith((REMOTE_PREFIX, "human")) or not opponent:
            raise WebGameError("opponent: give a built-in player SPEC, e.g. \"minimax:depth=3\"")
        request: dict[str, Any] = {key: data[key] for key in ("variant", "geese", "sideways", "tc") if key in data}
        try:
            variant = get_variant(str(request.get("variant", DEFAULT_VARIANT)))
        except ValueError as problem:
            raise WebGameError(str(problem)) from None
        side = side or variant.predator_name
        if side not in (variant.predator_name, variant.prey_name):
            raise WebGameError(f"side: {variant.predator_name} or {variant.prey_name}")
        other = variant.prey_name if side == variant.predator_name else variant.predator_name
        request["players"] = {side: REMOTE_PREFIX + name, other: opponent}
        request["takeback"] = False
        game = new_game(request, server.notify, server.commands, remote=hub)
        server.add_game(game)
        return {"id": game.id, "watch": f"/game/{game.id}"}

    hub.play_ai = play_ai

    async def authorized(request: Request) -> str | Response:
        """The bot's name, or the answer to a request that is not let in."""
        hub.bind_loop()
        address = request.client.host if request.client else ""
        wait_s = hub.by_address.wait_s(address)
        if wait_s:
            return too_many(wait_s, "from your address")
        token = bearer(request)
        name = hub.registry.name_for(token) if token else None
        if name is None:
            wait_s = hub.failures.wait_s(address)
            if wait_s:
                return too_many(wait_s, "with wrong tokens from your address")
            if not token:
                return error("send your bot's token as Authorization: Bearer TOKEN (foxgeese botapi register "
                             "NAME shows it once)", 401, **{"www-authenticate": "Bearer"})
            return error("this token is not valid on this server (mistyped, or its bot was revoked)", 401,
                         **{"www-authenticate": "Bearer"})
        wait_s = hub.by_token.wait_s(name)
        if wait_s:
            return too_many(wait_s, "for this bot")
        return name

    async def small_body(request: Request, limit: int = MAX_SMALL_BODY) -> bytes | Response:
        body = await read_body(request, limit)
        return error(f"the body is at most {limit} bytes here", 413) if body is None else body

    async def account(request: Request) -> Response:
        name = await authorized(request)
        if isinstance(name, Response):
            return name
        return JSONResponse({"name": name, "online": hub.online(name)})

    async def event_stream(request: Request) -> Response:
        name = await authorized(request)
        if isinstance(name, Response):
            return name
        return NdjsonStream(*hub.event_stream(name))  # online from now on

    async def game_stream(request: Request) -> Response:
        name = await authorized(request)
        if isinstance(name, Response):
            return name
        try:
            return NdjsonStream(*hub.game_stream(name, request.path_params["game_id"]))
        except LookupError as problem:  # not this bot's game: a 404, not an empty stream
            return error(str(problem), 404)

    async def game_action(request: Request, act: Callable[[str, str], tuple[int, dict[str, Any]]]) -> Response:
        """A bot's action in one of its games (a move, a resignation): `act(bot, game_id)`; a game
        that is not this bot's is a 404."""
        name = await authorized(request)
        if isinstance(name, Response):
            return name
        body = await small_body(request)
        if isinstance(body, Response):
            return body
        try:
            status, answer = act(name, request.path_params["game_id"])
        except LookupError as problem:
            return error(str(problem), 404)
        return JSONResponse(answer, status_code=status)

    async def move(request: Request) -> Response:
        return await game_action(request, lambda name, game_id: hub.move(name, game_id, request.path_params["move"]))

    async def resign(request: Request) -> Response:
        return await game_action(request, hub.resign)

    async def answer_challenge(request: Request) -> Response:
        name = await authorized(request)
        if isinstance(name, Response):
            return name
        body = await small_body(request)
        if isinstance(body, Response):
            return body
        answer = request.path_params["answer"]
        if answer not in ("accept", "decline"):
            return error("answer a challenge with .../accept or .../decline", 404)
        problem = hub.answer(name, request.path_params["challenge_id"], answer == "accept")
        return error(problem, 404) if problem else JSONResponse({"ok": True})

    async def challenge_ai(request: Request) -> Response:
        name = await authorized(request)
        if isinstance(name, Response):
            return name
        body = await small_body(request, MAX_CHALLENGE_BODY)
        if isinstance(body, Response):
            return body
        try:
            data = load_json(body)
            if not isinstance(data, dict):
                raise JsonInputError("not a JSON object")
            return JSONResponse(play_ai(name, data))
        except JsonInputError as problem:
            return error(f"send a JSON object (opponent, side, variant, tc): {problem}")
        except (WebGameError, BotApiError) as problem:
            return error(str(problem))

    # -- the bridge's routes (loopback, a seat key or a game secret) ----------------------------

    async def bridge_body(request: Request) -> dict[str, Any] | Response:
        hub.bind_loop()
        client = request.client.host if request.client else ""
        server_address = (request.scope.get("server") or ("", 0))[0]
        if not (is_loopback(client) or client == server_address):  # loopback, or the address the server listens on
            return error("the bridge's routes answer on this machine only", 403)
        body = await read_body(request, MAX_BRIDGE_BODY)
        if body is None:
            return error(f"the body is at most {MAX_BRIDGE_BODY} bytes", 413)
        try:
            data = load_json(body) if body else {}
        except JsonInputError as problem:
            return error(f"not JSON: {problem}")
        return data if isinstance(data, dict) else error("not a JSON object")

    def bridge_game(request: Request) -> RemoteGame | None:
        game = hub.game_by_secret(bearer(request))
        return game if game is not None and game.id == request.path_params["game_id"] else None

    async def bridge_announce(request: Request) -> Response:
        data = await bridge_body(request)
        if isinstance(data, Response):
            return data
        try:
            return JSONResponse(hub.announce(bearer(request), data))
        except PermissionError:
            return error("unknown seat key", 403)
        except (KeyError, TypeError, ValueError) as problem:
            return error(f"not a new_game: {problem}")

    async def bridge_turn(request: Request) -> Response:
        data = await bridge_body(request)
        if isinstance(data, Response):
            return data
        game = bridge_game(request)
        if game is None:
            return error("unknown game or secret", 403)
        if request.path_params["what"] not in ("turn", "over"):
            return error("a bridge posts turn or over", 404)
        try:
            if request.path_params["what"] == "turn":
                hub.turn(game, data)
            else:
                hub.over(game, data)
        except (KeyError, TypeError, ValueError) as problem:
            return error(f"not a {request.path_params['what']}: {problem}")
        return JSONResponse({"ok": True})

    async def bridge_next(request: Request) -> Response:
        data = await bridge_body(request)
        if isinstance(data, Response):
            return data
        game = bridge_game(request)
        if game is None:
            return error("unknown game or secret", 403)
        if game.finish is not None:
            return JSONResponse({"over": True})
        return JSONResponse(await hub.next_action(game))

    return [
        Route("/api/bot/account", account),
        Route("/api/bot/stream/event", event_stream),
        Route("/api/bot/game/stream/{game_id}", game_stream),
        Route("/api/bot/game/{game_id}/move/{move}", move, methods=["POST"]),
        Route("/api/bot/game/{game_id}/resign", resign, methods=["POST"]),
        Route("/api/bot/challenge/ai", challenge_ai, methods=["POST"]),
        Route("/api/bot/challenge/{challenge_id}/{answer}", answer_challenge, methods=["POST"]),
        Route("/api/bot/bridge/games", bridge_announce, methods=["POST"]),
        Route("/api/bot/bridge/games/{game_id}/next", bridge_next, methods=["POST"]),
        Route("/api/bot/bridge/games/{game_id}/{what}", bridge_turn, methods=["POST"]),
    ]
