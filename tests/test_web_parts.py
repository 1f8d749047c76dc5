"""The web app's parts without a server: the SQLite store (WAL, bounds, restart), the coach's values
and reviews, the material count, and the live feed's count of a resumed tournament."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foxgeese.engine import Game, Position, get_variant
from foxgeese.web.analysis import Coach, material
from foxgeese.web.live import TournamentFeed
from foxgeese.web.store import GameStore, default_data_path


def game_data(game_id: str, status: str = "over", winner: str = "fox", created: float = 0.0, players=("a", "b"),
              moves: int = 0, variant: str = "standard") -> dict:
    return {"id": game_id, "created": created, "variant": variant, "variant_id": variant, "status": status,
            "winner": winner, "result": f"{winner} wins",
            "seats": {"fox": {"name": players[0]}, "geese": {"name": players[1]}},
            "moves": [{"move": "d4-d5"}] * moves}


def test_the_store_is_wal_keeps_games_across_a_restart_and_marks_running_ones_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "serve.sqlite3"
    store = GameStore(path)
    assert store.journal_mode() == "wal" and path.exists()
    store.save_game(game_data("g1", created=1.0))
    store.save_game(game_data("g2", status="playing", winner="", created=2.0, moves=3))
    store.save_record("r1", {"moves": []})
    store.save_analysis("game:g1", {"plies": []})
    store.close()
    again = GameStore(path)
    assert again.interrupted == 1
    assert again.game("g1")["status"] == "over"
    interrupted = again.game("g2")
    assert interrupted["status"] == "interrupted"
    assert interrupted["result"].startswith("interrupted: the server stopped after 3 plies")
    assert again.record("r1") == {"moves": []} and again.analysis("game:g1") == {"plies": []}
    assert [g["id"] for g in again.games(result="interrupted")] == ["g2"]
    assert [g["id"] for g in again.games(result="fox")] == ["g1"]
    again.close()


def test_the_store_filters_by_variant_player_and_result_newest_first(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "s.sqlite3")
    store.save_game(game_data("a", created=1.0, players=("minimax:depth=2", "fox player")))
    store.save_game(game_data("b", created=2.0, winner="geese", players=("random", "geese player")))
    store.save_game(game_data("c", created=3.0, winner="hounds", variant="hare-and-hounds",
                              players=("random", "100%_sure")))
    assert [g["id"] for g in store.games()] == ["c", "b", "a"]
    assert [g["id"] for g in store.games(variant="standard")] == ["b", "a"]
    assert [g["id"] for g in store.games(player="RANDOM")] == ["c", "b"]
    assert [g["id"] for g in store.games(player="%")] == ["c"]  # LIKE's wildcards are plain text here
    assert [g["id"] for g in store.games(player="0%_")] == ["c"]
    assert [g["id"] for g in store.games(result="geese", player="random")] == ["b"]
    assert store.games(result="draw") == []
    store.close()


def test_the_store_is_bounded_by_count_and_by_size_dropping_the_oldest(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "s.sqlite3", max_games=3, max_records=2)
    for index in range(5):
        store.save_game(game_data(f"g{index}", created=float(index)))
    assert [g["id"] for g in store.games()] == ["g4", "g3", "g2"]
    for index in range(3):
        store.save_record(f"r{index}", {"n": index})
    assert store.record("r0") is None and store.record("r2") == {"n": 2} and store.count("records") == 2
    store.close()
    small = GameStore(tmp_path / "small.sqlite3", max_bytes=2000)
    for index in range(10):
        small.save_game(game_data(f"g{index}", created=float(index), moves=5))  # about 400 bytes each
    kept = [g["id"] for g in small.games()]
    assert kept == [f"g{index}" for index in range(9, 9 - len(kept), -1)] and 3 <= len(kept) < 10
    small.save_game(game_data(kept[0], created=9.0, moves=1))  # a running game saved again: its new size counts
    size = sum(len(json.dumps(g, separators=(",", ":"))) for g in small.games())
    assert size <= 2000 and small.stored_bytes == size
    small.close()


def test_the_data_folder_follows_xdg_data_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_data_path() == tmp_path / "foxgeese" / "serve.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_data_path() == Path.home() / ".local" / "share" / "foxgeese" / "serve.sqlite3"


@pytest.fixture(scope="module")
def coach(tmp_path_factory: pytest.TempPathFactory) -> Coach:
    return Coach(str(tmp_path_factory.mktemp("tables")))


def test_the_coach_values_every_move_of_hare_and_hounds_with_distances(coach: Coach) -> None:
    start = get_variant("hare-and-hounds").start_position()
    answer = coach.analyse(start)
    assert answer["value"]["text"] == "win in 23" and answer["missing"] == ""
    best = answer["moves"][0]
    assert best["text"] == "win in 23"
    after = Position.from_text(best["after"])
    assert coach.value(after).text() == "loss in 22"  # the same value seen by the hare, one ply on
    ranks = [("win", "draw", "loss").index(m["result"]) for m in answer["moves"]]
    assert ranks == sorted(ranks)


def test_the_coach_names_the_command_and_cost_of_missing_tables(coach: Coach) -> None:
    five = Position.from_text("standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2 0 0 0")
    answer = coach.analyse(five)
    assert answer["value"]["result"] == "unknown"
    assert "`foxgeese solve standard --build --max-geese 5 --tables" in answer["missing"]
    assert "`foxgeese solve standard --geese 13" in answer["missing"]
    start = get_variant("great-cross").start_position()
    assert "no table of great-cross reaches 18 geese: 10 geese would need about 50 GB" in coach.missing(start)
    sideways = get_variant("standard", sideways=True).start_position()
    assert "--sideways --geese 13" in coach.missing(sideways)


def test_a_review_counts_each_sides_mistakes_and_accuracy(coach: Coach) -> None:
    """The hounds give away their won start, found by the coach itself: a move valued worse than the best."""
    start = get_variant("hare-and-hounds").start_position()
    game = Game.from_position(start)
    moves = []
    def can_blunder(position: Position) -> bool:  # won for the mover, and some move throws it away
        return coach.value(position).result == "win" and any(m["result"] == "loss" for m in coach.moves(position))

    while not can_blunder(game.position):
        assert len(moves) < 23, "the winner always had only winning moves"
        best = coach.moves(game.position)[0]["move"]
        moves.append(best)
        game.push(game.parse_move(best))
    blunder = next(m for m in coach.moves(game.position) if m["result"] == "loss")
    mover = game.position.variant.side_name(game.position.turn)
    moves.append(blunder["move"])
    review = coach.review(start, moves, {"hounds": "me", "hare": "random"})
    assert review["sides"][mover]["mistakes"] == 1
    assert review["sides"][mover]["first_mistake"] == len(moves)
    judged = review["sides"][mover]["judged"]
    assert review["sides"][mover]["accuracy"] == round(100 * (judged - 1) / judged)
    other = "hare" if mover == "hounds" else "hounds"
    assert review["sides"][other]["mistakes"] == 0 and review["sides"][other]["accuracy"] in (100, None)
    assert review["plies"][-1]["mistake"] and review["plies"][-1]["best"] != blunder["move"]


def test_the_material_count_says_how_many_captures_the_fox_still_needs() -> None:
    nine = Position.from_text("standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2,e2,a3,b3,c3 0 0 0")
    assert material(nine) == "9 geese left; the fox needs 6 more captures"  # it wins below four geese
    four = Position.from_text("standard geese=13,sideways=0 fox d4 c1,d1,e1,c2 0 0 0")
    assert material(four) == "4 geese left; the fox needs 1 more capture"
    assert material(get_variant("great-cross").start_position()) == "18 geese left; the fox needs 15 more captures"


def test_the_live_feed_of_a_resumed_tournament_counts_all_its_games(tmp_path: Path) -> None:
    """A resumed runner reports `games_played` for its own games only; the page counts the tournament's."""
    events = [{"event": "tournament_started", "name": "t", "players": ["a", "b"], "games_total": 40, "games_done": 29},
              {"event": "standings", "rows": [{"name": "a", "games": 40}], "games_done": 40},
              {"event": "tournament_ended", "games_played": 11, "games_total": 40, "games_done": 40}]
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(event) + "\n" for event in events))
    feed = TournamentFeed(tmp_path)
    assert feed.poll()
    view = feed.view()
    assert view["finished"] and view["games_done"] == 40 and view["games_total"] == 40


