"""Perft counts are the rules' ground truth: the spec's table, deeper counts, and a second opinion."""

from __future__ import annotations

import random

import pytest
from reference_rules import legal_moves as reference_moves

from foxgeese.engine import Game, Position, get_variant, perft
from foxgeese.engine.rules import rules_for
from foxgeese.engine.sampling import scattered_position

SPEC_TABLE = {
    "standard": [5, 89, 572, 9778],
    "hare-and-hounds": [7, 21, 133, 443],
    "great-cross": [4, 68, 438, 8608],
}

# The 33-point board with alternating diagonals (docs/rules.md), counted by this engine and by the
# reference rules of tests/reference_rules.py (test_reference_generator_agrees_*): two counts that share no code.
ALTERNATING = [5, 63, 300, 3494, 17976, 217686, 1069603]
ALTERNATING_SIDEWAYS = [5, 63, 300, 4466, 22934, 384892]

# Computed by this engine with hash perft, checked without the hash and against the reference
# generator at the depths below; kept here so a change to the rules shows up as a changed count.
DEEPER = [
    ("standard", {}, [5, 89, 572, 9778, 58574, 1006808, 5860101, 100847023]),
    ("standard", {"geese": 15}, [5, 89, 564, 9948, 57334, 1023646, 5873229]),
    ("standard", {"geese": 17}, [5, 87, 504, 8896, 48986, 873062, 4831247]),
    ("standard", {"sideways": True}, [5, 89, 572, 11664, 69758, 1537134]),
    ("standard", {"geese": 15, "sideways": True}, [5, 99, 626, 13540, 77694]),
    ("standard", {"geese": 17, "sideways": True}, [5, 95, 550, 11852, 64954]),
    ("hare-and-hounds", {}, [7, 21, 133, 443, 2879, 9044, 55384, 169004, 995512, 2968790,
                             16896668, 49014852, 266512540, 763038916]),
    ("great-cross", {}, [4, 68, 438, 8608, 39032, 829680]),
    ("standard", {"diagonals": "alternating"}, ALTERNATING),
    ("standard", {"diagonals": "alternating", "sideways": True}, ALTERNATING_SIDEWAYS),
    ("standard", {"diagonals": "alternating", "geese": 17}, [5, 61, 256, 3086, 14250, 177230, 795801]),
]


@pytest.mark.parametrize("variant_id", sorted(SPEC_TABLE))
def test_spec_table(variant_id):
    game = Game(get_variant(variant_id))
    assert [perft(game, depth) for depth in range(1, 5)] == SPEC_TABLE[variant_id]


@pytest.mark.parametrize("variant_id,options,counts", [case for case in DEEPER if case[2]])
def test_deeper_counts(variant_id, options, counts):
    game = Game(get_variant(variant_id, **options))
    assert [perft(game, depth) for depth in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize("variant_id,options,depth", [
    ("standard", {}, 6), ("hare-and-hounds", {}, 8), ("standard", {"geese": 17}, 5),
])
def test_hash_perft_equals_plain_perft(variant_id, options, depth):
    game = Game(get_variant(variant_id, **options))
    assert perft(game, depth, use_hash=True) == perft(game, depth, use_hash=False)


def _reference_perft(variant_id, sideways, predator, prey, predator_to_move, depth, diagonals="all"):
    if depth == 0:
        return 1
    total = 0
    for text in reference_moves(variant_id, sideways, predator, prey, predator_to_move, diagonals):
        points = [("abcdefghi".index(p[0]), int(p[1:]) - 1) for p in text.replace("x", "-").split("-")]
        if predator_to_move:
            pairs = zip(points, points[1:]) if "x" in text else ()
            jumped = {((a[0] + b[0]) // 2, (a[1] + b[1]) // 2) for a, b in pairs}
            child = (points[-1], frozenset(prey) - jumped)
        else:
            child = (predator, (frozenset(prey) - {points[0]}) | {points[1]})
        total += _reference_perft(variant_id, sideways, child[0], child[1], not predator_to_move, depth - 1, diagonals)
    return total


@pytest.mark.parametrize("variant_id,options", [(v, o) for v, o, _ in DEEPER])
def test_reference_generator_agrees_at_depth_four(variant_id, options):
    variant = get_variant(variant_id, **options)
    start = variant.start_position()
    predator = (start.predator % 9, start.predator // 9)
    prey = frozenset((p % 9, p // 9) for p in start.prey_points)
    sideways = bool(options.get("sideways"))
    expected = _reference_perft(variant_id, sideways, predator, prey, variant.first_to_move == 0, 4,
                                options.get("diagonals", "all"))
    assert perft(Game(variant), 4) == expected


def test_reference_generator_counts_the_alternating_board_at_depth_five():
    """The second count of the new board, one ply deeper than the other variants' (its first count: DEEPER)."""
    start = get_variant("standard", diagonals="alternating").start_position()
    predator = (start.predator % 9, start.predator // 9)
    prey = frozenset((p % 9, p // 9) for p in start.prey_points)
    assert _reference_perft("standard", False, predator, prey, True, 5, "alternating") == ALTERNATING[4]


def test_perft_ends_on_the_stall_count_only_where_stalling_applies():
    start = get_variant("standard").start_position()
    standard = Position(start.variant, start.predator, start.prey, start.turn, 0, 10, 0)
    assert perft(standard, 1) == len(standard.legal_moves()) == 5
    hare = Position.from_text("hare-and-hounds - hare c4 b1,a2,c2 0 10 0")
    assert perft(hare, 1) == len(hare.legal_moves()) == 0


def _replies_child_by_child(rules, state):
    return sum(rules.count_moves(child) for child in rules.children(state) if rules.ending(child) is None)


@pytest.mark.parametrize("variant_id,options", [
    ("standard", {}), ("standard", {"sideways": True}), ("standard", {"geese": 17}),
    ("hare-and-hounds", {}), ("great-cross", {}),
])
def test_replies_counted_at_once_equal_the_replies_child_by_child(variant_id, options):
    """`count_replies` counts the last two plies without the children (perft's plain count): from
    scattered pieces and counters, prey low down (a lone prey lets a prey step escape), both sides."""
    variant = get_variant(variant_id, **options)
    rules = rules_for(variant)
    rng = random.Random(15)
    ended_children = 0
    for _ in range(400):
        state = scattered_position(variant, rng, lowest_row=rng.randrange(4), counters=True).state
        ended_children += sum(rules.ending(child) is not None for child in rules.children(state))
        assert rules.count_replies(state) == _replies_child_by_child(rules, state), state
    assert ended_children  # the children's endings were exercised, not only running games


@pytest.mark.parametrize("variant_id,options", [("standard", {}), ("hare-and-hounds", {}), ("standard", {"geese": 17})])
def test_plain_perft_equals_hash_perft_from_scattered_positions(variant_id, options):
    variant = get_variant(variant_id, **options)
    rng = random.Random(16)
    for _ in range(30):
        position = scattered_position(variant, rng, lowest_row=rng.randrange(3), counters=True)
        assert perft(position, 3, use_hash=False) == perft(position, 3, use_hash=True), position.text()
