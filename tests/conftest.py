"""Fixtures shared by test modules (each module keeps its own helpers), and the grouping that
keeps the suite's expensive shared set-ups built once under pytest-xdist."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tournament_support import comparable, scale_config

from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.runner import Runner

SHARED_SCOPES = ("module", "session")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that share a module- or session-scoped fixture of this suite (a Ray cluster, one
    Chromium, a played tournament, built tables) go to one xdist worker, so it is built once and
    not once per worker. Tests sharing any such fixture, even through other tests, form a group."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    shared_of = {}
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        keys = []
        for name in getattr(item, "fixturenames", ()):
            definitions = info.name2fixturedefs.get(name) if info else None
            if not definitions or definitions[-1].scope not in SHARED_SCOPES or not definitions[-1].baseid:
                continue  # not shared, or pytest's own (tmp_path_factory)
            scope = definitions[-1].scope
            keys.append(f"{name}" if scope == "session" else f"{item.module.__name__}.{name}")
        shared_of[item] = keys
        for key in keys[1:]:
            parent[root(key)] = root(keys[0])
    for item, keys in shared_of.items():
        if keys:
            item.add_marker(pytest.mark.xdist_group(root(keys[0])))


@pytest.fixture(scope="session")
def scale_reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The scaling tests' tournament played by one local worker: its directory and its games
    (seeds, moves, results), which every other executor and concurrency must reproduce."""
    folder = tmp_path_factory.mktemp("reference")
    out = folder / "out"
    Runner(load_config(scale_config(folder)), out, concurrency=1).run()
    return out, comparable(out)


@pytest.fixture
def short_tmp() -> Iterator[str]:
    """A fresh folder with a short path, for referees' ipc sockets (a path must fit in 107 bytes;
    pytest's tmp_path is longer under xdist, whose workers nest it one level deeper)."""
    folder = tempfile.mkdtemp(prefix="fg-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
