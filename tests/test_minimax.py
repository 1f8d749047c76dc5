"""Alpha-beta finds forced wins in tiny hand-made positions and never lets a proven win slip."""

from __future__ import annotations

import random

import pytest
from test_players_support import BudgetRecorder, diagram, play_out, wins_within

from foxgeese.engine import Clock, Game, Side, get_variant, play_game, point_name
from foxgeese.engine.rules import PREDATOR, rules_for
from foxgeese.engine.sampling import played_position
from foxgeese.players import evaluation, minimax
from foxgeese.players.base import time_budget_ms
from foxgeese.players.compiled.player import CompiledMinimaxPlayer
from foxgeese.players.evaluation import evaluation_for
from foxgeese.players.minimax import AlphaBeta, MinimaxPlayer
from foxgeese.players.random_player import RandomPlayer

# The fox jumps d4 then d6 in one move: 5 geese -> 3, fewer than four: the fox wins at once.
FOX_CHAIN = """
7     . . .
6     . G .
5     . . .
4 . . . G . . .
3 . . . F . . .
2     . . .
1     G G G
"""

# The fox has no winning jump now, but wins within three plies whatever the geese do.
FOX_IN_TWO = """
7     . . .
6     . . .
5 . . . . . . .
4 . . . G . G .
3 . F . G . G .
2     . . .
1     G . .
"""

# e6-d7 closes the last gap: the fox on c7 has no step and no jump.
GEESE_TRAP = """
7     F . G
6     G G G
5     G . G
4 . . . . . . .
3 . . . . . . .
2     . . .
1     . . .
"""

# b3-b4 walls the hare in on b5.
HOUNDS_TRAP = """
5   H
4 D . D
3 . D .
2 . . .
1   .
"""

# The hounds need two moves (five plies) to trap the hare.
HOUNDS_IN_THREE = """
5   H
4 . . D
3 . D .
2 D . .
1   .
"""

CASES = [
    ("fox chain", FOX_CHAIN, "standard", "fox", 1),
    ("fox in two", FOX_IN_TWO, "standard", "fox", 3),
    ("geese trap", GEESE_TRAP, "standard", "geese", 1),
    ("hounds trap", HOUNDS_TRAP, "hare-and-hounds", "hounds", 1),
    ("hounds in three", HOUNDS_IN_THREE, "hare-and-hounds", "hounds", 5),
]


@pytest.mark.parametrize("label, text, variant, turn, plies", CASES, ids=[c[0] for c in CASES])
def test_the_diagrams_are_what_they_claim(label, text, variant, turn, plies):
    position = diagram(text, variant, turn)
    assert wins_within(position, plies)
    if plies > 1:
        assert not wins_within(position, plies - 2)


SEARCHES = pytest.mark.parametrize("searcher", [MinimaxPlayer, CompiledMinimaxPlayer], ids=["python", "compiled"])


@SEARCHES
@pytest.mark.parametrize("label, text, variant, turn, plies", CASES, ids=[c[0] for c in CASES])
def test_minimax_plays_the_forced_win_and_reports_the_mate(label, text, variant, turn, plies, searcher):
    position = diagram(text, variant, turn)
    choice = searcher(depth=plies + 1).choose(Game.from_position(position), Clock())
    assert choice.info["mate"] == plies
    after = position.play(choice.move)
    outcome = after.outcome()
    if plies == 1:
        assert outcome is not None and outcome.winner.value == turn
    else:  # still a forced win, two plies shorter, whatever the reply
        assert outcome is None and all(
            wins_within(after.play(reply), plies - 2) for reply in after.legal_moves()
        )


@SEARCHES
@pytest.mark.parametrize("label, text, variant, turn, plies", CASES, ids=[c[0] for c in CASES])
def test_minimax_converts_the_win_against_any_defence(label, text, variant, turn, plies, searcher):
    position = diagram(text, variant, turn)
    for seed in range(3):
        game = play_out(position, searcher(depth=plies + 1), RandomPlayer(seed=seed))
        outcome = game.outcome()
        assert outcome is not None and outcome.winner.value == turn
        assert len(game.moves) <= plies


@SEARCHES
def test_the_faster_win_is_preferred(searcher):
    # Both the single jump d3xd5 (then more) and the chain d3xd5xd7 win; the chain wins now.
    position = diagram(FOX_CHAIN, "standard", "fox")
    choice = searcher(depth=5).choose(Game.from_position(position), Clock())
    assert str(choice.move) == "d3xd5xd7"
    assert choice.info["mate"] == 1


