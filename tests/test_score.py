"""`Score` says whose point of view it is, and turns into the same `info` for every search."""

from __future__ import annotations

from test_players_support import diagram

from foxgeese.engine import Clock, Game, Side
from foxgeese.players.mcts import MctsPlayer
from foxgeese.players.minimax import MinimaxPlayer
from foxgeese.players.score import PROVEN_CP, Score


def test_a_score_flips_with_the_point_of_view():
    geese_win = Score.proven_win(Side.PREY, plies=7)
    fox_view = geese_win.pov_of(Side.PREDATOR)
    assert (fox_view.mate, fox_view.cp, fox_view.result) == (-7, -PROVEN_CP, -1)
    assert fox_view.pov_of(Side.PREY) == geese_win
    assert Score(Side.PREDATOR, 35).pov_of(Side.PREY).cp == -35
    assert geese_win.info() == {"score": PROVEN_CP, "mate": 7, "proven": "win"}
    assert Score.proven_loss(Side.PREY).info() == {"score": -PROVEN_CP, "proven": "loss"}  # distance unknown
    assert Score.proven_draw(Side.PREY).info() == {"score": 0}


def test_minimax_and_mcts_report_a_proven_win_alike():
    # The fox jumps the last goose it needs to (three geese left): a win in one ply.
    position = diagram("""
7     . . .
6     . . .
5 . . . . . . .
4 . . . F . . .
3 . . . G . . .
2     . . G
1     G . G
""", "standard", "fox")
    game = Game.from_position(position)
    minimax = MinimaxPlayer(depth=2).choose(game, Clock()).info
    mcts = MctsPlayer(playouts=50, seed=1).choose(game, Clock()).info
    assert minimax["score"] == mcts["score"] == PROVEN_CP
    assert minimax["proven"] == mcts["proven"] == "win" and minimax["mate"] == 1
