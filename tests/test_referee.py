"""Referee endings with real bot processes on real ZeroMQ sockets.

Each misbehaving bot is tests/bots/scripted_bot.py in some --mode. After every bad game the other
bot must have been sent game_over, and the same Referee must still play a normal game to the end.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from foxgeese.engine import Side, get_variant
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.record import GameRecord, RefereeTermination, load_record
from foxgeese.protocol.referee import Referee, RefereeConfigError
from foxgeese.tournaments.replay import replay_data

SCRIPTED = str(Path(__file__).parent / "bots" / "scripted_bot.py")
HH = get_variant("hare-and-hounds")
RULE_ENDINGS = {"captured", "escaped", "stalling", "fifty-moves", "repetition", "trapped", "immobilized"}
NORMAL_TC = "5+0.1"


def scripted(mode: str = "normal", *extra: str, name: str | None = None) -> BotConfig:
    return BotConfig(name or mode, [sys.executable, SCRIPTED, "--mode", mode, *extra])


def count_received(path: str, kind: str) -> int:
    try:
        return Path(path).read_text().count(f"recv {kind}")
    except FileNotFoundError:
        return 0


def child_command_lines() -> list[str]:
    lines = []
    for child in psutil.Process().children():
        try:
            lines.append(" ".join(child.cmdline()))
        except psutil.Error:  # ended meanwhile
            pass
    return lines


def wait_for(condition, timeout_s: float = 10.0) -> bool:
    """Polls a condition on another process's files (there is nothing to block on)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


@pytest.fixture(scope="module")
def referee(tmp_path_factory):
    with Referee(log_dir=str(tmp_path_factory.mktemp("logs")), ready_timeout_s=1.0, kill_grace_s=0.3) as ref:
        yield ref


HARE = scripted("normal", "--seed", "11", name="steady-hare")


def play_normal(referee: Referee) -> GameRecord:
    record = referee.play_game(HH, {Side.PREDATOR: HARE, Side.PREY: scripted("normal", "--seed", "5")}, NORMAL_TC)
    assert record.termination in RULE_ENDINGS, record.result_line()
    assert record.plies == len(record.moves) > 0
    return record


CASES = [
    # mode, extra args, time control, termination, words in reason
    ("crash", ["--after", "2"], NORMAL_TC, RefereeTermination.CRASH, "exited with status 3"),
    ("hang", ["--after", "2"], "move=0.5", RefereeTermination.TIME_FORFEIT, "took over 550 ms"),
    ("slow", ["--after", "2", "--sleep", "1.0"], "move=0.5", RefereeTermination.TIME_FORFEIT, "took over 550 ms"),
    ("garbage", ["--after", "2"], NORMAL_TC, RefereeTermination.PROTOCOL_ERROR, "not valid msgpack"),
    ("wrong-types", ["--after", "2"], NORMAL_TC, RefereeTermination.PROTOCOL_ERROR,
     "field request_id: expected msgpack int, got msgpack str"),
    ("oversize", ["--after", "2"], NORMAL_TC, RefereeTermination.PROTOCOL_ERROR, "over the 65536-byte cap"),
    ("old-request", ["--after", "2"], NORMAL_TC, RefereeTermination.PROTOCOL_ERROR, "answers request 2"),
    ("wrong-game", ["--after", "2"], NORMAL_TC, RefereeTermination.PROTOCOL_ERROR, "names game 'some-other-game'"),
    ("illegal", ["--after", "2"], NORMAL_TC, RefereeTermination.ILLEGAL_MOVE, "'a1-g7'"),
    ("resign", ["--after", "2"], NORMAL_TC, RefereeTermination.RESIGNATION, "hounds resigned"),
    ("wrong-token", [], NORMAL_TC, RefereeTermination.NO_SHOW, "hounds (wrong-token): refused: wrong token"),
    ("bad-version", [], NORMAL_TC, RefereeTermination.NO_SHOW, "protocol version 1 is not supported"),
]


