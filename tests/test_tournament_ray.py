"""Tournaments on a real Ray cluster of several nodes on this machine (ray.cluster_utils.Cluster):
the same games as on local workers, an actor process killed mid-game, a node removed mid-game.
Every Ray process the test starts is gone when it ends."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from tournament_support import BOT, Background, comparable, events, first_move_of_a_game, scale_config, wait_for

from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.journal import read_journal
from foxgeese.tournaments.runner import Runner

ray = pytest.importorskip("ray", reason="the ray executor's tests need Ray: pip install -e '.[test]'")
from ray.cluster_utils import Cluster  # noqa: E402  (after the skip)
from ray_support import local_cluster, node_args  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[Cluster, str]]:
    """Two nodes of one CPU each: the head (which the runner connects to) and a worker node."""
    with local_cluster("fg-ray-", {"num_cpus": 1}) as (made, folder):
        made.add_node(num_cpus=1, **node_args(folder))
        yield made, folder


# Each test starts Ray actors, kills them and waits for Ray to notice, while the other xdist
# worker's tests share the machine: the module's bound is above the waits the tests make.
pytestmark = pytest.mark.timeout(300)
WAIT_S = 120  # for a game to be under way, then for the tournament to end


@pytest.fixture
def slow_config(tmp_path: Path, scale_reference: tuple[Path, dict[str, Any]]) -> tuple[Path, dict[str, Any]]:
    """The reference tournament with bots slowed down (the same moves), and its games."""
    return scale_config(tmp_path, delay=0.01), scale_reference[1]


def assert_each_game_once(directory: Path, games: int) -> None:
    counts = Counter(entry.id for entry in read_journal(directory))
    assert len(counts) == games and set(counts.values()) == {1}


def hold_bots(begun: dict[str, Any]) -> list[psutil.Process]:
    """Stops (SIGSTOP) the bots of the game `begun`: its actor's process tree. Its game waits."""
    bots = psutil.Process(begun["worker"]["pid"]).children(recursive=True)
    for bot in bots:
        bot.send_signal(signal.SIGSTOP)
    return bots


def take_down(made: Cluster, node: Any, begun: dict[str, Any]) -> None:
    """Removes `node` in the middle of the game `begun` as a machine going down would: its actor
    (the game's referee) dies at once, with nothing reported. Its bots are held first, then killed
    after it: dying first, they would be a crash for the referee to report (Ray's own removal kills
    a node's processes in no fixed order)."""
    bots = hold_bots(begun)
    psutil.Process(begun["worker"]["pid"]).kill()
    made.remove_node(node, allow_graceful=False)
    for bot in bots:
        try:
            bot.kill()
        except psutil.NoSuchProcess:
            pass