def test_the_losing_side_sees_the_loss_coming():
    position = diagram(FOX_IN_TWO, "standard", "fox")
    engine = AlphaBeta(rules_for(position.variant))
    fox_move = engine.search(position.state, depth=4).move
    reply_state = engine.rules.play(position.state, fox_move)
    result = AlphaBeta(engine.rules).search(reply_state, depth=4)
    assert result.mate is not None and result.mate < 0  # the geese know they are lost


@SEARCHES
@pytest.mark.parametrize("limit", [{"depth": 3}, {"nodes": 2000}, {"time": 60}])
def test_every_limit_stops_the_search_with_a_legal_move(limit, searcher):
    game = Game(get_variant("standard"))
    choice = searcher(**limit).choose(game, Clock())
    assert choice.move in game.legal_moves()
    assert choice.info["nodes"] > 0 and choice.info["pv"][0] == str(choice.move)
    if "nodes" in limit:
        assert choice.info["nodes"] <= limit["nodes"] + 50  # the last capture batch may overrun a little


def test_the_clock_and_the_time_option_set_the_search_budget(monkeypatch):
    recorder = BudgetRecorder(monkeypatch, minimax)
    game = Game(get_variant("great-cross"))
    clock = Clock(remaining_ms=1000, increment_ms=0)
    assert MinimaxPlayer().choose(game, clock).move in game.legal_moves()
    MinimaxPlayer(time=60).choose(game, Clock())
    MinimaxPlayer(time=10_000).choose(game, clock)  # the clock is tighter than the option
    searched = [budget for budget in recorder.budgets if budget is not None]  # None: a new engine's idle deadline
    assert searched == [time_budget_ms(clock), 60, time_budget_ms(clock)]


def test_a_passed_deadline_stops_the_search_at_its_first_check():
    position = get_variant("great-cross").start_position()
    result = AlphaBeta(rules_for(position.variant)).search(position.state, time_ms=0)
    assert result.move in position.legal_moves() and result.nodes == minimax.TIME_CHECK_NODES


def test_a_seed_varies_the_game_reproducibly():
    def line(seed):
        players = {Side.PREDATOR: MinimaxPlayer(depth=2, seed=seed), Side.PREY: MinimaxPlayer(depth=2, seed=seed)}
        game = play_game(Game(get_variant("standard")), players, max_plies=8, start=False)
        return [str(m) for m in game.moves]

    assert line(1) == line(1)
    assert len({tuple(line(s)) for s in range(4)}) > 1


def test_a_position_seen_before_scores_as_a_draw_in_great_cross():
    # Three geese short: the fox's static score is far from zero. If every fox move led back to
    # a position of the game's history, each would be a repetition draw, and the search says 0.
    position = diagram("""
9       . . .
8       . . .
7       . F .
6 . . . . . . . . .
5 . . . . . . . . .
4 G G G . . . G G G
3       G G G
2       G G G
1       G G G
""", "great-cross", "fox")
    rules = rules_for(position.variant)
    state = position.state
    assert evaluation_for(rules)(state) != 0
    children = {rules.key(rules.play(state, m)) for m in rules.moves(state)}
    assert AlphaBeta(rules).search(state, depth=3).score != 0
    assert AlphaBeta(rules).search(state, depth=3, seen=children).score == 0
    # Hare and hounds has no repetition rule (stalling decides): history is ignored there.
    hunt = diagram(HOUNDS_IN_THREE, "hare-and-hounds", "hounds")
    hunt_rules = rules_for(hunt.variant)
    hunt_state = hunt.state
    hunt_children = {hunt_rules.key(hunt_rules.play(hunt_state, m)) for m in hunt_rules.moves(hunt_state)}
    assert AlphaBeta(hunt_rules).search(hunt_state, depth=6, seen=hunt_children).mate == 5


# -- the fox-and-geese evaluation: containment --------------------------------------------------

def _fox_view(text: str) -> int:
    """The static evaluation of a diagram with the fox to move (positive: good for the fox)."""
    position = diagram(text, "standard", "fox")
    rules = rules_for(position.variant)
    return evaluation_for(rules)(position.state)


WALL_WITH_FOX_ABOVE = """
7     . . .
6     . F .
5 . . . . . . .
4 G G G G G G G
3 . G G G G G .
2     . . .
1     . G .
"""

