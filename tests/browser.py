"""Real headless Chromium (Debian's chromium + chromium-driver) and a real `foxgeese serve`, for the
browser tests and benchmarks/bench_web.py. Nothing is downloaded: the driver's path is given, so
Selenium Manager never runs. Both context managers end what they started."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1280,900")


def browser_missing() -> str:
    """Why the browser tests cannot run here ('' when they can)."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            return f"{path} is missing: run scripts/install-test-deps.sh (Debian chromium, chromium-driver)"
    return ""


@contextlib.contextmanager
def chrome() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # belt and braces: Selenium Manager may never fetch anything
    profile = tempfile.mkdtemp(prefix="foxgeese-chrome-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@contextlib.contextmanager
def web_server(*args: str) -> Iterator[str]:
    """Runs `foxgeese serve --port 0 ARGS` and yields its base URL; stops it (and its game's bots) after.
    Without `--data` in ARGS its database (and its solver tables) are in a temporary folder, removed after."""
    folder = None
    if "--data" not in args:
        folder = tempfile.mkdtemp(prefix="foxgeese-serve-")
        args = (*args, "--data", os.path.join(folder, "serve.sqlite3"))
        if "--tables" not in args:  # the Hare and Hounds solution is cached there, not in the user's folder
            args = (*args, "--tables", folder)
    process = subprocess.Popen([sys.executable, "-m", "foxgeese", "serve", "--port", "0", *args],
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = process.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if not found:
            raise RuntimeError(f"foxgeese serve did not start: {line}{process.stderr.read()}")
        # Keep reading its stderr (a full pipe would stop the server); shown if the test fails.
        threading.Thread(target=lambda: [sys.stderr.write(f"serve: {text}") for text in process.stderr],
                         daemon=True).start()
        yield found.group(0)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def csrf_token(base: str) -> str:
    """The server's CSRF token, as its home page carries it (`<meta name=foxgeese-csrf>`)."""
    with urllib.request.urlopen(base + "/") as response:
        found = re.search(r"<meta name=foxgeese-csrf content='([^']+)'>", response.read().decode())
    if not found:
        raise AssertionError("the home page carries no foxgeese-csrf token")
    return found.group(1)


def post_json(base: str, path: str, body: object, token: str | None = None,
              headers: dict[str, str] | None = None) -> tuple[int, dict]:
    """POSTs JSON (or `bytes` as they are) as a page of the server does: its token, application/json.
    Returns the status and the JSON answer (every answer of the API is JSON, errors too)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", "X-Foxgeese-Csrf": csrf_token(base) if token is None else token}
    request = urllib.request.Request(base + path, data=data, method="POST", headers=sent | (headers or {}))
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def wait_for(driver: object, script: str, timeout_s: float = 30.0) -> object:
    """Polls a JavaScript expression until it is truthy; returns its value."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = driver.execute_script(f"return ({script});")
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {script}")
        time.sleep(0.02)


def start_game(driver: object, base: str, variant: str, seats: dict[str, str], tc: str = "300+5",
               under_way: bool = True) -> None:
    """Starts a game from the home page's form, as a person would: `seats` maps each side to its
    choice (human, an AI, link). Waits until the game is under way, unless `under_way` is False
    (a seat given by link waits for its player)."""
    from selenium.webdriver.support.ui import Select

    driver.get(base + "/")
    Select(driver.find_element("id", "variant")).select_by_value(variant)
    for side, choice in seats.items():
        Select(driver.find_element("css selector", f"select[data-side='{side}']")).select_by_value(choice)
    tc_input = driver.find_element("name", "tc")
    tc_input.clear()
    tc_input.send_keys(tc)
    driver.find_element("id", "start").click()
    if under_way:
        wait_for(driver, "window.fgState && window.fgState.status === 'playing'")


def my_turn(driver: object, timeout_s: float = 60.0) -> list[str] | None:
    """Waits in the page until this seat has lit pieces (returns them) or the game is over (None)."""
    driver.set_script_timeout(timeout_s)
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (function check() {
          const state = window.fgState;
          const lit = Array.from(document.querySelectorAll('#board .hit.movable')).map(e => e.dataset.point);
          if (state && state.status === 'over') return done(null);
          if (lit.length) return done(lit);
          setTimeout(check, 5);
        })();""")


def lit(driver: object, kind: str) -> list[str]:
    return driver.execute_script(
        f"return Array.from(document.querySelectorAll('#board .hit.{kind}')).map(e => e.dataset.point);")


def click_point(driver: object, point: str) -> None:
    driver.find_element("css selector", f'#board .hit[data-point="{point}"]').click()


def _is_jump(a: str, b: str) -> bool:
    return abs(ord(a[0]) - ord(b[0])) == 2 or abs(int(a[1:]) - int(b[1:])) == 2


def play_by_clicking(driver: object, seed: int = 0, max_plies: int = 400) -> list[str]:
    """Plays the page's seat until the game ends, by clicking lit pieces and lit targets only.

    The policy: jump whenever a lit target is a jump (so the fox follows capture chains point by
    point), else a random lit target. Returns the clicks made, for the caller to check.
    """
    chooser = random.Random(seed)
    clicks: list[str] = []
    for _ in range(max_plies):
        movable = my_turn(driver)
        if movable is None:
            return clicks
        origin = chooser.choice(sorted(movable))
        click_point(driver, origin)
        clicks.append(origin)
        path = [origin]
        while True:
            targets = sorted(lit(driver, "target"))
            if not targets:
                break
            jumps = [t for t in targets if _is_jump(path[-1], t)]
            target = jumps[0] if jumps else chooser.choice(targets)
            click_point(driver, target)
            clicks.append(target)
            path.append(target)
            if not _is_jump(path[-2], target):
                break
    raise AssertionError(f"game not over after {max_plies} moves")


def click_action(driver: object, action: str) -> None:
    """Clicks a game page's action button; a state pushed meanwhile may redraw the buttons, so it looks again."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(20):
        try:
            driver.find_element("css selector", f"#actions button[data-action='{action}']").click()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"the {action} button kept being redrawn")


def shot(driver: object, name: str) -> None:
    """Saves a screenshot as $FOXGEESE_SHOTS/NAME.png when that is set (for a person to look at)."""
    folder = os.environ.get("FOXGEESE_SHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        driver.save_screenshot(os.path.join(folder, f"{name}.png"))
