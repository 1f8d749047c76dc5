"""`foxgeese bot check`: passes on every example bot and on built-in players, fails loudly on broken bots."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_example_bots import LANGUAGES, ROOT, example_bot_command

from foxgeese.protocol.conformance import check_bot, info_problem

# A bot that behaves until told otherwise by its MODE: the broken bots below are one mode each.
BROKEN_BOT = textwrap.dedent('''
    import os, re, sys
    import msgpack, zmq
    sys.path.insert(0, {python_bot_dir!r})
    from bot import legal_moves, parse_position
    mode = sys.argv[1]
    sock = zmq.Context().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(os.environ["FOXGEESE_ENDPOINT"])
    send = lambda kind, **f: sock.send(msgpack.packb(dict(v=2, type=kind, **f)))
    if mode == "silent":
        sock.recv()
    token = "wrong" if mode == "bad-token" else os.fdopen(int(os.environ["FOXGEESE_TOKEN_FD"])).read().strip()
    if mode == "by-the-spec" and not re.fullmatch("[A-Za-z0-9_-]{{22}}", token):
        sys.exit(f"a token of other than 128 bits: {{token!r}}")
    variants = ["standard", "checkers"] if mode == "bad-variant" else ["hare-and-hounds", "standard"]
    send("hello", token=token, name="broken", author="", version="0", variants=variants)
    while True:
        m = msgpack.unpackb(sock.recv())
        if m["type"] == "quit":
            sys.exit(3 if mode == "bad-exit" else 0)
        if m["type"] == "new_game":
            send("ready", game_id=m["game_id"])
        elif m["type"] == "turn":
            moves = legal_moves(parse_position(m["position"]))
            move = "b5-a1" if mode == "illegal" else moves[0]
            request_id = m["request_id"] + (1 if mode == "wrong-request" else 0)
            request_id = str(request_id) if mode == "string-request" else request_id
            send("move", game_id=m["game_id"], request_id=request_id, move=move)
        elif m["type"] == "game_over" and mode == "by-the-spec" and not (
                isinstance(m.get("last_move"), str) and isinstance(m.get("position"), str)):
            sys.exit("game_over without last_move and position")
        elif m["type"] == "ping" and mode != "no-pong":
            send("pong", id=m["id"])
''')


@pytest.fixture(scope="module")
def broken_bot(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bots") / "broken.py"
    path.write_text(BROKEN_BOT.format(python_bot_dir=str(ROOT / "examples" / "bots" / "python")))
    return path


def run_check(command: list[str], timeout_ms: int = 5000) -> tuple[bool, list[str]]:
    lines: list[str] = []
    ok = check_bot(command, timeout_ms=timeout_ms, out=lines.append, cwd=str(ROOT))
    return ok, lines


@pytest.mark.parametrize("language", LANGUAGES)
def test_check_passes_on_each_example_bot(language):
    ok, lines = run_check(example_bot_command(language))
    assert ok, "\n".join(lines)
    assert not [line for line in lines if line.startswith("FAIL")]
    for variant in ("standard (geese=13,sideways=0)", "hare-and-hounds", "great-cross"):
        assert any(line.startswith(f"PASS turn {variant}") and "mid-game" in line for line in lines)
    assert any(line.startswith("PASS turn great-cross fox capture chain") for line in lines)
    assert lines[-2:] == ["PASS quit", "PASS bot check: all steps passed"]


def test_cli_check_passes_on_the_builtin_random_player():
    run = subprocess.run(
        # A long wait for its hello: a Python bot's start-up passed 5 s on a loaded two-core machine.
        [sys.executable, "-m", "foxgeese", "bot", "check", "--timeout-ms", "30000", sys.executable, "-m", "foxgeese",
         "bot", "random"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "PASS bot check: all steps passed"


@pytest.mark.parametrize(
    "mode, expected",
    [
        ("silent", "FAIL hello: expected a hello within 1500 ms, got nothing within 1500 ms"),
        ("bad-token", "FAIL hello: expected the token read from the descriptor in FOXGEESE_TOKEN_FD, got 'wrong'"),
        ("bad-variant", "FAIL hello: expected variants from standard, hare-and-hounds, great-cross"),
        ("illegal", "FAIL turn hare-and-hounds hare mid-game (ply 9): expected a legal move in"),
        ("wrong-request", "FAIL turn hare-and-hounds hounds start: expected 'move' game_id="),
        ("string-request", "FAIL turn hare-and-hounds hounds start: expected a well-formed 'move', "
                           "got field request_id: expected msgpack int, got msgpack str"),
        ("no-pong", "FAIL game_over hare-and-hounds hare, then ping: expected 'pong' id="),
        ("bad-exit", "FAIL quit: expected exit status 0, got exit status 3"),
    ],
)
def test_check_fails_on_a_broken_bot_with_a_clear_line(broken_bot, mode, expected):
    ok, lines = run_check([sys.executable, str(broken_bot), mode], timeout_ms=1500)  # python start-up on a busy machine
    assert not ok
    assert any(line.startswith(expected) for line in lines), "\n".join(lines)
    assert lines[-1].startswith("FAIL bot check:")


def test_cli_check_of_a_missing_program_is_one_line():
    run = subprocess.run([sys.executable, "-m", "foxgeese", "bot", "check", "./no-such-bot"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 2 and run.stdout == "", run
    assert run.stderr.splitlines() == [
        "foxgeese: bot check: bot 'no-such-bot': program './no-such-bot' does not exist or is not executable; "
        "give the bot's command line, e.g. `foxgeese bot check python3 bot.py`"]


def test_check_speaks_the_protocol_as_written(broken_bot):
    """A bot that insists on PROTOCOL.md's letter: a 128-bit token, game_over with last_move and position."""
    ok, lines = run_check([sys.executable, str(broken_bot), "by-the-spec"])
    assert ok, "\n".join(lines)