@pytest.mark.parametrize("mode,extra,tc,termination,words", CASES, ids=[case[0] for case in CASES])
def test_referee_ending_then_a_normal_game(referee, mode, extra, tc, termination, words):
    hounds = scripted(mode, "--seed", "3", *extra)
    record = referee.play_game(HH, {Side.PREDATOR: HARE, Side.PREY: hounds}, tc, game_id=f"bad-{mode}")
    assert record.termination == termination.value, record.result_line()
    assert record.winner == "hare"
    assert words in record.reason
    expected_plies = 0 if termination == RefereeTermination.NO_SHOW else 2
    assert record.plies == expected_plies == len(record.moves)
    # The hare (which did nothing wrong) was told the game is over.
    hare_log = record.bots["hare"].stderr
    assert hare_log and wait_for(lambda: count_received(hare_log, f"game_over bad-{mode}") == 1)
    # The record survives a round trip through JSON.
    assert GameRecord.from_json(record.to_json()) == record
    play_normal(referee)


def test_a_game_started_with_given_clocks_runs_on_them(referee):
    """A game played on from a kept position (a takeback) starts with the clocks it had there, not
    the time control's: the bots are judged by them and the record says so."""
    seen: list[dict[str, int]] = []
    record = referee.play_game(HH, {Side.PREDATOR: HARE, Side.PREY: scripted("normal", "--seed", "5")}, "60+0",
                               opening=["b1-b2"], clocks={Side.PREDATOR: 2_500, Side.PREY: 1_500}, max_plies=3,
                               on_move=lambda event: seen.append(event.clocks))
    assert record.start_clocks == {"hare": 2_500, "hounds": 1_500}
    assert record.moves[0].book and 0 < record.moves[1].clock_ms <= 2_500  # the hare moved on its 2.5 s
    assert seen[0]["hounds"] == 1_500 and seen[1]["hare"] == record.moves[1].clock_ms
    assert 0 < seen[1]["hounds"] <= 1_500
    assert replay_data(record)["plies"][0]["clocks"] == {"hare": 2_500, "hounds": 1_500}  # a replay too
    slow = scripted("slow", "--after", "1", "--sleep", "1.0")  # within 60 s, not within the 300 ms it has left
    record = referee.play_game(HH, {Side.PREDATOR: HARE, Side.PREY: slow}, "60+0", clocks={Side.PREY: 300})
    assert record.termination == "time-forfeit" and "took over 350 ms" in record.reason, record.result_line()
    assert record.start_clocks == {"hounds": 300}
    with pytest.raises(RefereeConfigError, match="starting clocks are for Fischer time controls"):
        referee.play_game(HH, {Side.PREDATOR: HARE, Side.PREY: HARE}, "move=1", clocks={Side.PREY: 300})
    with pytest.raises(RefereeConfigError, match="whole milliseconds from 1"):
        referee.play_game(HH, {Side.PREDATOR: HARE, Side.PREY: HARE}, "5+0", clocks={Side.PREY: 0})


def test_protocol_error_bot_is_told_why(referee):
    record = referee.play_game(HH, {Side.PREDATOR: HARE, Side.PREY: scripted("garbage", "--after", "1")}, NORMAL_TC)
    assert record.termination == "protocol-error"
    log = record.bots["hounds"].stderr
    why = "hounds: not valid msgpack"
    assert wait_for(lambda: count_received(log, f"error - {why}") == 1
                    and count_received(log, f"game_over {record.game_id} {why}") == 1)


