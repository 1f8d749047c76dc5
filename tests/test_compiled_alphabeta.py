"""The compiled alpha-beta against the Python one (the reference) and the `minimax` player built on it.

With the table's cut-offs off, a fixed-depth alpha-beta value with a full window is a function of
the position and its path alone, whatever the move order (the table, killers and history only
reorder): so the two searches must give the same value and reach the same depth on every position.
1,000 positions per variant: random games (their history in both searches, so repetitions count)
and scattered positions with counters near their limits (the fifty-move and stalling endings).
"""

from __future__ import annotations

import random

import pytest

from foxgeese.engine import Clock, Game, Position, Side, get_variant
from foxgeese.engine.sampling import scattered_position
from foxgeese.players.compiled import core
from foxgeese.players.compiled.evaluation import eval_tables, evaluate
from foxgeese.players.compiled.player import CONTEMPT, CompiledMinimaxPlayer, CompiledSearch
from foxgeese.players.evaluation import evaluation_for
from foxgeese.players.minimax import AlphaBeta, history_keys
from foxgeese.players.registry import make_player

VARIANTS = [("standard", {}), ("standard", {"sideways": True}), ("great-cross", {}), ("hare-and-hounds", {})]
POSITIONS = 1000


def sample_games(variant, count: int, seed: int) -> list[Game]:
    """Running games: random plies from the start (with their history), or a scattered position."""
    rng = random.Random(seed)
    games: list[Game] = []
    while len(games) < count:
        if rng.random() < 0.3:
            start = scattered_position(variant, rng, counters=True)
            game = Game.from_position(start)
        else:
            game = Game(variant)
            for _ in range(rng.randint(0, 60)):
                moves = game.legal_moves()
                if not moves:
                    break
                game.push(rng.choice(moves))
        if game.legal_moves():
            games.append(game)
    return games


@pytest.mark.parametrize("variant_id, options", VARIANTS, ids=[f"{v}-{o}" for v, o in VARIANTS])
def test_compiled_and_python_values_agree_at_a_fixed_depth(variant_id, options):
    variant = get_variant(variant_id, **options)
    compiled = CompiledSearch(variant, tt_bits=14, tables=False, tt_cutoffs=False)
    python_evaluation = evaluation_for(variant.rules)
    for index, game in enumerate(sample_games(variant, POSITIONS, seed=len(variant_id))):
        position = game.position
        reference = AlphaBeta(variant.rules, python_evaluation)
        reference.tt_cutoffs = False
        deep = 3 if index % 40 == 0 else 2 if index % 4 == 0 else 1  # the Python search's time decides
        expected = reference.search(position.state, depth=deep, seen=history_keys(game, variant.rules))
        compiled.searcher.clear()
        got = compiled.searcher.search(compiled.board.state(position.state), compiled.history(game), depth=deep)
        assert (got.score, got.depth) == (expected.score, expected.depth), position.text()
        fox, prey, turn, _, stall = compiled.board.state(position.state)
        assert evaluate(compiled.board.tables, compiled.searcher.evals, fox, prey, turn, stall) == \
            python_evaluation(position.state)


def test_the_evaluation_tables_count_from_the_start():
    for variant_id in ("standard", "great-cross"):
        search = CompiledSearch(get_variant(variant_id), tt_bits=10, tables=False)
        state = search.board.state(search.variant.start_position().state)
        assert evaluate(search.board.tables, eval_tables(search.board), *state[:3], state[4]) == 0


def test_minimax_is_the_compiled_search_and_minimax_py_the_reference():
    assert isinstance(make_player("minimax:depth=3"), CompiledMinimaxPlayer)
    assert type(make_player("minimax-py:depth=3")).__module__ == "foxgeese.players.minimax"


def test_hare_and_hounds_plays_the_solution():
    """The solved table at every node: the hounds' shortest win from the start (the solver's 23 plies)."""
    variant = get_variant("hare-and-hounds")
    player = make_player("minimax:depth=2")
    player.new_game(variant, Side.PREY)
    choice = player.choose(Game(variant), Clock())
    assert choice.info is not None and choice.info["mate"] == 23 and choice.info["proven"] == "win"


def test_a_fixed_depth_is_searched_whole_and_seeded_ties_replay():
    variant = get_variant("standard", sideways=True)
    game = Game(variant)
    first = CompiledMinimaxPlayer(depth=5, seed=3)
    second = CompiledMinimaxPlayer(depth=5, seed=3)
    moves = []
    for player in (first, second):
        player.new_game(variant, Side.PREDATOR, seed=11)
        choice = player.choose(game, Clock(remaining_ms=60_000))
        assert choice.info is not None and choice.info["depth"] == 5 and "cut" not in choice.info
        moves.append(choice.move)
    assert moves[0] == moves[1]
    cut = CompiledMinimaxPlayer(depth=60).choose(game, Clock(remaining_ms=40, per_move_ms=40))
    assert cut.info is not None and cut.info["cut"] is True and cut.info["depth"] < 60
    assert cut.move in game.legal_moves()


def test_a_proven_win_is_played_fastest():
    """Three geese left after the capture: the fox takes the chain that ends the game at once."""
    position = Position.from_text("standard geese=13,sideways=0 fox d4 d5,d6,c3,c4,e5 0 0 0")
    game = Game.from_position(position)
    choice = CompiledMinimaxPlayer(depth=3).choose(game, Clock())
    assert choice.info is not None and choice.info["mate"] == 1
    assert game.position.play(choice.move).prey.bit_count() < 4


def test_a_draw_costs_the_searching_side_its_contempt():
    """The great cross's start, the fox to move one quiet ply short of the fifty-move rule: every
    move draws. The reference's search (contempt 0) scores it 0; with a contempt the side the search
    is for scores it that much below, and so does the `minimax` player."""
    variant = get_variant("great-cross")
    start = variant.start_position()
    position = Position(variant, start.predator, start.prey, Side.PREDATOR, 99, 0)
    for contempt in (0, 70):
        search = CompiledSearch(variant, tt_bits=10, tables=False, contempt=contempt)
        state = search.board.state(position.state)
        assert search.searcher.search(state, [int(core.key(*state[:3]))], depth=3).score == -contempt
    choice = CompiledMinimaxPlayer(depth=3).choose(Game.from_position(position), Clock())
    assert choice.info is not None and choice.info["score"] == -CONTEMPT
