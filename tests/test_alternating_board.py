"""Standard's 33-point board with alternating diagonals (`diagonals=alternating`), added to the engine
as data alone (an option row, its board, its perft counts), plays in every place: `foxgeese play`, a
tournament, the web app, the solver's small tables. (The research environments, the compiled core
and the conformance vectors take it in their own test modules' variant lists; perft: test_perft.py.)
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import msgspec
import pytest
from browser import browser_missing, chrome, shot, wait_for, web_server
from test_web import get, my_turn, post, receive, socket_url
from tournament_support import foxgeese_here
from websockets.sync.client import connect

from foxgeese.engine import Game, Position, get_variant
from foxgeese.engine.board import point_index
from foxgeese.engine.sampling import scattered_position
from foxgeese.engine.svg import board_svg
from foxgeese.engine.variants import variant_spec
from foxgeese.players.solver.analyse import Judge
from foxgeese.protocol.conformance import capture_position
from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.journal import read_journal
from foxgeese.tournaments.report import game_entries
from foxgeese.tournaments.runner import Runner
from foxgeese.web.pageconfig import variants_config

ALTERNATING = get_variant("standard", diagonals="alternating")
STANDARD = get_variant("standard")


def test_the_board_has_diagonals_through_every_other_point_only():
    board = ALTERNATING.board
    assert board.points == STANDARD.board.points and board is not STANDARD.board
    diagonals = [tuple(line) for line in board.lines if len({p % 9 for p in line}) == 2 == len({p // 9 for p in line})]
    # Both ends of every diagonal have c + r even (the Alquerque pattern); the odd points have none.
    ends = {p for line in diagonals for p in line}
    assert all((p % 9 + p // 9) % 2 == 0 for p in ends)
    assert len(diagonals) == len(STANDARD.board.lines) - len(board.lines)  # one diagonal a square, not two
    d4, d3 = point_index(3, 3), point_index(3, 2)
    assert bin(board.neighbours[d4]).count("1") == 8 and bin(board.neighbours[d3]).count("1") == 4
    assert ALTERNATING.options_text() == "geese=13,sideways=0,diagonals=alternating"
    assert STANDARD.options_text() == "geese=13,sideways=0"  # the texts, records and tables of before stay
    assert Position.from_text(ALTERNATING.start_position().text()).variant is ALTERNATING
    assert not ALTERNATING.can_draw and ALTERNATING.with_options(sideways=True).can_draw
    assert ALTERNATING.table_key == "standard-sideways0-alternating" and STANDARD.table_key == "standard-sideways0"


def test_the_svg_draws_the_board_it_is_given():
    svg = board_svg(ALTERNATING.start_position())
    assert svg.count("<line ") == len(ALTERNATING.board.lines) < board_svg(STANDARD.start_position()).count("<line ")


def test_foxgeese_play_plays_it_through_the_referee(tmp_path: Path):
    record = tmp_path / "game.json"
    result = foxgeese_here("play", "standard", "--option", "diagonals=alternating", "--fox", "random:seed=1",
                           "--geese", "random:seed=2", "--max-plies", "12", "--record", str(record), "-q")
    assert result.returncode == 0, result.stderr
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["options"] == {"geese": 13, "sideways": False, "diagonals": "alternating"}
    assert data["start"] == ALTERNATING.start_position().text()
    game = Game(ALTERNATING)
    for entry in data["moves"]:
        game.push(game.parse_move(entry["move"]))  # every move legal on this board
    assert len(data["moves"]) == 12
    wrong = foxgeese_here("play", "standard", "--option", "diagonals=some", "--fox", "random", "--geese", "random")
    assert wrong.returncode != 0 and "option diagonals of standard is all or alternating, not 'some'" in wrong.stderr


def test_a_tournament_plays_it_from_the_yaml_option(tmp_path: Path):
    path = tmp_path / "alt.yaml"
    path.write_text("name: alt\nvariants:\n  - id: standard\n    options: {diagonals: alternating}\n"
                    "players:\n  - {name: r1, spec: 'random:seed=1'}\n  - {name: r2, spec: 'random:seed=2'}\n"
                    "games_per_pairing: 2\ntime_control: 20+0.1\nseed: 4\nmax_plies: 16\n", encoding="utf-8")
    Runner(load_config(path), tmp_path / "out").run()
    games = game_entries(read_journal(tmp_path / "out"))
    assert len(games) == 2
    for game in games:
        assert game.variant == "standard" and game.options["diagonals"] == "alternating"
        assert game.plies > 0  # both bots played this board's moves (an illegal one would lose the game)
        assert game.termination not in ("illegal-move", "crash", "protocol-error", "time-forfeit", "no-show")


def test_the_page_config_carries_its_schema_starts_and_draws():
    (standard,) = [row for row in msgspec.to_builtins(variants_config())["variants"] if row["id"] == "standard"]
    (diagonals,) = [option for option in standard["options"] if option["name"] == "diagonals"]
    assert diagonals["values"] == ["all", "alternating"] and diagonals["default"] == "all" and diagonals["help"]
    starts = {json.dumps(s["options"], sort_keys=True): s for s in standard["starts"]}
    plain = starts[json.dumps({"diagonals": "alternating", "geese": "13", "sideways": "0"}, sort_keys=True)]
    assert plain == {"options": {"geese": "13", "sideways": "0", "diagonals": "alternating"},
                     "text": ALTERNATING.start_position().text(), "draws": False}
    assert starts[json.dumps({"diagonals": "alternating", "geese": "13", "sideways": "1"}, sort_keys=True)]["draws"]
    assert standard["plural"] == {"fox": False, "geese": True}


@pytest.fixture(scope="module")
def server():
    with web_server() as base:
        yield base


@pytest.mark.parametrize("sideways", [False, True])
def test_the_web_app_plays_it_draws_its_board_and_offers_draws_as_its_endings_say(server: str, sideways: bool):
    status, answer = post(server + "/api/games", {"variant": "standard", "players": {"fox": "human", "geese": "random"},
                                                  "options": {"diagonals": "alternating", "sideways": sideways}})
    assert status == 200, answer
    link = answer["links"]["fox"]
    status, page = get(server + link)
    config = json.loads(re.search(r"<script type=application/json id=fg-variants>(.*?)</script>", page).group(1))
    assert "diagonals" in [o["name"] for o in config["variants"][0]["options"]]
    with connect(socket_url(server, link)) as ws:
        state = receive(ws, my_turn)
        variant = ALTERNATING.with_options(sideways=sideways)
        assert state["draws"] is variant.can_draw is sideways
        assert state["svg"].count("<line ") == len(variant.board.lines)
        assert sorted(state["legal"]) == sorted(str(m) for m in variant.start_position().legal_moves())


def test_the_small_solver_tables_solve_it(tmp_path: Path):
    """`foxgeese solve --option diagonals=alternating --build --max-geese 4` builds tables of this board,
    named apart from the standard board's, and every value they give agrees with its children's."""
    result = foxgeese_here("solve", "standard", "--option", "diagonals=alternating", "--build", "--max-geese", "4",
                           "--tables", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert [p.name for p in tmp_path.glob("*.fgt")] == ["standard-sideways0-alternating-4geese.fgt"]
    judge = Judge(str(tmp_path))
    rng = random.Random(3)
    checked = 0
    for _ in range(60):
        position = scattered_position(ALTERNATING, rng, prey_count=4)
        value = judge.value(position)
        if position.outcome() is not None or value is None:
            continue
        children = [judge.value(position.play(move)) if position.play(move).outcome() is None
                    else (-1 if position.play(move).outcome().winner.value == ALTERNATING.side_name(position.turn)
                          else 1) for move in position.legal_moves()]
        assert None not in children
        assert value == (1 if -1 in children else -1), position.text()  # no draws on this board without sideways
        checked += 1
    assert checked > 20
    assert judge.value(scattered_position(STANDARD, rng, prey_count=4)) is None  # no table of the other board here


def test_bot_check_plays_the_cases_its_row_lists():
    """`bot check` asks the variant's row which options to play (a variant with no entry: its defaults)."""
    assert variant_spec("standard").checks[0] == {"geese": 13, "sideways": False}
    capture = capture_position("standard")
    assert capture is not None and any(move.is_capture and len(move.path) > 2 for move in capture.legal_moves())
    assert capture_position("hare-and-hounds") is None


@pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "browser present")
def test_the_pages_offer_the_option_from_the_server_and_draw_its_board(server: str):
    """In Chromium: the home page's option controls come from the page config; a game started with
    diagonals=alternating is drawn with this board's lines; the analysis board shows its start."""
    from selenium.webdriver.support.ui import Select

    with chrome() as driver:
        driver.get(server + "/")
        Select(driver.find_element("id", "variant")).select_by_value("standard")
        Select(driver.find_element("id", "option-diagonals")).select_by_visible_text("alternating")
        Select(driver.find_element("css selector", "select[data-side='fox']")).select_by_value("human")
        Select(driver.find_element("css selector", "select[data-side='geese']")).select_by_value("random")
        shot(driver, "alternating-home")
        driver.find_element("id", "start").click()
        wait_for(driver, "window.fgState && window.fgState.status === 'playing'")
        lines = driver.execute_script("return document.querySelectorAll('#board svg line').length")
        assert lines == len(ALTERNATING.board.lines)
        shot(driver, "alternating-game")
        driver.get(server + "/analysis")
        Select(driver.find_element("id", "variant")).select_by_value("standard")
        wait_for(driver, "window.fgAnalysis && document.getElementById('option-diagonals')")
        Select(driver.find_element("id", "option-diagonals")).select_by_visible_text("alternating")
        wait_for(driver, f"window.fgAnalysis.position === {json.dumps(ALTERNATING.start_position().text())}")
        assert driver.execute_script("return document.querySelectorAll('#board svg line').length") == len(
            ALTERNATING.board.lines)
        shot(driver, "alternating-analysis")
        Select(driver.find_element("id", "variant")).select_by_value("hare-and-hounds")
        wait_for(driver, "window.fgAnalysis.position.startsWith('hare-and-hounds')")
        assert driver.find_element("id", "variant-options").text == ""  # its row has no options
