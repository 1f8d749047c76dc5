"""The web app and the HTML report in real headless Chromium (Debian's, driven by Selenium):
a whole game against `random` by clicking, a game between two browsers by link, stepping through
a game of the report. Each test stops the server and the browsers it started."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from browser import (
    browser_missing,
    chrome,
    click_point,
    lit,
    my_turn,
    play_by_clicking,
    start_game,
    wait_for,
)

pytestmark = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "browser present")


def test_a_whole_game_against_random_by_clicking_then_its_replay(base: str, browser: object,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    driver = browser
    start_game(driver, base, "standard", {"fox": "human", "geese": "random"})
    clicks = play_by_clicking(driver, seed=3)
    result = driver.find_element("id", "result").text
    assert result.startswith("fox wins by") or result.startswith("geese win by"), result
    moves = driver.execute_script("return window.fgState.moves.map(m => m.move)")
    assert len(clicks) >= len(moves) // 2 and any("x" in move for move in moves[::2])
    latencies = driver.execute_script("return window.fgLatency")
    assert len(latencies) >= len(moves) // 2 - 1
    with capsys.disabled():
        print(f"\nclick to AI reply drawn, minus AI think time: median {statistics.median(latencies):.1f} ms "
              f"over {len(latencies)} replies (max {max(latencies):.1f} ms)")
    driver.find_element("link text", "replay the game").click()
    wait_for(driver, "document.querySelector('.fg-ply')")
    assert driver.find_element("css selector", ".fg-ply").text == f"ply 0 of {len(moves)}"
    driver.find_element("css selector", ".fg-last").click()
    assert driver.find_element("css selector", ".fg-ply").text == f"ply {len(moves)} of {len(moves)}"
    assert driver.find_element("css selector", ".fg-result").text == result.split(" replay the game")[0]


def test_two_people_play_by_link(base: str, browser: object) -> None:
    """Each browser plays its seat by clicking for a few moves; then the hounds stop, and their
    clock (a fixed time per move) ends the game for both."""
    hare = browser
    with chrome() as hounds:
        start_game(hare, base, "hare-and-hounds", {"hare": "human", "hounds": "link"}, tc="move=3",
                   under_way=False)
        link = wait_for(hare, "document.querySelector('.invite-link') && document.querySelector('.invite-link').value")
        assert "/game/" in link and "?seat=" in link
        assert "Waiting for every player" in hare.find_element("id", "status").text
        hounds.get(link)
        wait_for(hare, "window.fgState && window.fgState.status === 'playing'")
        assert hounds.execute_script("return window.fgState.you") == "hounds"
        for ply in range(6):
            driver = hounds if ply % 2 == 0 else hare  # the hounds move first
            movable = my_turn(driver, timeout_s=30)
            assert movable, "the game ended early"
            click_point(driver, sorted(movable)[0])
            click_point(driver, sorted(lit(driver, "target"))[-1])
            wait_for(hare, f"window.fgState.moves.length === {ply + 1}")
        assert hare.execute_script("return window.fgState.moves.map(m => m.side)") == ["hounds", "hare"] * 3
        for driver in (hare, hounds):
            wait_for(driver, "window.fgState.status === 'over'")
            assert driver.find_element("id", "result").text.startswith("hare wins by time-forfeit")
            assert driver.find_element("css selector", ".clock[data-side='hounds'] .time").text == "0:00.0"


def test_the_html_report_steps_through_a_game(tmp_path: Path, browser: object) -> None:
    from foxgeese.tournaments.config import load_config
    from foxgeese.tournaments.html_report import write_html_report
    from foxgeese.tournaments.journal import read_journal
    from foxgeese.tournaments.report import load_results
    from foxgeese.tournaments.runner import Runner

    config = tmp_path / "t.yaml"
    config.write_text("name: browser\nvariants:\n  - id: standard\nplayers:\n  - name: mm1\n    spec: minimax:depth=1\n"
                      "  - name: rnd\n    spec: random:seed=1\ngames_per_pairing: 2\ntime_control: 5+0.1\n"
                      "concurrency: 2\nseed: 1\nopening_plies: 2\nmax_plies: 100\n")
    out, report = tmp_path / "out", tmp_path / "report.html"
    Runner(load_config(config), out).run()
    write_html_report(load_results(out), read_journal(out), report)
    driver = browser
    from selenium.webdriver.common.keys import Keys

    driver.get(report.as_uri())
    assert driver.find_element("tag name", "h1").text == "browser"
    assert len(driver.find_elements("css selector", "svg.elo-plot .elo-row")) == 2
    driver.find_element("css selector", "tr.fg-game").click()
    label = driver.find_element("css selector", ".fg-ply")
    plies = int(label.text.split()[-1])
    assert label.text == f"ply 0 of {plies}"
    board = driver.find_element("css selector", ".fg-board")
    start = board.get_attribute("innerHTML")
    driver.find_element("css selector", ".fg-next").click()
    assert label.text == f"ply 1 of {plies}" and board.get_attribute("innerHTML") != start
    detail = driver.find_element("css selector", ".fg-detail").text
    assert "from the opening" in detail  # the first two plies are the opening
    body = driver.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert label.text == f"ply 3 of {plies}"
    assert " ms" in driver.find_element("css selector", ".fg-detail").text  # a bot's move: its think time
    body.send_keys(Keys.ARROW_LEFT)
    assert label.text == f"ply 2 of {plies}"
    body.send_keys(Keys.END)
    assert label.text == f"ply {plies} of {plies}"
    clocks = [c.text for c in driver.find_elements("css selector", ".fg-clock")]
    assert len(clocks) == 2 and all(":" in text for text in clocks)
    driver.find_element("css selector", ".fg-first").click()
    assert label.text == f"ply 0 of {plies}" and board.get_attribute("innerHTML") == start
    assert driver.get_log("browser") == []
