"""`foxgeese serve`: Starlette routes and one WebSocket per open game page, over the real referee.

Pages are thin HTML shells; the state comes over the WebSocket as JSON (`WebGame.view`), the
board inside it as SVG from engine/svg.py. What a user can get wrong (an unknown link, a move
that is not legal, a seat already open elsewhere) is answered with a message in the page; the
server never stops for it.

The routes come in groups, one module per concern, each a function `routes(server) -> routes`
(`RouteGroup`): the pages, the game API, the in-game actions and the coach, the uploads, the live
tournament. Adding a group is one line in `ROUTE_GROUPS` (or `create_app(route_groups=...)`), and
every route of every group passes the one guard: Host (`TrustedHostMiddleware`), then
`security.RequestGuard` (Origin, CSRF token, CSP, body bounds); a route that starts games takes
its rate limit from `Server.new_games`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Protocol

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from foxgeese.web import game_api, live_routes, pages, uploads
from foxgeese.web.actions import analysis_routes
from foxgeese.web.botapi_routes import botapi_routes
from foxgeese.web.games import Commands, interrupted_result
from foxgeese.web.security import RequestGuard, allowed_hosts
from foxgeese.web.server import Server, failed

RouteGroup = Callable[[Server], Sequence[BaseRoute]]


class Addon(Protocol):
    """A part mounted into the server that also runs with it (the arena, web/arena/): its routes
    (behind the same guard), and what it starts and stops with the server's lifespan."""

    def routes(self, server: Server) -> Sequence[BaseRoute]: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

# The server's route groups, in order (a path in two groups goes to the first). A new group is
# one more line: a module whose `routes(server)` returns its Starlette routes.
ROUTE_GROUPS: tuple[RouteGroup, ...] = (
    pages.routes,
    game_api.routes,
    analysis_routes,
    uploads.routes,
    live_routes.routes,
    botapi_routes,  # the Bot API (web/botapi_routes.py): sets server.botapi, its hub
)


def create_app(tournament_dir: Path | None = None, data_path: Path | None = None, tables: str | None = None, *,
               host: str = "127.0.0.1", extra_hosts: Sequence[str] = (),
               commands: Commands = Commands.REFUSED, route_groups: Sequence[RouteGroup] = (),
               addons: Sequence[Addon] = ()) -> Starlette:
    """The app for a server bound to `host`: browsers may call it by that name, by the loopback
    names when it answers on loopback, and by `extra_hosts`; `commands` rules `cmd:` seats; the
    store (`data_path`) keeps games, records and analyses; `tables` is the coach's endgame tables;
    `route_groups` are mounted after `ROUTE_GROUPS`, behind the same guard; `addons` (the arena)
    add routes too and run with the server."""
    server = Server(tournament_dir, data_path, tables, commands)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.loop = asyncio.get_running_loop()
        follower = asyncio.ensure_future(server.follow_tournament()) if server.feed is not None else None
        for addon in addons:
            addon.start()
        try:
            yield
        finally:
            for addon in addons:
                await run_in_threadpool(addon.stop)
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
    groups = (*ROUTE_GROUPS, *route_groups, *(addon.routes for addon in addons))
    routes = [route for group in groups for route in group(server)]
    app = Starlette(routes=[*routes, Mount("/static", static, name="static")], lifespan=lifespan, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host, tuple(extra_hosts)), www_redirect=False),
        Middleware(RequestGuard, csrf_token=server.csrf_token),
    ], exception_handlers={Exception: failed})
    app.state.server = server
    return app
