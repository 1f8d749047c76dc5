"""Fixtures shared by test modules (each module keeps its own helpers)."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import browser_missing, chrome, web_server
from tournament_support import comparable, scale_config

from foxgeese.engine import get_variant
from foxgeese.players.solver.retrograde import build_tables
from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.runner import Runner


def pytest_sessionstart(session: pytest.Session) -> None:
    """The compiled searches compiled (a fresh clone: over a minute of CPU for the alpha-beta) or
    loaded from numba's cache once per test process before any test, so no test's timed wait for a
    bot or a server holds the first compile (and no test's timeout counts it). On a fresh clone the
    xdist workers share the work: each compiles one search under a lock while the other compiles the
    other, then loads the one it waited for from the cache the first wrote. xdist's controller runs
    no tests and warms nothing."""
    worker = getattr(session.config, "workerinput", None)
    if worker is None and session.config.getoption("numprocesses", None):
        return
    from foxgeese.players import registry

    specs = ["minimax", "mcts"]
    odd = worker is not None and int(str(worker["workerid"]).removeprefix("gw") or 0) % 2 == 1
    where = hashlib.sha256(str(Path(registry.__file__).resolve()).encode()).hexdigest()[:12]  # one per checkout
    folder = Path(tempfile.gettempdir()) / f"foxgeese-warm-{where}"
    folder.mkdir(exist_ok=True)
    for spec in specs[::-1] if odd else specs:
        with open(folder / f"{spec}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            registry.warm(spec)


@pytest.fixture(scope="session")
def scale_reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The scaling tests' tournament played by one local worker: its directory and its games
    (seeds, moves, results), which every other executor and concurrency must reproduce."""
    folder = tmp_path_factory.mktemp("reference")
    out = folder / "out"
    Runner(load_config(scale_config(folder)), out, concurrency=1).run()
    return out, comparable(out)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """One default `foxgeese serve` for a module (starting one costs seconds on a busy machine):
    its base URL; stopped after the module."""
    with web_server() as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium for a module (skips where there is none), stopped after it."""
    if browser_missing():
        pytest.skip(browser_missing())
    with chrome() as driver:
        yield driver


@pytest.fixture(scope="session")
def four_geese_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The standard variant's endgame tables up to four geese (about a second to build; on each of
    its boards), built once for the tests that read them (readers may cache the Hare and Hounds
    solution there: the same for every one); a test that writes or breaks tables builds its own."""
    directory = tmp_path_factory.mktemp("four-geese-tables")
    build_tables(get_variant("standard"), 4, directory)
    build_tables(get_variant("standard", diagonals="alternating"), 4, directory)
    return directory


@pytest.fixture
def short_tmp() -> Iterator[str]:
    """A fresh folder with a short path, for referees' ipc sockets (a path must fit in 107 bytes;
    pytest's tmp_path is longer under xdist, whose workers nest it one level deeper)."""
    folder = tempfile.mkdtemp(prefix="fg-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
