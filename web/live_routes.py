"""The followed tournament's routes: its live page, its WebSocket (the feed of live.py, pushed by
`Server.follow_tournament`) and the replay of its journal's games."""

from __future__ import annotations

import json
from importlib import resources

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from foxgeese.tournaments.replay import ReplayError
from foxgeese.web.server import Server


def routes(server: Server) -> list[BaseRoute]:
    """The live tournament's routes."""
    page, not_found = server.page, server.not_found

    async def tournament_page(request: Request) -> Response:
        if server.feed is None:
            return not_found("This server follows no tournament; start it with "
                             "foxgeese serve --tournament DIR (the runner's output folder).")
        body = resources.files("foxgeese.web").joinpath("static", "live.html").read_text(encoding="utf-8")
        return page("tournament", body, ("/viewer/replay.js", "/static/live.js"))

    async def tournament_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        if server.feed is None:
            await websocket.send_json({"type": "error", "fatal": True, "message": "this server follows no tournament"})
            await websocket.close()
            return
        server.live_sockets.add(websocket)
        try:
            await websocket.send_text(json.dumps(server.feed.view()))
            while True:
                await websocket.receive_text()
        except WebSocketDisconnect:
            pass
        finally:
            server.live_sockets.discard(websocket)

    async def tournament_replay(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        record = server.feed.record(game_id) if server.feed is not None else None
        if record is None:
            return not_found(f"No finished game {game_id!r} in the tournament's journal.")
        try:
            assert server.feed is not None  # the record came from it
            return server.replay(record, title=f"{server.feed.name}: game {game_id}", back_link="/tournament")
        except ReplayError as problem:
            return not_found(f"Game {game_id!r} of the journal does not replay: {problem}")

    return [
        Route("/tournament", tournament_page),
        WebSocketRoute("/ws/tournament", tournament_socket),
        Route("/tournament/games/{game_id}", tournament_replay),
    ]
