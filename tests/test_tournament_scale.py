"""Tournaments on worker processes: the same games at any concurrency, a worker killed mid-game
costs only that game, the live event stream (file and ZeroMQ PUB) follows the journal."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import psutil
import zmq
from tournament_support import Background, comparable, events, first_move_of_a_game, scale_config, wait_for

from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.events import EventStream, encoded
from foxgeese.tournaments.executors import LocalExecutor, slot_cpus
from foxgeese.tournaments.journal import read_journal
from foxgeese.tournaments.runner import Runner
from foxgeese.tournaments.schedule import make_schedule
from foxgeese.tournaments.worker import EventBatches


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_same_games_at_concurrency_1_and_2_and_the_event_stream_follows_them(
        tmp_path: Path, scale_reference: tuple[Path, dict[str, Any]]) -> None:
    path = scale_config(tmp_path)
    two = tmp_path / "two"
    port = free_port()
    context = zmq.Context()
    subscriber = context.socket(zmq.SUB)
    subscriber.setsockopt(zmq.SUBSCRIBE, b"foxgeese.EVENT")
    subscriber.setsockopt(zmq.LINGER, 0)
    subscriber.connect(f"tcp://127.0.0.1:{port}")
    pinned: list[dict[int, set[int]]] = []

    def affinities(state: Any, entry: Any) -> None:  # while the workers (and their bots) live
        seen = {}
        for worker in psutil.Process().children():
            try:
                if "foxgeese.tournaments.worker" in " ".join(worker.cmdline()):
                    seen[worker.pid] = {cpu for p in [worker, *worker.children(recursive=True)]
                                        for cpu in p.cpu_affinity()}
            except psutil.Error:  # a worker with no game left ends, with its bots, as the runner goes on
                continue
        pinned.append(seen)

    try:
        Runner(load_config(path), two, concurrency=2, events_pub=f"tcp://127.0.0.1:{port}",
               listener=affinities).run()
        published = []
        while subscriber.poll(200):
            topic, body = subscriber.recv_multipart()
            published.append(json.loads(body))
    finally:
        subscriber.close()
        context.term()
    expected = scale_reference[1]  # played by one worker
    assert len(expected) == len(make_schedule(load_config(path).config)) == 24
    assert comparable(two) == expected  # seeds, moves and results, game by game
    assert len({game[0] for game in expected.values()}) == 24  # every game its own seed

    stream = events(two)
    assert [event["seq"] for event in stream] == list(range(1, len(stream) + 1))
    assert stream[0]["event"] == "tournament_started" and stream[-1]["event"] == "tournament_ended"
    assert stream[0]["games_total"] == 24 and stream[0]["players"] == ["h1", "h2", "rnd", "mcts"]
    assert stream[-1]["games_played"] == 24
    # The PUB socket carries the same objects (a late subscriber may miss the first few).
    assert published and published == stream[len(stream) - len(published):]
    kinds = Counter(event["event"] for event in stream)
    assert kinds["game_started"] == kinds["game_ended"] == kinds["standings"] == 24
    journal = {game.id: game for game in read_journal(two)}
    for game_id, game in journal.items():
        started = next(e for e in stream if e["event"] == "game_started" and e["game_id"] == game_id)
        assert started["seats"] == {side: seat.name for side, seat in game.record.bots.items()}
        assert started["opening"] == game.opening and started["seed"] == game.seed == game.record.seed
        assert started["worker"]["pid"] != os.getpid()  # played in a worker process
        moves = [e for e in stream if e["event"] == "move" and e["game_id"] == game_id]
        played = [m for m in game.record.moves if not m.book]
        assert [m["move"] for m in moves] == [m.move for m in played]
        assert [m["ply"] for m in moves] == list(range(len(game.opening) + 1, game.plies + 1))
        if moves:
            assert moves[-1]["position"] == game.record.final
            assert set(moves[-1]["clocks"]) == set(started["seats"])
        ended = next(e for e in stream if e["event"] == "game_ended" and e["game_id"] == game_id)
        assert (ended["winner"], ended["termination"], ended["plies"]) == (game.winner, game.termination,
                                                                          game.plies)
    # affinity auto: on a machine of two CPUs or more, each slot's worker, bots and all, on one CPU
    slot_cpus = {e["worker"]["slot"]: e["worker"].get("cpu") for e in stream if e["event"] == "game_started"}
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) >= 2:
        assert slot_cpus == {0: allowed[0], 1: allowed[1]}
        assert all(len(cpus) == 1 for seen in pinned for cpus in seen.values())
        assert {cpu for seen in pinned for cpus in seen.values() for cpu in cpus} == set(allowed[:2])
    else:
        assert set(slot_cpus.values()) == {None}
    last = [e for e in stream if e["event"] == "standings"][-1]
    assert sum(row["points"] for row in last["rows"]) == 24 and last["rows"][0]["score"] >= last["rows"][-1]["score"]


def test_a_worker_killed_mid_game_costs_that_game_only(tmp_path: Path,
                                                       scale_reference: tuple[Path, dict[str, Any]]) -> None:
    path = scale_config(tmp_path, delay=0.02)  # slow bots, the same moves
    out = tmp_path / "killed"
    background = Background(Runner(load_config(path), out, concurrency=2))
    victim = wait_for(lambda: first_move_of_a_game(out, 3, lambda worker: True), 90, "a game under way")
    worker = psutil.Process(victim["worker"]["pid"])
    bots = worker.children(recursive=True)
    assert bots, "the worker runs the game's bots"
    worker.send_signal(signal.SIGKILL)
    state = background.result()
    assert comparable(out) == scale_reference[1]  # the lost game was played again, the same
    counts = Counter(entry.id for entry in read_journal(out))
    assert set(counts.values()) == {1} and len(counts) == 24
    # The game the killed worker was playing (the one seen may have ended just before the kill).
    [(game_id, reason)] = state.lost
    assert f"worker process {worker.pid} killed by SIGKILL" in reason
    stream = events(out)
    assert [e["game_id"] for e in stream if e["event"] == "game_lost"] == [game_id]
    tries = [e["worker"]["pid"] for e in stream if e["event"] == "game_started" and e["game_id"] == game_id]
    assert len(tries) == 2 and tries[0] == worker.pid != tries[1]
    gone, alive = psutil.wait_procs(bots, timeout=10)
    assert not alive, f"bots of the killed worker still run: {alive}"


# `python -c THIS COMMAND...`: runs COMMAND with SIGINT at its default and not blocked.
_WITH_DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                        "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
                        "os.execv(sys.argv[1], sys.argv[1:])")


def test_ctrl_c_finishes_the_games_in_progress_and_a_rerun_plays_the_rest(tmp_path: Path) -> None:
    # Bots slow enough that the games left when one is seen under way outlast the signal's way
    # there on a loaded machine (at 0.02 s a move a CI run once saw the tournament end first).
    path = scale_config(tmp_path, delay=0.05, variants="standard", extra="concurrency: 2\n")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "foxgeese", "tournament", "run", str(path), "--out", str(out), "--quiet"]
    # A session of its own, so that the Ctrl-C below reaches the runner and its workers, as a
    # terminal's does, and nothing else; and SIGINT at its default, unblocked, as from a terminal
    # (a child inherits both, and what ran before in this pytest worker may have changed them).
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    inherited = f"SIGINT here: {signal.getsignal(signal.SIGINT)}, blocked here: {blocked}"
    runner = subprocess.Popen([sys.executable, "-c", _WITH_DEFAULT_SIGINT, *command], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for(lambda: first_move_of_a_game(out, 2, lambda worker: True), 90, "a game under way")
        os.killpg(runner.pid, signal.SIGINT)
        _, stderr = runner.communicate(timeout=90)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    assert runner.returncode == 130, f"{stderr} ({inherited})"
    assert "stopping after the games in progress (Ctrl-C again to abandon them)" in stderr
    stream = events(out)
    started = {e["game_id"] for e in stream if e["event"] == "game_started"}
    journaled = [entry.id for entry in read_journal(out)]
    assert sorted(journaled) == sorted(started) and len(journaled) < 12  # those under way finished
    assert not [e for e in stream if e["event"] == "game_lost"]
    assert stream[-1]["event"] == "tournament_ended" and stream[-1]["interrupted"]
    assert f"interrupted after {len(journaled)} of 12 games" in stderr
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    counts = Counter(entry.id for entry in read_journal(out))
    assert len(counts) == 12 and set(counts.values()) == {1}


def test_slots_get_a_cpu_each_only_while_they_fit(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5, 1, 3})
    assert slot_cpus(2) == [1, 3] and slot_cpus(3) == [1, 3, 5]
    assert slot_cpus(4) == [None] * 4  # more slots than CPUs: the OS places them
    for extra, affinity in (("", "auto"), ("affinity: off\n", "off")):
        loaded = load_config(scale_config(tmp_path, extra))
        executor = Runner(loaded, tmp_path / "out")._make_executor()
        assert isinstance(executor, LocalExecutor) and executor.affinity == affinity
        assert loaded.config.config_hash() == load_config(scale_config(tmp_path)).config.config_hash()


def test_move_events_travel_in_batches_that_go_when_urgent_flushed_or_closed() -> None:
    batches = EventBatches(delay_s=3600)  # so nothing goes for its age during the test
    taken: list[list[Any]] = []

    def send() -> None:
        while (batch := batches.take()) is not None:
            taken.append(batch)
            batches.sent(batch)

    sender = threading.Thread(target=send)
    sender.start()
    batches.put("m1")
    batches.put("m2")
    batches.put("pids", urgent=True)  # goes at once, with what waited before it
    wait_for(lambda: taken == [["m1", "m2", "pids"]], 10, "the urgent batch")
    batches.put("m3")
    batches.put("m4")
    batches.flush()  # returns once the sender is done with them
    assert taken[1:] == [["m3", "m4"]]
    batches.flush()  # nothing waiting: returns at once
    batches.put("m5")
    batches.close()  # what is left goes, then take() says the stream ended
    sender.join(10)
    assert not sender.is_alive() and taken[2:] == [["m5"]]


def test_an_event_encoded_by_its_worker_is_written_as_the_runner_writes_the_event_itself(tmp_path) -> None:
    move = {"event": "move", "game_id": "r0001", "ply": 3, "side": "fox", "move": "d5-e4",
            "position": "standard geese=13,sideways=0 geese e4 c1 1 0 3", "think_ms": 1,
            "clocks": {"fox": 10099, "geese": 10000}}
    with EventStream(tmp_path) as stream:
        stream.forward([move, encoded(move), {"event": "bare"}, encoded({"event": "bare"})])
    lines = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert [line["seq"] for line in lines] == [1, 2, 3, 4]
    for line in lines:
        line.pop("seq")
    assert lines[0] == lines[1] and lines[2] == lines[3] == {"event": "bare", "time": lines[0]["time"]}
    assert list(lines[1]) == ["event", "time", *list(move)[1:]]  # the documented order of the fields
