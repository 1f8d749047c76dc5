"""What a player does besides moving, and the coach's pages: the routes `app.py` adds.

In a game (`POST /api/game/ID/action`, the seat's secret in the body): resign, take back (against
an AI), offer, accept, decline or claim a draw (where the variant has draws), a hint (against an
AI) and a rematch with the roles swapped. The coach: `/analysis` (any position or a game's
review), `POST /api/analyse`, `POST /api/review`; `GET /api/board` draws one position (the game
page steps back through a live game with it); `/games` and `GET /api/past-games` list the games
the store keeps.
"""

from __future__ import annotations

import json
import math
import threading
from importlib import resources
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from foxgeese.engine import Game, Move, Position, Side
from foxgeese.engine.svg import board_svg
from foxgeese.engine.words import side_verb
from foxgeese.players.registry import make_player
from foxgeese.tournaments.replay import script_json
from foxgeese.web.analysis import DRAW, LOSS, REVIEW_FORMAT, UNKNOWN, WIN, Coach, material, unfinished
from foxgeese.web.games import WebGame, WebGameError, has_draws, new_game, seat_label, stored_seat
from foxgeese.web.security import read_body

if TYPE_CHECKING:
    from foxgeese.web.server import Server

MAX_POSITION_CHARS = 400
MAX_REVIEW_PLIES = 2000
MAX_REQUEST_BYTES = 16 << 10  # an action, a position or a review request is a small JSON object
MAX_STORED_REMATCHES = 500  # rematches of stored games remembered (a click finds the game the first made)
ACTIONS = ("resign", "takeback", "offer-draw", "accept-draw", "decline-draw", "claim-draw", "hint", "rematch")


