"""Exact message sequences between bots and a Match, scripted (tests/scripted_match.py)."""

from __future__ import annotations

from foxgeese.engine import Game, Side, get_variant
from foxgeese.protocol import codec
from foxgeese.protocol.match import Match
from foxgeese.protocol.timecontrol import TimeControl
from tests.scripted_match import ScriptedTransport, bot_message

HH = get_variant("hare-and-hounds")
HARE, HOUNDS = Side.PREDATOR, Side.PREY
START = HH.start_position().text()


def hello(name: str) -> dict:
    return bot_message(codec.HELLO, token="t" * 32, name=name, author="a", version="1", variants=[])


def scripted(max_plies: int | None = None) -> ScriptedTransport:
    return ScriptedTransport(Match(HH, Game(HH), TimeControl.parse("10+0"), "g1", seed=5, max_plies=max_plies))


def seated_and_ready(script: ScriptedTransport) -> None:
    """hello, hello -> new_game to both; ready, ready -> the hounds' first turn."""
    script.step(HARE, hello("hare-bot"))
    script.step(HOUNDS, hello("hounds-bot"),
                (HARE, codec.NEW_GAME, {"game_id": "g1", "side": "hare", "seed": 5, "start": START}),
                (HOUNDS, codec.NEW_GAME, {"game_id": "g1", "side": "hounds", "seed": 5, "start": START}))
    script.step(HARE, bot_message(codec.READY, game_id="g1"))
    script.step(HOUNDS, bot_message(codec.READY, game_id="g1"),
                (HOUNDS, codec.TURN, {"game_id": "g1", "request_id": 1, "position": START,
                                      "legal": ["b1-b2", "a2-a3", "c2-c3", "a2-b3", "c2-b3", "a2-b2", "c2-b2"],
                                      "clocks": {"hare": 10_000, "hounds": 10_000}}))


def test_a_whole_game_is_hello_new_game_ready_turn_move_then_game_over():
    script = scripted(max_plies=2)
    seated_and_ready(script)
    after_one = "hare-and-hounds - hare b5 a2,b2,c2 0 0 1"
    script.step(HOUNDS, bot_message(codec.MOVE, move="b1-b2", **script.turn()),
                (HARE, codec.TURN, {"request_id": 2, "position": after_one, "moves": ["b1-b2"],
                                    "legal": ["b5-a4", "b5-b4", "b5-c4"]}))
    script.step(HARE, bot_message(codec.MOVE, move="b5-b4", **script.turn()),
                (HARE, codec.GAME_OVER, {"winner": "draw", "termination": "max-plies", "last_move": "b5-b4"}),
                (HOUNDS, codec.GAME_OVER, {"winner": "draw", "termination": "max-plies", "last_move": "b5-b4",
                                           "position": "hare-and-hounds - hounds b4 a2,b2,c2 1 0 2"}))
    assert script.finished is not None and script.finished.record.moves[-1].move == "b5-b4"


def test_a_move_after_game_over_is_ignored():
    script = scripted(max_plies=1)
    seated_and_ready(script)
    turn = script.turn()
    script.step(HOUNDS, bot_message(codec.MOVE, move="b1-b2", **turn),
                (HARE, codec.GAME_OVER, {"termination": "max-plies"}),
                (HOUNDS, codec.GAME_OVER, {"termination": "max-plies"}))
    script.step(HARE, bot_message(codec.MOVE, move="b5-b4", game_id="g1", request_id=2))  # nothing comes back
    script.step(HOUNDS, bot_message(codec.MOVE, move="a2-a3", **turn))
    assert script.finished is not None and script.finished.record.plies == 1


def test_a_second_hello_before_the_game_is_a_protocol_error_told_with_the_game_it_loses():
    script = scripted()
    script.step(HARE, hello("hare-bot"))
    reason = "hare: a second 'hello' on a connection that was welcomed"
    script.step(HARE, hello("hare-bot"),
                (HARE, codec.ERROR, {"reason": reason}),
                (HARE, codec.NEW_GAME, {"game_id": "g1", "side": "hare"}),  # so that game_over is no riddle
                (HARE, codec.GAME_OVER, {"winner": "hounds", "termination": "protocol-error", "reason": reason}))
    assert script.finished is not None and script.finished.offenders == (HARE,)


def test_a_second_hello_during_play_loses_the_game():
    script = scripted()
    seated_and_ready(script)
    reason = "hounds: a second 'hello' on a connection that was welcomed"
    script.step(HOUNDS, hello("hounds-bot"),
                (HOUNDS, codec.ERROR, {"reason": reason}),
                (HARE, codec.GAME_OVER, {"winner": "hare", "termination": "protocol-error", "last_move": "",
                                         "position": START}),
                (HOUNDS, codec.GAME_OVER, {"winner": "hare", "termination": "protocol-error", "reason": reason}))
