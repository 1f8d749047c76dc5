"""A bot cannot take or spoil its opponent's seat, on ipc:// and on loopback TCP alike (every test runs
on both): a hello is judged by the process tree it comes from (SO_PEERCRED on ipc://, the tree holding
the peer's socket on TCP), a token read by another process is still there for its owner, and a bot
whose process presents another seat's token loses its own game."""

from __future__ import annotations

import concurrent.futures
import sys
import time
from pathlib import Path

import pytest
import zmq
from test_referee import scripted
from test_referee_transport import HELLO, Peer

from foxgeese.engine import Side, get_variant
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee

THIEF = str(Path(__file__).parent / "bots" / "thief_bot.py")
PIDFD_THIEF = str(Path(__file__).parent / "bots" / "pidfd_thief_bot.py")
HH = get_variant("hare-and-hounds")
pytestmark = pytest.mark.parametrize("transport", ["ipc", "tcp"])


def test_a_thief_that_opens_the_token_descriptor_through_proc_loses(tmp_path, transport):
    """Reading a token is no longer enough to hurt: the thief's hello with it is refused and lost by it."""
    victim = scripted("normal", "--hello-delay", "2.5", name="victim").over(transport)  # slow to read its token
    thief = BotConfig("thief", [sys.executable, THIEF], transport=transport)
    with Referee(log_dir=str(tmp_path)) as referee:
        record = referee.play_game(HH, {Side.PREDATOR: victim, Side.PREY: thief}, "5+0.1")
    log = Path(record.bots["hounds"].stderr).read_text()
    assert "THIEF found" in log, log
    assert (record.winner, record.termination) == ("hare", "no-show"), record.result_line()
    assert "hounds (thief): refused: this token belongs to another bot" in record.reason, record.reason
    assert "THIEF presented a stolen token: refused this token belongs to another bot" in log, log


def _pidfd_thief(present: str, transport: str) -> BotConfig:
    return BotConfig(f"pidfd-thief-{present}", [sys.executable, PIDFD_THIEF, "--present", present],
                     transport=transport)


def test_a_bot_stealing_a_token_with_pidfd_getfd_loses_and_its_victim_wins(tmp_path, transport):
    """Issue 24: the attack as `foxgeese play` meets it. The thief duplicates the victim's token
    descriptor out of its process and reads it first, then says hello with it: its own seat loses,
    the victim's is untouched (it reads its token all the same)."""
    victim = scripted("normal", "--hello-delay", "1.5", name="victim").over(transport)
    with Referee(log_dir=str(tmp_path)) as referee:
        record = referee.play_game(HH, {Side.PREDATOR: victim, Side.PREY: _pidfd_thief("now", transport)}, "5+0.1")
    assert (record.winner, record.termination) == ("hare", "no-show"), record.result_line()
    log = Path(record.bots["hounds"].stderr).read_text()
    assert "THIEF stole a token from process" in log, log  # the attack happened
    assert "presented a stolen token: refused this token belongs to another bot" in log, log
    assert "hounds (pidfd-thief-now): refused: this token belongs to another bot" in record.reason


def test_in_a_reused_referee_the_pidfd_thief_loses_every_game_it_attacks(tmp_path, transport):
    """Issue 24, as a tournament meets it: one referee, bots kept between games. The thief steals
    each fresh victim's token and presents it once the game is on: each time the thief loses by
    protocol error, and each victim, seated with the token it read after the theft, plays and wins."""
    thief = _pidfd_thief("at-turn", transport)
    with Referee(log_dir=str(tmp_path)) as referee:
        warm = referee.play_game(HH, {Side.PREDATOR: BotConfig.from_spec("random:seed=1"),
                                      Side.PREY: BotConfig.from_spec("random:seed=2")}, "5+0.1", max_plies=4)
        records = [referee.play_game(HH, {Side.PREDATOR: scripted("normal", "--hello-delay", "1",
                                                                  name=f"victim{n}").over(transport),
                                          Side.PREY: thief}, "5+0.1") for n in (1, 2)]
    assert warm.termination == "max-plies", warm.result_line()
    log = Path(records[0].bots["hounds"].stderr).read_text()
    assert log.count("THIEF stole a token from process") >= 2, log
    for record in records:
        assert (record.winner, record.termination) == ("hare", "protocol-error"), record.result_line()
        assert record.reason == "hounds: refused: this token belongs to another bot", record.reason
        # The seat stays the victim's: seated by its own hello, or still waiting for it when the
        # thief's refused hello ended the game (the slow victim may not have spoken yet); never the thief's.
        assert record.bots["hare"].bot_name in ("scripted-normal", ""), record.bots["hare"]


