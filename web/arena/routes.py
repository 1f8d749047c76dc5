"""The arena's pages and JSON, mounted into `foxgeese serve` as an add-on (web/app.py's `addons`).

Pages are shells that draw themselves from JSON they poll (`/api/arena`, `/api/arena/test/N`), with
the first state written into the page so it shows at once. State changes (a new test, a person's
challenge) are JSON POSTs, which web/security.py's guard admits only from this server's own pages
(Origin, the CSRF header, JSON); Host is checked for every request. A person's challenge is an
ordinary web game (web/games.py) against the ladder bot: it is kept with the server's other games
under the person's name and never enters the arena's tables, so it counts for nothing but their
own history (`/api/arena/history?name=...`).
"""

from __future__ import annotations

import math
import time
from importlib import resources
from typing import Any

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from foxgeese.engine import DEFAULT_VARIANT, VARIANT_IDS, get_variant
from foxgeese.engine.userinput import JsonInputError, load_json, one_line
from foxgeese.protocol.timecontrol import TimeControl
from foxgeese.tournaments.replay import ReplayError, script_json
from foxgeese.web.arena import testqueue
from foxgeese.web.arena.db import ArenaError
from foxgeese.web.arena.service import Arena
from foxgeese.web.games import HUMAN, Commands, WebGameError, new_game
from foxgeese.web.security import RateLimiter, read_body

MAX_BODY = 4 << 10
CHALLENGES_PER_S = 0.2
CHALLENGE_BURST = 5
LIMITS = {"elo": 2000.0, "priority": 100.0, "pairs": 100_000}


class TestRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A test as the page's form (or a script) sends it."""

    first: str
    second: str
    variant: str = ""  # the arena's first ladder variant
    kind: str = "sprt"
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    pairs: int = 100
    priority: float = 1.0
    tc: str = ""


class ChallengeRequest(msgspec.Struct, forbid_unknown_fields=True):
    bot: str
    variant: str = DEFAULT_VARIANT
    side: str = ""  # the person's side name (fox/geese/...); '' the predator's
    name: str = ""
    tc: str = "300+5"


def add_test(arena: Arena, data: Any) -> int:
    """Checks a test request and queues it; ArenaError (the user's line) for anything wrong."""
    try:
        request = msgspec.convert(data, TestRequest)
    except msgspec.ValidationError as error:
        raise ArenaError(f"a test is a JSON object of first, second, variant, kind, ...: {error}") from None
    return queue_test(arena, request.first, request.second, request.variant, request.kind, elo0=request.elo0,
                      elo1=request.elo1, alpha=request.alpha, beta=request.beta, pairs=request.pairs,
                      priority=request.priority, tc=request.tc)


def queue_test(arena: Arena | Any, first: str, second: str, variant: str, kind: str, *, elo0: float, elo1: float,
               alpha: float, beta: float, pairs: int, priority: float, tc: str = "") -> int:
    """The one check of a test's fields (page, JSON and CLI alike), then the test queued."""
    db = arena.db
    variant = variant or arena.variants[0]
    for name in (first, second):
        bot = db.bot(name)
        if bot is None or bot["retired"]:
            known = ", ".join(b["name"] for b in db.bots()) or "none"
            raise ArenaError(f"no bot named {name!r} in the arena (registered: {known})")
        if variant not in bot["variants"]:
            raise ArenaError(f"bot {name!r} is not registered for {variant} (it plays {', '.join(bot['variants'])})")
    if first == second:
        raise ArenaError("a test needs two different bots")
    if variant not in VARIANT_IDS:
        raise ArenaError(f"unknown variant {variant!r}; known: {', '.join(VARIANT_IDS)}")
    if kind not in ("sprt", "pairs"):
        raise ArenaError(f"kind {kind!r}: give sprt (with elo0, elo1, alpha, beta) or pairs (with pairs)")
    if kind == "sprt":
        if not all(math.isfinite(v) and abs(v) <= LIMITS["elo"] for v in (elo0, elo1)) or elo1 <= elo0:
            raise ArenaError(f"SPRT bounds elo0 {elo0:g}, elo1 {elo1:g}: give elo0 < elo1, both within "
                             f"±{LIMITS['elo']:g} (pair-score Elo)")
        if not (0 < alpha < 0.5 and 0 < beta < 0.5):
            raise ArenaError(f"alpha {alpha:g}, beta {beta:g}: each must be between 0 and 0.5")
    elif not 1 <= pairs <= LIMITS["pairs"]:
        raise ArenaError(f"pairs {pairs}: give 1 to {LIMITS['pairs']} twin pairs")
    if not (math.isfinite(priority) and 0 < priority <= LIMITS["priority"]):
        raise ArenaError(f"priority {priority:g}: give a number above 0, at most {LIMITS['priority']:g}")
    try:
        control = str(TimeControl.parse(tc or arena.tc))
    except ValueError as error:
        raise ArenaError(f"time control {tc!r}: {error}") from None
    sprt = kind == "sprt"
    test_id = db.add_test(first, second, variant, kind, elo0=elo0 if sprt else None, elo1=elo1 if sprt else None,
                          alpha=alpha if sprt else None, beta=beta if sprt else None,
                          pairs=None if sprt else pairs, priority=priority, tc=control)
    if hasattr(arena, "wake"):
        arena.wake()
    return test_id