def test_no_hello_is_a_no_show_and_the_silent_bot_is_killed(tmp_path):
    with Referee(log_dir=str(tmp_path), hello_timeout_s=1.0) as referee:
        # The hounds connect in a first game, so that only the silent bot meets the short timeout.
        referee.hello_timeout_s = 30.0
        play_normal(referee)
        referee.hello_timeout_s = 1.0
        silent = scripted("no-hello")
        record = referee.play_game(HH, {Side.PREDATOR: silent, Side.PREY: scripted("normal", "--seed", "5")},
                                   NORMAL_TC)
        assert record.termination == "no-show" and record.winner == "hounds"
        assert "no hello within 1s" in record.reason  # the 1 s hello timeout, not the 30 s one, ended it
        assert wait_for(lambda: count_received(record.bots["hounds"].stderr, f"game_over {record.game_id}") == 1)
        # The silent bot was killed and reaped as its game ended; the two others wait for more games.
        assert not [line for line in child_command_lines() if "no-hello" in line]
        assert len(referee.processes()) == 2
        pids = [p.pid for p in referee.processes()]
        play_normal(referee)
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in pids)


def test_hung_bot_is_killed_and_restarted_before_its_next_game(referee):
    hung = scripted("hang", "--after", "1", name="hung")
    record = referee.play_game(HH, {Side.PREDATOR: hung, Side.PREY: scripted("normal")}, "move=0.5")
    assert record.termination == "time-forfeit" and record.winner == "hounds"
    (old,) = [p for p in referee.processes() if p.config == hung]
    assert old.alive()  # it is hanging, not dead
    # Its next game: it does not answer new_game, so the referee kills its group and starts it anew.
    record = referee.play_game(HH, {Side.PREDATOR: hung, Side.PREY: scripted("normal")}, "move=0.5")
    assert not old.alive() and old.returncode == -signal.SIGTERM
    # The hounds, ready at once, were told about the game once although the hare's seat was retried.
    hounds_log = record.bots["hounds"].stderr
    assert wait_for(lambda: count_received(hounds_log, f"game_over {record.game_id}") == 1)
    assert count_received(hounds_log, f"new_game {record.game_id}") == 1
    assert record.termination == "time-forfeit"  # the new process hangs on its first turn too
    (new,) = [p for p in referee.processes() if p.config == hung]
    assert new.pid != old.pid


def test_dead_bot_is_restarted_before_its_next_game(referee):
    play_normal(referee)
    (hare,) = [p for p in referee.processes() if p.config == HARE]
    os.killpg(hare.pid, signal.SIGKILL)
    assert wait_for(lambda: not hare.alive())
    record = play_normal(referee)
    (again,) = [p for p in referee.processes() if p.config == HARE]
    assert again.pid != hare.pid and again.alive()
    assert record.bots["hare"].stderr == again.stderr_path


def test_crash_of_the_waiting_bot_ends_the_game(referee):
    # The hare sleeps on its turn while the hounds' process is killed from outside.
    sleeper = scripted("slow", "--after", "1", "--sleep", "3", name="sleeper")
    victim = scripted("normal", name="victim")
    results = []

    def kill_victim(event):
        if not results:
            results.append(event)
            (process,) = [p for p in referee.processes() if p.config == victim]
            os.killpg(process.pid, signal.SIGKILL)

    # Hounds move first in hare-and-hounds; after their first move the hare (sleeper) thinks.
    record = referee.play_game(HH, {Side.PREDATOR: sleeper, Side.PREY: victim}, "10+0", on_move=kill_victim)
    assert record.termination == "crash" and record.winner == "hare"
    assert "killed by SIGKILL" in record.reason
    assert record.plies == 1


