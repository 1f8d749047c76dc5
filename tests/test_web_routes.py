"""The web app's route groups (web/app.py): one module per concern, a new group one registration,
and every route of an added group behind the same guard as the app's own (Host, Origin, CSRF
token, JSON only, the security headers). Asked through the app's own ASGI entry, as a server would."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from foxgeese.web import app as web_app
from foxgeese.web.app import ROUTE_GROUPS, create_app
from foxgeese.web.security import CSRF_HEADER
from foxgeese.web.server import Server


def extra_group(server: Server) -> list[BaseRoute]:
    async def echo(request: Request) -> Response:
        return JSONResponse({"ok": server.csrf_token != "", "got": json.loads(await request.body())})

    return [Route("/api/extra", echo, methods=["GET", "POST"])]


def call(app: Any, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict[str, str]]:
    """One HTTP request through the ASGI app: (status, response headers)."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "path": path,
             "raw_path": path.encode(), "query_string": b"", "root_path": "", "scheme": "http",
             "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000),
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    sent: list[dict[str, Any]] = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}


def test_an_added_route_group_is_mounted_behind_the_one_guard(tmp_path: Path) -> None:
    app = create_app(data_path=tmp_path / "store.sqlite3", tables=str(tmp_path), route_groups=[extra_group])
    token = app.state.server.csrf_token
    try:
        assert "/api/extra" in {getattr(route, "path", "") for route in app.routes}
        good = {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000", CSRF_HEADER: token,
                "content-type": "application/json"}
        status, headers = call(app, "POST", "/api/extra", good, b"{}")
        assert status == 200 and "content-security-policy" in headers
        refused = [call(app, "POST", "/api/extra", dict(good, origin="http://attacker.example"), b"{}")[0],
                   call(app, "POST", "/api/extra", {k: v for k, v in good.items() if k != CSRF_HEADER}, b"{}")[0],
                   call(app, "POST", "/api/extra", dict(good, **{"content-type": "text/plain"}), b"{}")[0],
                   call(app, "POST", "/api/extra", dict(good, host="evil.example"), b"{}")[0]]
        assert refused == [403, 403, 415, 400]
    finally:
        app.state.server.store.close()


def test_the_app_is_its_route_groups_and_each_concern_has_a_module() -> None:
    modules = {group.__module__ for group in ROUTE_GROUPS}
    assert modules == {"foxgeese.web.pages", "foxgeese.web.game_api", "foxgeese.web.actions",
                       "foxgeese.web.uploads", "foxgeese.web.live_routes", "foxgeese.web.botapi_routes"}
    source = Path(web_app.__file__).read_text(encoding="utf-8")
    assert "async def " not in source.replace("async def lifespan", "")  # no route is defined in app.py