def overview(arena: Arena) -> dict[str, Any]:
    """What the arena page shows: each variant's leaderboard, the tests, the workers, the log."""
    db = arena.db
    tests = [{**test, "link": f"/arena/test/{test['id']}"} for test in db.tests()[:100]]
    recent = [{k: g[k] for k in ("id", "predator", "prey", "winner", "termination", "worker", "test")}
              for g in reversed(db.games(limit=12))]
    return {"type": "arena", "at": time.time(), "ladders": [arena.standings(v).to_json() for v in arena.variants],
            "bots": db.bots(), "tests": tests, "workers": db.workers(), "lines": db.lines(30), "recent": recent,
            "pairs": db.pair_counts(), "problem": arena.problem, "variants": list(arena.variants)}


def test_view(arena: Arena, test_id: int) -> dict[str, Any] | None:
    test = arena.db.test(test_id)
    if test is None:
        return None
    games = arena.db.games(test=test_id)
    shown = testqueue.figures(test, games)
    inflight = sum(1 for pair in arena.db.inflight() if pair["test"] == test_id)
    by_worker: dict[str, int] = {}
    for game in games:
        by_worker[game["worker"]] = by_worker.get(game["worker"], 0) + 1
    last = [{k: g[k] for k in ("id", "predator", "prey", "winner", "termination", "worker")} for g in games[-20:]]
    return {"type": "test", "test": test, "figures": shown, "inflight": inflight, "games_by_worker": by_worker,
            "games": last[::-1]}