def test_record_contents_and_files(referee, tmp_path):
    path = tmp_path / "game.json"
    record = referee.play_game(
        get_variant("standard", geese=13, sideways=True),
        {Side.PREDATOR: scripted("normal", "--seed", "1"), Side.PREY: scripted("normal", "--seed", "2")},
        "5+0.25", opening=["d4-d5"], max_plies=12, game_id="rec-1", record_path=str(path),
    )
    assert record.termination == "max-plies" and record.winner == "draw" and record.plies == 12
    loaded = load_record(path)
    assert loaded == record
    assert loaded.variant == "standard" and loaded.options == {"geese": 13, "sideways": True}
    assert loaded.start.startswith("standard geese=13,sideways=1 fox d4 ")
    assert loaded.moves[0].move == "d4-d5" and loaded.moves[0].book
    played = loaded.moves[1:]
    assert [m.side for m in played[:2]] == ["geese", "fox"]
    for move in played:
        assert move.think_ms >= 0 and move.transport_ms >= 0
        assert 0 <= move.clock_ms <= 5250 + 250 * 12
        assert move.info["depth"] == 1 and move.info["pv"] == [move.move]
    assert loaded.time_control == "5+0.25" and loaded.format == 1
    assert loaded.started <= loaded.ended and loaded.ended.endswith("Z")
    assert loaded.bots["fox"].version == "1.0" and loaded.bots["fox"].author == "tests"
    assert loaded.bots["geese"].bot_name == "scripted-normal"
    assert all(Path(seat.stderr).is_file() for seat in loaded.bots.values())
    data = loaded.to_dict()
    assert data["stderr"] == {side: seat.stderr for side, seat in loaded.bots.items()}
    assert data["referee"].startswith("foxgeese-referee ")


def test_close_quits_and_reaps_every_bot(tmp_path):
    referee = Referee(log_dir=str(tmp_path))
    seats = {Side.PREDATOR: scripted("normal"), Side.PREY: scripted("normal", name="b")}
    play = referee.play_game(HH, seats, NORMAL_TC)
    assert play.termination in RULE_ENDINGS
    processes = referee.processes()
    assert len(processes) == 2 and all(p.alive() for p in processes)
    referee.close()
    assert [p.returncode for p in processes] == [0, 0]  # they obeyed `quit`
    assert all(count_received(p.stderr_path, "quit") == 1 for p in processes)


SILENT = BotConfig.from_spec("random:seed=3", name="silent")  # a built-in bot writes nothing to stderr


def test_private_log_folder_is_removed_when_every_bot_was_silent():
    with Referee() as referee:
        folder = referee.log_dir
        record = referee.play_game(HH, {Side.PREDATOR: SILENT, Side.PREY: BotConfig.from_spec("random:seed=4")},
                                   NORMAL_TC)
        assert record.termination in RULE_ENDINGS, record.result_line()
        logs = [seat.stderr for seat in record.bots.values()]
        assert all(os.path.dirname(log) == folder and os.path.getsize(log) == 0 for log in logs)
    assert not os.path.exists(folder)


def test_private_log_folder_keeps_logs_with_something_in_them():
    with Referee() as referee:
        record = referee.play_game(HH, {Side.PREDATOR: SILENT, Side.PREY: scripted("normal", "--seed", "6")}, NORMAL_TC)
    silent, chatty = record.bots["hare"].stderr, record.bots["hounds"].stderr
    try:
        assert not os.path.exists(silent)
        assert count_received(chatty, "quit") == 1  # what the record points at is still there to read
    finally:
        shutil.rmtree(os.path.dirname(chatty))


def test_a_callers_log_dir_is_left_alone(tmp_path):
    with Referee(log_dir=str(tmp_path)) as referee:
        record = referee.play_game(HH, {Side.PREDATOR: SILENT, Side.PREY: BotConfig.from_spec("random:seed=5")},
                                   "move=1", max_plies=2)
        own = referee._own_dir
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(seat.stderr) for seat in record.bots.values())
    assert not os.path.exists(own)  # only the socket lived there


def test_a_failed_bind_leaves_no_folder(short_tmp, monkeypatch):
    with Referee(endpoint="tcp://127.0.0.1:*") as taken:
        monkeypatch.setattr(tempfile, "tempdir", short_tmp)
        with pytest.raises(RefereeConfigError, match="cannot bind"):
            Referee(endpoint=taken.endpoint)
    assert os.listdir(short_tmp) == []


