"""Property tests: random playouts keep the pieces honest and always end once; text round-trips;
the fast generator agrees with the reference one on thousands of random positions."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from foxgeese.engine import Game, Move, Position, Side, get_variant
from reference_rules import legal_moves as reference_moves

VARIANTS = [("standard", {}), ("standard", {"geese": 15}), ("standard", {"geese": 17}),
            ("standard", {"sideways": True}), ("hare-and-hounds", {}), ("great-cross", {})]
variant_cases = st.sampled_from(VARIANTS)


# A game must end within this: each run of quiet plies is under 100 long and ends with one of the
# at most 18 * 8 forward goose steps or 18 captures (without sideways moves every goose move is forward).
LONGEST_GAME = 100 * (18 * 8 + 18 + 1)


def playout(variant, seed, max_plies=LONGEST_GAME):
    rng = random.Random(seed)
    game = Game(variant)
    while game.outcome() is None and len(game.moves) < max_plies:
        game.push(rng.choice(game.legal_moves()))
    return game


@settings(max_examples=60, deadline=None)
@given(case=variant_cases, seed=st.integers(0, 2**32))
def test_random_playouts_keep_pieces_and_end_once(case, seed):
    variant = get_variant(case[0], **case[1])
    game = playout(variant, seed)
    outcome = game.outcome()
    assert outcome is not None, "every game of these variants ends"
    assert outcome.termination in variant.endings
    assert game.legal_moves() == []
    for before, move, after in zip(game.positions, game.moves, game.positions[1:]):
        captured = len(move.captured_points())
        assert after.prey.bit_count() == before.prey.bit_count() - captured
        assert not after.prey >> after.predator & 1, "fox and goose on one point"
        assert after.prey & ~variant.board.mask == 0
        if before.turn == Side.PREY:
            assert move.target >= move.origin - 1, "a goose moved back"
            assert move.target // 9 >= move.origin // 9
        # exactly one ending: no earlier position was already over
        assert Game.from_position(before).position.is_over_by_counters() is None


@settings(max_examples=60, deadline=None)
@given(case=variant_cases, seed=st.integers(0, 2**32), plies=st.integers(0, 60))
def test_position_and_move_text_round_trip(case, seed, plies):
    game = playout(get_variant(case[0], **case[1]), seed, max_plies=plies)
    position = game.position
    assert Position.from_text(position.text()) == position
    for move in game.moves:
        assert Move.parse(str(move)) == move


def _random_position(rng: random.Random) -> Position:
    variant_id, options = rng.choice(VARIANTS)
    variant = get_variant(variant_id, **options)
    points = sorted(variant.board.points)
    rng.shuffle(points)
    count = rng.randint(4, min(len(points) - 1, 18 if variant_id == "great-cross" else 13))
    if variant_id == "hare-and-hounds":
        count = 3
    predator, prey = points[0], points[1:count + 1]
    turn = rng.choice([Side.PREDATOR, Side.PREY])
    return Position(variant, predator, sum(1 << p for p in prey), turn)


def test_fast_generator_agrees_with_reference_on_random_positions():
    rng = random.Random(2026)
    for _ in range(3000):
        position = _random_position(rng)
        predator = (position.predator % 9, position.predator // 9)
        prey = [(p % 9, p // 9) for p in position.prey_points]
        expected = reference_moves(position.variant.id, bool(position.variant.option_dict.get("sideways")),
                                   predator, prey, position.turn == Side.PREDATOR)
        assert sorted(str(m) for m in position.pseudo_moves()) == expected, position.text()
