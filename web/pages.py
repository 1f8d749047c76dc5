"""The pages: the home page (a new game), a game's page and its replay, the replay viewer's files."""

from __future__ import annotations

import urllib.parse
from importlib import resources

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from foxgeese.players.registry import PLAYER_NAMES
from foxgeese.tournaments.replay import asset, script_json
from foxgeese.web.games import seat_label, stored_seat
from foxgeese.web.server import Server, replay_title


def routes(server: Server) -> list[BaseRoute]:
    """The pages' routes."""
    page, not_found = server.page, server.not_found

    async def home(request: Request) -> Response:
        players = [name for name in PLAYER_NAMES if name not in ("human", "learned")]  # learned needs weights=
        config = server.page_config() | {
            "players": players,
            "games": [{"id": g["id"], "variant": g["variant"], "status": g["status"],
                       "seats": {side: seat_label(seat) for side, seat in g["seats"].items()}}
                      for g in reversed(server.store.games(limit=20))]}
        config["commands"] = server.commands.value
        body = (f"<script type=application/json id=fg-config>{script_json(config)}</script>"
                + resources.files("foxgeese.web").joinpath("static", "home.html").read_text(encoding="utf-8"))
        return page("play", body, ("/viewer/replay.js", "/static/home.js"))

    async def game_page(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        body = resources.files("foxgeese.web").joinpath("static", "game.html").read_text(encoding="utf-8")
        if game_id not in server.games:
            stored = server.store.game(game_id)
            if stored is None:
                return not_found(f"There is no game {game_id!r} on this server: the link may be mistyped, or the "
                                 "game was dropped from the store of past games (the oldest go first).")
            you = stored_seat(stored, request.query_params.get("seat", "")[:100])
            state = script_json(server.stored_view(stored, you))
            body = f"<script type=application/json id=fg-stored>{state}</script>" + body
        return page("game", body, ("/viewer/replay.js", "/static/game.js"))

    async def game_replay(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = server.games.get(game_id)
        record = game.record if game is not None else (server.store.game(game_id) or {}).get("record")
        if record is None:
            return not_found("No finished game with this link on this server.")
        return server.replay(record, title=replay_title(record), back_link=f"/game/{game_id}",
                             review=f"/analysis?game={urllib.parse.quote(game_id)}")

    async def viewer_asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("replay.js", "replay.css"):
            return Response("not found", status_code=404)
        media = "text/javascript" if name.endswith(".js") else "text/css"
        return Response(asset(name), media_type=media)

    return [
        Route("/", home),
        Route("/game/{game_id}", game_page),
        Route("/replay/game/{game_id}", game_replay),
        Route("/viewer/{name}", viewer_asset),
    ]