def test_a_stolen_token_presented_by_another_process_is_refused(tmp_path, transport):
    """The test process plays the thief: it takes the victim's token from the referee itself, and
    presents it where the victim connects."""
    victim = scripted("normal", "--hello-delay", "1.5", name="victim").over(transport)
    other = BotConfig.from_spec("random:seed=3")
    context = zmq.Context()
    with Referee(log_dir=str(tmp_path)) as referee, concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(referee.play_game, HH, {Side.PREDATOR: victim, Side.PREY: other}, "5+0.1")
        deadline = time.monotonic() + 10
        while not referee.pool.awaited() and time.monotonic() < deadline:
            time.sleep(0.01)
        token = next(bot.token for bot in referee.pool.awaited() if bot.config == victim)
        endpoint = referee.bot_endpoint(victim)
        assert endpoint is not None and endpoint.startswith(f"{transport}://"), endpoint
        thief = Peer(context, endpoint)
        thief.send("hello", token=token, name="thief", **HELLO)
        assert thief.recv() == {"v": 2, "type": "refused", "reason": "this token belongs to another process"}
        record = future.result(timeout=30)
        thief.socket.close(linger=0)
    context.term()
    assert record.termination != "no-show", record.result_line()
    assert record.bots["hare"].bot_name == "scripted-normal"


def test_an_idle_bot_that_presents_a_stolen_token_between_its_games_loses_its_next_one(tmp_path, transport):
    """The thief sits out a game in the referee's pool and steals that game's fresh victim's token:
    the victim's game is untouched, the thief is ended, and its next seat starts lost."""
    thief = _pidfd_thief("any-time", transport)
    with Referee(log_dir=str(tmp_path)) as referee:
        # The thief's first opponent is a bot of an earlier game (its token read and closed long
        # since), so the thief finds nothing to steal until the next game launches fresh bots.
        referee.play_game(HH, {Side.PREDATOR: BotConfig.from_spec("random:seed=1"),
                               Side.PREY: BotConfig.from_spec("random:seed=3")}, "5+0.1", max_plies=2)
        first = referee.play_game(HH, {Side.PREDATOR: BotConfig.from_spec("random:seed=1"), Side.PREY: thief},
                                  "5+0.1", max_plies=2)
        (idle,) = [bot for bot in referee.pool.bots if bot.config == thief]
        victims = {Side.PREDATOR: scripted("normal", "--hello-delay", "1", name="victim").over(transport),
                   Side.PREY: BotConfig.from_spec("random:seed=2")}
        watched = referee.play_game(HH, victims, "5+0.1")
        assert idle not in referee.pool.bots  # refused between games: ended
        third = referee.play_game(HH, {Side.PREDATOR: BotConfig.from_spec("random:seed=1"), Side.PREY: thief},
                                  "5+0.1", max_plies=2)
    assert first.termination == "max-plies", first.result_line()
    assert watched.termination not in ("no-show", "crash"), watched.result_line()
    assert watched.bots["hare"].bot_name in ("scripted-normal", ""), watched.bots["hare"]  # never the thief's
    assert (third.winner, third.termination) == ("hare", "no-show"), third.result_line()
    assert "refused: this token belongs to another bot (a hello from its process between games)" in third.reason
