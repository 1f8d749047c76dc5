"""Accuracy that says what it measured: only moves with a real choice are judged (a random hare in
a lost Hare and Hounds game used to count as "judged, 0 mistakes"), counts per goose count, the
tables that judged named, and the command that builds missing tables."""

from __future__ import annotations

from foxgeese.engine import Game, Side, get_variant, play_game
from foxgeese.players.random_player import RandomPlayer
from foxgeese.players.solver.analyse import Judge, analyse_record, build_hint, tournament_accuracy
from foxgeese.players.solver.hare_hounds_solution import load_solution
from foxgeese.players.solver.player import SolverPlayer

HARE_HOUNDS = get_variant("hare-and-hounds")


def _record(players: dict[Side, object], seed: int) -> dict:
    game = play_game(Game(HARE_HOUNDS), players, max_plies=60, seed=seed)
    sides = [HARE_HOUNDS.side_name(Side.PREDATOR), HARE_HOUNDS.side_name(Side.PREY)]
    moves = []
    position = HARE_HOUNDS.start_position()
    for move in game.moves:
        moves.append({"move": str(move), "side": HARE_HOUNDS.side_name(position.turn), "book": False})
        position = position.play(move)
    return {"variant": "hare-and-hounds", "options": {}, "moves": moves, "game_id": f"g{seed}",
            "bots": {sides[0]: {"name": "hare-bot"}, sides[1]: {"name": "hounds-bot"}}}


def test_a_random_hare_against_perfect_hounds_has_no_move_to_judge(tmp_path) -> None:
    record = _record({Side.PREDATOR: RandomPlayer(seed=3), Side.PREY: SolverPlayer(tables=str(tmp_path))}, 3)
    game = analyse_record(record, Judge(str(tmp_path)))
    hare, hounds = game.sides["hare"], game.sides["hounds"]
    hare_moves = sum(1 for move in record["moves"] if move["side"] == "hare")
    assert hare.judged == 0 and hare.forced == hare_moves > 3  # lost from the start: no move could be a mistake
    assert hounds.mistakes == 0 and hounds.judged + hounds.forced == len(record["moves"]) - hare_moves


def test_a_move_is_judged_exactly_where_some_move_would_lose_value(tmp_path) -> None:
    table = load_solution(str(tmp_path))

    def value(position) -> int:
        score = table.score(position)
        return (score > 0) - (score < 0)

    for seed in (1, 2, 5):
        record = _record({Side.PREDATOR: RandomPlayer(seed=seed), Side.PREY: RandomPlayer(seed=seed + 10)}, seed)
        game = analyse_record(record, Judge(str(tmp_path)))
        expected = {"hare": [0, 0], "hounds": [0, 0]}  # judged, forced
        position = HARE_HOUNDS.start_position()
        for move in record["moves"]:
            worse = [m for m in position.legal_moves() if -value(position.play(m)) < value(position)]
            expected[move["side"]][0 if worse else 1] += 1
            position = position.play(position.parse_move(move["move"]))
        for side, (judged, forced) in expected.items():
            assert (game.sides[side].judged, game.sides[side].forced, game.sides[side].unknown) == (judged, forced, 0)
            assert sum(game.sides[side].judged_by_geese.values()) == judged
            assert set(game.sides[side].judged_by_geese) <= {3}  # the three hounds


def test_the_report_names_its_tables_and_says_how_to_build_missing_ones(tmp_path) -> None:
    record = _record({Side.PREDATOR: RandomPlayer(seed=1), Side.PREY: RandomPlayer(seed=2)}, 1)
    found = tournament_accuracy([record], str(tmp_path))
    (tables,) = found["tables"]
    assert tables["key"] == "hare-and-hounds" and [f["name"] for f in tables["files"]] == ["hare-and-hounds.fgt"]
    assert found["missing"] == [] and set(found["bots"]) == {"hare-bot", "hounds-bot"}
    hint = build_hint(get_variant("standard"), {13: 40, 9: 2})
    assert hint is not None and "42 moves of standard (up to 13 geese)" in hint
    assert "`foxgeese solve standard --geese 13`" in hint and "3.3 GB of disk" in hint


def test_advice_for_unjudged_moves_is_something_a_user_can_run_or_says_no_table_reaches() -> None:
    """The great cross starts with 18 geese: no table reaches it (10 geese would need about 50 GB);
    the advice names the largest build there is, with its cost, for the moves it would judge."""
    hint = build_hint(get_variant("great-cross"), {18: 300, 12: 20, 9: 4, 8: 5})
    assert hint is not None and "--geese 18" not in hint
    assert "no table reaches 18 geese: the tables stop at 9 geese (10 geese would need about 50 GB" in hint
    assert "9 of them (at most 9 geese) are judged after `foxgeese solve great-cross --geese 9` (4 to 9 geese: " \
           "about 32 minutes on one thread, 15.1 GB of memory, 21 GB of disk)" in hint
    hint = build_hint(get_variant("great-cross"), {18: 3})
    assert hint is not None and "judged after" not in hint and "no table reaches 18 geese" in hint
    hint = build_hint(get_variant("standard", sideways=True), {7: 3})
    assert hint is not None and "`foxgeese solve standard --sideways --geese 7` builds win/draw/loss tables that " \
                                "do (4 to 7 geese: about 17 s on one thread" in hint
