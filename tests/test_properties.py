"""Property tests: random playouts keep the pieces honest and end exactly once; text round-trips;
the rules core agrees with the reference rules on random position text of every variant."""

from __future__ import annotations

import random
from collections import Counter

import reference_rules as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from foxgeese.engine import Game, Move, Position, Side, get_variant, point_name
from foxgeese.engine.sampling import scattered_position

VARIANTS = [("standard", {}), ("standard", {"geese": 15}), ("standard", {"geese": 17}),
            ("standard", {"sideways": True}), ("hare-and-hounds", {}), ("great-cross", {}),
            ("standard", {"diagonals": "alternating"}), ("standard", {"diagonals": "alternating", "sideways": True})]
variant_cases = st.sampled_from(VARIANTS)


# A game must end within this: each run of quiet plies is under 100 long and ends with one of the
# at most 18 * 8 forward goose steps or 18 captures (without sideways moves every goose move is forward).
LONGEST_GAME = 100 * (18 * 8 + 18 + 1)


def cells(position: Position) -> tuple[tuple[int, int], set[tuple[int, int]]]:
    """The predator and prey as the reference's (column, row) points."""
    return (position.predator % 9, position.predator // 9), {(p % 9, p // 9) for p in position.prey_points}


def reference_ending(position: Position) -> str | None:
    """The reference's ending of a position, without history."""
    predator, prey = cells(position)
    variant = position.variant
    return reference.ending(variant.id, bool(variant.option_dict.get("sideways")), predator, prey,
                            position.turn == Side.PREDATOR, position.quiet, position.stall, diagonals(variant))


def diagonals(variant) -> str:
    """The reference's name of the board's diagonals (standard's option; "all" elsewhere)."""
    return variant.option("diagonals") or "all"


def reference_winner(position: Position, termination: str) -> str:
    variant = position.variant
    if termination in ("fifty-moves", "repetition"):
        return "draw"
    if termination == "trapped":
        return variant.prey_name
    return variant.predator_name


def playout(variant, seed, max_plies=LONGEST_GAME):
    rng = random.Random(seed)
    game = Game(variant)
    while game.outcome() is None and len(game.moves) < max_plies:
        game.push(rng.choice(game.legal_moves()))
    return game


@settings(max_examples=60, deadline=None)
@given(case=variant_cases, seed=st.integers(0, 2**32))
def test_random_playouts_keep_pieces_and_end_exactly_once(case, seed):
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
    # Exactly one ending: by the reference rules (every ending, trapped and immobilized included,
    # repetition counted here from the positions), no earlier position was over and the last is.
    draws = reference.draws_apply(variant.id, bool(variant.option_dict.get("sideways")))
    occurrences: Counter = Counter()
    for number, position in enumerate(game.positions):
        occurrences[position.key()] += 1
        ended = reference_ending(position)
        if ended is None and draws and occurrences[position.key()] >= 3:
            ended = "repetition"
        if number < len(game.moves):
            assert ended is None, f"ply {number} was already over ({ended}): {position.text()}"
        else:
            assert ended == outcome.termination.value
            assert reference_winner(position, ended) == outcome.winner.value


@settings(max_examples=60, deadline=None)
@given(case=variant_cases, seed=st.integers(0, 2**32), plies=st.integers(0, 60))
def test_position_and_move_text_round_trip(case, seed, plies):
    game = playout(get_variant(case[0], **case[1]), seed, max_plies=plies)
    position = game.position
    assert Position.from_text(position.text()) == position
    for move in game.moves:
        assert Move.parse(str(move)) == move


@st.composite
def position_texts(draw) -> str:
    """Position text of any variant: pieces anywhere, any side to move, any counters."""
    variant_id, options = draw(variant_cases)
    variant = get_variant(variant_id, **options)
    points = sorted(variant.board.points)
    predator = draw(st.sampled_from(points))
    prey_points = draw(st.lists(st.sampled_from([p for p in points if p != predator]), unique=True,
                                min_size=1, max_size=variant.prey_start.bit_count()))
    turn = draw(st.sampled_from([Side.PREDATOR, Side.PREY]))
    quiet = draw(st.integers(0, 110))
    stall = draw(st.integers(0, 12)) if variant_id == "hare-and-hounds" else 0
    prey = ",".join(point_name(p) for p in prey_points)
    return (f"{variant.id} {variant.options_text()} {variant.side_name(turn)} {point_name(predator)} {prey} "
            f"{quiet} {stall} {draw(st.integers(0, 400))}")


@settings(max_examples=400, deadline=None)
@given(text=position_texts())
def test_rules_agree_with_the_reference_from_random_position_text(text):
    position = Position.from_text(text)
    variant = position.variant
    sideways = bool(variant.option_dict.get("sideways"))
    predator, prey = cells(position)
    fox_to_move = position.turn == Side.PREDATOR
    moves = sorted(position.pseudo_moves(), key=str)
    assert [str(m) for m in moves] == reference.legal_moves(variant.id, sideways, predator, prey, fox_to_move,
                                                            diagonals(variant))
    expected = reference_ending(position)
    outcome = position.outcome()
    assert (outcome and outcome.termination.value) == expected
    if outcome is not None:
        assert outcome.winner.value == reference_winner(position, expected)
        assert position.legal_moves() == []
        return
    for move in moves:
        child = position.play(move)
        want = reference.after_move(variant.id, predator, prey, fox_to_move, position.quiet, position.stall, str(move))
        assert (*cells(child), child.turn == Side.PREDATOR, child.quiet, child.stall) == want, str(move)
        assert child.ply == position.ply + 1


def test_generator_agrees_with_reference_on_scattered_positions():
    rng = random.Random(2026)
    for _ in range(3000):
        variant_id, options = rng.choice(VARIANTS)
        position = scattered_position(get_variant(variant_id, **options), rng)
        predator, prey = cells(position)
        expected = reference.legal_moves(position.variant.id, bool(position.variant.option_dict.get("sideways")),
                                         predator, prey, position.turn == Side.PREDATOR, diagonals(position.variant))
        assert sorted(str(m) for m in position.pseudo_moves()) == expected, position.text()
