"""Budgets are budgets: a player with a fixed depth, node or playout budget spends it whole, the
clock only guards against a loss on time, and a move the clock did cut says so (`cut`) all the way
into the game record and the tournament report."""

from __future__ import annotations

from types import SimpleNamespace

from test_players_support import BudgetRecorder

from foxgeese.engine import Clock, Game, Side, get_variant
from foxgeese.players import mcts, minimax
from foxgeese.players.base import Deadline, safety_budget_ms, time_budget_ms
from foxgeese.players.mcts import MctsPlayer
from foxgeese.players.minimax import MinimaxPlayer
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee
from foxgeese.tournaments.report import cut_moves, cut_warnings

CLOCK = Clock(remaining_ms=2000, increment_ms=100)  # a game clock would give a move 141 ms; safety: 1015


def _choose(player, seed: int = 5):
    game = Game(get_variant("standard"))
    player.new_game(game.variant, game.position.turn, seed=seed)
    return player.choose(game, CLOCK)


def test_mcts_spends_its_whole_playout_budget_and_the_clock_is_a_safety_limit(monkeypatch) -> None:
    recorder = BudgetRecorder(monkeypatch, mcts)
    first, second = _choose(MctsPlayer(playouts=300, seed=1)), _choose(MctsPlayer(playouts=300, seed=1))
    assert recorder.budgets == [safety_budget_ms(CLOCK)] * 2
    assert safety_budget_ms(CLOCK) > 5 * time_budget_ms(CLOCK)
    assert first.info["playouts"] == second.info["playouts"] == 300 and "cut" not in first.info
    assert (first.move, first.info["pv"], first.info["score"]) == (second.move, second.info["pv"], second.info["score"])
    assert _choose(MctsPlayer(seed=1)).info["playouts"] > 0 and recorder.budgets[-1] == time_budget_ms(CLOCK)


def test_a_cut_mcts_move_says_so(monkeypatch) -> None:
    monkeypatch.setattr(mcts, "Deadline", lambda budget_ms: Deadline(0))  # the safety limit binds at once
    choice = _choose(MctsPlayer(playouts=300, seed=1))
    assert choice.info["cut"] is True and choice.info["playouts"] == 0


def test_minimax_searches_its_whole_depth_and_a_cut_says_so(monkeypatch) -> None:
    recorder = BudgetRecorder(monkeypatch, minimax)
    choice = _choose(MinimaxPlayer(depth=4))
    assert safety_budget_ms(CLOCK) in recorder.budgets and time_budget_ms(CLOCK) not in recorder.budgets
    assert choice.info["depth"] == 4 and "cut" not in choice.info
    monkeypatch.setattr(minimax, "Deadline", lambda budget_ms: Deadline(0 if budget_ms is not None else None))
    cut = _choose(MinimaxPlayer(depth=4))
    assert cut.info["cut"] is True and cut.info["depth"] < 4


def test_the_cut_reaches_the_record_and_the_report(short_tmp) -> None:
    """Real bots through the real referee: a budget no move can spend in 50 ms."""
    greedy = BotConfig.from_spec("mcts:playouts=10000000,seed=1", name="greedy")
    quick = BotConfig.from_spec("minimax:depth=1", name="quick")
    with Referee(log_dir=short_tmp) as referee:
        record = referee.play_game(get_variant("standard"), {Side.PREDATOR: greedy, Side.PREY: quick}, "move=0.05",
                                   max_plies=4, seed=3)
    data = record.to_dict()
    fox = [move for move in data["moves"] if move["side"] == "fox"]
    assert fox and all(move["info"]["cut"] is True and move["info"]["playouts"] > 0 for move in fox)
    assert all("cut" not in move["info"] for move in data["moves"] if move["side"] == "geese")
    cuts = cut_moves([SimpleNamespace(record=record)])  # type: ignore[list-item]  # a journal entry's record alone
    assert cuts == {"greedy": {"moves": len(fox), "cut": len(fox)}, "quick": {"moves": 4 - len(fox), "cut": 0}}
    (warning,) = cut_warnings(cuts)
    assert warning.startswith(f"warning: the clock cut {len(fox)} of {len(fox)} moves of greedy")
