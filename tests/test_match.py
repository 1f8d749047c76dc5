"""Match, the referee's pure state machine, driven by plain calls with explicit times (no sockets)."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from foxgeese.engine import Game, Position, Side, Winner, get_variant
from foxgeese.protocol import codec, messages
from foxgeese.protocol.match import Finished, Match, MovePlayed, Restart, Send, StartClock
from foxgeese.protocol.record import GameRecord, RecordError, SeatRecord
from foxgeese.protocol.timecontrol import TimeControl

HH = get_variant("hare-and-hounds")
HELLO = messages.Hello(v=2, token="t", name="bot", author="t", version="1", variants=[])


def receive(match: Match, side: Side, fields: dict[str, Any], arrival: float) -> list[Any]:
    """`side`'s bot sends `fields` (the version added), decoded as the referee decodes a frame."""
    return match.receive(side, codec.decode_bot(codec.pack({"v": 2, **fields})), arrival)


def sends(actions: list[Any], kind: str) -> list[Send]:
    return [a for a in actions if isinstance(a, Send) and a.message_type == kind]


def started(tc: str = "move=0.5", variant: Any = HH, **options: Any) -> tuple[Match, list[Any]]:
    """A match with both seats connected and ready at t=0; returns it and the first turn's actions."""
    match = Match(variant, Game(variant), TimeControl.parse(tc), "m1", seed=7, **options)
    for side in (Side.PREDATOR, Side.PREY):
        match.seat(side, SeatRecord(name=f"{side.name.lower()}-bot"), connected=True, hello=HELLO)
    actions = match.advance(0.0)
    assert [a.fields["seed"] for a in sends(actions, codec.NEW_GAME)] == [7, 7]
    for side in (Side.PREDATOR, Side.PREY):
        actions = receive(match, side, {"type": codec.READY, "game_id": "m1"}, 0.0)
    return match, actions


def move(match: Match, side: Side, text: str, arrival: float, **extra: Any) -> list[Any]:
    return receive(match, side, {"type": codec.MOVE, "game_id": match.game_id, "request_id": match.request_id,
                                "move": text, **extra}, arrival)


def test_the_clock_runs_from_the_turn_being_sent_to_the_reply_arriving():
    match, actions = started("10+0")
    turn, start = actions
    assert isinstance(turn, Send) and turn.message_type == codec.TURN and start == StartClock(Side.PREY)
    match.clock_started(Side.PREY, 1.000)
    actions = move(match, Side.PREY, "b1-b2", arrival=1.250)
    played = [a for a in actions if isinstance(a, MovePlayed)]
    assert played[0].event.clocks == {"hare": 10_000, "hounds": 9_750}
    assert played[0].event.position == "hare-and-hounds - hare b5 a2,b2,c2 0 0 1" and played[0].event.ply == 1
    # 3 seconds of the referee's own work (a callback, say) pass before the hare's turn goes out.
    match.clock_started(Side.PREDATOR, 4.250)
    move(match, Side.PREDATOR, "b5-a4", arrival=4.300)
    assert match.clock.left_ms == {"hare": 9_950, "hounds": 9_750}
    assert match.record.moves[1].referee_ms == 3000.0


def test_a_slow_callback_is_never_charged_with_a_fixed_time_per_move():
    match, actions = started("move=0.5")
    now = 0.0
    for _ in range(6):
        turn = sends(actions, codec.TURN)[0]
        assert actions[-1] == StartClock(turn.side)  # the referee sends the turn, then starts the clock
        match.clock_started(turn.side, now)
        actions = move(match, turn.side, turn.fields["legal"][0], arrival=now + 0.001)
        assert not any(isinstance(a, Finished) for a in actions), match.record.reason
        assert isinstance(actions[0], MovePlayed)  # the callback's cue comes before the next turn
        now += 0.601  # the 0.6 s on_move callback runs here, between the reply and the next turn
    assert len(match.record.moves) == 6 and all(m.referee_ms >= 600 for m in match.record.moves[1:])


