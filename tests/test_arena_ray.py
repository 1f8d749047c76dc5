"""The arena on a real Ray cluster of this machine: its workers are Ray actors (the tournaments' Ray
executor), a test is played to its end there, and every result names the node that played it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from foxgeese.web.arena.db import ArenaDB
from foxgeese.web.arena.routes import queue_test
from foxgeese.web.arena.service import Arena

ray = pytest.importorskip("ray", reason="the arena's Ray workers need Ray: pip install -e '.[test]'")
from ray_support import local_cluster  # noqa: E402  (after the skip)

pytestmark = pytest.mark.timeout(600)  # a cluster's start and its actors' bots, on a shared machine
WAIT_S = 300.0


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with local_cluster("fg-arena-ray-", {"num_cpus": 2}) as (made, folder):
        yield made


def test_the_arena_plays_a_test_on_ray_workers(cluster: Any, tmp_path: Path) -> None:
    bots = tmp_path / "bots"  # the folder shipped to the nodes: where cmd: bots would start
    bots.mkdir()
    arena = Arena(ArenaDB(tmp_path / "arena.sqlite3"), workers=2, ray_address=cluster.address, base_dir=bots,
                  log_dir=tmp_path / "logs", variants=("hare-and-hounds",), ladder_priority=0,
                  rungs=(("random", "random"), ("minimax-1", "minimax:depth=1")))
    arena.start()
    try:
        queue_test(arena, "minimax-1", "random", "hare-and-hounds", "pairs", elo0=0, elo1=0, alpha=0, beta=0,
                   pairs=3, priority=1.0)
        assert arena.wait_until(lambda: (arena.db.test(1) or {}).get("status") == "done", WAIT_S), \
            (arena.problem, arena.db.lines())
        workers = arena.db.workers()
        assert workers and all(w["kind"] == "ray" and w["place"].get("node") for w in workers), workers
        games = arena.db.games(test=1)
        assert len(games) == 6 and {g["worker"] for g in games} <= {w["id"] for w in workers}
        assert all(g["worker"].startswith("ray/") for g in games)
        assert arena.db.test(1)["verdict"].startswith("minimax-1 vs random: 3 pairs played: ")
    finally:
        arena.stop()
        arena.db.close()
