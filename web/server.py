"""What the web server's routes share: the `Server` (games, store, coach, sockets, the followed
tournament), its page shell and the answers every route group gives (`error`, `failed`).

Routes live in one module per concern (pages.py, game_api.py, actions.py for the in-game actions
and the coach, uploads.py, live_routes.py); app.py puts them together behind the one guard.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import sqlite3
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.websockets import WebSocket

from foxgeese.engine import VARIANT_IDS, Move, Position
from foxgeese.engine.svg import board_svg
from foxgeese.protocol.record import GameRecord
from foxgeese.tournaments.replay import replay_page
from foxgeese.web.analysis import Coach, material
from foxgeese.web.botapi import BotHub
from foxgeese.web.games import Commands, WebGame
from foxgeese.web.live import TournamentFeed
from foxgeese.web.pageconfig import PAGE_SCRIPTS, variants_element
from foxgeese.web.records import MAX_KEPT_RECORD_BYTES, MAX_KEPT_RECORDS
from foxgeese.web.security import CSRF_META, RateLimiter, content_security_policy
from foxgeese.web.store import GameStore, default_data_path

LIVE_POLL_S = 0.25
MAX_KEPT_GAMES = 500
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
        self.botapi: BotHub | None = None  # the Bot API's hub, set by botapi_routes (web/botapi_routes.py)

    # -- pushing state ------------------------------------------------------------------------

    def notify(self, game: WebGame) -> None:
        """Called from any thread when a game changed: its browsers get the new state.

        Right after a person's move the push waits (at most `Pushes.HOLD_S`) for the AI's reply,
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
        if not game.pushes.to_push():  # a held push after the state it waited for went out
            return
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

    def page_config(self) -> dict[str, Any]:
        """What every page's config (`fg-config`) starts with: the facts of the variants it offers."""
        return {"variants": list(VARIANT_IDS)}

    def csrf_meta(self) -> str:
        return f"<meta name={CSRF_META} content='{escape(self.csrf_token)}'>"

    def page(self, title: str, body: str, scripts: tuple[str, ...] = (), viewer: bool = False) -> HTMLResponse:
        """Every page of the server: its CSRF token, the variants' facts (web/pageconfig.py), then
        /static/api.js (postJson) and /static/variants.js before `scripts`."""
        head = "<link rel=stylesheet href='/viewer/replay.css'>" if viewer else ""
        scripts_html = "".join(f"<script src='{escape(src)}'></script>" for src in (*PAGE_SCRIPTS, *scripts))
        tags = variants_element() + scripts_html
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
