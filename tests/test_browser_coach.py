"""Playing as on a game site, in real headless Chromium by clicks: the actions of a game against
an AI (hint, takeback, stepping back, flip, keys, resign, rematch), the analysis board with the
solver's values, a game's review, the past games page, and the phone layout. One server and one
browser for the module; screenshots go to $FOXGEESE_SHOTS when it is set (for a person to look at)."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import (
    browser_missing,
    click_action,
    click_point,
    lit,
    my_turn,
    shot,
    start_game,
    wait_for,
    web_server,
)

pytestmark = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "browser present")

DESKTOP = (1280, 900)
PHONE = (390, 844)


def play_a_move(driver) -> None:
    movable = my_turn(driver)
    assert movable, "the game ended early"
    click_point(driver, sorted(movable)[0])
    target = sorted(lit(driver, "target"))[0]
    click_point(driver, target)
    if lit(driver, "target"):  # a capture that could jump on: a second click on its landing point stops it there
        click_point(driver, target)


def moves(driver) -> int:
    return driver.execute_script("return window.fgState.moves.length")


def test_a_game_against_an_ai_with_hint_takeback_steps_flip_resign_review_and_rematch(base: str,
                                                                                      browser: object) -> None:
    from selenium.webdriver.common.keys import Keys

    driver = browser
    driver.set_window_size(*DESKTOP)
    start_game(driver, base, "hare-and-hounds", {"hounds": "human", "hare": "random"})
    my_turn(driver)
    assert driver.title.startswith("● Your turn")
    assert driver.find_element("id", "material").text.startswith("3 hounds; the hare wins by")
    click_action(driver, "hint")
    wait_for(driver, "document.querySelector('#notice') && !document.querySelector('#notice').hidden")
    assert "win in 23 with best play" in driver.find_element("id", "notice").text  # the solved start
    assert len(lit(driver, "hinted")) == 2
    play_a_move(driver)
    wait_for(driver, "window.fgState.moves.length === 2 && window.fgState.legal.length > 0")
    assert driver.execute_script("return window.fgAnimations") >= 1  # the AI's reply slid into place
    play_a_move(driver)
    wait_for(driver, "window.fgState.moves.length === 4 && window.fgState.legal.length > 0")
    first_two = driver.execute_script("return window.fgState.moves.slice(0, 2).map(m => m.move)")
    shot(driver, "game-desktop")

    click_action(driver, "takeback")  # my last move and the AI's reply
    wait_for(driver, "window.fgState.moves.length === 2 && window.fgState.legal.length > 0")
    assert driver.execute_script("return window.fgState.moves.map(m => m.move)") == first_two
    play_a_move(driver)
    wait_for(driver, "window.fgState.moves.length === 4 && window.fgState.legal.length > 0")

    body = driver.find_element("tag name", "body")
    live_board = driver.find_element("id", "board").get_attribute("innerHTML")
    body.send_keys(Keys.ARROW_LEFT)
    wait_for(driver, "document.getElementById('ply').title === 'ply 3 of 4' && window.fgStepShown === 3")
    third = driver.execute_script("return window.fgState.moves[2].move")
    assert driver.find_element("id", "ply").text == f"2. {third}"  # moves as players count them
    assert driver.find_element("id", "board").get_attribute("innerHTML") != live_board
    body.send_keys(Keys.HOME)
    wait_for(driver, "document.getElementById('ply').title === 'ply 0 of 4' && window.fgStepShown === 0")
    assert driver.find_element("id", "ply").text == "start"
    assert 'data-move="' not in driver.find_element("id", "board").get_attribute("innerHTML")  # the start
    click_point(driver, "b5")  # no move while looking back
    assert "earlier move" in driver.find_element("id", "message").text
    body.send_keys(Keys.END)
    wait_for(driver, "document.getElementById('ply').title === 'ply 4 of 4' && "
                     "document.getElementById('ply').textContent.startsWith('2… ')")
    assert driver.find_element("id", "board").get_attribute("innerHTML") == live_board
    b1_row = "return document.querySelector('#board .hit[data-point=\"b1\"]').getAttribute('cy')"
    x_before = driver.execute_script(b1_row)
    driver.find_element("id", "flip").click()
    wait_for(driver, "window.fgState.flipped === true")
    x_after = driver.execute_script(b1_row)
    assert x_before != x_after  # row 1 is at the top now
    assert my_turn(driver)  # still my move, lit on the flipped board

    click_action(driver, "ask-resign")
    click_action(driver, "resign")
    wait_for(driver, "window.fgState.status === 'over'")
    result = driver.find_element("id", "result").text
    assert result.startswith("hare wins by resignation after 4 plies"), result
    assert not driver.title.startswith("●")

    game_url = driver.current_url
    driver.find_element("id", "analyse-link").click()
    wait_for(driver, "window.fgReview && window.fgAnalysis")
    rows = driver.find_elements("css selector", ".review-table tr[data-side]")
    assert [row.get_attribute("data-side") for row in rows] == ["hare", "hounds"]
    review = driver.execute_script("return window.fgReview")
    assert review["sides"]["hounds"]["judged"] == 2 and review["sides"]["hare"]["judged"] == 2
    assert all(side["accuracy"] is not None for side in review["sides"].values())
    assert "%" in rows[1].text
    shot(driver, "review-desktop")
    driver.get(game_url)
    wait_for(driver, "window.fgState && window.fgState.status === 'over'")
    click_action(driver, "rematch")
    wait_for(driver, "window.fgState && window.fgState.you === 'hare' && window.fgState.status === 'playing'")
    assert driver.execute_script("return window.fgState.seats.hounds.name") == "random"
    click_action(driver, "ask-resign")
    click_action(driver, "resign")
    wait_for(driver, "window.fgState.status === 'over'")
    assert driver.get_log("browser") == []


def test_the_analysis_board_shows_each_moves_value_sets_up_positions_and_names_missing_tables(
        base: str, browser: object) -> None:
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.set_window_size(*DESKTOP)
    driver.get(base + "/analysis")
    wait_for(driver, "window.fgAnalysis")
    Select(driver.find_element("id", "variant")).select_by_value("hare-and-hounds")
    wait_for(driver, "window.fgAnalysis && window.fgAnalysis.position.startsWith('hare-and-hounds')")
    assert "win in 23" in driver.find_element("id", "value").text
    values = [li.text.split("\n") for li in driver.find_elements("css selector", "#move-values li")]
    assert len(values) == 7 and values[0][1] == "win in 23"
    assert {v[1].split(" in ")[0] for v in values} <= {"win", "loss"}
    first = driver.find_element("css selector", "#move-values li").get_attribute("data-move")
    driver.find_element("css selector", "#move-values li").click()
    wait_for(driver, "window.fgAnalysis.turn === 'hare'")
    assert "loss in 22" in driver.find_element("id", "value").text  # the hare loses after the best move
    shot(driver, "analysis-desktop")
    driver.find_element("id", "back").click()
    wait_for(driver, "window.fgAnalysis.turn === 'hounds'")
    # a move by clicks on the board: a hound, then its target
    path = first.split("-")
    click_point(driver, path[0])
    click_point(driver, path[1])
    wait_for(driver, "window.fgAnalysis.turn === 'hare'")

    # set up by clicking: the hare goes to a3, a hound off a2
    driver.find_element("id", "edit").click()
    Select(driver.find_element("id", "piece")).select_by_value("predator")
    click_point(driver, "a3")
    wait_for(driver, "window.fgAnalysis.position.split(' ')[3] === 'a3'")

    # position text pasted: standard with five geese, no tables on this server
    text = "standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2 0 0 0"
    field = driver.find_element("id", "position-text")
    field.clear()
    field.send_keys(text)
    driver.find_element("css selector", "#paste button").click()
    wait_for(driver, "window.fgAnalysis.position.startsWith('standard') && window.fgAnalysis.missing")
    missing = driver.find_element("id", "missing").text
    assert "foxgeese solve standard --build --max-geese 5" in missing and "half a minute" in missing
    assert driver.find_element("id", "material").text == "5 geese left; the fox needs 2 more captures"
    field.clear()
    field.send_keys("standard geese=13 fox d4")
    driver.find_element("css selector", "#paste button").click()
    wait_for(driver, "!document.getElementById('problem').hidden")
    assert "position text has 4 tokens, expected 8" in driver.find_element("id", "problem").text

    driver.set_window_size(*PHONE)
    driver.get(base + "/analysis?position=" + "hare-and-hounds - hare b5 b2,a2,c2 0 0 1".replace(" ", "%20"))
    wait_for(driver, "window.fgAnalysis")
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    shot(driver, "analysis-phone")
    driver.set_window_size(*DESKTOP)
    logs = [entry["message"] for entry in driver.get_log("browser")]
    assert [text for text in logs if "/api/analyse - Failed to load resource" not in text] == []
    assert len(logs) == 1 and "400 (Bad Request)" in logs[0]  # the position text with 4 tokens


def test_an_uploaded_record_links_to_its_review_from_the_home_page_and_its_replay(base: str, browser: object,
                                                                                   tmp_path: Path) -> None:
    from foxgeese.engine import Side, get_variant
    from foxgeese.protocol.botconfig import BotConfig
    from foxgeese.protocol.referee import Referee

    path = tmp_path / "game.json"
    with Referee() as referee:  # a real game's record, as `foxgeese play --record` writes it
        referee.play_game(get_variant("hare-and-hounds"), {Side.PREDATOR: BotConfig.from_spec("random:seed=1"),
                                                           Side.PREY: BotConfig.from_spec("solver")},
                          "60+0", max_plies=6, record_path=str(path))
    driver = browser
    driver.get(base + "/")
    driver.find_element("id", "record-file").send_keys(str(path))
    wait_for(driver, "!document.getElementById('uploaded').hidden")
    shot(driver, "home-uploaded")
    replay = driver.find_element("id", "uploaded-replay").get_attribute("href")
    driver.find_element("id", "uploaded-review").click()
    wait_for(driver, "window.fgReview && window.fgReview.plies && window.fgReview.plies.length === 6")
    assert driver.execute_script("return window.fgReview.sides.hounds.judged") == 3
    driver.get(replay)
    review_link = driver.find_element("link text", "review with the solver")
    assert review_link.get_attribute("href") == base + "/analysis?record=" + replay.rsplit("/", 1)[1]
    shot(driver, "replay-record-links")
    review_link.click()
    wait_for(driver, "window.fgReview && window.fgReview.plies && window.fgReview.plies.length === 6")
    assert driver.get_log("browser") == []


def test_a_finished_games_rematch_button_works_after_a_server_restart(browser: object, tmp_path: Path) -> None:
    data = ("--data", str(tmp_path / "serve.sqlite3"), "--tables", str(tmp_path))
    driver = browser
    with web_server(*data) as first:
        start_game(driver, first, "hare-and-hounds", {"hare": "random", "hounds": "human"})
        link = driver.current_url.removeprefix(first)
        click_action(driver, "ask-resign")
        click_action(driver, "resign")
        wait_for(driver, "window.fgState.status === 'over' && window.fgState.replay")
        driver.get("about:blank")  # no page of this server is left to retry its socket once it stops
    with web_server(*data) as base:  # the game is in the store only now
        driver.get(base + link)
        wait_for(driver, "window.fgState && window.fgState.stored && window.fgState.you === 'hounds'")
        shot(driver, "stored-game-rematch")
        click_action(driver, "rematch")
        wait_for(driver, "window.fgState && !window.fgState.stored && window.fgState.you === 'hare' "
                         "&& window.fgState.status === 'playing'")
        assert driver.get_log("browser") == []
        driver.get("about:blank")  # the next test's console log must not hear this page fail to reconnect


def test_the_phone_layout_fits_390_pixels_and_the_past_games_page_filters(base: str, browser: object) -> None:
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.set_window_size(*PHONE)
    try:
        start_game(driver, base, "standard", {"fox": "human", "geese": "random"})
        my_turn(driver)
        driver.find_element("id", "sound").click()  # off by default; a beep on each of my turns from now on
        for _ in range(8):
            play_a_move(driver)
            wait_for(driver, "window.fgState.legal.length > 0 || window.fgState.status === 'over'")
        fits_script = """
            const inside = e => {
              const r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth + 0.5; };
            return {page: document.documentElement.scrollWidth <= window.innerWidth,
                    header: document.querySelector('header.top').getBoundingClientRect().height,
                    nav: [...document.querySelectorAll('header.top nav a')].every(inside),
                    navScrolls: document.querySelector('header.top nav').scrollWidth >
                                document.querySelector('header.top nav').clientWidth,
                    moves: inside(document.getElementById('moves')),
                    board: inside(document.querySelector('#board svg')),
                    lastMove: inside(document.querySelector('#moves li:last-child'))};"""
        for width in (390, 360):  # the narrow phones too
            driver.set_window_size(width, PHONE[1])
            fits = driver.execute_script(fits_script)
            assert fits["page"] and fits["moves"] and fits["board"] and fits["lastMove"], (width, fits)
            assert fits["nav"] and not fits["navScrolls"], (width, fits)  # every link in sight, "tournament" too
            assert fits["header"] < 80, fits  # two neat rows at most: the name, then the links
        driver.set_window_size(*PHONE)
        assert driver.execute_script("return window.fgBeeps") >= 7
        assert driver.find_element("id", "material").text.endswith("more captures")
        shot(driver, "game-phone")
        driver.execute_script("document.getElementById('moves').scrollIntoView()")
        shot(driver, "game-phone-moves")
        click_action(driver, "ask-resign")
        click_action(driver, "resign")
        wait_for(driver, "window.fgState.status === 'over'")
        shot(driver, "game-phone-over")
    finally:
        driver.set_window_size(*DESKTOP)

    driver.get(base + "/games")
    wait_for(driver, "window.fgPast && window.fgPast.length >= 1")
    Select(driver.find_element("id", "variant")).select_by_value("standard")
    driver.find_element("css selector", "#filters button").click()
    wait_for(driver, "window.fgPast.every(g => g.variant.startsWith('standard'))")
    standard = driver.execute_script("return window.fgPast.length")
    assert standard >= 1
    Select(driver.find_element("id", "result")).select_by_value("hounds")
    driver.find_element("css selector", "#filters button").click()
    wait_for(driver, "window.fgPast.length === 0")
    Select(driver.find_element("id", "variant")).select_by_value("")
    Select(driver.find_element("id", "result")).select_by_value("geese")
    player = driver.find_element("id", "player")
    player.send_keys("RANDOM")
    driver.find_element("css selector", "#filters button").click()
    wait_for(driver, "window.fgPast.length >= 1 && window.fgPast.every(g => g.result.startsWith('geese win'))")
    shot(driver, "past-games")
    assert driver.get_log("browser") == []