def test_ray_plays_the_same_games_and_replays_the_game_of_a_killed_actor(
        cluster: tuple[Cluster, str], slow_config: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    made, folder = cluster
    path, expected = slow_config
    out = tmp_path / "ray"
    background = Background(Runner(load_config(path), out, concurrency=2, ray_address=made.address))
    victim = wait_for(lambda: first_move_of_a_game(out, 2, lambda worker: True), WAIT_S, "a game under way")
    assert victim["worker"]["node"] and victim["worker"]["pid"] != os.getpid()
    os.kill(victim["worker"]["pid"], signal.SIGKILL)  # the actor's process, with its referee
    state = background.result(WAIT_S)
    assert comparable(out) == expected
    assert_each_game_once(out, len(expected))
    [(game_id, reason)] = state.lost  # the game of the killed actor (maybe the one after the victim)
    assert f"Ray actor {victim['worker']['pid']} " in reason
    stream = events(out)
    tries = [e["worker"]["pid"] for e in stream if e["event"] == "game_started" and e["game_id"] == game_id]
    assert len(tries) == 2 and tries[0] == victim["worker"]["pid"] != tries[1]
    assert stream[0]["executor"] == "ray" and stream[-1]["event"] == "tournament_ended"
    workers = [e["worker"] for e in stream if e["event"] == "game_started"]
    assert len({worker["node"] for worker in workers}) == 2  # both nodes played
    # The bots ran from the nodes' copies of the config's folder (Ray's runtime environment).
    assert all(worker["cwd"].startswith(folder) and "runtime_resources" in worker["cwd"] for worker in workers)
    assert not ray.is_initialized()  # the runner disconnected from the cluster it joined


def test_a_node_removed_mid_tournament_costs_its_game_only(
        cluster: tuple[Cluster, str], slow_config: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """It removes the cluster's worker node: the head is left alone."""
    made, folder = cluster
    path, expected = slow_config
    [doomed] = made.worker_nodes
    out = tmp_path / "ray"
    background = Background(Runner(load_config(path), out, concurrency=2, ray_address=made.address))
    on_doomed = lambda worker: worker["node"] == doomed.node_id  # noqa: E731
    begun = wait_for(lambda: first_move_of_a_game(out, 1, on_doomed), WAIT_S, "a game on the worker node")
    take_down(made, doomed, begun)
    state = background.result(WAIT_S)
    assert comparable(out) == expected
    assert_each_game_once(out, len(expected))
    lost = [game_id for game_id, _ in state.lost]
    assert lost, "the node was removed in the middle of a game"
    stream = events(out)
    for game_id in lost:  # each was under way on the removed node, then played again on the head
        tries = [e["worker"]["node"] for e in stream if e["event"] == "game_started" and e["game_id"] == game_id]
        assert tries[-2] == doomed.node_id and tries[-1] != doomed.node_id


def test_an_unreachable_ray_head_is_one_line_at_once(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = scale_config(tmp_path)
    done = subprocess.run([sys.executable, "-m", "foxgeese", "tournament", "run", str(path), "--out",
                           str(tmp_path / "out"), "--ray", f"127.0.0.1:{port}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"foxgeese: cannot reach the Ray cluster's head at 127.0.0.1:{port} "
                                        "(Connection refused); start it with `ray start --head` or check the address"]


def two_game_config(folder: Path) -> Path:
    """A tournament of two Hare and Hounds games of about two seconds (two slowed-down hash bots)."""
    (folder / "bots").mkdir(parents=True)
    shutil.copy(BOT, folder / "bots" / BOT.name)
    command = f'["{sys.executable}", "bots/{BOT.name}", "--seed", "1", "--delay", "0.1"]'
    path = folder / "two.yaml"
    path.write_text("\n".join(["name: two", "variants: [{id: hare-and-hounds}]", "players:",
                               f"  - {{name: a, command: {command}}}", f"  - {{name: b, command: {command}}}",
                               "games_per_pairing: 2", "time_control: 20+0.1", "seed: 5", ""]))
    return path


def test_a_game_lost_after_the_other_slots_ended_finds_their_room(
        cluster: tuple[Cluster, str], tmp_path: Path) -> None:
    """Two slots, two games. The worker node's game is held (its bots stopped) until the head's game
    ends and the head's slot, with nothing left to play, ends too; then the worker node is removed.
    The lost game's replay needs the CPU the ended slot held (its actor used to keep it until the
    run's end: the runner waited for ever)."""
    made, folder = cluster
    for node in list(made.worker_nodes):  # the head and one worker node: two CPUs, one a slot
        made.remove_node(node)
    doomed = made.add_node(num_cpus=1, temp_dir=f"{folder}/ray", node_ip_address="127.0.0.1")
    made.wait_for_nodes()
    out = tmp_path / "ray"
    background = Background(Runner(load_config(two_game_config(tmp_path)), out, concurrency=2,
                                   ray_address=made.address))
    begun = wait_for(lambda: first_move_of_a_game(out, 0, lambda worker: worker["node"] == doomed.node_id),
                     WAIT_S, "a game under way on the worker node")
    assert hold_bots(begun)  # the game waits (on a clock of 20 s)
    wait_for(lambda: any(e["event"] == "game_ended" for e in events(out)), WAIT_S, "the head's game to end")
    take_down(made, doomed, begun)
    state = background.result(WAIT_S)
    assert [game_id for game_id, _ in state.lost] == [begun["game_id"]]
    assert_each_game_once(out, 2)
    tries = [e["worker"]["node"] for e in events(out)
             if e["event"] == "game_started" and e["game_id"] == begun["game_id"]]
    assert tries[0] == doomed.node_id and tries[1] != doomed.node_id