def test_a_reply_after_the_deadline_or_none_at_all_is_a_time_forfeit():
    match, actions = started("move=0.5", lag_margin_ms=50)
    match.clock_started(Side.PREY, 0.0)
    assert match.next_deadline() == 0.55
    assert match.advance(0.549) == []
    actions = match.advance(0.55)
    assert match.record.termination == "time-forfeit" and match.record.winner == "hare"
    assert len(sends(actions, codec.GAME_OVER)) == 2 and isinstance(actions[-1], Finished)

    match, _ = started("move=0.5", lag_margin_ms=50)
    match.clock_started(Side.PREY, 0.0)
    move(match, Side.PREY, "b1-b2", arrival=0.551)
    assert match.record.termination == "time-forfeit"

    match, _ = started("2+1", lag_margin_ms=50)  # Fischer: the reason names the budget the bot had
    match.clock_started(Side.PREY, 0.0)
    match.advance(2.05)
    assert match.record.reason == "hounds took over 2050 ms (clock plus 50 ms lag margin)"
    assert match.clock.left_ms["hounds"] == 0


def test_move_then_resign_is_a_resignation_and_resign_is_allowed_at_any_time():
    match, _ = started()
    match.clock_started(Side.PREY, 0.0)
    move(match, Side.PREY, "b1-b2", arrival=0.1)
    actions = receive(match, Side.PREY, {"type": codec.RESIGN, "game_id": "m1", "request_id": 1}, 0.1)
    record = match.record
    assert (record.termination, record.winner, record.reason) == ("resignation", "hare", "hounds resigned")
    assert not sends(actions, codec.ERROR)
    match, _ = started()  # the side not on move resigns, with any request_id
    receive(match, Side.PREDATOR, {"type": codec.RESIGN, "game_id": "m1", "request_id": 99}, 0.1)
    assert match.record.termination == "resignation" and match.record.winner == "hounds"


def test_game_over_carries_the_last_move_and_the_final_position_and_stays_bounded():
    match, _ = started()
    match.clock_started(Side.PREY, 0.0)
    actions = move(match, Side.PREY, "z" * 250, arrival=0.1)
    assert match.record.termination == "illegal-move"
    for over in sends(actions, codec.GAME_OVER):
        assert over.fields["last_move"] == "" and over.fields["position"] == HH.start_position().text()
        assert len(over.fields["reason"]) <= codec.MAX_REASON_CHARS
        assert over.fields["reason"].startswith("hounds played '" + "z" * 59 + "…': ")
    match, _ = started("move=0.5", max_plies=1)
    match.clock_started(Side.PREY, 0.0)
    actions = move(match, Side.PREY, "b1-b2", arrival=0.1)
    over = sends(actions, codec.GAME_OVER)[0].fields
    assert (over["last_move"], over["position"]) == ("b1-b2", "hare-and-hounds - hare b5 a2,b2,c2 0 0 1")


def test_a_row_of_thousands_of_digits_is_an_illegal_move_not_an_exception():
    match, _ = started()
    match.clock_started(Side.PREY, 0.0)
    # Past the codec's bound for a move text: made directly, as a Struct's constructor does not check bounds.
    text = "b" + "9" * 5000 + "-b2"
    match.receive(Side.PREY, messages.Move(v=2, game_id="m1", request_id=match.request_id, move=text), 0.1)
    assert match.record.termination == "illegal-move" and match.record.winner == "hare"


def test_the_adjudicator_ends_the_game_after_a_move():
    seen = []

    def adjudicator(position):
        seen.append(position.text())
        return (Winner.HOUNDS, "table says hounds win") if len(seen) == 2 else None

    match, _ = started(adjudicator=adjudicator)
    for ply, (side, text) in enumerate([(Side.PREY, "b1-b2"), (Side.PREDATOR, "b5-a4")]):
        match.clock_started(side, ply)
        actions = move(match, side, text, arrival=ply + 0.1)
        if ply == 0:
            actions = match.advance(ply + 0.2)
    record = match.record
    assert (record.winner, record.termination, record.reason) == ("hounds", "adjudicated", "table says hounds win")
    assert isinstance(actions[-1], Finished) and len(seen) == 2


