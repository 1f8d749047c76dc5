"""What a hostile or careless bot sends cannot stop the referee, and clocks charge no referee work.

Real referee, real sockets: the test speaks for remote bots (as in test_referee_transport.py), or
launches bots from tests/bots/. After each attack the healthy side has been told the game is over
and the same referee plays on.
"""

from __future__ import annotations

import concurrent.futures
import time
from typing import Any

import msgpack
import pytest
from test_referee import scripted
from test_referee_transport import Peer, referee_with_peers

from foxgeese.engine import Game, Side, get_variant
from foxgeese.protocol import codec
from foxgeese.protocol import referee as referee_module
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.cli import _print_message
from foxgeese.protocol.match import Match
from foxgeese.protocol.referee import Referee

HH = get_variant("hare-and-hounds")
SEATS = {Side.PREDATOR: BotConfig("hare-bot"), Side.PREY: BotConfig("hounds-bot")}


@pytest.fixture
def traced():
    """A referee whose trace prints every message as `foxgeese play --trace` does."""
    yield from referee_with_peers(trace=_print_message)


def begin(referee: Referee, pool: Any, seats: dict[Side, BotConfig], game_id: str,
          bots: dict[str, Peer]) -> concurrent.futures.Future:
    """Starts a game in the pool; the given peers (by seat name) join if new, answer ping and say ready."""
    future = pool.submit(referee.play_game, HH, seats, "move=2", game_id=game_id)
    for name, bot in bots.items():
        if not getattr(bot, "joined", False):
            bot.join(name)
            bot.joined = True
    for bot in bots.values():
        message = bot.recv()
        while message["type"] == "ping":
            bot.send("pong", id=message["id"])
            message = bot.recv()
        assert message["type"] == "new_game", message
        bot.send("ready", game_id=game_id)
    return future


def over(bot: Peer) -> dict[str, Any]:
    """The bot's next game_over, skipping turns and errors; it must decode (be under the cap)."""
    while True:
        message = bot.recv()
        if message["type"] == "game_over":
            return message


def test_hostile_messages_cost_the_sender_its_game_and_nothing_more(traced):
    referee, pool, peer = traced
    hare, hounds = peer(), peer()
    bots = {"hare-bot": hare, "hounds-bot": hounds}
    attacks = [
        # (what the hounds send instead of a move, termination, words of the reason)
        ({"move": "b" + "9" * 5000 + "-b2"}, "protocol-error", "field move: str of 5004 characters, at most 256"),
        ({"move": "b" + "9" * 200 + "-b2"}, "illegal-move", "hounds played 'b999"),
        ({"move": "q" * 250}, "illegal-move", "…"),
        ({"move": b"b1-b2"}, "protocol-error", "field move: expected msgpack str, got msgpack bin"),
        ({"game_id": ["a", "list"]}, "protocol-error", "field game_id: expected msgpack str, got msgpack array"),
        ({"request_id": None}, "protocol-error", "field request_id: expected msgpack int, got msgpack nil"),
        ({"request_id": 2**64 - 1}, "protocol-error", "out of range"),
        ({"info": {"pv": [b"x"]}}, "protocol-error", "field info.pv: items must be msgpack str, got msgpack bin"),
    ]
    for number, (fields, termination, words) in enumerate(attacks):
        game_id = f"attack-{number}"
        future = begin(referee, pool, SEATS, game_id, bots)
        turn = hounds.recv()
        assert turn["type"] == "turn"
        hounds.send("move", **{"game_id": game_id, "request_id": turn["request_id"], "move": "b1-b2", **fields})
        for bot in (hare, hounds):
            message = over(bot)
            assert (message["game_id"], message["termination"], message["winner"]) == (game_id, termination, "hare")
            assert len(message["reason"]) <= codec.MAX_REASON_CHARS
        record = future.result(timeout=10)
        assert words in record.reason, record.reason


def repeated_keys(*pairs: tuple[str, Any]) -> bytes:
    """A msgpack map with its pairs as given, a key more than once included (msgpack's packb cannot)."""
    return bytes([0x80 | len(pairs)]) + b"".join(msgpack.packb(key) + msgpack.packb(value) for key, value in pairs)


def test_a_map_with_a_key_twice_is_a_protocol_error_from_a_bot_and_nothing_from_a_stranger(traced):
    """Two readings of one map (msgspec's and msgpack's) once crashed the referee on such a map."""
    referee, pool, peer = traced
    hare, hounds, stranger = peer(), peer(), peer()
    bots = {"hare-bot": hare, "hounds-bot": hounds}
    future = begin(referee, pool, SEATS, "twice", bots)
    turn = hounds.recv()
    stranger.socket.send(repeated_keys(("type", "pong"), ("v", 2), ("token", "nobody"), ("name", "x"),
                                       ("author", "x"), ("version", "1"), ("variants", []), ("type", "hello")))
    hounds.socket.send(repeated_keys(("type", "move"), ("v", 2), ("game_id", "twice"),
                                     ("request_id", turn["request_id"]), ("move", "b1-b2"),
                                     ("info", {"pv": [1]}), ("info", {})))
    record = future.result(timeout=10)
    assert (record.termination, record.winner) == ("protocol-error", "hare")
    assert "map has key 'info' twice" in record.reason
    for bot in (hare, hounds):
        over(bot)
    future = begin(referee, pool, SEATS, "after", bots)  # the same referee plays on
    hounds.send("resign", game_id="after", request_id=hounds.recv()["request_id"])
    assert future.result(timeout=10).termination == "resignation"