def test_a_new_referee_tidies_the_folders_of_killed_ones(short_tmp, monkeypatch):
    """A referee killed with SIGKILL cannot tidy its private folder; the next one does, and keeps
    what a record may point at (a log with something in it)."""
    monkeypatch.setattr(tempfile, "tempdir", short_tmp)
    victim = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""\
        import sys, time
        from foxgeese.protocol.referee import Referee
        referee = Referee()
        with open(referee.log_dir + "/bot.stderr.log", "w") as log:
            log.write("Traceback: something a record names")
        open(referee.log_dir + "/silent.stderr.log", "w").close()
        print(referee._own_dir, flush=True)
        time.sleep(60)
        """)], stdout=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": short_tmp})
    killed_dir = victim.stdout.readline().strip()
    assert sorted(os.listdir(killed_dir)) == ["bot.stderr.log", "referee.sock", "silent.stderr.log"]
    with Referee() as alive:  # the victim still runs: its folder is not touched
        assert sorted(os.listdir(killed_dir)) == ["bot.stderr.log", "referee.sock", "silent.stderr.log"]
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        empty_dead = os.path.join(short_tmp, f"foxgeese-referee-{victim.pid}-x")
        os.makedirs(empty_dead)
        with Referee():
            assert os.listdir(killed_dir) == ["bot.stderr.log"]
            assert not os.path.exists(empty_dead)
            assert os.path.isdir(alive._own_dir)  # a live referee's folder, same process
    assert os.listdir(short_tmp) == [os.path.basename(killed_dir)]


def start_remote(referee: Referee, mode: str, stderr: Any = subprocess.DEVNULL) -> subprocess.Popen:
    """A scripted bot started by the test, not the referee: for the referee, a remote bot."""
    env = {**os.environ, "FOXGEESE_ENDPOINT": referee.connect_endpoint, "FOXGEESE_TOKEN": referee.token}
    return subprocess.Popen([sys.executable, SCRIPTED, "--mode", mode, "--after", "2"], env=env, stderr=stderr)


@pytest.mark.parametrize("endpoint", [None, "tcp://127.0.0.1:*"])
def test_a_remote_bot_whose_connection_closes_mid_game_loses_at_once(endpoint):
    """A remote bot has no process the referee can watch; its connection closing is the sign. Without
    that, the game would wait out the 30 s move clock."""
    with Referee(endpoint=endpoint) as referee:
        bots = [start_remote(referee, mode) for mode in ("crash", "normal")]
        seats = {Side.PREDATOR: BotConfig("scripted-crash"), Side.PREY: BotConfig("scripted-normal")}
        try:
            record = referee.play_game(HH, seats, "move=30")
        finally:
            for bot in bots:
                bot.kill()
                bot.wait(10)
    assert (record.winner, record.termination) == ("hounds", "crash")  # not a time forfeit: it did not wait
    assert record.reason == "hare (scripted-crash) disconnected"
    assert len(record.moves) == 3  # hounds, hare, hounds; the hare's second turn never came back


def test_with_a_heartbeat_a_remote_bot_that_falls_silent_mid_game_loses_at_once(tmp_path):
    """A stopped process (like a dead network) keeps its connection open but stops answering ZeroMQ's
    heartbeat; without `heartbeat_s` the game would wait out the 30 s move clock."""
    log = tmp_path / "hare.log"
    with Referee(endpoint="tcp://127.0.0.1:*", heartbeat_s=0.25) as referee:
        with open(log, "w") as stderr:
            hare = start_remote(referee, "hang", stderr)
        hounds = start_remote(referee, "normal")
        seats = {Side.PREDATOR: BotConfig("scripted-hang"), Side.PREY: BotConfig("scripted-normal")}
        try:
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                game = pool.submit(referee.play_game, HH, seats, "move=30")
                deadline = time.monotonic() + 20
                while log.read_text().count("recv turn") < 2:  # the hare hangs on its second turn
                    assert time.monotonic() < deadline and not game.done()
                    time.sleep(0.01)
                hare.send_signal(signal.SIGSTOP)
                record = game.result(timeout=20)
        finally:
            for bot in (hare, hounds):
                bot.kill()
                bot.wait(10)
    assert (record.winner, record.termination) == ("hounds", "crash")
    assert record.reason == "hare (scripted-hang) disconnected"