def test_with_endgame_tables_on_disk_the_coach_gives_distances_and_asks_for_nothing(tmp_path: Path) -> None:
    from foxgeese.players.solver.retrograde import build_tables

    variant = get_variant("standard")
    build_tables(variant, 4, tmp_path)  # every position with four geese: about a second
    coach = Coach(str(tmp_path))
    fox_to_move = Position.from_text("standard geese=13,sideways=0 fox d4 c1,d1,e1,c2 0 0 0")
    answer = coach.analyse(fox_to_move)
    assert answer["value"] == {"result": "win", "plies": 5, "source": "endgame tables", "text": "win in 5"}
    assert answer["missing"] == "" and answer["moves"][0]["text"] == "win in 5"
    assert coach.value(Position.from_text(answer["moves"][0]["after"])).text() == "loss in 4"
    geese_to_move = Position.from_text("standard geese=13,sideways=0 geese d4 c1,d1,e1,c2 0 0 0")
    assert coach.analyse(geese_to_move)["moves"][0]["text"] == "loss in 10"  # the slowest loss comes first


def test_counts_and_sides_agree_in_number() -> None:
    from foxgeese.engine.words import plies, side_verb
    from foxgeese.protocol.record import GameRecord
    from foxgeese.tournaments.replay import result_text

    assert [plies(n) for n in (0, 1, 2)] == ["0 plies", "1 ply", "2 plies"]
    assert [side_verb(side, "wins", "win") for side in ("fox", "hare", "geese", "hounds")] == \
        ["fox wins", "hare wins", "geese win", "hounds win"]
    record = GameRecord(game_id="g", variant="standard", options={}, start="", bots={}, time_control="60+0",
                        winner="geese", termination="resignation", plies=1)
    assert record.result_line() == "geese win by resignation after 1 ply"
    assert result_text({"winner": "fox", "termination": "captured", "plies": 1}) == "fox wins by captured after 1 ply"


