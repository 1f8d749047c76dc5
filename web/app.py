"""`foxgeese serve`: Starlette routes and one WebSocket per open game page, over the real referee.

Pages are thin HTML shells; the state comes over the WebSocket as JSON (`WebGame.view`), the
board inside it as SVG from engine/svg.py. What a user can get wrong (an unknown link, a move
that is not legal, a seat already open elsewhere) is answered with a message in the page; the
server never stops for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import secrets
import sqlite3
import urllib.parse
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from foxgeese.engine import VARIANT_IDS, Move, Position
from foxgeese.engine.svg import board_svg
from foxgeese.engine.userinput import JsonInputError, load_json
from foxgeese.players.registry import PLAYER_NAMES
from foxgeese.protocol.record import GameRecord
from foxgeese.tournaments.replay import ReplayError, asset, replay_page, script_json
from foxgeese.web.actions import analysis_routes
from foxgeese.web.analysis import Coach, material
from foxgeese.web.games import (
    Commands,
    WebGame,
    WebGameError,
    interrupted_result,
    new_game,
    seat_label,
    stored_seat,
)
from foxgeese.web.live import TournamentFeed
from foxgeese.web.records import (
    MAX_KEPT_RECORD_BYTES,
    MAX_KEPT_RECORDS,
    MAX_RECORD_BYTES,
    RecordUploadError,
    checked_record,
)
from foxgeese.web.security import (
    CSRF_META,
    RateLimiter,
    RequestGuard,
    allowed_hosts,
    content_security_policy,
    read_body,
)
from foxgeese.web.store import GameStore, default_data_path

LIVE_POLL_S = 0.25
MAX_KEPT_GAMES = 500
MAX_NEW_GAME_BYTES = 16 << 10
NEW_GAMES_BURST = 10  # games a client may start at once ...
NEW_GAMES_PER_S = 0.2  # ... and then one every 5 seconds


@dataclass(eq=False)
class Viewer:
    """One open game page: its socket, its seat (None: watching) and how it draws the board."""

    websocket: WebSocket
    seat: Any
    flipped: bool = False


class Server:
    """What the routes share: the games, uploaded records, the followed tournament, the sockets."""

    def __init__(self, tournament_dir: Path | None = None, data_path: Path | None = None,
                 tables: str | None = None, commands: Commands = Commands.REFUSED) -> None:
        self.games: dict[str, WebGame] = {}
        # rematches of games only the store knows, by that game's id (oldest dropped first): a second
        # click, or the other player's, finds the game the first made
        self.stored_rematches: dict[str, dict[str, Any]] = {}
        self.store = GameStore(data_path or default_data_path(), max_records=MAX_KEPT_RECORDS,
                               max_record_bytes=MAX_KEPT_RECORD_BYTES)
        self.coach = Coach(tables)
        self.commands = commands
        self.csrf_token = secrets.token_urlsafe(32)  # per server: only its own pages carry it
        self.new_games = RateLimiter(NEW_GAMES_PER_S, NEW_GAMES_BURST)
        self.sockets: dict[str, set[Viewer]] = {}
        self.feed = TournamentFeed(tournament_dir) if tournament_dir is not None else None
        self.live_sockets: set[WebSocket] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    # -- pushing state ------------------------------------------------------------------------

    def notify(self, game: WebGame) -> None:
        """Called from any thread when a game changed: its browsers get the new state.

        Right after a person's move the push waits (at most `WebGame.HOLD_S`) for the AI's reply,
        so the page draws both at once instead of drawing twice in a row."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._schedule, game, game.hold_s())

    def _schedule(self, game: WebGame, delay_s: float) -> None:
        if delay_s > 0:
            assert self.loop is not None  # set by the app's lifespan before anything is scheduled
            self.loop.call_later(delay_s, self._schedule, game, 0.0)
        else:
            asyncio.ensure_future(self.push(game))

    async def push(self, game: WebGame) -> None:
        version = game.version
        if version == game.pushed:  # a held push after the state it waited for went out
            return
        game.pushed = version
        for viewer in list(self.sockets.get(game.id, ())):
            with contextlib.suppress(Exception):  # a socket closing right now: its handler tidies up
                await viewer.websocket.send_text(json.dumps(game.view(viewer.seat, viewer.flipped)))

    async def follow_tournament(self) -> None:
        assert self.feed is not None  # started only with a tournament to follow
        while True:
            if self.feed.poll() or not self.feed.version:
                message = json.dumps(self.feed.view())
                for websocket in list(self.live_sockets):
                    with contextlib.suppress(Exception):
                        await websocket.send_text(message)
            await asyncio.sleep(LIVE_POLL_S)

    def add_game(self, game: WebGame) -> None:
        if len(self.games) >= MAX_KEPT_GAMES:  # forget the oldest finished games
            for old in [g for g in self.games.values() if g.status == "over"][: len(self.games) // 4 or 1]:
                self.games.pop(old.id, None)
        self.games[game.id] = game
        game.save = self.save_game
        self.save_game(game)

    def save_game(self, game: WebGame) -> None:
        """Keeps the game in the store (from any thread); a store closed by a stopping server is no error."""
        with contextlib.suppress(sqlite3.ProgrammingError):
            self.store.save_game(game.snapshot())

    def stored_view(self, data: dict[str, Any], you: str = "") -> dict[str, Any]:
        """The game page's state for a game only the store knows (finished, or interrupted by a restart);
        `you` is the side of the seat whose link opened it (it may ask for a rematch)."""
        rematch = self.stored_rematches.get(data["id"], {})
        position = Position.from_text(data["position"])
        moves = data.get("moves", [])
        last = Move.parse(moves[-1]["move"]) if moves else None
        seats = {side: dict(seat, present=False) for side, seat in data["seats"].items()}
        return {"type": "state", "stored": True, "id": data["id"], "status": data["status"], "variant": data["variant"],
                "sides": data["sides"], "seats": seats, "you": you or None,
                "turn": position.variant.side_name(position.turn),
                "svg": board_svg(position, last_move=last),
                "legal": [], "clocks": data.get("clocks", {}), "running": None, "time_control": data["time_control"],
                "moves": moves, "result": data["result"], "position": data["position"], "material": material(position),
                "start": position.variant.start_position().text(),
                "replay": f"/replay/game/{data['id']}" if data.get("record") else "", "watch": f"/game/{data['id']}",
                "flipped": False, "takeback": False, "draws": False, "draw_offer": None, "draw_refused": None,
                "against_ai": False,
                "rematch": (rematch.get("links", {}).get(you, "") if you else
                            f"/game/{rematch['id']}" if rematch else "")}

    # -- pages ---------------------------------------------------------------------------------

    def csrf_meta(self) -> str:
        return f"<meta name={CSRF_META} content='{escape(self.csrf_token)}'>"

    def page(self, title: str, body: str, scripts: tuple[str, ...] = (), viewer: bool = False) -> HTMLResponse:
        """Every page of the server: its CSRF token, then /static/api.js (postJson) before `scripts`."""
        head = "<link rel=stylesheet href='/viewer/replay.css'>" if viewer else ""
        tags = "".join(f"<script src='{escape(src)}'></script>" for src in ("/static/api.js", *scripts))
        return HTMLResponse(
            "<!doctype html><html lang=en><head><meta charset=utf-8>"
            "<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>{escape(title)} · foxgeese</title>{self.csrf_meta()}"
            f"<link rel=icon href='data:,'><link rel=stylesheet href='/static/app.css'>{head}</head>"
            "<body><header class=top><a href='/' class=brand>foxgeese</a><nav><a href='/'>new game</a>"
            "<a href='/games'>past games</a><a href='/analysis'>analysis</a>"
            "<a href='/tournament'>tournament</a></nav></header>"
            f"<main>{body}</main>{tags}</body></html>"
        )

    def not_found(self, message: str) -> HTMLResponse:
        body = f"<div class='problem big'>{escape(message)}</div><p><a href='/'>Start a new game</a></p>"
        response = self.page("not found", body)
        response.status_code = 404
        return response

    def replay(self, record: dict[str, Any] | GameRecord, title: str = "", back_link: str = "",
               review: str = "") -> HTMLResponse:
        """The replay viewer's page (its scripts inline, as in the report file) with a nonce for its CSP;
        `review` is the address of the coach's review of this game, if it has one."""
        nonce = secrets.token_urlsafe(16)
        links = ((review, "review with the solver"),) if review else ()
        typed = record if isinstance(record, GameRecord) else GameRecord.from_dict(record)  # the web's are checked
        text = replay_page(typed, title=title, back_link=back_link, nonce=nonce, head=self.csrf_meta(), links=links)
        return HTMLResponse(text, headers={"content-security-policy": content_security_policy(nonce)})


def replay_title(record: dict[str, Any]) -> str:
    """`standard: fox player vs random` for a replay's heading (not the raw game id)."""
    bots = record.get("bots") or {}
    names = " vs ".join(f"{(seat or {}).get('name', side)}" for side, seat in bots.items())
    return f"{record.get('variant', 'game')}: {names}" if names else f"game {record.get('game_id', '')}"


def error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def failed(request: Request, problem: Exception) -> Response:
    """A bug of this server, still answered in JSON for the page to show (the log has the traceback)."""
    return error(f"the server failed on this request ({type(problem).__name__}); its log says more", 500)


def create_app(tournament_dir: Path | None = None, data_path: Path | None = None, tables: str | None = None, *,
               host: str = "127.0.0.1", extra_hosts: Sequence[str] = (),
               commands: Commands = Commands.REFUSED) -> Starlette:
    """The app for a server bound to `host`: browsers may call it by that name, by the loopback
    names when it answers on loopback, and by `extra_hosts`; `commands` rules `cmd:` seats; the
    store (`data_path`) keeps games, records and analyses; `tables` is the coach's endgame tables."""
    server = Server(tournament_dir, data_path, tables, commands)
    page, not_found = server.page, server.not_found

    async def home(request: Request) -> Response:
        players = [name for name in PLAYER_NAMES if name not in ("human", "learned")]  # learned needs weights=
        config = {"variants": list(VARIANT_IDS), "players": players,
                  "games": [{"id": g["id"], "variant": g["variant"], "status": g["status"],
                             "seats": {side: seat_label(seat) for side, seat in g["seats"].items()}}
                            for g in reversed(server.store.games(limit=20))]}
        config["commands"] = server.commands.value
        body = (f"<script type=application/json id=fg-config>{script_json(config)}</script>"
                + resources.files("foxgeese.web").joinpath("static", "home.html").read_text(encoding="utf-8"))
        return page("play", body, ("/viewer/replay.js", "/static/home.js"))

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
            game = new_game(data, server.notify, server.commands)
        except WebGameError as problem:
            return error(str(problem))
        server.add_game(game)
        links = {game.variant.side_name(side): f"/game/{game.id}?seat={seat.secret}"
                 for side, seat in game.seats.items() if seat.is_human}
        return JSONResponse({"id": game.id, "links": links, "watch": f"/game/{game.id}"})

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

    async def game_replay(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = server.games.get(game_id)
        record = game.record if game is not None else (server.store.game(game_id) or {}).get("record")
        if record is None:
            return not_found("No finished game with this link on this server.")
        return server.replay(record, title=replay_title(record), back_link=f"/game/{game_id}",
                             review=f"/analysis?game={urllib.parse.quote(game_id)}")

    async def upload_record(request: Request) -> Response:
        body = await read_body(request, MAX_RECORD_BYTES)
        if body is None:
            return error(f"not a game record: more than {MAX_RECORD_BYTES >> 20} MB", 413)
        try:
            record = await run_in_threadpool(checked_record, body)  # a long replay does not stop the games
        except RecordUploadError as problem:
            return error(str(problem))
        record_id = secrets.token_urlsafe(6)
        await run_in_threadpool(server.store.save_record, record_id, record)
        return JSONResponse({"url": f"/replay/record/{record_id}", "analysis": f"/analysis?record={record_id}"})

    async def record_replay(request: Request) -> Response:
        record = server.store.record(request.path_params["record_id"])
        if record is None:
            return not_found("No uploaded record with this link on this server (it keeps the last "
                             f"{server.store.limits['records']}); upload it again from the home page.")
        record_id = request.path_params["record_id"]
        return server.replay(record, title=replay_title(record), back_link="/",
                             review=f"/analysis?record={urllib.parse.quote(record_id)}")

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

    async def viewer_asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("replay.js", "replay.css"):
            return Response("not found", status_code=404)
        media = "text/javascript" if name.endswith(".js") else "text/css"
        return Response(asset(name), media_type=media)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.loop = asyncio.get_running_loop()
        follower = asyncio.ensure_future(server.follow_tournament()) if server.feed is not None else None
        try:
            yield
        finally:
            if follower is not None:
                follower.cancel()
            for game in server.games.values():
                game.shutdown()
            for game in server.games.values():
                with game.lock:
                    if game.status in ("waiting", "playing"):
                        game.status = "interrupted"
                        game.result = interrupted_result(len(game.moves))
                server.save_game(game)
            server.store.close()

    static = StaticFiles(directory=str(resources.files("foxgeese.web").joinpath("static")))
    app = Starlette(routes=[
        Route("/", home),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/game/{game_id}", game_page),
        WebSocketRoute("/ws/game/{game_id}", game_socket),
        Route("/replay/game/{game_id}", game_replay),
        Route("/api/records", upload_record, methods=["POST"]),
        Route("/replay/record/{record_id}", record_replay),
        Route("/tournament", tournament_page),
        WebSocketRoute("/ws/tournament", tournament_socket),
        Route("/tournament/games/{game_id}", tournament_replay),
        Route("/viewer/{name}", viewer_asset),
        *analysis_routes(server, page),
        Mount("/static", static, name="static"),
    ], lifespan=lifespan, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host, tuple(extra_hosts)), www_redirect=False),
        Middleware(RequestGuard, csrf_token=server.csrf_token),
    ], exception_handlers={Exception: failed})
    app.state.server = server
    return app
