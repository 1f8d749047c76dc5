"""Every ending of the spec from hand-built positions, and the jump-chain rules."""

from __future__ import annotations

import pytest
from ascii_boards import position_from_ascii

from foxgeese.engine import Game, IllegalMoveError, Move, Position, Termination, Winner


def outcome_after(position: Position, *moves: str):
    game = Game.from_position(position)
    for text in moves:
        game.push(game.parse_move(text))
    return game.outcome()


def test_captured_when_fewer_than_four_geese_remain():
    position = position_from_ascii("""
7     . . .
6     . . .
5 . . . . . . .
4 . . . F . . .
3 . . . G . . .
2     . . .
1     G G G
""", turn="fox")
    assert outcome_after(position) is None
    assert outcome_after(position, "d4xd2") == (Winner.FOX, Termination.CAPTURED)


def test_trapped_fox_loses():
    position = position_from_ascii("""
7     F G G
6     G G .
5 . . G . . . .
4 . . . . G . .
3 . . . . . . .
2     . . .
1     . . .
""", turn="geese")
    before = Game.from_position(position.play(Move.parse("e4-f4")))
    assert [str(m) for m in before.legal_moves()] == ["c7xe5", "c7xe5xg3"]  # out only by jumping d6
    game = Game.from_position(position)
    game.push(game.parse_move("e4-e5"))
    assert game.outcome() == (Winner.GEESE, Termination.TRAPPED)
    assert game.legal_moves() == []


def test_immobilized_when_no_goose_can_step():
    position = position_from_ascii("""
7     G G G
6     G G G
5 . . . . F . .
4 . . . . . . .
3 . . . . . . .
2     . . .
1     . . .
""", turn="geese")
    assert position.outcome() == (Winner.FOX, Termination.IMMOBILIZED)
    assert position.legal_moves() == []


def test_fox_move_that_blocks_the_last_goose_step_immobilizes_the_geese():
    position = position_from_ascii("""
7     G . G
6     G F G
5 . . . . . . .
4 . . . . . . .
3 . . . . . . .
2     . . .
1     . . .
""", turn="fox")
    assert outcome_after(position, "d6-d5") is None
    assert outcome_after(position, "d6-d7") == (Winner.FOX, Termination.IMMOBILIZED)


def test_hare_escapes_below_every_hound():
    position = position_from_ascii("""
5   .
4 . D D
3 D H .
2 . . .
1   .
""", "hare-and-hounds", turn="hare")
    assert outcome_after(position, "b3-c3") is None  # level with the lowest hound is not below it
    assert outcome_after(position, "b3-a2") == (Winner.HARE, Termination.ESCAPED)


def test_hare_trapped_by_hounds():
    position = position_from_ascii("""
5   H
4 . D D
3 D . .
2 . . .
1   .
""", "hare-and-hounds", turn="hounds")
    assert outcome_after(position) is None
    assert outcome_after(position, "a3-a4") == (Winner.HOUNDS, Termination.TRAPPED)


def test_stalling_ends_on_the_tenth_hound_move_without_a_row_raised():
    position = position_from_ascii("""
5   .
4 . . H
3 . . .
2 D D .
1   D
""", "hare-and-hounds", turn="hounds", stall=8)
    game = Game.from_position(position)
    game.push(game.parse_move("b2-c2"))  # ninth sideways move
    assert game.position.stall == 9 and game.outcome() is None
    game.push(game.parse_move("c4-c3"))  # hare moves do not touch the count
    assert game.position.stall == 9
    game.push(game.parse_move("c2-b2"))
    assert game.outcome() == (Winner.HARE, Termination.STALLING)


@pytest.mark.parametrize("raising_move", ["a2-a3", "a2-b3"])
def test_forward_or_diagonal_forward_move_resets_the_stall_count(raising_move):
    position = position_from_ascii("""
5   .
4 . . H
3 . . .
2 D D .
1   D
""", "hare-and-hounds", turn="hounds", stall=9)
    game = Game.from_position(position)
    game.push(game.parse_move(raising_move))
    assert game.position.stall == 0 and game.outcome() is None


