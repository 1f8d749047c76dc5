"""`foxgeese serve --arena` as a user runs it: killed with SIGKILL mid-run and started again on the
same file with nothing lost or played twice; then its leaderboard, a test's live page and a
person's challenge driven in headless Chromium, and the routes' security."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from browser import csrf_token, post_json, wait_for

WAIT_S = 240.0
pytestmark = pytest.mark.timeout(600)  # two server starts and their workers' bots, on a shared machine


def rows(data: Path, sql: str) -> list[tuple[Any, ...]]:
    connection = sqlite3.connect(str(data), timeout=30)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def wait_rows(data: Path, sql: str, done: Any, timeout_s: float = WAIT_S) -> list[tuple[Any, ...]]:
    """Polls `sql` until `done(rows)` (the server commits from its own process: nothing to wait on here)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = rows(data, sql) if data.exists() else []
        if found and done(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out: {sql} -> {found}")
        time.sleep(0.2)


@contextlib.contextmanager
def arena_server(folder: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    data = folder / "serve.sqlite3"
    process = subprocess.Popen(
        [sys.executable, "-m", "foxgeese", "serve", "--port", "0", "--arena", "--workers", "1", "--data", str(data),
         "--tables", str(folder), "--arena-variant", "hare-and-hounds"],
        stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=folder)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if not found:
            raise RuntimeError(f"foxgeese serve did not start: {line}{process.stderr.read()}")
        threading.Thread(target=lambda: [sys.stderr.write(f"serve: {text}") for text in process.stderr or ()],
                         daemon=True).start()
        yield found.group(0), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def processes_in(folder: Path) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cwd"]):
        with contextlib.suppress(psutil.Error):
            if (process.info["cwd"] or "").startswith(str(folder)):
                found.append(process)
    return found


@pytest.fixture(scope="module")
def restarted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server killed with SIGKILL while pairs were claimed, started again on its file: its URL,
    and what the file held at the kill."""
    folder = tmp_path_factory.mktemp("arena-web")
    data = folder / "serve.sqlite3"
    with arena_server(folder) as (base, process):
        wait_rows(data, "SELECT status, count(*) FROM arena_pairs GROUP BY status",
                  lambda found: dict(found).get("done", 0) >= 3 and dict(found).get("claimed", 0) >= 1)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    at_kill = {
        "games": rows(data, "SELECT id, winner, termination, plies, worker FROM arena_games ORDER BY id"),
        "claimed": [r[0] for r in rows(data, "SELECT id FROM arena_pairs WHERE status = 'claimed'")],
        "done": [r[0] for r in rows(data, "SELECT id FROM arena_pairs WHERE status = 'done'")],
    }
    assert at_kill["claimed"], "the kill came while pairs were being played"
    survivors = processes_in(folder)  # the killed server's workers end once they see its end of the pipe
    psutil.wait_procs(survivors, timeout=60)
    with arena_server(folder) as (base, process):
        claimed = ",".join(str(i) for i in at_kill["claimed"])
        wait_rows(data, f"SELECT status FROM arena_pairs WHERE id IN ({claimed})",
                  lambda found: all(status == "done" for (status,) in found))
        yield {"base": base, "data": data, "folder": folder, "at_kill": at_kill}
    psutil.wait_procs(processes_in(folder), timeout=30)
    assert not processes_in(folder), "the server's workers and bots ended with it"


def test_a_kill_9_loses_nothing_and_plays_nothing_twice(restarted: dict[str, Any]) -> None:
    data, at_kill = restarted["data"], restarted["at_kill"]
    games = rows(data, "SELECT id, winner, termination, plies, worker FROM arena_games ORDER BY id")
    assert set(at_kill["games"]) <= set(games), "every game committed before the kill is there, unchanged"
    pairs = dict(rows(data, "SELECT id, status FROM arena_pairs"))
    per_pair = rows(data, "SELECT pair, count(*), min(slot), max(slot) FROM arena_games GROUP BY pair")
    assert all((count, low, high) == (2, 0, 1) for _, count, low, high in per_pair)
    assert {pair for pair, *_ in per_pair} == {p for p, status in pairs.items() if status == "done"}
    killed_games = {f"p{pair}.{slot}" for pair in at_kill["claimed"] for slot in (0, 1)}
    assert not killed_games & {g[0] for g in at_kill["games"]}, "a claimed pair had committed nothing"
    assert killed_games <= {g[0] for g in games}, "the pairs the kill cut short were played after the restart"
    lines = [text for (text,) in rows(data, "SELECT text FROM arena_lines")]
    assert any(text.startswith(f"restart: {len(at_kill['claimed'])} pair(s) claimed") for text in lines), lines


def test_the_json_and_pages_answer_and_refuse_what_security_refuses(restarted: dict[str, Any]) -> None:
    base = restarted["base"]
    with urllib.request.urlopen(base + "/api/arena") as response:
        overview = json.load(response)
    assert [ladder["variant"] for ladder in overview["ladders"]] == ["hare-and-hounds"]
    game_id = overview["recent"][0]["id"]
    with urllib.request.urlopen(f"{base}/arena/game/{game_id}") as response:
        assert response.status == 200 and "replay" in response.read().decode()
    status, answer = post_json(base, "/api/arena/tests", {"first": "random", "second": "minimax-1"}, token="wrong")
    assert status == 403 and "X-Foxgeese-Csrf" in answer["error"]
    status, answer = post_json(base, "/api/arena/tests", {"first": "random", "second": "minimax-1"},
                               headers={"Origin": "http://evil.example"})
    assert status == 403 and "another site" in answer["error"]
    status, answer = post_json(base, "/api/arena/tests", {"first": "random", "second": "nobody"})
    assert status == 400 and answer["error"].startswith("no bot named 'nobody' in the arena (registered: random")
    status, answer = post_json(base, "/api/arena/tests", {"first": "random", "second": "minimax-1", "kind": "sprt",
                                                          "elo0": 10, "elo1": 0})
    assert status == 400 and "give elo0 < elo1" in answer["error"]


def test_the_leaderboard_and_a_test_page_in_chromium(restarted: dict[str, Any], browser: Any) -> None:
    base = restarted["base"]
    browser.get(base + "/arena")
    wait_for(browser, "document.querySelectorAll('section.ladder tr.bot').length === 5")
    names = browser.execute_script(
        "return [...document.querySelectorAll('section.ladder tr.bot')].map(r => r.dataset.bot)")
    assert set(names) == {"random", "minimax-1", "minimax-2", "minimax-4", "mcts-200"}
    elo = browser.execute_script("return document.querySelector('section.ladder tr.bot td.elo').textContent")
    assert re.fullmatch(r"[+-]\d+ ± \d+", elo), elo
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "t-first")).select_by_value("minimax-2")
    Select(browser.find_element("id", "t-second")).select_by_value("random")
    Select(browser.find_element("id", "t-kind")).select_by_value("pairs")
    pairs = browser.find_element("id", "t-pairs")
    pairs.clear()
    pairs.send_keys("2")
    priority = browser.find_element("id", "t-priority")
    priority.clear()
    priority.send_keys("5")
    browser.find_element("css selector", "#new-test button").click()
    wait_for(browser, "location.pathname.startsWith('/arena/test/')")
    wait_for(browser, "document.getElementById('verdict') !== null", WAIT_S)
    verdict = browser.find_element("id", "verdict").text
    assert verdict.startswith("minimax-2 vs random: 2 pairs played: ") and "pair-score Elo" in verdict, verdict
    browser.save_screenshot(str(restarted["folder"] / "test-page.png"))


def test_a_person_challenges_a_ladder_bot_and_it_counts_only_for_them(restarted: dict[str, Any],
                                                                       browser: Any) -> None:
    base, data = restarted["base"], restarted["data"]
    browser.get(base + "/arena")
    wait_for(browser, "document.querySelector('button.challenge[data-bot=\"minimax-1\"]') !== null")
    browser.find_element("id", "person").send_keys("ada")
    ladder_games = rows(data, "SELECT count(*) FROM arena_games WHERE predator = 'ada' OR prey = 'ada'")
    browser.find_element("css selector", "button.challenge[data-bot='minimax-1']").click()
    wait_for(browser, "location.pathname.startsWith('/game/')")
    wait_for(browser, "document.querySelector('svg') !== null")
    token = csrf_token(base)
    with urllib.request.urlopen(base + "/api/arena/history?name=ada") as response:
        history = json.load(response)
    assert len(history["games"]) == 1 and "minimax-1 (arena)" in history["games"][0]["seats"].values()
    assert rows(data, "SELECT count(*) FROM arena_games WHERE predator = 'ada' OR prey = 'ada'") == ladder_games
    assert token
