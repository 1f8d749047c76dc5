"""The Ray executor at the edges, on a real cluster of nodes on this machine: relative bot paths
from another current folder, a node whose `python` lacks the bots' dependencies, a node that
joins mid-tournament, more slots than CPUs, and addresses that are not a Ray head. One cluster
for the module (its head has one CPU and a Ray Client port); every Ray process is gone at the end."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tournament_support import BOT, Background, comparable, events, foxgeese_here, relative_config, wait_for

from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.journal import read_journal
from foxgeese.tournaments.ray_nodes import NodeHealth
from foxgeese.tournaments.report import game_entries
from foxgeese.tournaments.runner import Runner

ray = pytest.importorskip("ray", reason="the ray executor's tests need Ray: pip install -e '.[test]'")
from ray.cluster_utils import Cluster  # noqa: E402  (after the skip)
from ray_support import local_cluster, node_args  # noqa: E402

SMALL = {"object_store_memory": 100 * 1024 * 1024}  # beside ray_support.node_args


def python_folder(folder: Path, flags: str = "") -> str:
    """A folder whose `python` is this test's Python (with `flags`: `-S` makes it one without the
    installed packages, as on a machine where the bots' dependencies are missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "python"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" {flags} "$@"\n')
    program.chmod(0o755)
    return str(folder)


def with_path(folder: str) -> dict[str, str]:
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


class Head:
    """The module's cluster: `made` (ray.cluster_utils.Cluster), its folder, the good `python`."""

    def __init__(self, made: Cluster, folder: str, good: str, client_port: int) -> None:
        self.made, self.folder, self.good, self.client_port = made, folder, good, client_port

    def add_node(self, python: str) -> Any:
        """A node of one CPU whose bots find `python` on their PATH (its processes inherit it)."""
        saved = os.environ["PATH"]
        os.environ.update(with_path(python))
        try:
            return self.made.add_node(num_cpus=1, **node_args(self.folder), **SMALL)
        finally:
            os.environ["PATH"] = saved


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def head() -> Iterator[Head]:
    client_port = free_port()
    with local_cluster("fg-rn-", {"num_cpus": 1, "ray_client_server_port": client_port, **SMALL},
                       lambda folder: with_path(python_folder(Path(folder) / "good"))) as (made, folder):
        yield Head(made, folder, str(Path(folder) / "good"), client_port)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The relative-path tournament (bots run by the `python` on PATH) played locally, from its folder."""
    folder = tmp_path_factory.mktemp("relative")
    path = relative_config(folder / "cfg", python="python")
    out = folder / "out"
    Runner(load_config(path), out, concurrency=1).run()
    return path, comparable(out)


def nodes_of(directory: Path) -> Counter[str]:
    return Counter(game.worker.node for game in game_entries(read_journal(directory)))


def test_ray_plays_relative_paths_from_another_folder_quietly(head: Head, reference: tuple[Path, dict[str, Any]],
                                                               tmp_path: Path) -> None:
    """The CLI from another current folder: the same games as locally, and on the terminal only
    foxgeese's own lines (Ray's go to DIR/ray.log)."""
    path, expected = reference
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "foxgeese", "tournament", "run", str(path), "--out", str(out),
                           "--quiet", "--ray", head.made.address], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert comparable(out) == expected
    assert [line for line in done.stderr.splitlines() if not line.startswith("foxgeese: ")] == []
    assert (out / "ray.log").exists()
    assert set(nodes_of(out)) == {head.made.head_node.node_id}  # the journal names the machine


def test_a_node_whose_bots_cannot_start_is_taken_out_and_its_games_played_elsewhere(
        head: Head, reference: tuple[Path, dict[str, Any]], tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Also: more slots than CPUs play on what is free and say so (no wait, no exit 2)."""
    path, expected = reference
    broken = head.add_node(python_folder(tmp_path / "broken", "-S"))  # its `python` has no msgpack, no foxgeese
    try:
        out = tmp_path / "out"
        state = Runner(load_config(path), out, concurrency=3, ray_address=head.made.address).run()
    finally:
        head.made.remove_node(broken)
    assert comparable(out) == expected and not state.lost
    assert nodes_of(out) == Counter({head.made.head_node.node_id: len(expected)})
    said = capfd.readouterr().err.splitlines()
    lines = [line for line in said if "out of rotation" in line]
    assert len(lines) == 1
    assert f"({broken.node_id[:12]}) taken out of rotation: bot 'h1' and 'h2' failed their check there" in lines[0]
    for name in ("h1", "h2"):  # their logs came home
        [log] = (out / "logs").glob(f"check-*-{broken.node_id[:8]}-{name}.log")
        assert "ModuleNotFoundError: No module named 'msgpack'" in log.read_text() and str(log) in lines[0]
    assert ("foxgeese: the Ray cluster has room for 1 of the 3 game slots asked now (each needs 1 CPU); playing on 1, "
            "the others start when CPUs free up or nodes join") in said


