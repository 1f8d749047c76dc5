"""The Bot API's hub on its own (web/botapi.py), on a real event loop: challenges from another
thread reach the bot's event stream and its answers reach the server; revoking a bot ends its
streams at once; a seat's bridge environment names the hub and a key good for that bot only."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from foxgeese.protocol.botapi_bridge import ENV_HUB, ENV_KEY
from foxgeese.protocol.botconfig import BotConfig, BotSpecError
from foxgeese.web.app import create_app
from foxgeese.web.botapi import BotHub
from foxgeese.web.botapi_store import BotApiError

DETAILS = {"variant": "standard", "options": {"geese": 13, "sideways": False}, "side": "geese",
           "timeControl": {"baseMs": 60000, "incrementMs": 1000, "perMoveMs": 0}, "from": "arena"}


def test_challenges_reach_the_bot_and_its_answers_the_server(tmp_path: Path) -> None:
    async def main() -> None:
        hub = BotHub(tmp_path / "db.sqlite3")
        hub.bind_loop()
        hub.register("alpha")
        chunks, close = hub.event_stream("alpha")
        assert hub.online("alpha") and not hub.online("beta")
        accepted: list[object] = []
        challenge = await asyncio.to_thread(hub.challenge, "alpha", DETAILS, accepted.append)  # the arena's thread
        assert json.loads(await anext(chunks)) == {"type": "challenge", "challenge": {"id": challenge.id, **DETAILS}}
        assert "no open challenge" in hub.answer("beta", challenge.id, True)  # not another bot's to take
        assert hub.answer("alpha", challenge.id, True) == ""
        assert challenge.answer.result(timeout=0) == "accepted" and accepted == [challenge]
        assert "answered already" in hub.answer("alpha", challenge.id, True)
        second = hub.challenge("alpha", DETAILS, accepted.append)
        assert json.loads(await anext(chunks))["challenge"]["id"] == second.id
        assert hub.answer("alpha", second.id, False) == "" and second.answer.result(timeout=0) == "declined"
        assert accepted == [challenge]
        hub.challenge_s = 0.01
        third = hub.challenge("alpha", DETAILS)
        assert await asyncio.wrap_future(third.answer) == "expired"
        with pytest.raises(BotApiError, match="no remote bot named 'nobody'"):
            hub.challenge("nobody", DETAILS)
        assert await asyncio.to_thread(hub.revoke, "alpha")
        rest = [chunk async for chunk in chunks]  # the stream ends at once, not at its next beat
        assert all(json.loads(chunk)["type"] == "challenge" for chunk in rest)
        close()
        assert not hub.online("alpha") and hub.registry.name_for("x") is None
        hub.registry.close()

    asyncio.run(main())


def test_a_seat_gets_its_bridge_with_a_key_for_that_bot_only(tmp_path: Path) -> None:
    hub = BotHub(tmp_path / "db.sqlite3")
    with pytest.raises(BotApiError, match="does not know its own address"):
        hub.bot_config("alpha")
    hub.base_url = "http://127.0.0.1:8000"
    with pytest.raises(BotApiError, match="no remote bot named 'alpha' is registered"):
        hub.bot_config("alpha")
    token = hub.register("alpha")
    config = hub.bot_config("alpha")
    env = config.environment()
    assert config.name == "remote:alpha" and config.command[-3:] == ("-m", "foxgeese.protocol.botapi_bridge", "alpha")
    assert env[ENV_HUB] == "http://127.0.0.1:8000" and env[ENV_KEY] != token and token not in str(config.to_json())
    other = hub.bot_config("alpha").environment()[ENV_KEY]
    assert other != env[ENV_KEY]  # a key per seat
    with pytest.raises(PermissionError):
        hub.announce("not-a-key", {})
    hub.registry.close()


def test_a_remote_spec_outside_a_server_says_who_seats_it() -> None:
    with pytest.raises(BotSpecError, match="is a bot of a server's Bot API: only that server seats it"):
        BotConfig.from_spec("remote:alpha")


def test_the_bridge_routes_answer_this_machine_only(tmp_path: Path) -> None:
    """A connection from the server's own address (a --public server's bridges) is let through to
    the key check; one from any other address is refused before it."""
    app = create_app(data_path=tmp_path / "db.sqlite3", tables=str(tmp_path), host="10.0.0.1")

    async def post(client: str) -> tuple[int, dict]:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "path": "/api/bot/bridge/games", "raw_path": b"/api/bot/bridge/games",
                 "query_string": b"", "root_path": "", "client": (client, 40000), "server": ("10.0.0.1", 8000),
                 "headers": [(b"host", b"10.0.0.1:8000"), (b"authorization", b"Bearer not-a-key"),
                             (b"content-type", b"application/json")]}
        sent: list[dict] = []
        bodies = [{"type": "http.request", "body": b"{}", "more_body": False}]

        async def receive() -> dict:
            return bodies.pop(0) if bodies else {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        await app(scope, receive, send)
        status = next(m["status"] for m in sent if m["type"] == "http.response.start")
        return status, json.loads(b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))

    assert asyncio.run(post("10.0.0.9")) == (403, {"error": "the bridge's routes answer on this machine only"})
    assert asyncio.run(post("10.0.0.1")) == (403, {"error": "unknown seat key"})
    assert asyncio.run(post("127.0.0.1")) == (403, {"error": "unknown seat key"})
    app.state.server.botapi.registry.close()
    app.state.server.store.close()
