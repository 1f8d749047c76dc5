"""Move, point and position text: canonical forms, tolerant reading, and every kind of bad text."""

from __future__ import annotations

import pytest

from foxgeese.engine import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Position,
    UnknownVariantError,
    get_variant,
    parse_point,
)


@pytest.mark.parametrize("text,canonical", [
    ("d4-d5", "d4-d5"), (" D4-D5 ", "d4-d5"), ("d4xd6", "d4xd6"), ("D4XD6XF6", "d4xd6xf6"),
])
def test_move_text_is_read_in_any_case_and_written_canonically(text, canonical):
    move = Move.parse(text)
    assert str(move) == canonical
    assert eval(repr(move)) == move


@pytest.mark.parametrize("text", ["", "d4", "d4-", "d4-d5-d6", "d4xd6-f6", "d4 d5", "4d-5d", "d4–d5", "j1-j2",
                                  "d0-d1", "d10-d11", "d4xx", "x d4"])
def test_malformed_move_text_is_refused(text):
    with pytest.raises(InvalidMoveError):
        Move.parse(text)


def test_move_of_wrong_type_is_refused():
    with pytest.raises(InvalidMoveError, match="not int"):
        Move.parse(42)


@pytest.mark.parametrize("moves,reason", [
    (["d4-d6"], "d4 and d6 are not joined by a line"),
    (["d4-d3"], "d3 is occupied by the goose"),
    (["c3-c4"], "no fox on c3"),
    (["d4xd2"], "d2 is occupied"),
    (["d4xd6"], "no goose on d5 to jump"),
    (["d4xf5"], "d4 and f5 are not two steps apart along one line"),
    (["d4-a1"], "a1 is not a point of the standard board"),
    (["d4-d5", "d5-d4"], "d5 holds the fox, and it is the geese's turn"),
    (["d4-d5", "c3-c2"], "c2 is occupied by the goose"),
    (["d4-d5", "c3xc5"], "the geese cannot capture"),
    (["d4-d5", "a3-b3"], "b3 is occupied by the goose"),
    (["d4-d5", "c2-b2"], "b2 is not a point"),
    (["d4-d5", "g3-g2"], "g2 is not a point"),
    (["d4-d5", "b4-b5"], "no goose on b4"),
])
def test_illegal_moves_say_why(moves, reason):
    game = Game(get_variant("standard"))
    for text in moves[:-1]:
        game.push(game.parse_move(text))
    with pytest.raises(IllegalMoveError) as caught:
        game.parse_move(moves[-1])
    assert reason in str(caught.value)
    assert str(caught.value).startswith(moves[-1])


def test_geese_never_move_back_and_sideways_only_with_the_option():
    position = Position.from_text("standard geese=13,sideways=0 geese d7 c1,d1,e1,c3,d3,e3,c5 0 0 0")
    with pytest.raises(IllegalMoveError, match="never move back"):
        position.parse_move("c3-c2")
    with pytest.raises(IllegalMoveError, match="may not move sideways"):
        position.parse_move("c5-d5")
    sideways = Position.from_text("standard geese=13,sideways=1 geese d7 c1,d1,e1,c3,d3,e3,c5 0 0 0")
    assert str(sideways.parse_move("c5-d5")) == "c5-d5"


def test_hare_cannot_capture():
    game = Game(get_variant("hare-and-hounds"))
    game.push(game.parse_move("b1-b2"))
    with pytest.raises(IllegalMoveError, match="hare cannot capture"):
        game.parse_move("b5xb3")


def test_point_text():
    assert parse_point(" C7 ") == parse_point("c7")
    for bad in ("z1", "c", "c0", "c10", "7c", ""):
        with pytest.raises(InvalidMoveError, match="bad point"):
            parse_point(bad)


@pytest.mark.parametrize("variant_id,options", [
    ("standard", {}), ("standard", {"geese": 15}), ("standard", {"geese": 17, "sideways": True}),
    ("hare-and-hounds", {}), ("great-cross", {}),
])
def test_start_position_text_round_trips(variant_id, options):
    position = get_variant(variant_id, **options).start_position()
    assert Position.from_text(position.text()) == position
    assert Position.from_text("  " + position.text().upper() + "  ") == position


def test_documented_start_text():
    assert get_variant("standard").start_position().text() == (
        "standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2,e2,a3,b3,c3,d3,e3,f3,g3 0 0 0")
    assert get_variant("hare-and-hounds").start_position().text() == "hare-and-hounds - hounds b5 b1,a2,c2 0 0 0"


@pytest.mark.parametrize("text,message", [
    ("standard fox d4", "expected 8"),
    ("chess - white e1 e2 0 0 0", "unknown variant 'chess'"),
    ("standard geese=14,sideways=0 fox d4 c1 0 0 0", "13, 15 or 17 geese"),
    ("standard colour=red fox d4 c1 0 0 0", "unknown option 'colour'"),
    ("standard geese fox d4 c1 0 0 0", "bad option"),
    ("standard - hare d4 c1 0 0 0", "'hare' is not a side of standard"),
    ("standard - fox a1 c1 0 0 0", "a1 is not a point"),
    ("standard - fox d4 c1,c1 0 0 0", "two pieces on c1"),
    ("standard - fox d4 d4 0 0 0", "two pieces on d4"),
    ("standard - fox d4 c1 x 0 0", "quiet counter must be a whole number"),
    ("standard - fox d4 c1 0 -1 0", "stall counter"),
    ("standard - fox d4 c1 0 5 0", "standard counts no stalls: write 0"),
    ("great-cross - fox e7 d1 0 1 0", "great-cross counts no stalls"),
    ("hare-and-hounds geese=13 hare b5 b1 0 0 0", "has no options"),
    ("hare-and-hounds sideways=1 hare b5 b1 0 0 0", "has no options"),
    ("great-cross - fox zz c1 0 0 0", "bad point"),
])
def test_bad_position_text_is_refused_with_a_reason(text, message):
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_text(text)


def test_unknown_variant_lists_the_valid_ids():
    with pytest.raises(UnknownVariantError, match="valid variants: standard, hare-and-hounds, great-cross"):
        get_variant("fox-and-hens")


def test_replaying_moves_names_the_bad_ply():
    start = get_variant("standard").start_position()
    with pytest.raises(IllegalMoveError, match=r"d5-d6: d5 holds the fox.*\(ply 2\)"):
        Game.from_moves(start, ["d4-d5", "d5-d6"])
    with pytest.raises(InvalidMoveError, match="ply 2: bad move 'zz'"):
        Game.from_moves(start, ["d4-d5", "zz"])
    assert len(Game.from_moves(start, ["d4-d5", "c3-c4"]).moves) == 2
