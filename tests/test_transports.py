"""Loopback TCP as safe as ipc://, and what the referee notices of a frozen bot on each.

The kernel names the process behind a TCP connection by its socket's inode (peers.py); a bot frozen
with SIGSTOP loses by `crash` within four heartbeats when its ZeroMQ library speaks ZMTP 3.1
(libzmq), and on its clock when it does not (JeroMQ 0.3.6 speaks ZMTP 2.0, which has no PING).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

import psutil
import pytest
from test_example_bots import example_bot_command
from tournament_support import foxgeese_here

from foxgeese.engine import Side, get_variant
from foxgeese.protocol import peers
from foxgeese.protocol.botconfig import BotConfig, BotSpecError
from foxgeese.protocol.referee import Referee

HH = get_variant("hare-and-hounds")
HOLDER = "import socket, sys, time; s = socket.create_connection((sys.argv[1], int(sys.argv[2]))); time.sleep(30)"


@pytest.mark.parametrize("host, family", [("127.0.0.1", socket.AF_INET), ("::1", socket.AF_INET6)])
def test_the_process_holding_a_tcp_peer_is_found_by_its_socket(host, family):
    """Another process connects; the accepted end names its socket, and only its tree holds it."""
    try:
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.bind((host, 0))
    except OSError as error:
        pytest.fail(f"no loopback {host} on this machine: {error}")
    listener.listen()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, host, str(listener.getsockname()[1])])
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        listener.settimeout(20)
        accepted, _ = listener.accept()
        with accepted:
            peer = peers.peer_of(accepted.fileno())
            assert peer.kind == "tcp" and peer.inode is not None, peer
            assert peers.holds_socket(holder.pid, peer.inode)
            assert not peers.holds_socket(os.getpid(), peer.inode)  # this side holds the other end only
            assert peers.holder_in([bystander.pid, holder.pid], peer.inode) == holder.pid
            assert peers.holder_in([bystander.pid], peer.inode) is None
            assert peers.holder_in([os.getpid()], peer.inode) == os.getpid()  # its child holds it
    finally:
        for process in (holder, bystander):
            process.kill()
            process.wait()
        listener.close()


def test_a_unix_peer_is_named_by_the_kernel():
    left, right = socket.socketpair()
    with left, right:
        assert peers.peer_of(left.fileno()) == peers.Peer("unix", pid=os.getpid())


def test_each_bot_connects_over_its_own_transport(tmp_path):
    """One referee, both endpoints on one socket: a built-in player on ipc://, a program on TCP."""
    program = BotConfig("py", [sys.executable, str(example_bot_command("python")[1])])
    builtin = BotConfig.from_spec("random:seed=1")
    with Referee(log_dir=str(tmp_path)) as referee:
        record = referee.play_game(HH, {Side.PREDATOR: program, Side.PREY: builtin}, "10+0.1")
        assert referee.bot_endpoint(builtin).startswith("ipc://")
        assert referee.bot_endpoint(program).startswith("tcp://127.0.0.1:")
        assert referee.bot_endpoint(program.over("ipc")).startswith("ipc://")
    assert record.termination not in ("no-show", "crash"), record.result_line()


def test_a_sandboxed_bot_cannot_be_given_tcp():
    with pytest.raises(BotSpecError, match="the sandbox has no network"):
        BotConfig("x", ["true"], sandbox=True, transport="tcp")
    with pytest.raises(BotSpecError, match="transport 'udp'"):
        BotConfig("x", ["true"], transport="udp")


def _bot_pid(referee: Referee, config: BotConfig) -> int:
    """The bot's own process (its supervisor's child)."""
    (process,) = [p for p in referee.processes() if p.config == config]
    (child,) = psutil.Process(process.pid).children()
    return child.pid


