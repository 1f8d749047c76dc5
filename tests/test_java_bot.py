"""The Java example bot (JeroMQ 0.3.6, a ZeroMQ without ipc://, and msgpack-java) with every command's
default settings: `foxgeese play` in each variant, `foxgeese bot check`, a small tournament, a
Gymnasium game. Nothing here names a transport: the defaults must reach a library that is not libzmq."""

from __future__ import annotations

import json
import re

import pytest
from test_example_bots import ROOT, example_bot_command
from tournament_support import foxgeese_here

from foxgeese.engine import Termination
from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.runner import Runner

RULE_ENDINGS = {t.value for t in Termination}


@pytest.mark.parametrize("variant, seats", [
    ("standard", ("--fox", "--geese")),
    ("hare-and-hounds", ("--hounds", "--hare")),
    ("great-cross", ("--geese", "--fox")),
])
def test_play_with_the_defaults(variant, seats, tmp_path):
    bot = " ".join(example_bot_command("java"))
    record_path = tmp_path / "game.json"
    run = foxgeese_here("play", variant, seats[0], f"cmd:{bot}", seats[1], "random:seed=4", "--quiet",
                        "--record", str(record_path))
    assert run.returncode == 0, run.stdout + run.stderr
    record = json.loads(record_path.read_text())
    assert record["termination"] in RULE_ENDINGS, run.stdout
    java_side = record["bots"][seats[0].removeprefix("--")]
    assert java_side["bot_name"] == "java-example", java_side
    assert any(move["side"] == seats[0].removeprefix("--") for move in record["moves"])


def test_bot_check_with_the_defaults():
    run = foxgeese_here("bot", "check", *example_bot_command("java"))
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert re.fullmatch(r"PASS launch \(connect to tcp://127\.0\.0\.1:\d+\)", lines[0]), lines[0]
    for variant in ("standard (geese=13,sideways=0)", "standard (geese=17,sideways=1)", "hare-and-hounds",
                    "great-cross"):
        assert any(line.startswith(f"PASS turn {variant}") and "mid-game" in line for line in lines), variant
    assert lines[-1] == "PASS bot check: all steps passed"


def test_bot_check_on_ipc_says_why_a_jeromq_bot_is_not_heard():
    run = foxgeese_here("bot", "check", "--timeout-ms", "1500", "--transport", "ipc", *example_bot_command("java"))
    assert run.returncode == 1
    assert ("FAIL hello: expected a hello within 1500 ms, got nothing within 1500 ms (a ZeroMQ library without "
            "ipc://, such as JeroMQ or NetMQ, cannot reach an ipc:// endpoint: check it with --transport tcp)"
            in run.stdout.splitlines()), run.stdout


def test_a_small_tournament_with_the_defaults(tmp_path):
    config = tmp_path / "java.yaml"
    config.write_text(
        "name: java\n"
        "variants: [{id: standard}, {id: hare-and-hounds}, {id: great-cross}]\n"
        "players:\n"
        f"  - {{name: java, command: {json.dumps(example_bot_command('java'))}, cwd: {json.dumps(str(ROOT))}}}\n"
        "  - {name: rnd, spec: 'random:seed=3'}\n"
        "games_per_pairing: 2\ntime_control: 10+0.1\nseed: 7\n"
    )
    out = tmp_path / "out"
    # The runner as `foxgeese tournament run` drives it (whose report afterwards judges every move
    # by the solved tables: slow, and not what this test is about).
    state = Runner(load_config(str(config)), out).run()
    assert state.games_done == 6
    games = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    assert len(games) == 6
    for game in games:
        record = game["record"]
        assert record["termination"] in RULE_ENDINGS, (record["termination"], record["reason"])
        assert "java-example" in {seat["bot_name"] for seat in record["bots"].values()}
    assert {game["record"]["variant"] for game in games} == {"standard", "hare-and-hounds", "great-cross"}


def test_a_gymnasium_game_against_it_with_the_defaults():
    """The research environment's referee seats it as `foxgeese play` does (loopback TCP for a cmd: bot)."""
    import numpy as np

    from foxgeese.research.gym_env import HuntGymEnv

    env = HuntGymEnv("great-cross", role="geese", opponent="cmd:" + " ".join(example_bot_command("java")))
    try:
        observation, info = env.reset(seed=4)
        rng, done, steps = np.random.default_rng(4), False, 0
        while not done:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            done, steps = terminated or truncated, steps + 1
        assert terminated and steps > 1, info
        assert env.hunt.game.outcome() is not None  # a rule ending: the bot played its moves to the end
    finally:
        env.close()