def problem(text: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


async def json_object(request: Request) -> dict[str, Any] | None:
    """The body as a JSON object, or None (not JSON, not an object, or over MAX_REQUEST_BYTES).
    Origin, CSRF token and content type are checked before any route (web/security.py)."""
    body = await read_body(request, MAX_REQUEST_BYTES)
    if body is None:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def static_text(name: str) -> str:
    return resources.files("foxgeese.web").joinpath("static", name).read_text(encoding="utf-8")


class GameActions:
    """One seat's actions on one game; every answer is `{"ok": ...}` or `{"error": why}`."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.lock = threading.Lock()
        self.stored_rematches = server.stored_rematches

    def run(self, game: WebGame, secret: str, action: str) -> dict[str, Any]:
        seat = game.seat_by_secret(secret) if secret else None
        if seat is None:
            return {"error": "only a player's link can do that; you are watching"}
        if action not in ACTIONS:
            return {"error": f"unknown action; one of {', '.join(ACTIONS)}"}
        mine, theirs = game.variant.side_name(seat.side), game.variant.side_name(seat.side.other)
        opponent = game.seats[seat.side.other]
        if action == "resign":
            problem_text = game.end_by(theirs, "resignation", f"the {mine} resigned")
            return {"error": problem_text} if problem_text else {"ok": "you resigned"}
        if action == "takeback":
            problem_text = game.take_back(seat)
            return {"error": problem_text} if problem_text else {"ok": "your last move is taken back"}
        if action == "rematch":
            return self.rematch(game)
        if game.status != "playing":
            return {"error": "the game is not being played"}
        if action == "hint":
            if opponent.is_human:
                return {"error": "hints are for games against an AI"}
            return self.hint(game, seat.side)
        if not has_draws(game.variant):
            return {"error": f"{game.variant} has no draws: every game ends with a winner"}
        if action == "offer-draw":
            return self.offer_draw(game, seat.side)
        if action == "accept-draw":
            with game.lock:
                offered = game.draw_offer == seat.side.other
            if not offered:
                return {"error": "there is no draw offer to accept"}
            problem_text = game.end_by("draw", "agreement", "both players agreed to a draw")
            return {"error": problem_text} if problem_text else {"ok": "draw agreed"}
        if action == "decline-draw":
            with game.lock:
                if game.draw_offer != seat.side.other:
                    return {"error": "there is no draw offer to decline"}
                game.draw_offer, game.draw_refused = None, {"offer": theirs, "how": "declined"}
            game._changed()
            return {"ok": "draw declined"}
        # claim-draw: the tables prove the position drawn with best play
        with game.lock:
            position = game.game.position
        value = self.server.coach.value(position)
        if value.result != DRAW:
            known = "no table knows this position" if value.result == UNKNOWN else \
                f"the tables say {value.text()} for the side to move"
            return {"error": f"a draw can be claimed only where the tables prove it: {known}"}
        problem_text = game.end_by("draw", "adjudicated", f"the {mine} claimed a draw the tables prove")
        return {"error": problem_text} if problem_text else {"ok": "draw claimed"}

    def offer_draw(self, game: WebGame, side: Side) -> dict[str, Any]:
        """A draw offer. An AI answers at once by the tables, as an engine of a game site does: it
        accepts only a position the tables prove drawn; it plays on where they say it wins, where
        they say it loses (a lost position is its opponent's to win, not a draw to grant) and where
        no table knows the position. A person's offer stands until the other side has moved."""
        opponent = game.seats[side.other]
        if not opponent.is_human:
            with game.lock:
                position = game.game.position
            value = self.server.coach.value(position)
            ai_value = value if position.turn == side.other else value.for_parent()
            ai = game.variant.side_name(side.other)
            if ai_value.result == DRAW:
                problem_text = game.end_by("draw", "agreement", f"the {ai} accepted the draw offer")
                return {"error": problem_text} if problem_text else {"ok": "the AI accepts: draw"}
            why = {UNKNOWN: "no table knows this position", WIN: f"the tables say the {side_verb(ai, 'wins', 'win')}",
                   LOSS: f"the tables say the {side_verb(ai, 'loses', 'lose')}: the AI plays on"}[ai_value.result]
            return {"ok": f"the AI declines the draw ({why})"}
        with game.lock:
            if game.draw_offer is not None:
                return {"error": "a draw offer is already open"}
            game.draw_offer, game.draw_refused = side, None
        game._changed()
        until = side_verb(game.variant.side_name(side.other), "moves", "move")
        return {"ok": f"draw offered; it stands until the {until}", "offered": True}

    def hint(self, game: WebGame, side: Side) -> dict[str, Any]:
        with game.lock:
            if game.awaiting != side:
                return {"error": "a hint is for your own turn"}
            position, moves = game.game.position, [str(m) for m in game.game.moves]
        best = self.server.coach.best_move(position)
        if best is not None:
            move, value = best
            return {"ok": f"{move}: {value.text()} with best play", "move": move}
        player = make_player("minimax:depth=3")
        copy = Game(position.variant)
        for text in moves:
            copy.push(Move.parse(text))
        player.new_game(position.variant, position.turn)
        move = str(player.choose(copy, None).move)
        return {"ok": f"{move} (no table knows this position: a depth-3 search's choice)", "move": move}

    def rematch(self, game: WebGame) -> dict[str, Any]:
        with game.lock:
            if game.status not in ("over", "interrupted"):
                return {"error": "a rematch comes after the game"}
            if game.rematch is not None:
                return {"ok": "rematch", "links": game.rematch["links"]}
            request = dict(game.request)
        made = self._swapped_game(request, [game.variant.predator_name, game.variant.prey_name])
        if "error" in made:
            return made
        with game.lock:
            game.rematch = made
        game._changed()
        return {"ok": "rematch", "links": made["links"]}

    def stored_rematch(self, stored: dict[str, Any], secret: str) -> dict[str, Any]:
        """A rematch of a game only the store knows (finished before this server started): its
        seat's link (`seat_keys`) and its request are kept, so the same swapped game starts."""
        if not stored_seat(stored, secret):
            return {"error": "only a player's link can do that; you are watching"}
        if stored["status"] not in ("over", "interrupted"):
            return {"error": "a rematch comes after the game"}
        if not stored.get("request"):
            return {"error": "this game was stored by an older server, which kept no settings for a rematch"}
        with self.lock:  # two clicks at once make one rematch
            made = self.stored_rematches.get(stored["id"])
            if made is None:
                made = self._swapped_game(dict(stored["request"]), list(stored["sides"]))
                if "error" in made:
                    return made
                if len(self.stored_rematches) >= MAX_STORED_REMATCHES:
                    self.stored_rematches.pop(next(iter(self.stored_rematches)))
                self.stored_rematches[stored["id"]] = made
        return {"ok": "rematch", "links": made["links"]}

    def _swapped_game(self, request: dict[str, Any], sides: list[str]) -> dict[str, Any]:
        """Starts the game of `request` with its players' sides swapped: {"id", "links"} (each link
        keyed by the side its person played before), or {"error": why}."""
        players = request.get("players", {})
        request["players"] = {sides[0]: players.get(sides[1]), sides[1]: players.get(sides[0])}
        try:
            fresh = new_game(request, self.server.notify, self.server.commands, remote=self.server.botapi)
        except WebGameError as error:
            return {"error": str(error)}
        self.server.add_game(fresh)
        links = {}
        for side, seat in fresh.seats.items():
            if seat.is_human:  # the person who played the other side takes this one
                links[fresh.variant.side_name(side.other)] = f"/game/{fresh.id}?seat={seat.secret}"
        return {"id": fresh.id, "links": links}


def analysis_routes(server: Server) -> list[BaseRoute]:
    """The routes of the actions, the coach and the past games (a route group of app.py)."""
    page = server.page
    actions = GameActions(server)
    coach: Coach = server.coach

    async def game_action(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = server.games.get(game_id)
        stored = server.store.game(game_id) if game is None else None
        if game is None and stored is None:
            return problem("no game with this link is being played on this server", 404)
        data = await json_object(request)
        if data is None:
            return problem("send the action as a JSON object")
        action, secret = str(data.get("action", "")), str(data.get("seat", ""))
        if stored is not None and action != "rematch":
            return problem("this game is not being played on this server (it ended, or the server stopped); "
                           "a rematch is what is left")
        made = game.rematch if game is not None else server.stored_rematches.get(game_id)
        if action == "rematch" and made is None:  # a new game: the same per-client limit as /api/games
            wait_s = server.new_games.wait_s(request.client.host if request.client else "")
            if wait_s:
                return problem(f"too many new games from your address: wait {math.ceil(wait_s)} s and try again", 429)
        if game is None:
            assert stored is not None  # no game and nothing stored was answered 404 above
            answer = await run_in_threadpool(actions.stored_rematch, stored, secret)
        else:
            answer = await run_in_threadpool(actions.run, game, secret, action)
        return JSONResponse(answer, status_code=400 if "error" in answer else 200)

    async def analysis_page(request: Request) -> Response:
        params = request.query_params
        config = server.page_config() | {
            "position": params.get("position", "")[:MAX_POSITION_CHARS], "game": params.get("game", "")[:40],
            "record": params.get("record", "")[:40], "ply": params.get("ply", "")[:6]}
        body = (f"<script type=application/json id=fg-config>{script_json(config)}</script>"
                + static_text("analysis.html"))
        return page("analysis", body, ("/static/analysis.js",))

    async def analyse(request: Request) -> Response:
        data = await json_object(request)
        if data is None:
            return problem("send {\"position\": TEXT} as a JSON object")
        text = str(data.get("position", ""))[:MAX_POSITION_CHARS]
        try:
            position = Position.from_text(text)
            last = Move.parse(str(data["last"])) if data.get("last") else None
        except ValueError as error:
            return problem(f"position: {error}")
        answer = await run_in_threadpool(coach.analyse, position)
        answer["svg"] = board_svg(position, last_move=last, flipped=bool(data.get("flip")))
        return JSONResponse(answer)

    async def review(request: Request) -> Response:
        data = await json_object(request)
        if data is None:
            return problem("send {\"game\": ID} or {\"record\": ID} as a JSON object")
        game_id = str(data.get("game", ""))
        found = _game_moves(server, game_id, str(data.get("record", "")))
        if isinstance(found, str):  # the board shows the game's variant meanwhile (its start, not its moves)
            return JSONResponse({"error": found, "start": _game_start(server, game_id)}, status_code=404)
        key, start, moves, seats = found
        wrong = unfinished(start)
        if wrong:
            return problem(f"this game does not replay: {wrong}")
        cached = server.store.analysis(key) if key else None
        if cached is None or cached.get("plies_total") != len(moves) or cached.get("format") != REVIEW_FORMAT:
            try:
                cached = await run_in_threadpool(coach.review, start, moves, seats)
            except ValueError as error:
                return problem(f"this game does not replay: {error}")
            cached["plies_total"] = len(moves)
            if key:
                server.store.save_analysis(key, cached)
        return JSONResponse(cached)

    async def board(request: Request) -> Response:
        params = request.query_params
        try:
            position = Position.from_text(params.get("position", "")[:MAX_POSITION_CHARS])
            last = Move.parse(params["last"]) if params.get("last") else None
        except ValueError as error:
            return problem(f"position: {error}")
        return JSONResponse({"svg": board_svg(position, last_move=last, flipped=params.get("flip") == "1"),
                             "material": material(position)})

    async def games_page(request: Request) -> Response:
        config = server.page_config()
        body = f"<script type=application/json id=fg-config>{script_json(config)}</script>" + static_text("games.html")
        return page("past games", body, ("/static/games.js",))

    async def past_games(request: Request) -> Response:
        params = request.query_params
        rows = server.store.games(variant=params.get("variant", "")[:40], player=params.get("player", "")[:60],
                                  result=params.get("result", "")[:20])
        return JSONResponse({"games": [{"id": row["id"], "variant": row["variant"], "status": row["status"],
                                        "result": row["result"], "created": row["created"],
                                        "plies": len(row.get("moves", [])),
                                        "seats": {side: seat_label(seat) for side, seat in row["seats"].items()}}
                                       for row in rows]})

    return [
        Route("/api/game/{game_id}/action", game_action, methods=["POST"]),
        Route("/analysis", analysis_page),
        Route("/api/analyse", analyse, methods=["POST"]),
        Route("/api/review", review, methods=["POST"]),
        Route("/api/board", board),
        Route("/games", games_page),
        Route("/api/past-games", past_games),
    ]


def _game_start(server: Server, game_id: str) -> str:
    """The start position of a game of this server ('' when there is none with this id)."""
    game = server.games.get(game_id) if game_id else None
    if game is not None:
        return game.variant.start_position().text()
    data = server.store.game(game_id) if game_id else None
    try:
        return Position.from_text(data["position"]).variant.start_position().text() if data else ""
    except (KeyError, TypeError, ValueError):
        return ""


def _game_moves(server: Server, game_id: str, record_id: str) -> tuple[str, Position, list[str], dict[str, str]] | str:
    """(cache key, start, moves, {side: name}) of a game of this server or an uploaded record; else why not."""
    if record_id:
        record = server.store.record(record_id)
        if record is None:
            return "no uploaded record with this id"
        try:
            start = Position.from_text(record["start"])
            moves = [entry["move"] if isinstance(entry, dict) else str(entry) for entry in record["moves"]]
        except (KeyError, TypeError, ValueError) as error:
            return f"the record does not replay: {error}"
        seats = {side: (seat or {}).get("name", side) for side, seat in (record.get("bots") or {}).items()}
        return f"record:{record_id}", start, moves[:MAX_REVIEW_PLIES], seats
    game = server.games.get(game_id)
    data = game.snapshot() if game is not None else server.store.game(game_id)
    if data is None:
        return "no game with this id on this server"
    if data["status"] not in ("over", "interrupted"):
        return "the review comes when the game is over; the analysis board takes any position meanwhile"
    start = Position.from_text(data["position"]).variant.start_position()  # web games start at the start
    seats = {side: seat_label(seat) for side, seat in data["seats"].items()}
    return f"game:{game_id}", start, [m["move"] for m in data["moves"]], seats
