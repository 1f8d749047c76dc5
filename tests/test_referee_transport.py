"""Exact message sequences: the test itself is both bots, on real DEALER sockets.

The seats are remote bots (BotConfig without a command), so the referee launches nothing and
waits for a `hello` carrying its token; the referee runs in a thread while the test speaks for
the bots and checks every message it gets, field by field.
"""

from __future__ import annotations

import concurrent.futures
from typing import Any

import msgpack
import pytest
import zmq

from foxgeese.engine import Game, Position, Side, get_variant
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee

TOKEN = "secret-token-for-tests"
HH = get_variant("hare-and-hounds")
HH_START = "hare-and-hounds - hounds b5 b1,a2,c2 0 0 0"
HELLO = {"author": "tests", "version": "0.0", "variants": ["hare-and-hounds"]}


class Peer:
    """A bot's DEALER socket with strict helpers: every receive has a deadline."""

    def __init__(self, context: zmq.Context, endpoint: str) -> None:
        self.socket = context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(endpoint)

    def send(self, message_type: str, protocol: int = 2, **fields: Any) -> None:
        self.socket.send(msgpack.packb({"v": protocol, "type": message_type, **fields}, use_bin_type=True))

    def recv(self, timeout_ms: int = 5000) -> dict[str, Any]:
        assert self.socket.poll(timeout_ms), "the referee sent nothing in time"
        return msgpack.unpackb(self.socket.recv(), raw=False)

    def silent_for(self, timeout_ms: int) -> bool:
        return self.socket.poll(timeout_ms) == 0

    def join(self, name: str) -> dict[str, Any]:
        self.send("hello", token=TOKEN, name=name, **HELLO)
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome
        ping = self.recv()
        assert ping["type"] == "ping" and isinstance(ping["id"], int)
        self.send("pong", id=ping["id"])
        return welcome


def referee_with_peers(**options: Any):
    """A referee with `remote` seats (and the test's token), a one-thread pool to run its game, and
    a maker of peers: yields (referee, pool, peer) and closes them all after the test."""
    context = zmq.Context()
    pool = concurrent.futures.ThreadPoolExecutor(1)
    referee = Referee(token=TOKEN, join_timeout_s=10, **options)
    peers: list[Peer] = []

    def peer() -> Peer:
        peers.append(Peer(context, referee.endpoint))
        return peers[-1]

    yield referee, pool, peer
    referee.close()
    pool.shutdown()
    for p in peers:
        p.socket.close(linger=0)
    context.term()


@pytest.fixture
def setup():
    yield from referee_with_peers()


SEATS = {Side.PREDATOR: BotConfig("hare-bot"), Side.PREY: BotConfig("hounds-bot")}


