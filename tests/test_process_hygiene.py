"""No process of a game outlives it: not a bot's setsid() daemon, not after SIGTERM or SIGKILL of
the command that ran the referee, not when that command is killed while its bots start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
from test_referee import wait_for

from foxgeese.engine import Side, get_variant
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.process import BotProcess
from foxgeese.protocol.referee import Referee

DAEMON = str(Path(__file__).parent / "bots" / "daemon_bot.py")
HH = get_variant("hare-and-hounds")


def daemon_bot(pid_file: Path, *extra: str, name: str) -> BotConfig:
    return BotConfig(name, [sys.executable, DAEMON, "--pid-file", str(pid_file), *extra])


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def leftovers(marker: str) -> list[str]:
    """Processes whose command line mentions `marker` (a test's own folder)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        if marker in command and process.pid != os.getpid():
            found.append(f"{process.pid}: {command}")
    return found


def test_a_bots_setsid_daemon_dies_with_the_bot_and_with_the_referee(tmp_path):
    crasher_pids, steady_pids = tmp_path / "crasher", tmp_path / "steady"
    with Referee(log_dir=str(tmp_path / "logs")) as referee:
        seats = {Side.PREDATOR: daemon_bot(crasher_pids, "--crash-after", "2", name="crasher"),
                 Side.PREY: daemon_bot(steady_pids, name="steady")}
        record = referee.play_game(HH, seats, "5+0.1")
        assert record.termination == "crash" and "exited with status 3" in record.reason
        (crasher_daemon,), (steady_daemon,) = pids(crasher_pids), pids(steady_pids)
        # The crashed bot's daemon went with it; the steady bot (and its daemon) wait for more games.
        assert wait_for(lambda: not running(crasher_daemon))
        assert running(steady_daemon)
    assert wait_for(lambda: not running(steady_daemon))
    assert not leftovers(str(tmp_path))


def start_play(tmp_path: Path, hare_extra: str = "", hounds_extra: str = "--hang-after 0") -> subprocess.Popen:
    """`foxgeese play` between two daemon bots whose hounds hang on their first turn."""
    hare = f"cmd:{sys.executable} {DAEMON} --pid-file {tmp_path / 'hare'} {hare_extra}"
    hounds = f"cmd:{sys.executable} {DAEMON} --pid-file {tmp_path / 'hounds'} {hounds_extra}"
    return subprocess.Popen([sys.executable, "-m", "foxgeese", "play", "hare-and-hounds", "--hare", hare,
                             "--hounds", hounds, "--tc", "600+0", "--log-dir", str(tmp_path / "logs")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sigkill_of_foxgeese_play_mid_game_leaves_no_process(tmp_path):
    play = start_play(tmp_path)
    assert wait_for(lambda: len(pids(tmp_path / "hare")) == 1 and len(pids(tmp_path / "hounds")) == 1, 30)
    assert leftovers(str(tmp_path))
    play.kill()
    play.communicate(timeout=10)
    assert wait_for(lambda: not leftovers(str(tmp_path)), 10), leftovers(str(tmp_path))
    assert not any(running(pid) for pid in pids(tmp_path / "hare") + pids(tmp_path / "hounds"))


def test_sigterm_to_foxgeese_play_stops_even_a_bot_that_ignores_it(tmp_path):
    play = start_play(tmp_path, hounds_extra="--hang-after 0 --ignore-term")
    assert wait_for(lambda: len(pids(tmp_path / "hare")) == 1 and len(pids(tmp_path / "hounds")) == 1, 30)
    assert wait_for(lambda: hanging(tmp_path), 30)  # the game is on: the hounds hang on their first turn
    play.send_signal(signal.SIGTERM)
    _, stderr = play.communicate(timeout=20)
    assert play.returncode == 143, stderr
    assert "SIGTERM; stopping the bots" in stderr and "Traceback" not in stderr
    assert wait_for(lambda: not leftovers(str(tmp_path)), 10), leftovers(str(tmp_path))
    assert not any(running(pid) for pid in pids(tmp_path / "hare") + pids(tmp_path / "hounds"))


def hanging(folder: Path) -> bool:
    """Whether a bot of `foxgeese play --log-dir FOLDER/logs` says it hangs (its turn is out)."""
    return any("daemon-bot: hanging" in log.read_text() for log in (folder / "logs").glob("*.stderr"))


# Moments to kill `foxgeese play` at, each a stage of its bots' start that has been reached.
KILL_STAGES = (
    lambda folder: True,  # at once
    lambda folder: (folder / "logs").is_dir(),  # the referee is up
    lambda folder: any((folder / "logs").glob("*.stderr")),  # a bot is being launched
    lambda folder: len(list((folder / "logs").glob("*.stderr"))) == 2,  # both are
    lambda folder: bool(pids(folder / "hare")),  # a bot runs (its daemon is started)
    lambda folder: bool(pids(folder / "hare")) and bool(pids(folder / "hounds")),  # both do
    hanging,  # the game is on
)


def test_killing_foxgeese_play_while_its_bots_start_leaves_no_orphan(tmp_path):
    for attempt, reached in enumerate(KILL_STAGES):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        play = start_play(folder)
        assert wait_for(lambda: reached(folder) or play.poll() is not None, 30)
        play.kill()
        play.communicate(timeout=10)
    assert wait_for(lambda: not leftovers(str(tmp_path)), 15), leftovers(str(tmp_path))
    for attempt in range(len(KILL_STAGES)):
        folder = tmp_path / str(attempt)
        assert not any(running(pid) for pid in pids(folder / "hare") + pids(folder / "hounds"))


def test_a_bot_seen_dead_is_reaped_with_its_status_when_asked(tmp_path):
    """`alive` only looks (waitid with WNOWAIT): the exit status is still there for the record."""
    config = BotConfig("quitter", [sys.executable, "-c", "import sys; sys.exit(3)"])
    bot = BotProcess(config, {}, str(tmp_path / "quitter.stderr"), "token")
    try:
        assert wait_for(lambda: not bot.alive(), 10)
        assert not bot.alive() and bot.returncode == 3 and bot.describe_exit() == "exited with status 3"
        assert not bot.alive() and bot.stop() == 3
    finally:
        bot.stop()
