"""A remote bot on the arena's ladder: registered with the Bot API (docs/botapi.md), connected from a
process of its own (`foxgeese bot remote`), it plays an arena test through the hub's bridge, which
the arena's local worker launches and its referee judges like any bot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_arena_web import arena_server, rows, wait_rows

from foxgeese.web.arena.db import ArenaDB

botapi_store = pytest.importorskip("foxgeese.web.botapi_store", reason="the Bot API (web/botapi.py) is not here")
pytestmark = pytest.mark.timeout(600)  # a server start, its worker's bots and a client, on a shared machine


def test_a_remote_bot_plays_an_arena_test_through_the_bot_api(tmp_path: Path) -> None:
    import subprocess

    data = tmp_path / "serve.sqlite3"
    db = ArenaDB(data)  # bots registered before the first start: no rungs are seeded
    for name, spec in (("random", "random"), ("far", "remote:far")):
        db.add_bot(name, spec, "remote" if spec.startswith("remote:") else "builtin", ["hare-and-hounds"])
    db.add_test("far", "random", "hare-and-hounds", "pairs", pairs=2, tc="30+1")
    db.close()
    registry = botapi_store.BotRegistry(data)
    token = tmp_path / "far.token"
    token.write_text(registry.register("far") + "\n")
    registry.close()
    with arena_server(tmp_path) as (base, _):
        client = subprocess.Popen([sys.executable, "-m", "foxgeese", "bot", "remote", "--server", base,
                                   "--token-file", str(token), "random"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        try:
            wait_rows(data, "SELECT status FROM arena_tests WHERE id = 1", lambda found: found[0][0] == "done")
        finally:
            client.terminate()
            client.wait(30)
    games = rows(data, "SELECT predator, prey, termination, forfeit, worker FROM arena_games WHERE test = 1")
    assert len(games) == 4 and {g[0] for g in games} == {"far", "random"}
    assert not [g for g in games if g[3]], games  # no forfeit: the remote bot answered every turn in time