def test_the_analysis_board_says_what_an_unfinished_position_lacks_instead_of_failing(coach: Coach) -> None:
    two = coach.analyse(Position.from_text("hare-and-hounds - hounds b5 b1,a2 0 0 0"))  # a hound taken off
    assert two["problem"].startswith("a Hare and Hounds position has 3 hounds, this one has 2: put 1 more on")
    assert two["moves"] == [] and two["value"]["result"] == "unknown"
    four = coach.analyse(Position.from_text("hare-and-hounds - hounds b5 b1,a2,c2,b3 0 0 0"))
    assert "this one has 4: take 1 off" in four["problem"]
    crowded = "standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2,e2,a3,b3,c3,d3,e3,f3,g3,a4,b4,c4,e4,f4 0 0 0"
    assert coach.analyse(Position.from_text(crowded))["problem"] == \
        "a standard position has at most 17 geese (its largest start), this one has 18: take 1 off"
    assert "problem" not in coach.analyse(get_variant("hare-and-hounds").start_position())


def test_a_review_names_another_move_only_where_it_was_strictly_better(coach: Coach) -> None:
    start = get_variant("hare-and-hounds").start_position()
    moves = coach.moves(start)
    same = [m for m in moves if m["text"] == moves[0]["text"]]
    assert len(same) >= 2, "the start has two moves of the best value"
    slower = next(m for m in moves if m["result"] == "win" and m["plies"] > moves[0]["plies"])
    for played, best in ((same[1], None), (slower, moves[0]["move"])):
        review = coach.review(start, [played["move"]], {"hounds": "human", "hare": "random"})
        entry = review["plies"][0]
        assert entry["best"] == best and not entry["mistake"], (played, entry)  # a slower win is no mistake
    assert entry["best_value"]["text"] == moves[0]["text"]