# Four geese with room to step sideways and a fox far away: quiet plies and repetitions.
SIDEWAYS_ROOM = """
7     . . .
6     . . .
5 . . . . . . .
4 F . . . . . .
3 . . . . . . .
2     . G G
1     G G .
"""


def test_fifty_moves_draw_after_one_hundred_quiet_plies():
    position = position_from_ascii(SIDEWAYS_ROOM, turn="geese", quiet=99, sideways=True)
    game = Game.from_position(position)
    game.push(game.parse_move("d1-e1"))
    assert game.position.quiet == 100
    assert game.outcome() == (Winner.DRAW, Termination.FIFTY_MOVES)
    game.pop()
    game.push(game.parse_move("e2-e3"))  # a forward step resets the count
    assert game.position.quiet == 0 and game.outcome() is None


def test_fifty_moves_does_not_apply_without_sideways():
    position = position_from_ascii(SIDEWAYS_ROOM, turn="fox", quiet=150)
    assert position.outcome() is None


def test_repetition_counts_the_start_position():
    position = position_from_ascii(SIDEWAYS_ROOM, turn="fox", sideways=True)
    game = Game.from_position(position)
    cycle = ["a4-a5", "d1-e1", "a5-a4", "e1-d1"]
    for ply, text in enumerate(cycle * 2, 1):
        assert game.outcome() is None, ply
        game.push(game.parse_move(text))
    # the start position is now on the board for the third time: twice by play, once as the start
    assert game.repetitions() == 3
    assert game.outcome() == (Winner.DRAW, Termination.REPETITION)
    assert game.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.parse_move("a4-a5")


def test_great_cross_repetition_applies():
    position = Position.from_text("great-cross - fox e9 d1,e1,f1,a4 0 0 0")
    game = Game.from_position(position)
    for text in ["e9-d9", "a4-b4", "d9-e9", "b4-a4"] * 2:
        game.push(game.parse_move(text))
    assert game.outcome() == (Winner.DRAW, Termination.REPETITION)


JUMPS = """
7     . . .
6     . . .
5 . . . G G . .
4 . . . F G . .
3 . . . . . . .
2     . . .
1     G G G
"""


def test_jump_chain_may_stop_after_any_jump():
    moves = {str(m) for m in position_from_ascii(JUMPS, turn="fox").legal_moves()}
    assert {"d4xd6", "d4xd6xf4", "d4xd6xf4xd4"} <= moves


def test_chain_may_land_on_the_fox_start_point():
    game = Game.from_position(position_from_ascii(JUMPS, turn="fox"))
    game.push(game.parse_move("d4xd6xf4xd4"))
    assert game.position.predator == Move.parse("d4-d4").path[0]
    assert game.position.prey.bit_count() == 3
    assert game.outcome() == (Winner.FOX, Termination.CAPTURED)


def test_a_goose_is_jumped_at_most_once_per_move():
    position = position_from_ascii("""
7     . . .
6     . . .
5 . . . G . . .
4 . . . F . . .
3 . . . . . . .
2     . . .
1     G G G
""", turn="fox")
    with pytest.raises(IllegalMoveError, match="already jumped"):
        position.parse_move("d4xd6xd4")
    assert "d4xd6" in [str(m) for m in position.legal_moves()]


def test_captures_are_not_compulsory():
    moves = {str(m) for m in position_from_ascii(JUMPS, turn="fox").legal_moves()}
    assert "d4-c4" in moves and "d4-c3" in moves


def test_finished_game_has_no_moves_even_from_position_text():
    position = Position.from_text("standard geese=13,sideways=0 fox d4 c1,d1,e1 0 0 0")
    assert position.outcome() == (Winner.FOX, Termination.CAPTURED)
    assert position.legal_moves() == []
