"""Every message is judged by when it arrived relative to the game's phases, never by when the referee
got round to reading it: the same sequence from a bot always gets the same verdict (issue 24)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from foxgeese.engine import Side, get_variant
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee

MINIMAL = str(Path(__file__).parent / "bots" / "minimal_bot.py")
HH = get_variant("hare-and-hounds")


def minimal(name: str, *extra: str) -> BotConfig:
    return BotConfig(name, [sys.executable, MINIMAL, *extra])


def test_a_double_hello_is_a_protocol_error_in_every_game(tmp_path):
    """A bot says hello twice in a row. Whether its opponent is seated already (a reused bot) or
    says hello after both of its hellos arrived (a slow fresh one), the second hello is a message
    out of place in the game the bot is seated for: a protocol error, 20 games out of 20."""
    verdicts = []
    with Referee(log_dir=str(tmp_path)) as referee:
        for game in range(20):
            opponent = minimal("steady") if game % 2 else minimal(f"slow{game}", "--hello-delay", "0.3")
            record = referee.play_game(HH, {Side.PREDATOR: minimal(f"double{game}", "--hellos", "2"),
                                            Side.PREY: opponent}, "5+0.1")
            verdicts.append((record.winner, record.termination, record.reason))
    assert verdicts == [("hounds", "protocol-error",
                         "hare: a second 'hello' on a connection that was welcomed")] * 20, verdicts


def test_what_a_bot_says_between_games_is_ignored(tmp_path):
    """A reused bot sends a `move` naming no game 0.3 s after each game_over. It arrives between
    games, so it is ignored, even though the referee reads it only once the next game has begun."""
    # sent at once, the stray raced the referee's finishing of the game (read then, it is ignored as
    # well): one CI run had no stray left unread in three games, so this bot waits until play_game is back
    stray = minimal("stray", "--after-game-over", "move", "--stray-delay", "0.3")
    waiting_unread = 0  # strays still in the socket when the next game began
    with Referee(log_dir=str(tmp_path)) as referee:
        records = []
        for _ in range(3):
            records.append(referee.play_game(HH, {Side.PREDATOR: stray, Side.PREY: minimal("steady")}, "5+0.1",
                                             max_plies=2))
            log = Path(records[-1].bots["hare"].stderr)
            deadline = time.monotonic() + 10
            while log.read_text().count("sent stray") < len(records) and time.monotonic() < deadline:
                time.sleep(0.01)
            waiting_unread += bool(referee._transport.socket.poll(3_000))
    assert [record.termination for record in records] == ["max-plies"] * 3, [r.result_line() for r in records]
    assert waiting_unread >= 1, "no stray was waiting unread when a game began: the case this test is for"