@pytest.fixture(scope="module")
def sideways_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The win/draw/loss tables of standard with sideways steps, four geese (about 2 s)."""
    from foxgeese.players.solver.wdl import WdlBuilder

    directory = tmp_path_factory.mktemp("sideways-tables")
    WdlBuilder(get_variant("standard", sideways=True), directory).build(4)
    return directory


def test_an_ai_accepts_a_draw_offer_only_where_the_tables_prove_a_draw(sideways_tables: Path,
                                                                       tmp_path: Path) -> None:
    """As an engine on a game site: it plays on where it wins and where it loses; it takes a proven draw."""
    import random

    from foxgeese.engine import Side
    from foxgeese.engine.sampling import scattered_position
    from foxgeese.players.solver.wdl import WdlTables
    from foxgeese.web.actions import GameActions
    from foxgeese.web.app import Server
    from foxgeese.web.games import new_game

    variant = get_variant("standard", sideways=True)
    tables, rng = WdlTables(variant, sideways_tables), random.Random(5)
    wanted = {(Side.PREDATOR, 1): None, (Side.PREDATOR, 0): None, (Side.PREY, -1): None}  # (AI to move, its value)
    while not all(wanted.values()):
        scattered = scattered_position(variant, rng, prey_count=4)
        ai = rng.choice((Side.PREDATOR, Side.PREY))
        position = Position(variant, scattered.predator, scattered.prey, ai, 0, 0, 0)
        key = (ai, tables.value(position))
        if key in wanted and not wanted[key] and Game.from_position(position).outcome() is None:
            wanted[key] = position
    server = Server(data_path=tmp_path / "serve.sqlite3", tables=str(sideways_tables))
    answers = {}
    for (ai, value), position in wanted.items():
        players = {variant.side_name(ai): "random", variant.side_name(ai.other): "human"}
        game = new_game({"variant": "standard", "sideways": True, "players": players}, lambda game: None)
        game.status, game.game = "playing", Game.from_position(position)  # the AI is to move
        answers[value] = GameActions(server).offer_draw(game, ai.other), game.status
    server.store.close()
    assert answers[1] == ({"ok": "the AI declines the draw (the tables say the fox wins)"}, "playing")
    assert answers[-1] == ({"ok": "the AI declines the draw (the tables say the geese lose: the AI plays on)"},
                           "playing")
    assert answers[0] == ({"ok": "the AI accepts: draw"}, "over")


class _SideRecorder:
    """A relay's stand-in: notes the side the referee seats it in, then resigns (no move)."""

    def __init__(self) -> None:
        self.told: list[str] = []

    def new_game(self, variant, side, seed=None) -> None:
        self.told.append(variant.side_name(side))

    def choose(self, game, clock):
        return None


def test_two_people_by_link_each_get_their_own_seat_whichever_relay_says_hello_first() -> None:
    """Both people's relays say hello with the shared remote token; the referee seats a hello by its
    name, so the web names them apart. Here the geese's relay speaks first (once, the CI's order:
    the fox's page then waited for a turn given to the geese's relay)."""
    import threading
    import time

    from foxgeese.engine import Side
    from foxgeese.protocol.referee import Referee
    from foxgeese.protocol.sdk import BotSession
    from foxgeese.web.games import new_game

    game = new_game({"variant": "great-cross", "tc": "60+0", "players": {"fox": "human", "geese": "human"}},
                    lambda game: None)
    recorders = {side: _SideRecorder() for side in game.seats}
    with Referee(hello_timeout_s=10.0, join_timeout_s=10.0) as referee:
        for side in (Side.PREY, Side.PREDATOR):  # the geese's hello is queued first
            session = BotSession(recorders[side], name=game._referee_name(game.seats[side]),
                                 endpoint=referee.connect_endpoint, token=referee.token, version="test")
            threading.Thread(target=session.run, daemon=True).start()
            time.sleep(0.3)
        referee.play_game(game.variant, {side: game._config(seat) for side, seat in game.seats.items()}, "60+0")
    assert recorders[Side.PREDATOR].told == ["fox"] and recorders[Side.PREY].told == ["geese"]