WALL_WITH_FOX_BEHIND = """
7     . . .
6     . . .
5 . . . . . . .
4 G G G G G G G
3 . G G G G G .
2     . F .
1     . G .
"""


def test_a_fox_behind_the_wall_is_far_worse_for_the_geese_than_one_enclosed_above_it():
    # Above the wall the fox has more room, but behind it the fox walks to c1 and e1, which no
    # goose can ever stand on again (geese never move back): the geese cannot trap it any more.
    above, behind = _fox_view(WALL_WITH_FOX_ABOVE), _fox_view(WALL_WITH_FOX_BEHIND)
    assert behind - above >= evaluation.ESCAPED


def test_points_behind_every_goose_are_lost_to_the_geese_for_good():
    position = diagram(WALL_WITH_FOX_BEHIND, "standard", "fox")
    rules = rules_for(position.variant)
    fox_geese = evaluation_for(rules)
    cone = fox_geese.cone(position.prey)
    lost = {point_name(p) for p in position.variant.board.points if not cone >> p & 1}
    assert lost == {"a3", "g3", "c1", "e1"}  # d1 can still step to c2, d2 and e2


HANGING_GOOSE_BACKED = """
7     . F .
6     . . .
5 . . . . . . .
4 G . . . . . .
3 G G G G G G G
2     G G G
1     . . .
"""

HANGING_GOOSE_HANGS = """
7     . F .
6     . . .
5 . . . . . . .
4 . . G . . . .
3 G G G G G G G
2     G G G
1     . . .
"""


def test_a_goose_the_fox_could_jump_is_penalised():
    # Same material and the same fox region; a4 cannot be jumped (a3 behind it, nothing beyond
    # the edge), c4 can (d4 over c4 to the empty b4).
    hangs, backed = _fox_view(HANGING_GOOSE_HANGS), _fox_view(HANGING_GOOSE_BACKED)
    assert hangs - backed >= evaluation.WEAK_GOOSE - 2 * evaluation.GEESE_MOBILITY > 0


LONE_GOOSE_AHEAD = """
7     . . .
6     . G .
5 . . . . . . .
4 . . F . G . .
3 G G G G . G G
2     G G G
1     . . .
"""

GOOSE_AHEAD_BACKED = """
7     . . .
6     . . .
5 . . . G . . .
4 . . F . G . .
3 G G G G . G G
2     G G G
1     . . .
"""


def _lone_points(text: str) -> set[str]:
    position = diagram(text, "standard", "fox")
    lone = evaluation_for(rules_for(position.variant)).lone(position.prey)
    return {point_name(p) for p in position.variant.board.points if lone >> p & 1}


def test_a_goose_that_went_ahead_alone_is_lone_and_a_backed_one_is_not():
    # d6 has no goose on c5, d5 or e5, the points a goose steps onto d6 from. On d5 it has e4
    # behind it, and e4 has d3 and f3. Geese on their start points are never lone.
    assert _lone_points(LONE_GOOSE_AHEAD) == {"d6"}
    assert _lone_points(GOOSE_AHEAD_BACKED) == set()


def test_remembered_scores_are_the_scores_and_the_memory_is_bounded(monkeypatch):
    monkeypatch.setattr(evaluation, "SCORE_CACHE_SIZE", 50)
    for variant in (get_variant("standard"), get_variant("great-cross")):
        rules = rules_for(variant)
        evaluate = evaluation_for(rules)
        rng = random.Random(5)
        positions = [played_position(variant, rng, (0, 29)) for _ in range(40)]
        states = [position.state for position in positions if position is not None]
        for state in states * 3:  # the second and third rounds are answered from memory
            fox_to_move = state[2] == PREDATOR
            direct = evaluate.fox_score(state[0], state[1], fox_to_move)
            assert evaluate(state) == (direct if fox_to_move else -direct)
            assert len(evaluate._scores) <= 50


def test_the_table_stays_bounded_within_one_search(monkeypatch):
    monkeypatch.setattr(minimax, "TT_LIMIT", 1_000)
    position = get_variant("great-cross").start_position()
    engine = AlphaBeta(rules_for(position.variant))
    result = engine.search(position.state, nodes=20_000)
    assert result.nodes >= 19_000 and result.move in position.legal_moves()
    # Checked with the clock every TIME_CHECK_NODES nodes; each node stores at most one entry.
    assert len(engine.tt) <= 1_000 + minimax.TIME_CHECK_NODES + 1
