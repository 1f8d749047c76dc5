"""The compiled rules core against the engine: random games of every variant and option, compared at
every ply: the moves (paths; the fox's in the engine's order), their count, the state after each move and back
(play, undo), and the ending (with the history that repetition needs). Half the games start from
scattered positions with counters near their limits, so stalling and the fifty-move draw show up."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from foxgeese.engine import Game, Position, Side, get_variant
from foxgeese.engine.sampling import scattered_position
from foxgeese.players.compiled import core
from foxgeese.players.compiled.tables import DenseBoard

VARIANTS = [("standard", {"geese": g, "sideways": s}) for g in (13, 15, 17) for s in (False, True)] + [
    ("hare-and-hounds", {}), ("great-cross", {}), ("standard", {"diagonals": "alternating"}),
    ("standard", {"diagonals": "alternating", "sideways": True})]
CAPACITY = 1 << 14


def core_moves(board: DenseBoard, state: tuple[int, int, int, int, int], buffers) -> list:
    """The core's moves as engine moves (paths through `core.path`), in its order."""
    frm, to, taken, parent, points = buffers
    fox, prey, turn, _, _ = state
    end = core.generate(board.tables, fox, prey, turn, frm, to, taken, parent, 0)
    assert end >= 0
    moves = []
    for i in range(end):
        length = core.path(frm, to, parent, i, points)
        moves.append(board.move(points[:length].tolist(), bool(taken[i])))
    return moves


@pytest.mark.parametrize("variant_id, options", VARIANTS, ids=[f"{v}-{o}" for v, o in VARIANTS])
def test_random_games_follow_the_engine(variant_id, options):
    variant = get_variant(variant_id, **options)
    board = DenseBoard(variant)
    t = board.tables
    rng = random.Random(f"{variant_id}{options}")
    buffers = tuple(np.zeros(CAPACITY, np.int64) for _ in range(5))
    frm, to, taken = buffers[:3]
    history = np.zeros(256, np.int64)
    expected_endings = {"captured", "trapped", "immobilized"} if variant.captures else {"escaped", "stalling",
                                                                                         "trapped", "immobilized"}
    if options.get("sideways") or variant_id == "great-cross":
        expected_endings |= {"fifty-moves", "repetition"}
    endings: Counter[str] = Counter()
    plies = 0
    while plies < 2500 or not expected_endings <= set(endings) and plies < 20_000:
        draw = rng.random()
        if draw < 0.1:  # a full board: the side to move is trapped or immobilized at once
            start = scattered_position(variant, rng, prey_count=t.n - 1)
        elif draw < 0.5:
            start = scattered_position(variant, rng, counters=True)
            if draw < 0.3:  # the fifty-move counter a few plies from the draw
                start = Position(variant, start.predator, start.prey, start.turn, rng.randint(97, 100), start.stall)
        else:
            start = variant.start_position()
        game = Game.from_position(start)
        count = 0
        while True:
            state = board.state(game.position.state)
            fox, prey, turn, quiet, stall = state
            if quiet == 0 or count == 0:
                count = 0  # the last move was irreversible: earlier positions never recur
            history[count] = core.key(fox, prey, turn)
            count += 1
            expected = game.outcome()
            code = core.outcome(t, fox, prey, turn, quiet, stall, history, count)
            assert core.ENDING_NAMES[code] == ("going" if expected is None else expected.termination.value), \
                game.position.text()
            if expected is not None:
                endings[expected.termination.value] += 1
                assert core.WINNER[code] == (-1 if expected.termination.winner is None
                                             else int(expected.termination.winner))
                break
            engine_moves = game.position.legal_moves()
            listed = core_moves(board, state, buffers)
            if turn == core.PREDATOR:  # the fox's moves in the engine's order; the prey's by prey, then target
                assert listed == engine_moves, game.position.text()
            else:
                assert sorted(listed) == sorted(engine_moves), game.position.text()
            assert core.count_moves(t, fox, prey, turn) == len(engine_moves)
            assert core.has_moves(t, fox, prey, turn)
            if turn == core.PREDATOR:
                assert core.has_jump(t, fox, prey) == any(m.is_capture for m in engine_moves)
            rules = variant.rules
            for i, move in enumerate(listed):
                after = core.play(t, fox, prey, turn, quiet, stall, frm[i], to[i], taken[i])
                assert board.engine_state(*after) == rules.play(game.position.state, move)
                assert core.undo(t, *after, frm[i], to[i], taken[i], quiet, stall) == state
            assert core.ending(t, fox, prey, quiet, stall) == core.GOING
            game.push(rng.choice(engine_moves))
            plies += 1
    assert expected_endings <= set(endings), endings


def test_the_repetition_key_and_move_codes_round_trip():
    board = DenseBoard(get_variant("great-cross"))
    fox, prey = 44, (1 << 45) - 2
    assert core.key(fox, prey, 1) == prey << 7 | fox << 1 | 1
    code = core.encode(3, 44, 1 << 44)
    assert core.decode(code) == (3, 44, 1 << 44)
    assert board.grid_mask(board.mask(board.variant.prey_start)) == board.variant.prey_start
    assert board.state(board.engine_state(fox, prey, int(Side.PREY), 7, 0)) == (fox, prey, 1, 7, 0)
