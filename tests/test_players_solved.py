"""The searches never let a proven win slip, judged by the exact Hare and Hounds solution.

The solution (helper module `hare_hounds_solution`, built from the engine's own rules in under a
second) gives every position's result and distance. From won positions reached by random play,
minimax searching one ply past the win distance, and MCTS on short wins, must play a move that
still wins.
"""

from __future__ import annotations

import random

import pytest

from foxgeese.engine import Clock, Game, get_variant
from foxgeese.engine.sampling import played_position
from foxgeese.players.compiled.player import CompiledSearch
from foxgeese.players.mcts import MctsPlayer
from foxgeese.players.minimax import MinimaxPlayer
from foxgeese.players.solver import hare_hounds_solution
from foxgeese.players.solver.tables import WIN, to_parent


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    return hare_hounds_solution.load_solution(tmp_path_factory.mktemp("tables"))


def won_positions(solved, count: int, max_distance: int, seed: int) -> list:
    """Positions reached by random play where the side to move wins within `max_distance` plies."""
    variant = get_variant("hare-and-hounds")
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = played_position(variant, rng, (0, 29))
        if position is not None and 0 < WIN - solved.score(position) <= max_distance:
            found.append(position)
    return found


def keeps_the_win(solved, position, move) -> bool:
    return to_parent(solved.score(position.play(move))) > 0


def test_minimax_keeps_every_proven_win(solved):
    positions = won_positions(solved, 40, 15, seed=3)
    assert {WIN - solved.score(p) for p in positions} >= {1, 3, 5, 7, 9}  # short and long wins
    for position in positions:
        distance = WIN - solved.score(position)
        choice = MinimaxPlayer(depth=distance + 1).choose(Game.from_position(position), Clock())
        assert keeps_the_win(solved, position, choice.move), (position.text(), str(choice.move))
        if len(position.legal_moves()) > 1:  # (a forced move is played after a 2-ply look)
            assert choice.info["mate"] == distance  # and it sees exactly how far the win is


def test_the_compiled_search_without_the_table_keeps_every_proven_win(solved):
    """The compiled alpha-beta on its own (the player reads the solution at every node)."""
    variant = get_variant("hare-and-hounds")
    search = CompiledSearch(variant, tt_bits=14, tables=False)
    for position in won_positions(solved, 40, 15, seed=5):
        distance = WIN - solved.score(position)
        game = Game.from_position(position)
        search.searcher.clear()
        result = search.searcher.search(search.board.state(position.state), search.history(game),
                                        depth=distance + 1)
        move = search.engine_move(position.legal_moves(), result.move)
        assert keeps_the_win(solved, position, move), (position.text(), str(move))
        if len(position.legal_moves()) > 1:
            assert 1_000_000 - result.score == distance


def test_mcts_keeps_short_proven_wins(solved):
    for index, position in enumerate(won_positions(solved, 25, 7, seed=4)):
        choice = MctsPlayer(playouts=1000, seed=index).choose(Game.from_position(position), Clock())
        assert keeps_the_win(solved, position, choice.move), (position.text(), str(choice.move))
