"""The game API: starting a game (`POST /api/games`, rate-limited per client) and a game page's
WebSocket (its state pushed, its seat's moves taken)."""

from __future__ import annotations

import json
import math

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from foxgeese.engine.userinput import JsonInputError, load_json
from foxgeese.web.games import WebGameError, new_game
from foxgeese.web.security import read_body
from foxgeese.web.server import Server, Viewer, error

MAX_NEW_GAME_BYTES = 16 << 10


def routes(server: Server) -> list[BaseRoute]:
    """The game API's routes."""

    async def create_game(request: Request) -> Response:
        client = request.client.host if request.client else ""
        wait_s = server.new_games.wait_s(client)
        if wait_s:
            return error(f"too many new games from your address: wait {math.ceil(wait_s)} s and try again", 429)
        body = await read_body(request, MAX_NEW_GAME_BYTES)
        if body is None:
            return error(f"a new game is a small JSON object (at most {MAX_NEW_GAME_BYTES >> 10} KB)", 413)
        try:
            data = load_json(body)
            if not isinstance(data, dict):
                raise JsonInputError("not a JSON object")
        except JsonInputError as problem:
            return error(f"send the new game as a JSON object of the form's fields: {problem}")
        try:
            game = new_game(data, server.notify, server.commands, remote=server.botapi)
        except WebGameError as problem:
            return error(str(problem))
        server.add_game(game)
        links = {game.variant.side_name(side): f"/game/{game.id}?seat={seat.secret}"
                 for side, seat in game.seats.items() if seat.is_human}
        return JSONResponse({"id": game.id, "links": links, "watch": f"/game/{game.id}"})

    async def game_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        game = server.games.get(websocket.path_params["game_id"])
        if game is None:
            stored = server.store.game(websocket.path_params["game_id"])
            await websocket.send_json({"type": "error", "fatal": True, "stored": stored is not None,
                                       "message": "this game is not being played on this server: " + (
                                           stored["result"] if stored else "there is no game with this link")})
            await websocket.close()
            return
        seat = None
        secret = websocket.query_params.get("seat", "")
        if secret:
            seat = game.seat_by_secret(secret)
            if seat is None:
                await websocket.send_json({"type": "error", "message": "this link's seat secret does not match "
                                           "any seat of this game; you are watching"})
            else:
                problem = game.attach(seat)
                if problem:
                    await websocket.send_json({"type": "error", "message": problem + "; meanwhile you watch"})
                    seat = None
        entry = Viewer(websocket, seat)
        server.sockets.setdefault(game.id, set()).add(entry)
        try:
            await websocket.send_text(json.dumps(game.view(seat)))
            while True:
                try:
                    message = json.loads(await websocket.receive_text())
                except ValueError:
                    message = None
                if isinstance(message, dict) and message.get("type") == "view":  # this page's own drawing
                    entry.flipped = message.get("flipped") is True
                    await websocket.send_text(json.dumps(game.view(seat, entry.flipped)))
                    continue
                if not isinstance(message, dict) or message.get("type") != "move":
                    await websocket.send_json({"type": "error", "message": "expected {\"type\": \"move\", ...}"})
                    continue
                if seat is None:
                    await websocket.send_json({"type": "error", "message": "you are watching: only a player's "
                                               "link can move"})
                    continue
                problem = game.play(seat, str(message.get("move", "")))
                if problem:
                    await websocket.send_json({"type": "error", "message": problem})
        except WebSocketDisconnect:
            pass
        finally:
            server.sockets.get(game.id, set()).discard(entry)
            if seat is not None:
                game.detach(seat)

    return [
        Route("/api/games", create_game, methods=["POST"]),
        WebSocketRoute("/ws/game/{game_id}", game_socket),
    ]