def test_auto_concurrency_uses_a_node_that_joins_mid_tournament(head: Head, tmp_path: Path,
                                                                capfd: pytest.CaptureFixture[str]) -> None:
    path = relative_config(tmp_path / "cfg", python="python", delay=0.05, games=6)
    out = tmp_path / "out"
    background = Background(Runner(load_config(path), out, concurrency="auto", ray_address=head.made.address))
    wait_for(lambda: any(e["event"] == "move" for e in events(out)), 120, "the first game under way")
    joined = head.add_node(head.good)
    try:
        state = background.result(240)
    finally:
        head.made.remove_node(joined)
    played = nodes_of(out)
    assert played[joined.node_id] >= 1 and sum(played.values()) == state.scheduled
    assert f"joined on {socket.gethostname()} ({joined.node_id[:12]})" in capfd.readouterr().err


def test_a_forfeiting_bots_log_comes_home(head: Head, tmp_path: Path) -> None:
    (tmp_path / "crash.yaml").write_text(
        "name: crash\nvariants: [{id: standard}]\nplayers:\n"
        f'  - {{name: crash, command: ["{sys.executable}", "{BOT}", "--mode", "crash"]}}\n'
        '  - {name: rnd, spec: "random"}\ngames_per_pairing: 2\ntime_control: 20+0.1\n')
    out = tmp_path / "out"
    Runner(load_config(tmp_path / "crash.yaml"), out, ray_address=head.made.address).run()
    games = game_entries(read_journal(out))
    assert [game.termination for game in games] == ["crash", "crash"]
    for game in games:
        [(side, seat)] = [(side, seat) for side, seat in game.record.bots.items() if seat.name == "crash"]
        log = out / "logs" / f"{game.id}-{side}.log"
        assert seat.stderr == game.record.to_dict()["stderr"][side] == str(log)  # the record points home
        assert log.read_text().startswith("tournament bot: crashing on purpose in game ")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the name is the base class's
        pass


@pytest.fixture
def web_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_an_address_that_is_not_a_ray_head_is_one_line(head: Head, web_server: int, tmp_path: Path) -> None:
    path = relative_config(tmp_path)
    hint = "give the head's GCS address HOST:PORT (port 6379 unless `ray start --head --port` said otherwise)"
    cases = {
        f"127.0.0.1:{web_server}": f"127.0.0.1:{web_server} is not a Ray head: a web server (it answered 'HTTP/1.0 "
                                   f"200 OK', server 'SimpleHTTP/0.6 Python/{sys.version.split()[0]}'); {hint}",
        f"127.0.0.1:{head.client_port}": f"127.0.0.1:{head.client_port} is not a Ray head: it speaks gRPC but has "
                                         f"no Ray GCS (the Ray Client port, 10001, is such a one); {hint}",
        f"ray://127.0.0.1:{head.client_port}": f"Ray address 'ray://127.0.0.1:{head.client_port}': Ray Client "
                                               f"(ray://) is not supported, as games stream their moves back; {hint}",
    }
    for address, line in cases.items():
        done = foxgeese_here("tournament", "run", str(path), "--out", str(tmp_path / "out"), "--ray", address)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"foxgeese: {line}\n")
        assert not (tmp_path / "out").exists()


def test_a_node_forfeiting_far_more_than_the_others_is_anomalous() -> None:
    health = NodeHealth(None)
    fine = GameEntry(id="r1", twin="r2", variant="standard", options={}, predator="h1", prey="h2", opening=[],
                     winner="draw", predator_score=0.5, termination="max-plies", reason="", plies=40)
    lost = msgspec.structs.replace(fine, winner="geese", predator_score=0.0, termination="no-show", forfeit="h1")
    for _ in range(8):
        assert health.count("good", fine) is None
    verdicts = [health.count("bad", lost) for _ in range(4)]
    assert verdicts[:3] == [None] * 3 and verdicts[3] == "4 of its 4 games were forfeits, against 0% on the other nodes"
    for _ in range(4):  # a bot that forfeits everywhere alike is the bot's fault, not a node's
        assert health.count("good", lost) is None