def routes(server: Any, arena: Arena) -> list[BaseRoute]:
    """The arena's routes on `server` (web/app.py's Server: its pages, store and games)."""
    challenges = RateLimiter(CHALLENGES_PER_S, CHALLENGE_BURST)

    def shell(title: str, state: dict[str, Any], script: str) -> Response:
        html = resources.files("foxgeese.web").joinpath("static", "arena.html").read_text(encoding="utf-8")
        body = f"<script type=application/json id=fg-arena>{script_json(state)}</script>" + html
        return server.page(title, body, (script,))

    async def arena_page(request: Request) -> Response:
        return shell("arena", await run_in_threadpool(overview, arena), "/static/arena.js")

    async def arena_json(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(overview, arena))

    def test_id(request: Request) -> int | None:
        text = request.path_params["test_id"]
        return int(text) if text.isdigit() and len(text) < 12 else None

    async def test_page(request: Request) -> Response:
        number = test_id(request)
        view = await run_in_threadpool(test_view, arena, number) if number is not None else None
        if view is None:
            return server.not_found(f"There is no arena test {request.path_params['test_id']!r} on this server.")
        return shell(f"test {number}", view, "/static/arena_test.js")

    async def test_json(request: Request) -> Response:
        number = test_id(request)
        view = await run_in_threadpool(test_view, arena, number) if number is not None else None
        if view is None:
            return JSONResponse({"error": "no such test"}, status_code=404)
        return JSONResponse(view)

    async def game_replay(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        record = await run_in_threadpool(arena.db.record, game_id[:40])
        if record is None:
            return server.not_found(f"No arena game {game_id!r} on this server.")
        try:
            return server.replay(record, title=f"arena game {game_id}", back_link="/arena")
        except ReplayError as problem:
            return server.not_found(f"Arena game {game_id!r} does not replay: {problem}")

    async def json_body(request: Request) -> Any:
        body = await read_body(request, MAX_BODY)
        if body is None:
            raise ArenaError(f"send a small JSON object (at most {MAX_BODY >> 10} KB)")
        try:
            return load_json(body)
        except JsonInputError as problem:
            raise ArenaError(f"send a JSON object: {problem}") from None

    async def new_test(request: Request) -> Response:
        try:
            number = await run_in_threadpool(add_test, arena, await json_body(request))
        except ArenaError as problem:
            return JSONResponse({"error": str(problem)}, status_code=400)
        return JSONResponse({"id": number, "link": f"/arena/test/{number}"})

    async def challenge(request: Request) -> Response:
        client = request.client.host if request.client else ""
        wait_s = challenges.wait_s(client)
        if wait_s:
            return JSONResponse({"error": f"too many challenges from your address: wait {math.ceil(wait_s)} s"},
                                status_code=429)
        try:
            data = msgspec.convert(await json_body(request), ChallengeRequest)
            game = person_game(arena, server, data)
        except msgspec.ValidationError as error:
            return JSONResponse({"error": f"a challenge is a JSON object of bot, variant, side, name: {error}"},
                                status_code=400)
        except (ArenaError, WebGameError) as problem:
            return JSONResponse({"error": str(problem)}, status_code=400)
        server.add_game(game)
        seat = next(seat for seat in game.seats.values() if seat.is_human)
        return JSONResponse({"id": game.id, "link": f"/game/{game.id}?seat={seat.secret}"})

    async def history(request: Request) -> Response:
        name = one_line(request.query_params.get("name", ""))[:40].strip()
        if not name:
            return JSONResponse({"error": "give ?name=YOUR NAME"}, status_code=400)
        games = await run_in_threadpool(server.store.games, player=name, limit=200)
        mine = [{"id": g["id"], "status": g["status"], "winner": g.get("winner", ""), "result": g.get("result", ""),
                 "seats": {side: seat.get("name", "") for side, seat in g["seats"].items()},
                 "link": f"/game/{g['id']}"} for g in games if (g.get("request") or {}).get("arena")
                and any(seat.get("name") == name for seat in g["seats"].values())]
        return JSONResponse({"name": name, "games": mine})

    return [
        Route("/arena", arena_page),
        Route("/api/arena", arena_json),
        Route("/arena/test/{test_id}", test_page),
        Route("/api/arena/test/{test_id}", test_json),
        Route("/arena/game/{game_id}", game_replay),
        Route("/api/arena/tests", new_test, methods=["POST"]),
        Route("/api/arena/challenge", challenge, methods=["POST"]),
        Route("/api/arena/history", history),
    ]


def person_game(arena: Arena, server: Any, data: ChallengeRequest) -> Any:
    """A web game of a person against a ladder bot (see the module doc)."""
    bot = arena.db.bot(data.bot)
    if bot is None or bot["retired"] or data.variant not in bot["variants"]:
        raise ArenaError(f"no ladder bot {data.bot!r} for {data.variant}")
    if bot["kind"] == "remote":
        raise ArenaError(f"{data.bot} plays from elsewhere through the Bot API; challenge a bot the server runs")
    variant = get_variant(data.variant)
    sides = (variant.predator_name, variant.prey_name)
    person_side = data.side or sides[0]
    if person_side not in sides:
        raise ArenaError(f"side {data.side!r}: give {sides[0]} or {sides[1]}")
    bot_side = sides[1] if person_side == sides[0] else sides[0]
    commands = Commands.SANDBOXED if bot["kind"] == "cmd" and arena.sandbox else Commands.ALLOWED
    game = new_game({"variant": data.variant, "tc": data.tc, "players": {person_side: HUMAN, bot_side: bot["spec"]}},
                    server.notify, commands)
    person = one_line(data.name)[:40].strip() or "guest"
    for seat in game.seats.values():
        seat.name = person if seat.is_human else f"{bot['name']} (arena)"
    game.request["arena"] = bot["name"]
    return game


class ArenaAddon:
    """The arena as web/app.py's add-on: its routes, started and stopped with the server."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.server: Any = None

    def routes(self, server: Any) -> list[BaseRoute]:
        self.server = server
        return routes(server, self.arena)

    def start(self) -> None:
        self.arena.hub = getattr(self.server, "botapi", None)  # the Bot API's hub, where the server has one
        self.arena.start()

    def stop(self) -> None:
        self.arena.stop()
        self.arena.db.close()
