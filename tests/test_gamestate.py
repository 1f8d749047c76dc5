"""GameState, the one way to hold a game in play (Game's and the referee's), against Positions alone."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from foxgeese.engine import GameState, Position, get_variant

VARIANTS = [("standard", {}), ("standard", {"sideways": True}), ("hare-and-hounds", {}), ("great-cross", {})]


@pytest.mark.parametrize("variant_id, options", VARIANTS)
def test_a_random_game_agrees_ply_by_ply_with_positions_and_a_count_of_keys(variant_id, options):
    rng = random.Random(f"{variant_id}{options}")
    variant = get_variant(variant_id, **options)
    for _ in range(5):
        position = variant.start_position()
        game = GameState(position)
        seen = Counter([position.key()])
        while True:
            assert (game.predator, game.prey, game.turn, game.quiet, game.stall, game.ply) == (
                position.predator, position.prey, position.turn, position.quiet, position.stall, position.ply)
            assert game.key == position.key() and game.repetitions() == seen[position.key()]
            assert game.text() == position.text() and game.position() == position
            moves = game.moves()
            assert moves == position.pseudo_moves()
            assert game.outcome(moves) == game.outcome() == position.outcome(seen[position.key()])
            if game.outcome() is not None:
                break
            move = rng.choice(moves)
            game.play(move)
            position = position.play(move)
            seen[position.key()] += 1


def test_a_copy_plays_on_alone_and_back_to_undoes_a_move_and_its_count():
    variant = get_variant("standard", sideways=True)
    game = GameState(Position.from_text("standard geese=13,sideways=1 fox d4 c1,d1,e1,c2,d2 0 0 0"))
    start_key, start_text = game.key, game.text()
    copy = game.copy()
    for text in ("d4-d5", "d2-e2", "d5-d4", "e2-d2"):  # back where it started: twice
        copy.play(copy.position().parse_move(text))
    assert copy.key == start_key and copy.repetitions() == 2 and copy.ply == 4
    assert game.repetitions() == 1 and game.text() == start_text  # the original is untouched
    before = copy.position()
    copy.play(copy.position().parse_move("d4-d5"))
    assert copy.repetitions() == 2  # d5 with the geese to move was seen after the first d4-d5
    copy.back_to(before)
    assert copy.text() == before.text() and copy.repetitions() == 2
    copy.play(copy.position().parse_move("d4-d5"))
    assert copy.repetitions() == 2  # the taken-back visit is no longer counted
    assert variant is game.variant