def test_a_whole_short_game_message_by_message(setup):
    referee, pool, peer = setup
    assert referee.endpoint.startswith("ipc://")
    future = pool.submit(referee.play_game, HH, SEATS, "move=2", max_plies=3, game_id="t1", seed=7)

    # A wrong token is refused, and that connection is ignored from then on.
    intruder = peer()
    intruder.send("hello", token="guess", name="hare-bot", **HELLO)
    assert intruder.recv() == {"v": 2, "type": "refused", "reason": "wrong token"}
    intruder.send("hello", token=TOKEN, name="hare-bot", **HELLO)
    assert intruder.silent_for(200)

    hare, hounds = peer(), peer()
    welcome = hounds.join("hounds-bot")  # joins first but is seated by its name
    assert welcome["referee"].startswith("foxgeese-referee ") and isinstance(welcome["bot_id"], str)
    hare.join("hare-bot")

    for bot, side in ((hare, "hare"), (hounds, "hounds")):
        new_game = bot.recv()
        assert new_game == {
            "v": 2, "type": "new_game", "game_id": "t1", "variant": "hare-and-hounds", "options": {},
            "side": side, "time_control": {"base_ms": 0, "increment_ms": 0, "per_move_ms": 2000},
            "start": HH_START, "seed": 7,
        }
        bot.send("ready", game_id="t1")

    turn = hounds.recv()
    assert turn["type"] == "turn" and turn["game_id"] == "t1" and turn["request_id"] == 1
    assert turn["position"] == HH_START and turn["moves"] == []
    assert turn["clocks"] == {"hare": 2000, "hounds": 2000}
    assert turn["increment_ms"] == 0 and turn["per_move_ms"] == 2000
    assert len(turn["legal"]) == 7 and "b1-b2" in turn["legal"]
    hounds.send("move", game_id="t1", request_id=1, move="b1-b2", think_ms=0,
                info={"score": 12, "depth": 3, "nodes": 40, "pv": ["b1-b2", "b5-a4"], "colour": "ignored"})

    turn = hare.recv()
    assert (turn["request_id"], turn["moves"]) == (2, ["b1-b2"])
    assert turn["position"] == "hare-and-hounds - hare b5 a2,b2,c2 0 0 1"
    hare.send("move", game_id="t1", request_id=2, move=" B5-A4 ")  # any case and spaces are read

    turn = hounds.recv()
    assert (turn["request_id"], turn["moves"]) == (3, ["b1-b2", "b5-a4"])
    hounds.send("move", game_id="t1", request_id=3, move=turn["legal"][0])

    for bot in (hare, hounds):
        assert bot.recv() == {"v": 2, "type": "game_over", "game_id": "t1", "winner": "draw",
                              "termination": "max-plies", "reason": "stopped after 3 plies",
                              "last_move": turn["legal"][0], "position": record_final(turn)}
    record = future.result(timeout=5)
    assert record.final == record_final(turn)
    assert [m.move for m in record.moves] == ["b1-b2", "b5-a4", turn["legal"][0]]
    assert record.moves[0].info == {"score": 12, "depth": 3, "nodes": 40, "pv": ["b1-b2", "b5-a4"]}
    assert record.moves[0].think_ms == 0 and record.moves[0].transport_ms >= 0  # all of it was transport
    hare_rtt = record.bots["hare"].rtt_ms
    assert hare_rtt is not None and 0 <= record.moves[1].transport_ms <= round(hare_rtt)  # estimated by ping
    assert record.bots["hounds"].name == "hounds-bot" and record.bots["hounds"].stderr is None

    # The same connections play the next games: no ping while the last is under
    # `ping_interval_s` old (t2), a ping first once it is older (t3); close() then sends quit.
    for game_id, pinged in (("t2", False), ("t3", True)):
        referee.ping_interval_s = 0.0 if pinged else 60.0
        future = pool.submit(referee.play_game, HH, SEATS, "1+0.5", game_id=game_id)
        for bot in (hare, hounds):
            message = bot.recv()
            if pinged:
                assert message["type"] == "ping"
                bot.send("pong", id=message["id"])
                message = bot.recv()
            assert message["type"] == "new_game" and message["game_id"] == game_id
            assert message["time_control"] == {"base_ms": 1000, "increment_ms": 500, "per_move_ms": 0}
            bot.send("ready", game_id=game_id)
        assert hounds.recv()["clocks"] == {"hare": 1000, "hounds": 1000}
        hounds.send("resign", game_id=game_id, request_id=1)
        for bot in (hare, hounds):
            over = bot.recv()
            assert (over["winner"], over["termination"], over["reason"]) == ("hare", "resignation", "hounds resigned")
        assert future.result(timeout=5).termination == "resignation"
    referee.close()
    assert hare.recv() == {"v": 2, "type": "quit"} and hounds.recv() == {"v": 2, "type": "quit"}


def record_final(turn: dict[str, Any]) -> str:
    """The position after the first legal move of `turn` (what game_over must carry)."""
    game = Game.from_position(Position.from_text(turn["position"]))
    game.push(game.parse_move(turn["legal"][0]))
    return game.position.text()


def start_game(setup, game_id: str = "g") -> tuple[Any, Peer, Peer]:
    referee, pool, peer = setup
    future = pool.submit(referee.play_game, HH, SEATS, "move=2", game_id=game_id)
    hare, hounds = peer(), peer()
    hare.join("hare-bot")
    hounds.join("hounds-bot")
    for bot in (hare, hounds):
        assert bot.recv()["type"] == "new_game"
        bot.send("ready", game_id=game_id)
    return future, hare, hounds