def _freeze_at_first_move(referee: Referee, config: BotConfig, frozen: list[int]):
    def on_move(event) -> None:  # noqa: ANN001
        if not frozen:
            frozen.append(_bot_pid(referee, config))
            os.kill(frozen[0], signal.SIGSTOP)  # before its turn is sent
            process, deadline = psutil.Process(frozen[0]), time.monotonic() + 5
            while process.status() != psutil.STATUS_STOPPED and time.monotonic() < deadline:
                time.sleep(0.001)  # every thread stopped, not just the signal pending
            assert process.status() == psutil.STATUS_STOPPED
    return on_move


@pytest.mark.parametrize("transport", ["ipc", "tcp"])
def test_a_frozen_zmtp31_bot_loses_by_crash_within_four_heartbeats(tmp_path, transport):
    """libzmq answers heartbeats from its own thread; a bot stopped dead answers none, its connection
    is closed, and the referee ends the game at once, long before the 60 s on its clock."""
    hare = BotConfig.from_spec("random:seed=1").over(transport)
    frozen: list[int] = []
    with Referee(log_dir=str(tmp_path), heartbeat_s=0.1, kill_grace_s=0.2) as referee:
        try:
            record = referee.play_game(HH, {Side.PREDATOR: hare, Side.PREY: BotConfig.from_spec("random:seed=2")},
                                       "60+0", on_move=_freeze_at_first_move(referee, hare, frozen))
        finally:
            if frozen:
                with contextlib.suppress(ProcessLookupError):  # ended by the referee already
                    os.kill(frozen[0], signal.SIGCONT)
    assert (record.winner, record.termination, record.plies) == ("hounds", "crash", 1), record.result_line()
    assert "disconnected: its connection closed while its process runs" in record.reason, record.reason


def test_a_frozen_zmtp20_bot_is_not_watched_by_heartbeats_and_loses_on_its_clock(tmp_path):
    """JeroMQ 0.3.6 speaks ZMTP 2.0 (its greeting is revision 1): libzmq can send it no heartbeat, so
    it is neither cut off while it thinks nor caught when frozen; the turn's deadline is the limit."""
    java = BotConfig("java", example_bot_command("java"))
    frozen: list[int] = []
    with Referee(log_dir=str(tmp_path), heartbeat_s=0.1, kill_grace_s=0.2) as referee:
        try:
            record = referee.play_game(HH, {Side.PREDATOR: java, Side.PREY: BotConfig.from_spec("random:seed=2")},
                                       "move=1", on_move=_freeze_at_first_move(referee, java, frozen))
        finally:
            if frozen:
                with contextlib.suppress(ProcessLookupError):  # ended by the referee already
                    os.kill(frozen[0], signal.SIGCONT)
    assert (record.winner, record.termination, record.plies) == ("hounds", "time-forfeit", 1), record.result_line()


@pytest.mark.parametrize("option, line", [
    ("bogus", "foxgeese: --transport bogus: give auto, ipc, tcp, or SIDE=KIND (e.g. fox=tcp)"),
    ("fox=tcp", "foxgeese: --transport fox=tcp: hare-and-hounds has the sides hare and hounds"),
])
def test_a_wrong_transport_is_one_line(option, line):
    run = foxgeese_here("play", "hare-and-hounds", "--hare", "random", "--hounds", "random", "--transport", option)
    assert (run.returncode, run.stderr.strip()) == (2, line)


@pytest.mark.parametrize("options, scheme", [((), "tcp://127.0.0.1:"), (("--transport", "hare=ipc"), "ipc://")])
def test_play_over_the_transport_asked_for(tmp_path, options, scheme):
    """A `cmd:` bot is on loopback TCP by default; `--transport hare=ipc` puts it on ipc://."""
    python_bot = example_bot_command("python")
    bot = f"cmd:sh -c 'echo \"$FOXGEESE_ENDPOINT\" >&2; exec {python_bot[0]} {python_bot[1]}'"
    run = foxgeese_here("play", "hare-and-hounds", "--hare", bot, "--hounds", "random:seed=2", *options,
                        "--quiet", "--max-plies", "4", "--log-dir", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    (log,) = [path for path in tmp_path.iterdir() if path.name.startswith("cmd_sh")]
    assert log.read_text().startswith(scheme), log.read_text()