def test_a_builtin_player_lists_its_options_in_its_help():
    run = subprocess.run([sys.executable, "-m", "foxgeese", "bot", "minimax", "--help"], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "Player options (--option KEY=VALUE, repeatable):" in run.stdout
    for option in ("depth=VALUE", "nodes=VALUE", "time=VALUE", "seed=VALUE"):
        assert option in run.stdout, run.stdout
    assert "protocol 2" in run.stdout and "FOXGEESE_TOKEN_FD" in run.stdout


def test_check_help_names_protocol_2_and_the_token_descriptor():
    run = subprocess.run([sys.executable, "-m", "foxgeese", "bot", "check", "--help"], capture_output=True,
                         text=True, timeout=60)
    assert "protocol 2" in run.stdout and "FOXGEESE_TOKEN_FD" in run.stdout, run.stdout
    assert "protocol 1" not in run.stdout


def test_bot_help_explains_both_forms():
    run = subprocess.run([sys.executable, "-m", "foxgeese", "bot", "--help"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0
    assert "foxgeese bot NAME [--option key=value ...]" in run.stdout
    assert "foxgeese bot check COMMAND [ARGS...]" in run.stdout
    assert "random" in run.stdout


def test_info_problems_are_named():
    assert info_problem(None) == "" and info_problem({"score": -3, "pv": ["d4-d5"], "nodes": 10}) == ""
    assert info_problem([1]) == "field info: expected msgpack map, got msgpack array"
    assert info_problem({"depth": True}) == "field info.depth: expected msgpack int, got msgpack bool"
    assert info_problem({"score": 1.5}) == "field info.score: expected msgpack int, got msgpack float"
    assert info_problem({"pv": ["d4-d5", 3]}) == "field info.pv: items must be msgpack str, got msgpack int"
    # the referee's fields too: a bot that passes the check is never forfeited for its info
    assert info_problem({"time_ms": 12.5}) == "field info.time_ms: expected msgpack int, got msgpack float"


def test_the_minimal_bot_in_protocol_md_passes_the_check(tmp_path):
    """The spec's own example must stay a working bot: it plays the `legal` list's first move."""
    text = (ROOT / "PROTOCOL.md").read_text()
    section = text[text.index("## A minimal bot"):]
    code = section[section.index("```python") + len("```python"):]
    code = code[: code.index("```")]
    bot = tmp_path / "first.py"
    bot.write_text(code)
    ok, lines = run_check([sys.executable, str(bot)])
    assert ok, "\n".join(lines)