def test_a_move_out_of_turn_is_a_protocol_error(setup):
    future, hare, hounds = start_game(setup)
    assert hounds.recv()["type"] == "turn"
    hare.send("move", game_id="g", request_id=1, move="b5-a4")
    assert hare.recv() == {"v": 2, "type": "error", "reason": "hare: 'move' when it is not this bot's turn"}
    for bot in (hare, hounds):
        over = bot.recv()
        assert (over["type"], over["winner"], over["termination"]) == ("game_over", "hounds", "protocol-error")
    assert future.result(timeout=5).plies == 0


def test_resigning_while_the_other_side_thinks(setup):
    future, hare, hounds = start_game(setup)
    assert hounds.recv()["type"] == "turn"
    hare.send("resign", game_id="g", request_id=0)
    assert hounds.recv()["termination"] == "resignation"
    record = future.result(timeout=5)
    assert (record.winner, record.reason) == ("hounds", "hare resigned")


def test_a_message_without_protocol_version_is_a_protocol_error(setup):
    future, hare, hounds = start_game(setup)
    assert hounds.recv()["type"] == "turn"
    hounds.socket.send(msgpack.packb({"type": "move", "game_id": "g", "request_id": 1, "move": "b1-b2"}))
    assert hounds.recv()["reason"] == "hounds: missing field v"
    assert future.result(timeout=5).termination == "protocol-error"


def test_two_frames_are_a_protocol_error(setup):
    future, hare, hounds = start_game(setup)
    assert hounds.recv()["type"] == "turn"
    hounds.socket.send_multipart([b"", msgpack.packb({"v": 2, "type": "move"})])
    assert "one frame" in hounds.recv()["reason"]
    assert future.result(timeout=5).termination == "protocol-error"


def test_version_mismatch_is_refused_with_the_supported_versions(setup):
    referee, pool, peer = setup
    future = pool.submit(referee.play_game, HH, SEATS, "move=2", game_id="v1")
    old = peer()
    old.send("hello", protocol=1, token=TOKEN, name="hare-bot", **HELLO)
    assert old.recv() == {"v": 2, "type": "refused", "reason": "protocol version 1 is not supported",
                          "supported": [2]}
    bad = peer()
    bad.send("hello", token=TOKEN, name="hare-bot", author="x", version=3, variants=[])
    refused = bad.recv()
    assert refused["type"] == "refused"
    assert refused["reason"] == "bad hello: field version: expected msgpack str, got msgpack int"
    hare, hounds = peer(), peer()
    hare.join("hare-bot")
    hounds.join("hounds-bot")
    for bot in (hare, hounds):
        assert bot.recv()["type"] == "new_game"
        bot.send("ready", game_id="v1")
    assert hounds.recv()["type"] == "turn"
    hounds.send("resign", game_id="v1", request_id=1)
    assert future.result(timeout=5).termination == "resignation"


def test_a_bot_for_another_variant_is_a_no_show(setup):
    referee, pool, peer = setup
    future = pool.submit(referee.play_game, get_variant("standard"),
                         {Side.PREDATOR: BotConfig("fox-bot"), Side.PREY: BotConfig("geese-bot")}, "move=2")
    fox, geese = peer(), peer()
    fox.send("hello", token=TOKEN, name="fox-bot", **HELLO)  # plays only hare-and-hounds
    geese.send("hello", token=TOKEN, name="geese-bot", author="t", version="1", variants=["standard"])
    record = future.result(timeout=5)
    assert (record.winner, record.termination) == ("geese", "no-show")
    assert "plays only hare-and-hounds, not standard" in record.reason
    # Seats are recorded at a no-show too, from each bot's hello.
    seat = record.bots["fox"]
    assert (seat.name, seat.author, seat.version) == ("fox-bot", "tests", "0.0")
    assert (record.bots["geese"].bot_name, record.bots["geese"].author) == ("geese-bot", "t")
    for bot in (fox, geese):
        kinds = [bot.recv()["type"] for _ in range(4)]
        assert kinds == ["welcome", "ping", "new_game", "game_over"]