def test_a_rule_ending_beats_the_adjudicators_verdict_on_the_same_move():
    """The engine's endings come first: a capture down to three geese is the fox's win by the rules,
    whatever an adjudicator would say of the position it leaves."""
    standard = get_variant("standard")
    start = Position.from_text("standard geese=13,sideways=0 fox d4 d5,c1,d1,e1 0 0 0")
    verdicts = []

    def adjudicator(position):
        verdicts.append(position.text())
        return (Winner.GEESE, "table says geese win")

    match = Match(standard, Game.from_position(start), TimeControl.parse("move=0.5"), "m1", seed=7,
                  adjudicator=adjudicator)
    for side in (Side.PREDATOR, Side.PREY):
        match.seat(side, SeatRecord(name="bot"), connected=True, hello=HELLO)
    match.advance(0.0)
    for side in (Side.PREDATOR, Side.PREY):
        receive(match, side, {"type": codec.READY, "game_id": "m1"}, 0.0)
    assert not verdicts  # nothing played yet: the adjudicator judges positions after a move
    match.clock_started(Side.PREDATOR, 0.0)
    actions = move(match, Side.PREDATOR, "d4xd6", arrival=0.1)
    record = match.record
    assert (record.winner, record.termination) == ("fox", "captured") and isinstance(actions[-1], Finished)


def test_the_ply_limit_counts_the_opening_and_stops_the_game_drawn_before_the_next_turn():
    game = Game(HH)
    game.push(game.parse_move("b1-b2"))
    match = Match(HH, game, TimeControl.parse("move=0.5"), "m1", seed=7, max_plies=2)
    assert match.ply_limit is not None and match.tables is None
    assert [match.ply_limit.adjudicatable(plies) for plies in (0, 1, 2, 3)] == [False, False, True, True]
    for side in (Side.PREDATOR, Side.PREY):
        match.seat(side, SeatRecord(name="bot"), connected=True, hello=HELLO)
    match.advance(0.0)
    for side in (Side.PREDATOR, Side.PREY):
        actions = receive(match, side, {"type": codec.READY, "game_id": "m1"}, 0.0)
    assert sends(actions, codec.TURN) and not match.over  # one ply played (the opening's), one to go
    match.clock_started(Side.PREDATOR, 0.0)
    actions = move(match, Side.PREDATOR, "b5-a4", arrival=0.1)
    record = match.record
    assert (record.winner, record.termination, record.reason) == ("draw", "max-plies", "stopped after 2 plies")
    assert not sends(actions, codec.TURN) and isinstance(actions[-1], Finished)


def test_a_reused_bot_that_dies_before_ready_is_restarted_however_long_ago_it_was_launched():
    """Its seat's hello deadline dates from its launch, games ago: the restart must not judge by it."""
    match = Match(HH, Game(HH), TimeControl.parse("move=1"), "m3", seed=1)
    match.seat(Side.PREDATOR, SeatRecord(name="old"), connected=True, hello=HELLO, reused=True, hello_deadline=15.0)
    match.seat(Side.PREY, SeatRecord(name="new"), connected=True, hello=HELLO, hello_deadline=15.0)
    assert len(sends(match.advance(100.0), codec.NEW_GAME)) == 2
    assert match.lost(Side.PREDATOR, "exited with status 1", 100.1) == [Restart(Side.PREDATOR)]
    assert not match.over


def test_a_reused_bot_that_does_not_answer_is_restarted_once():
    match = Match(HH, Game(HH), TimeControl.parse("move=1"), "m2", seed=1, ready_timeout_s=5)
    match.seat(Side.PREDATOR, SeatRecord(name="old"), connected=True, hello=HELLO, reused=True)
    match.seat(Side.PREY, SeatRecord(name="new"), connected=True, hello=HELLO)
    match.advance(0.0)
    receive(match, Side.PREY, {"type": codec.READY, "game_id": "m2"}, 0.1)
    assert match.advance(5.0) == [Restart(Side.PREDATOR)]
    match.seat(Side.PREDATOR, SeatRecord(name="old"), connected=False, hello_deadline=20.0,
               waiting_text="no hello within 15s")
    actions = match.connected(Side.PREDATOR, HELLO, 6.0)
    assert [s.side for s in sends(actions, codec.NEW_GAME)] == [Side.PREDATOR]  # the hounds were told once
    actions = match.advance(11.0)
    assert match.record.termination == "no-show" and "no 'ready' within 5s" in match.record.reason


