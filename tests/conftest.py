"""Fixtures shared by test modules (each module keeps its own helpers)."""

from __future__ import annotations

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


@pytest.fixture(scope="session", autouse=True)
def compiled_searches_ready() -> None:
    """The compiled searches compiled (a fresh clone: about a minute of CPU) or loaded from numba's
    cache once per test process before any test, so no test's timed wait for a bot or a server holds
    the first compile."""
    from foxgeese.players import registry

    for spec in ("minimax", "mcts"):
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