def test_unknown_fields_of_any_kind_are_dropped_even_with_trace_on(traced):
    referee, pool, peer = traced
    hare, hounds = peer(), peer()
    future = begin(referee, pool, SEATS, "odd", {"hare-bot": hare, "hounds-bot": hounds})
    turn = hounds.recv()
    deep = b"\x91" * 1000 + b"\x90"  # an array in an array ... 1000 deep
    fields = msgpack.packb({"v": 2, "type": "move", "game_id": "odd", "request_id": turn["request_id"],
                            "move": "b1-b2", "blob": b"\x00\xff", "ext": msgpack.ExtType(5, b"xx"),
                            "when": msgpack.Timestamp(1, 2)})
    # Append the deep field by hand: msgpack's packer itself refuses such nesting.
    body = bytes([fields[0] + 1]) + fields[1:] + msgpack.packb("deep") + deep
    hounds.socket.send(body)
    assert hare.recv()["type"] == "turn"  # the move was taken, its unknown fields ignored
    hare.send("resign", game_id="odd", request_id=0)
    record = future.result(timeout=10)
    assert record.moves[0].move == "b1-b2" and record.termination == "resignation"


def test_an_idle_bot_sending_nonsense_between_its_games_is_ignored(traced):
    referee, pool, peer = traced
    hare, hounds, spare = peer(), peer(), peer()
    future = begin(referee, pool, SEATS, "one", {"hare-bot": hare, "hounds-bot": hounds})
    hounds.send("resign", game_id="one", request_id=0)
    assert future.result(timeout=10).termination == "resignation"
    # The hounds sit out the next game and throw an unhashable game_id and garbage at the referee.
    seats = {Side.PREDATOR: BotConfig("hare-bot"), Side.PREY: BotConfig("spare-bot")}
    future = pool.submit(referee.play_game, HH, seats, "move=2", game_id="two")
    spare.join("spare-bot")
    hounds.send("move", game_id=["x"], request_id=1, move="b1-b2")
    hounds.socket.send(b"\xc1")
    for bot in (hare, spare):
        message = bot.recv()
        while message["type"] != "new_game":
            if message["type"] == "ping":
                bot.send("pong", id=message["id"])
            message = bot.recv()
        bot.send("ready", game_id="two")
    assert spare.recv()["type"] == "turn"
    spare.send("resign", game_id="two", request_id=1)
    record = future.result(timeout=10)
    assert (record.termination, record.winner) == ("resignation", "hare")


def test_a_move_then_a_resign_is_a_resignation(tmp_path):
    with Referee(log_dir=str(tmp_path)) as referee:
        record = referee.play_game(HH, {Side.PREDATOR: scripted("normal", "--seed", "1"),
                                        Side.PREY: scripted("move-then-resign", "--after", "2")}, "5+0.1")
    assert (record.termination, record.winner, record.reason) == ("resignation", "hare", "hounds resigned")
    assert record.plies in (3, 4)  # its third move counted; the hare may have answered it meanwhile


class SlowReferee:
    """The referee's clock, made to jump `work_s` forward whenever `work()` is called: referee work
    that takes "long" without a test that waits for it, and whose length no machine's load changes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, work_s: float) -> None:
        self.offset, self.work_s, real = 0.0, work_s, time.monotonic
        monkeypatch.setattr(referee_module.time, "monotonic", lambda: real() + self.offset)

    def work(self) -> None:
        self.offset += self.work_s


def test_bookkeeping_after_a_turn_is_out_is_on_no_clock(tmp_path, monkeypatch):
    """The record is written once the next turn is out; a reply that arrives meanwhile is stamped
    with the turn's sending, not with the moment the referee gets round to it. The bookkeeping after
    each turn lasts until the reply is there, and 1000 s on the referee's clock; 10 minutes per
    move; no move is charged any of it."""
    slow = SlowReferee(monkeypatch, 1000.0)
    clock_started = Match.clock_started
    referees = []

    def slow_bookkeeping(match, side, now):
        clock_started(match, side, now)
        assert referees[0]._transport.socket.poll(10_000), "no reply came"  # it is waiting, unread
        slow.work()

    monkeypatch.setattr(Match, "clock_started", slow_bookkeeping)
    with Referee(log_dir=str(tmp_path)) as referee:
        referees.append(referee)
        seats = {Side.PREDATOR: scripted("first", name="a"), Side.PREY: scripted("first", name="b")}
        record = referee.play_game(HH, seats, "600+0", max_plies=4)
    assert record.termination == "max-plies", record.result_line()
    assert all(move.think_ms + move.transport_ms < 1_000_000 for move in record.moves), record.moves


def test_a_slow_on_move_callback_is_on_no_clock(tmp_path, monkeypatch):
    """1000 s of callback after every move (on the referee's clock), 10 minutes per move: no move is
    charged any of it, and the record keeps it as the referee's own time."""
    slow = SlowReferee(monkeypatch, 1000.0)
    seen = []

    def callback(event):
        seen.append(event)
        slow.work()

    with Referee(log_dir=str(tmp_path)) as referee:
        seats = {Side.PREDATOR: scripted("first", name="a"), Side.PREY: scripted("first", name="b")}
        record = referee.play_game(HH, seats, "move=600", max_plies=4, on_move=callback)
    assert record.termination == "max-plies", record.result_line()
    assert [event.ply for event in seen] == [1, 2, 3, 4]
    assert all(move.think_ms + move.transport_ms < 1_000_000 for move in record.moves), record.moves
    assert all(move.referee_ms >= 1_000_000 for move in record.moves[1:]), record.moves
    event = seen[0]
    after_first = Game(HH)
    after_first.push(after_first.parse_move(record.moves[0].move))
    assert (event.side, event.move, event.position) == ("hounds", record.moves[0].move, after_first.position.text())
    assert set(event.clocks) == {"hare", "hounds"} and event.clocks["hare"] == 600_000
