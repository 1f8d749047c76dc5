"""A bot cannot take its opponent's seat: the token is nowhere another process can read it, and a
hello on the ipc:// socket from outside the seat's own process tree is refused even with it."""

from __future__ import annotations

import concurrent.futures
import sys
import time
from pathlib import Path

import zmq
from test_referee import scripted
from test_referee_transport import HELLO, Peer

from foxgeese.engine import Side, get_variant
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee

THIEF = str(Path(__file__).parent / "bots" / "thief_bot.py")
HH = get_variant("hare-and-hounds")


def test_a_thief_finds_no_token_and_the_victim_plays(tmp_path):
    victim = scripted("normal", "--hello-delay", "2.5", name="victim")  # slow to read its token
    thief = BotConfig("thief", [sys.executable, THIEF])
    with Referee(log_dir=str(tmp_path)) as referee:
        record = referee.play_game(HH, {Side.PREDATOR: victim, Side.PREY: thief}, "5+0.1")
    assert record.termination != "no-show", record.result_line()
    assert record.bots["hare"].bot_name == "scripted-normal" and record.bots["hounds"].bot_name == "thief"
    log = Path(record.bots["hounds"].stderr).read_text()
    assert "THIEF found" in log and "No such device or address" in log, log  # it did look: the socket cannot be opened
    # Tokens of other programs on this machine may turn up; none is good here, least of all the victim's.
    assert "welcome" not in log and "belongs to another process" not in log, log


def test_a_stolen_token_presented_by_another_process_is_refused(tmp_path):
    """The test process plays the thief: it takes the victim's token from the referee itself."""
    victim = scripted("normal", "--hello-delay", "1.5", name="victim")
    other = BotConfig.from_spec("random:seed=3")
    context = zmq.Context()
    with Referee(log_dir=str(tmp_path)) as referee, concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(referee.play_game, HH, {Side.PREDATOR: victim, Side.PREY: other}, "5+0.1")
        deadline = time.monotonic() + 10
        while not referee._pending and time.monotonic() < deadline:
            time.sleep(0.01)
        token = next(bot.token for bot in list(referee._pending.values()) if bot.config == victim)
        thief = Peer(context, referee.endpoint)
        thief.send("hello", token=token, name="thief", **HELLO)
        assert thief.recv() == {"v": 2, "type": "refused", "reason": "this token belongs to another process"}
        record = future.result(timeout=30)
        thief.socket.close(linger=0)
    context.term()
    assert record.termination != "no-show", record.result_line()
    assert record.bots["hare"].bot_name == "scripted-normal"