def typed(payload: bytes, cls: type[messages.Message]) -> dict:
    """The message in `payload`, read as the typed `cls` (which checks every field's type) and as a map."""
    decoded = msgspec.msgpack.decode(payload, type=cls)
    as_map = codec.decode(payload)
    assert as_map == msgspec.to_builtins(decoded)
    return as_map


def test_the_turn_packed_from_parts_is_a_typed_turn():
    game = Game(HH)
    game.push(game.parse_move("b1-b2"))  # an opening move: packed ahead too
    match = Match(HH, game, TimeControl.parse("3+1"), "m3", seed=1, max_plies=8)
    for side in (Side.PREDATOR, Side.PREY):
        match.seat(side, SeatRecord(name="x"), connected=True, hello=HELLO)
    match.advance(0.0)
    receive(match, Side.PREY, {"type": codec.READY, "game_id": "m3"}, 0.0)
    actions = receive(match, Side.PREDATOR, {"type": codec.READY, "game_id": "m3"}, 0.0)
    turns = 0
    while not match.over:
        turn = sends(actions, codec.TURN)[0]
        assert typed(turn.payload, messages.Turn) == {"v": 2, "type": "turn", **turn.fields}
        assert turn.fields["moves"] == match.move_texts and turn.fields["request_id"] == turns + 1
        match.clock_started(turn.side, turns)
        actions = move(match, turn.side, turn.fields["legal"][-1], arrival=turns + 0.01)
        turns += 1
    assert turns == 7


def test_a_game_started_with_given_clocks_sends_and_charges_them_and_records_them():
    game = Game(HH)
    game.push(game.parse_move("b1-b2"))  # played on from a kept position, as after a takeback
    match = Match(HH, game, TimeControl.parse("60+1"), "m5", seed=1, clocks={Side.PREDATOR: 4_200})
    for side in (Side.PREDATOR, Side.PREY):
        match.seat(side, SeatRecord(name="x"), connected=True, hello=HELLO)
    match.advance(0.0)
    receive(match, Side.PREY, {"type": codec.READY, "game_id": "m5"}, 0.0)
    actions = receive(match, Side.PREDATOR, {"type": codec.READY, "game_id": "m5"}, 0.0)
    turn = sends(actions, codec.TURN)[0]
    assert turn.side == Side.PREDATOR and turn.fields["clocks"] == {"hare": 4_200, "hounds": 60_000}
    match.clock_started(Side.PREDATOR, 1.0)
    move(match, Side.PREDATOR, turn.fields["legal"][0], arrival=1.5)
    assert match.clock.left_ms == {"hare": 4_200 - 500 + 1_000, "hounds": 60_000}
    assert match.record.start_clocks == {"hare": 4_200}
    assert GameRecord.from_json(match.record.to_json()) == match.record
    with pytest.raises(RecordError, match="start_clocks: expected whole milliseconds"):
        GameRecord.from_json(match.record.to_json().replace('"start_clocks": {"hare": 4200}',
                                                            '"start_clocks": {"hare": "4200"}'))


def test_new_game_and_game_over_are_typed_messages():
    standard = get_variant("standard", geese=17, sideways=True)
    for variant, control in ((standard, "600+1"), (HH, "move=0.5"), (standard, "600+1")):  # the last: cached
        match = Match(variant, Game(variant), TimeControl.parse(control), "m4-é", seed=2**53 - 1, max_plies=0)
        for side in (Side.PREDATOR, Side.PREY):
            match.seat(side, SeatRecord(name="x"), connected=True, hello=HELLO)
        told = sends(match.advance(0.0), codec.NEW_GAME)
        assert [new_game.side for new_game in told] == [Side.PREDATOR, Side.PREY]
        for new_game in told:
            expected = {"game_id": "m4-é", "variant": variant.id, "options": dict(variant.options),
                        "side": variant.side_name(new_game.side), "time_control": match.control.to_wire(),
                        "start": variant.start_position().text(), "seed": 2**53 - 1}
            assert typed(new_game.payload, messages.NewGame) == {"v": 2, "type": "new_game", **expected}
        receive(match, Side.PREY, {"type": codec.READY, "game_id": "m4-é"}, 0.0)
        over = sends(receive(match, Side.PREDATOR, {"type": codec.READY, "game_id": "m4-é"}, 0.0), codec.GAME_OVER)
        assert [game_over.side for game_over in over] == [Side.PREDATOR, Side.PREY]
        assert typed(over[0].payload, messages.GameOver) == {
            "v": 2, "type": "game_over", "game_id": "m4-é", "winner": "draw", "termination": "max-plies",
            "reason": "stopped after 0 plies", "last_move": "", "position": variant.start_position().text()}


