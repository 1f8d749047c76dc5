"""A game's seed: sent in new_game, kept in the record, and the only source of the players' randomness."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from foxgeese.engine import Game, Side, get_variant, play_game
from foxgeese.main import main
from foxgeese.players.registry import make_player
from foxgeese.protocol import codec
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee, RefereeConfigError

HH = get_variant("hare-and-hounds")
EXAMPLE_BOT = str(Path(__file__).parent.parent / "examples" / "bots" / "python" / "bot.py")


def moves_of(spec: str, game_seed: int | None, warm_up_games: int = 0) -> list[str]:
    """Plays a player against itself in-process; earlier games must not change this one."""
    player = make_player(spec)
    for warm in range(warm_up_games):
        player.new_game(HH, Side.PREDATOR, seed=1000 + warm)
        player.choose(Game(HH))
    player.new_game(HH, Side.PREDATOR, seed=game_seed)
    game = play_game(Game(HH), {Side.PREDATOR: player, Side.PREY: player}, max_plies=12, start=False)
    return [str(move) for move in game.moves]


@pytest.mark.parametrize("spec", ["random", "random:seed=3", "mcts:playouts=30", "minimax:depth=1,seed=2", "solver"])
def test_a_players_moves_depend_only_on_the_game_seed(spec):
    assert moves_of(spec, 42) == moves_of(spec, 42, warm_up_games=2)


def test_the_players_own_seed_is_combined_with_the_game_seed():
    runs = {tuple(moves_of(f"random:seed={own}", game)) for own in (1, 2) for game in (5, 6)}
    assert len(runs) == 4


def test_the_referee_sends_records_and_draws_seeds(tmp_path):
    seats = {Side.PREDATOR: BotConfig.from_spec("random:seed=1"),
             Side.PREY: BotConfig("example", [sys.executable, EXAMPLE_BOT])}
    with Referee(log_dir=str(tmp_path)) as referee:
        first = referee.play_game(HH, seats, "5+0.1", seed=42, max_plies=30)
        other = referee.play_game(HH, seats, "5+0.1", seed=7, max_plies=30)
        again = referee.play_game(HH, seats, "5+0.1", seed=42, max_plies=30)
        drawn = referee.play_game(HH, seats, "5+0.1", max_plies=2)
        with pytest.raises(RefereeConfigError, match="seed"):
            referee.play_game(HH, seats, "5+0.1", seed=2**53)
    assert first.seed == again.seed == 42 and other.seed == 7
    assert [m.move for m in first.moves] == [m.move for m in again.moves]
    assert [m.move for m in first.moves] != [m.move for m in other.moves]
    assert isinstance(drawn.seed, int) and 0 <= drawn.seed < codec.SEED_LIMIT
    assert type(first).from_json(first.to_json()).seed == 42


def test_play_seed_replays_the_same_game(tmp_path):
    records = []
    for run in range(2):
        path = tmp_path / f"{run}.json"
        result = CliRunner().invoke(main, ["play", "hare-and-hounds", "--hare", "random", "--hounds", "random",
                                           "--seed", "9", "--max-plies", "20", "-q", "--record", str(path)])
        assert result.exit_code == 0, result.output
        records.append(path.read_text())
    first, second = (moves_and_seed(text) for text in records)
    assert first["seed"] == 9 and first["moves"] == second["moves"]


def moves_and_seed(text: str) -> dict:
    data = json.loads(text)
    data["moves"] = [move["move"] for move in data["moves"]]
    return data
