"""What the game page, the analysis board, the review and the past games show after each way a
game ends, in real headless Chromium: a resignation against an AI, draws offered, declined and
agreed between two browsers, a draw an AI declines, a game a server stop interrupts; the moves
numbered as players count them; an unfinished position set up on the analysis board. Screenshots
go to $FOXGEESE_SHOTS when it is set."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import browser_missing, chrome, click_action, click_point, my_turn, shot, start_game, wait_for, web_server

pytestmark = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "browser present")

RESULT_LINKS = "Array.from(document.querySelectorAll('#result a')).map(a => a.textContent)"


def type_move(driver, move: str) -> None:
    field = driver.find_element("id", "move-text")
    field.clear()
    field.send_keys(move)
    field.submit()


def status(driver) -> str:
    return driver.find_element("id", "status").text


def test_resigning_against_an_ai_shows_the_replay_link_at_once(base: str, browser: object) -> None:
    driver = browser
    start_game(driver, base, "hare-and-hounds", {"hounds": "human", "hare": "random"})
    my_turn(driver)
    type_move(driver, driver.execute_script("return window.fgState.legal[0]"))
    wait_for(driver, "window.fgState.moves.length === 2 && window.fgState.legal.length > 0")
    click_action(driver, "ask-resign")
    click_action(driver, "resign")
    wait_for(driver, "window.fgState.status === 'over'")
    # the record comes a moment after the resignation: its replay link must appear without a reload
    wait_for(driver, f"{RESULT_LINKS}.join() === 'replay the game,analyse the game,new game'", timeout_s=10)
    assert driver.find_element("id", "result").text.startswith("hare wins by resignation after 2 plies")
    assert status(driver) == "" and driver.find_element("id", "notice").text == ""
    shot(driver, "ai-resigned")
    assert driver.get_log("browser") == []


def test_the_moves_are_numbered_as_players_count_them_in_the_game_and_its_review(
        base: str, browser: object, tmp_path: Path) -> None:
    from foxgeese.engine import get_variant
    from foxgeese.web.analysis import Coach

    driver = browser
    coach = Coach(str(tmp_path))  # the start's moves, to play one as good as the best but not the first listed
    values = coach.moves(get_variant("hare-and-hounds").start_position())
    equal = next(m["move"] for m in values[1:] if m["text"] == values[0]["text"])
    start_game(driver, base, "hare-and-hounds", {"hounds": "human", "hare": "random"})
    my_turn(driver)
    type_move(driver, equal)
    wait_for(driver, "window.fgState.moves.length === 2 && window.fgState.legal.length > 0")
    type_move(driver, driver.execute_script("return window.fgState.legal[0]"))
    wait_for(driver, "window.fgState.moves.length === 4 && window.fgState.legal.length > 0")
    moves = driver.execute_script("return window.fgState.moves.map(m => m.move)")
    lines = [[half.text.split()[0] for half in li.find_elements("css selector", ".half")]
             for li in driver.find_elements("css selector", "#moves li")]
    assert lines == [moves[0:2], moves[2:4]]  # one line per move: the hounds' ply, then the hare's
    assert [num.text for num in driver.find_elements("css selector", "#moves li .num")] == ["1.", "2."]
    assert driver.find_element("id", "moves-head").text.split() == ["hounds", "hare"]
    assert driver.find_element("id", "ply").text == f"2… {moves[3]} (live)"
    shot(driver, "moves-numbered")
    click_action(driver, "ask-resign")
    click_action(driver, "resign")
    wait_for(driver, "window.fgState.status === 'over'")

    driver.find_element("id", "analyse-link").click()
    wait_for(driver, "window.fgReview && window.fgAnalysis")
    plies = [li.text.removesuffix(" ?") for li in driver.find_elements("css selector", "#review-plies li")]
    assert plies[:4] == [f"1. {moves[0]}", f"1… {moves[1]}", f"2. {moves[2]}", f"2… {moves[3]}"]
    note = driver.find_element("css selector", ".ply-note").text
    assert note.startswith(f"1. {equal}: the hounds played {equal} (win in 23)") and "best was" not in note, note
    rows = {row.get_attribute("data-side"): row.text for row in driver.find_elements("css selector",
                                                                                     ".review-table tr[data-side]")}
    assert rows["hounds"].startswith("hounds human") and rows["hare"].startswith("hare random")
    shot(driver, "review-numbered")
    assert driver.get_log("browser") == []


def test_draws_offered_declined_and_agreed_between_two_browsers_and_declined_by_an_ai(base: str,
                                                                                    browser: object) -> None:
    fox = browser
    start_game(fox, base, "great-cross", {"fox": "human", "geese": "random"})
    my_turn(fox)
    click_action(fox, "offer-draw")
    wait_for(fox, "document.getElementById('notice').textContent.startsWith('the AI declines the draw')")
    assert fox.find_element("id", "notice").text == "the AI declines the draw (no table knows this position)"
    shot(fox, "ai-declines-draw")
    click_action(fox, "ask-resign")
    click_action(fox, "resign")
    wait_for(fox, "window.fgState.status === 'over'")

    with chrome() as geese:
        start_game(fox, base, "great-cross", {"fox": "human", "geese": "link"}, under_way=False)
        link = wait_for(fox, "document.querySelector('.invite-link') && document.querySelector('.invite-link').value")
        geese.get(link)
        wait_for(fox, "window.fgState && window.fgState.status === 'playing' && window.fgState.legal.length > 0")
        click_action(fox, "offer-draw")
        wait_for(fox, "window.fgState.draw_offer === 'fox'")
        assert "You offer a draw; it stands until the geese move." in status(fox)
        assert fox.find_element("id", "notice").text == ""  # the status says it, once
        wait_for(geese, "window.fgState && window.fgState.draw_offer === 'fox'")
        assert "The fox offers a draw: accept or decline it (a move declines it too)." in status(geese)
        shot(geese, "link-draw-offered")
        click_action(geese, "decline-draw")
        wait_for(fox, "window.fgState.draw_refused !== null")
        assert "The geese declined your draw offer." in status(fox) and "offer a draw" not in status(fox)
        wait_for(geese, "window.fgState.draw_refused !== null")
        assert "You declined the fox's draw offer." in status(geese)
        shot(fox, "link-draw-declined")
        buttons = [b.text for b in fox.find_elements("css selector", "#actions button")]
        assert "offer a draw" in buttons  # a new offer may follow

        click_action(fox, "offer-draw")
        wait_for(geese, "window.fgState.draw_offer === 'fox'")
        click_action(geese, "accept-draw")
        for driver in (fox, geese):
            wait_for(driver, "window.fgState.status === 'over'")
            wait_for(driver, f"{RESULT_LINKS}.join() === 'replay the game,analyse the game,new game'", timeout_s=10)
            assert driver.find_element("id", "result").text.startswith(
                "draw by agreement after 0 plies: both players agreed to a draw")
            assert status(driver) == "" and driver.find_element("id", "notice").text == ""
        shot(geese, "link-draw-agreed")
        assert geese.get_log("browser") == []
    assert fox.get_log("browser") == []


def test_an_interrupted_game_and_a_one_ply_game_in_the_past_games_page(browser: object, tmp_path: Path) -> None:
    data = ("--data", str(tmp_path / "serve.sqlite3"), "--tables", str(tmp_path))
    driver = browser
    with web_server(*data) as first:
        start_game(driver, first, "hare-and-hounds", {"hare": "human", "hounds": "random"})  # the hounds move first
        my_turn(driver)
        click_action(driver, "ask-resign")
        click_action(driver, "resign")
        wait_for(driver, "window.fgState.status === 'over' && window.fgState.replay")
        start_game(driver, first, "standard", {"fox": "human", "geese": "random"})
        my_turn(driver)
        click_point(driver, "d4")
        click_point(driver, "d5")
        wait_for(driver, "window.fgState.moves.length === 2")
        driver.get("about:blank")  # the server stops with this game under way: interrupted
    with web_server(*data) as base:
        driver.get(base + "/games")
        wait_for(driver, "window.fgPast && window.fgPast.length === 2")
        rows = driver.find_elements("css selector", "#past tr[data-game]")
        links = [[a.text for a in row.find_elements("tag name", "a")] for row in rows]
        assert links == [["standard (geese=13,sideways=0)", "analyse"], ["hare-and-hounds", "analyse"]], links
        texts = [row.text for row in rows]
        assert "interrupted: the server stopped after 2 plies" in texts[0]
        assert "2 plies" in texts[0] and "fox: human vs geese: random" in texts[0], texts
        assert "1 ply" in texts[1] and "hare: human vs hounds: random" in texts[1], texts
        shot(driver, "past-games-interrupted")
        interrupted = rows[0].get_attribute("data-game")
        rows[0].find_element("link text", "analyse").click()
        wait_for(driver, "window.fgReview && window.fgAnalysis")
        assert [li.text for li in driver.find_elements("css selector", "#review-plies li")][0] == "1. d4-d5"
        driver.get(base + f"/game/{interrupted}")  # its page, from the store: no record to replay, the rest is there
        wait_for(driver, "window.fgState && window.fgState.stored")
        assert driver.execute_script(f"return {RESULT_LINKS}") == ["analyse the game", "new game"]
        assert driver.find_element("id", "result").text.startswith("interrupted: the server stopped after 2 plies")
        assert [li.text.split() for li in driver.find_elements("css selector", "#moves li")][0][:2] == ["1.", "d4-d5"]
        shot(driver, "interrupted-game-page")
        assert driver.get_log("browser") == []


def test_the_analysis_board_takes_a_hound_off_and_puts_it_back_saying_what_is_missing(base: str,
                                                                                      browser: object) -> None:
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(base + "/analysis")
    wait_for(driver, "window.fgAnalysis")
    Select(driver.find_element("id", "variant")).select_by_value("hare-and-hounds")
    wait_for(driver, "window.fgAnalysis && window.fgAnalysis.position.startsWith('hare-and-hounds')")
    driver.find_element("id", "edit").click()
    click_point(driver, "b1")  # "goose / hound" is the piece: a click on a hound takes it off
    wait_for(driver, "window.fgAnalysis.problem")
    assert driver.find_element("id", "problem").is_displayed() is False  # no error: the board shows the position
    assert driver.find_element("id", "value").text.startswith(
        "Not a position of a game yet: a Hare and Hounds position has 3 hounds, this one has 2: put 1 more on")
    assert driver.execute_script("return document.querySelectorAll('#board use.piece.hound').length") == 2
    assert driver.find_element("id", "move-values").text == "the moves come when the position is complete"
    shot(driver, "analysis-hound-off")
    click_point(driver, "b3")  # put on again elsewhere: a hound moved
    wait_for(driver, "window.fgAnalysis && !window.fgAnalysis.problem && window.fgAnalysis.moves.length")
    assert re.match(r"The hounds to move: (win|loss) in \d+ plies", driver.find_element("id", "value").text)
    shot(driver, "analysis-hound-moved")
    field = driver.find_element("id", "position-text")  # a finished position: who won, not "loss in 0 plies"
    field.clear()
    field.send_keys("standard geese=13,sideways=0 geese d4 c1,d1,e1 0 0 0")
    driver.find_element("css selector", "#paste button").click()
    wait_for(driver, "window.fgAnalysis.position.startsWith('standard')")
    assert driver.find_element("id", "value").text == "The game is over: the fox wins (rules)"
    assert driver.get_log("browser") == []


def test_the_review_of_a_game_still_played_shows_its_own_board(base: str, browser: object) -> None:
    driver = browser
    start_game(driver, base, "hare-and-hounds", {"hounds": "human", "hare": "random"})
    game_id = driver.execute_script("return window.fgState.id")
    driver.get(base + f"/analysis?game={game_id}")
    wait_for(driver, "window.fgAnalysis && !document.getElementById('problem').hidden")
    assert driver.find_element("id", "problem").text.startswith("the review comes when the game is over")
    assert driver.execute_script("return document.getElementById('variant').value") == "hare-and-hounds"
    assert driver.execute_script("return document.querySelectorAll('#board use.piece').length") == 4
    shot(driver, "review-unfinished")
    logs = [entry["message"] for entry in driver.get_log("browser")]
    assert len(logs) == 1 and "/api/review" in logs[0] and "404" in logs[0]  # the refused review, said in the page


def test_a_player_who_leaves_a_link_game_loses_on_time_and_both_pages_say_so(base: str, browser: object) -> None:
    hare = browser
    with chrome() as hounds:
        start_game(hare, base, "hare-and-hounds", {"hare": "human", "hounds": "link"}, tc="move=3", under_way=False)
        link = wait_for(hare, "document.querySelector('.invite-link') && document.querySelector('.invite-link').value")
        hounds.get(link)
        wait_for(hare, "window.fgState && window.fgState.status === 'playing'")
        hounds.get("about:blank")  # the hounds abandon the game on their turn
        wait_for(hare, "window.fgState.seats.hounds.present === false")
        assert "The hounds player is not on the page: the game waits for them and their clock runs." in status(hare)
        shot(hare, "link-opponent-left")
        wait_for(hare, "window.fgState.status === 'over'", timeout_s=15)
        wait_for(hare, f"{RESULT_LINKS}.join() === 'replay the game,analyse the game,new game'", timeout_s=10)
        assert hare.find_element("id", "result").text.startswith("hare wins by time-forfeit after 0 plies")
        assert status(hare) == ""
        hounds.get(link)  # coming back after the end: the game as it ended, with its links
        wait_for(hounds, f"window.fgState && {RESULT_LINKS}.length === 3")
        assert hounds.find_element("id", "result").text.startswith("hare wins by time-forfeit")
        shot(hounds, "link-abandoned-over")
    assert hare.get_log("browser") == []