def play_against_the_engine(match: Match, actions: list[Any], choose: Any) -> Game:
    """Plays `match` to its end with the legal move `choose` picks each turn, checking that every
    turn offers the engine's legal moves and position text for the game so far; returns that game."""
    game, now = Game(match.variant), 0.0
    while not match.over:
        turn = sends(actions, codec.TURN)[0]
        assert turn.fields["legal"] == [str(m) for m in game.position.legal_moves()]
        assert turn.fields["position"] == game.position.text()
        match.clock_started(turn.side, now)
        choice = choose(turn.fields["legal"])
        game.push(game.parse_move(choice))
        now += 0.01
        actions = move(match, turn.side, choice, arrival=now)
    return game


def test_a_turn_in_a_position_met_before_offers_what_the_engine_says():
    """The second game's turns come from the per-position cache: the same legal moves and position
    text as the engine gives for the game so far."""
    for _ in range(2):
        play_against_the_engine(*started("10+0"), choose=lambda legal: legal[0])


@pytest.mark.parametrize("variant_id, options", [("standard", {}), ("standard", {"sideways": True}),
                                                 ("great-cross", {}), ("hare-and-hounds", {})])
def test_every_turn_of_random_games_offers_what_the_engine_says(variant_id, options):
    """Random games, whose positions are new but whose predator neighbourhoods recur: each turn,
    from the predator's cache by its reach, from the prey's moves worked out while the predator
    thought, or made afresh after a capture, offers the engine's legal moves and position text."""
    variant = get_variant(variant_id, **options)
    rng = random.Random(5)
    for _ in range(12):
        match, actions = started("10+0", variant, max_plies=80)
        game = play_against_the_engine(match, actions, rng.choice)
        assert match.record.final == game.position.text()


def test_a_packed_send_equals_the_same_message_given_and_no_send_claims_a_hash():
    """Equal Sends must hash alike: they compare by their fields, a dict, so none is hashable (a
    NamedTuple's hash, taken from its packed bytes, once disagreed with its equality)."""
    packed = Send(Side.PREY, codec.PING, None, messages.encode(messages.Ping(id=3)))
    given = Send(Side.PREY, codec.PING, {"id": 3})
    assert packed == given and not packed != given
    assert Send(Side.PREY, codec.PING, {"id": 4}) != given and Send(Side.PREDATOR, codec.PING, {"id": 3}) != given
    for send in (packed, given):
        with pytest.raises(TypeError):
            hash(send)
    assert repr(packed) == f"Send({Side.PREY!r}, 'ping', {{'id': 3}})"


def test_a_move_s_think_ms_and_the_info_fields_it_set_go_into_its_record_entry():
    match, _ = started("10+0")
    match.clock_started(Side.PREY, 1.0)
    move(match, Side.PREY, "b1-b2", arrival=1.5, think_ms=120, info={"depth": 4, "pv": ["b1-b2"], "junk": 1})
    entry = match.record.moves[0]
    assert (entry.think_ms, entry.transport_ms, entry.info) == (120, 380, {"depth": 4, "pv": ["b1-b2"]})
    match.clock_started(Side.PREDATOR, 2.0)
    move(match, Side.PREDATOR, "b5-a4", arrival=2.25)  # neither: no info, and no ping round trip to split off
    assert (match.record.moves[1].think_ms, match.record.moves[1].info) == (250, {})
