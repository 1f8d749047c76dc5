"""What `foxgeese serve` trusts: its own pages, and nothing a visitor or another site sends.

A page of any other site can make the user's browser send requests to 127.0.0.1 (a `text/plain`
POST needs no CORS preflight), and DNS rebinding lets it do so under its own name. So:

- `Host` must name this server (Starlette's `TrustedHostMiddleware`, `allowed_hosts`);
- every state-changing request needs an `Origin` of this server when it has one (browsers always
  send it), the per-server secret in `X-Foxgeese-Csrf` (written into every page, which a foreign
  page cannot read), and JSON as `application/json`;
- a WebSocket upgrade with a foreign `Origin` is refused before it is accepted;
- every response says what may run in it: a Content-Security-Policy with no inline scripts (a
  page that needs one gets a nonce), no framing, no MIME sniffing, no referrer (seat links carry
  secrets).

docs/web.md, "Security", says the same for users.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSRF_HEADER = "x-foxgeese-csrf"
CSRF_META = "foxgeese-csrf"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
BOT_API_PREFIX = "/api/bot/"  # the Bot API (web/botapi_routes.py): a bearer token, never the page's CSRF secret


def allowed_hosts(bound: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The `Host` names a browser may use for a server bound to `bound`: that address, the
    loopback names when the server answers on loopback, and the names the user gave."""
    names = [_host_name(bound)]
    try:
        address = ipaddress.ip_address(bound)
        on_loopback = address.is_loopback or address.is_unspecified
    except ValueError:  # a name such as localhost
        on_loopback = bound == "localhost"
    if on_loopback:
        names += LOOPBACK_NAMES
    names += [_host_name(name.strip()) for name in extra if name.strip()]
    return list(dict.fromkeys(name.lower() for name in names))


def _host_name(host: str) -> str:
    """A host as it appears in a `Host` header (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def content_security_policy(nonce: str = "") -> str:
    """Scripts only from this server's files (or with this response's nonce); never framed."""
    scripts = f"'self' 'nonce-{nonce}'" if nonce else "'self'"
    return ("default-src 'self'; "
            f"script-src {scripts}; "
            "style-src 'self' 'unsafe-inline'; "  # the SVG boards and the replay page style inline
            "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")


SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def same_origin(origin: str, host: str) -> bool:
    """An `Origin` header names the site the request's `Host` names (scheme http or https)."""
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == host.lower()


class RequestGuard:
    """ASGI middleware: Origin, CSRF secret and JSON for state changes; Origin for WebSockets;
    the security headers on every HTTP response. Host is checked before it (TrustedHostMiddleware),
    so comparing `Origin` with `Host` compares it with a name of this server."""

    def __init__(self, app: ASGIApp, csrf_token: str) -> None:
        self.app = app
        self.csrf_token = csrf_token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not same_origin(origin, headers.get("host", "")):
                await send({"type": "websocket.close", "code": 1008, "reason": "foreign origin"})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self.refused(scope)
        if problem is not None:
            status, message = problem
            await _json_error(status, message, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if "content-security-policy" not in headers:
                    headers["content-security-policy"] = content_security_policy()
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)

    def refused(self, scope: Scope) -> tuple[int, str] | None:
        """(status, why) for a state-changing request this server does not take, else None.

        The Bot API's requests carry a bearer token a page of another site cannot have (and cannot
        send without a CORS preflight this server never grants): they are checked for a foreign
        Origin, on every method, and their token by their route, instead of the CSRF secret and JSON."""
        if scope["path"].startswith(BOT_API_PREFIX):
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not same_origin(origin, headers.get("host", "")):
                return 403, "the Bot API takes no requests from pages of another site"
            return None
        if scope["method"] in SAFE_METHODS:
            return None
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is not None and not same_origin(origin, headers.get("host", "")):
            return 403, "this server takes requests only from its own pages, not from another site"
        if not secrets.compare_digest(headers.get(CSRF_HEADER, "").encode(), self.csrf_token.encode()):
            return 403, ("missing or wrong X-Foxgeese-Csrf header: send the token of a page of this server "
                         f"(<meta name={CSRF_META}>)")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, "send JSON with Content-Type: application/json"
        return None


async def _json_error(status: int, message: str, send: Send) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *[(name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()]]})
    await send({"type": "http.response.body", "body": body})


class RateLimiter:
    """A token bucket per client: `burst` requests at once, then one every `1 / rate_per_s`
    seconds. Keeps at most `max_clients` buckets (the least recently used are forgotten)."""

    def __init__(self, rate_per_s: float, burst: int, max_clients: int = 4096,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: OrderedDict[Any, tuple[float, float]] = OrderedDict()  # client: (tokens, at)

    def wait_s(self, client: Any) -> float:
        """Takes one token for `client`: 0.0 when it had one, else the seconds until it will."""
        now = self.clock()
        tokens, at = self._buckets.pop(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate_per_s)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate_per_s
        self._buckets[client] = (tokens, now)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait


async def read_body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it passes `limit` bytes (the rest is never read)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
