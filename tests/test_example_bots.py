"""The example bots (Python, Node.js, C, Java; none uses the SDK) generate exactly the engine's legal
moves and finish real games through the referee against the built-in random player, in every variant
and both roles, each on the referee's default transport for it (the Java bot's JeroMQ has no ipc://:
loopback TCP, the default for a program)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from foxgeese.engine import VARIANT_IDS, Game, Position, Side, Termination, get_variant
from foxgeese.engine.sampling import played_position
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.conformance import capture_position
from foxgeese.protocol.referee import Referee

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
INSTALL_HINT = "run `bash scripts/install-test-deps.sh` (as root) to install the example bots' dependencies"
VARIANTS = ("standard", "hare-and-hounds", "great-cross")
RULE_ENDINGS = {t.value for t in Termination}


def example_bot_command(language: str) -> list[str]:
    """The command line of one example bot; fails (never skips) when its dependencies are missing."""
    if language == "python":
        return [sys.executable, str(BOTS / "python" / "bot.py")]
    if language == "js":
        if shutil.which("node") is None:
            pytest.fail(f"node is not installed; {INSTALL_HINT}")
        for package in ("zeromq", "@msgpack/msgpack"):
            if not (BOTS / "js" / "node_modules" / package / "package.json").is_file():
                pytest.fail(f"npm package {package} missing in examples/bots/js; {INSTALL_HINT}")
        return ["node", str(BOTS / "js" / "bot.js")]
    if language == "c":
        binary, source = BOTS / "c" / "bot", BOTS / "c" / "bot.c"
        if not binary.is_file() or binary.stat().st_mtime < source.stat().st_mtime:
            pytest.fail(f"examples/bots/c/bot is missing or older than bot.c; {INSTALL_HINT}")
        return [str(binary)]
    if language == "java":
        classes, source = BOTS / "java" / "build" / "Bot.class", BOTS / "java" / "Bot.java"
        if shutil.which("java") is None:
            pytest.fail(f"java is not installed; {INSTALL_HINT}")
        for jar in ("jeromq.jar", "msgpack-core.jar"):
            if not Path("/usr/share/java", jar).is_file():
                pytest.fail(f"/usr/share/java/{jar} is missing; {INSTALL_HINT}")
        if not classes.is_file() or classes.stat().st_mtime < source.stat().st_mtime:
            pytest.fail(f"examples/bots/java/build/Bot.class is missing or older than Bot.java; {INSTALL_HINT}")
        return [str(BOTS / "java" / "bot")]
    raise ValueError(language)


LANGUAGES = ("python", "js", "c", "java")


def sample_positions(count: int, seed: int) -> list[Position]:
    """Positions from seeded random playouts of every variant and option, plus the capture-chain ones."""
    rng = random.Random(seed)
    variants = [get_variant("standard", geese=g, sideways=s) for g in (13, 15, 17) for s in (False, True)]
    variants += [get_variant("hare-and-hounds"), get_variant("great-cross")]
    positions = [p for p in map(capture_position, VARIANT_IDS) if p is not None]
    while len(positions) < count:
        # Prefer captures now and then so that long chains show up often.
        position = played_position(rng.choice(variants), rng, (0, 119), capture_bias=0.5)
        if position is not None and position.legal_moves():
            positions.append(position)
    return positions


@pytest.mark.parametrize("language", LANGUAGES)
def test_move_generator_matches_the_engine(language):
    positions = sample_positions(400, seed=11)
    text = "".join(position.text() + "\n" for position in positions)
    run = subprocess.run(example_bot_command(language) + ["--moves"], input=text, capture_output=True,
                         text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.split("\n")
    assert len(lines) == len(positions) + 1 and lines[-1] == ""
    chains = 0
    for position, line in zip(positions, lines):
        expected = sorted(str(move) for move in position.legal_moves())
        assert sorted(line.split()) == expected, position.text()
        chains += any(move.count("x") >= 2 for move in expected)
    assert chains >= 5  # the sample did exercise jump chains


@pytest.mark.parametrize("language", LANGUAGES)
def test_example_bot_finishes_games_against_random(language, tmp_path):
    bot = BotConfig(f"{language}-example", example_bot_command(language), cwd=str(ROOT))
    opponent = BotConfig.from_spec("random:seed=5")
    with Referee(log_dir=str(tmp_path)) as referee:
        for variant_id in VARIANTS:
            variant = get_variant(variant_id)
            for bot_side in (Side.PREDATOR, Side.PREY):
                seats = {bot_side: bot, bot_side.other: opponent}
                record = referee.play_game(variant, seats, "10+0.1")
                where = f"{language} as {variant.side_name(bot_side)} in {variant_id}"
                assert record.termination in RULE_ENDINGS, f"{where}: {record.termination} {record.reason}"
                replay = Game.from_moves(variant.start_position(), [m.move for m in record.moves])
                outcome = replay.outcome()
                assert outcome is not None, where
                assert (record.winner, record.termination) == (outcome.winner.value, outcome.termination.value)
                bot_moves = [m for m in record.moves if m.side == variant.side_name(bot_side)]
                assert bot_moves, where
        # The bot stayed up for all six games: one process, never restarted.
        launched = [p for p in referee.processes() if p.config.name == bot.name]
        assert len(launched) == 1 and launched[0].alive()


def test_install_script_is_idempotent():
    """Running it again on a set-up machine changes nothing and says nothing."""
    if os.geteuid() != 0:
        pytest.fail(f"the install script needs root; {INSTALL_HINT}")
    run = subprocess.run(["bash", str(ROOT / "scripts" / "install-test-deps.sh")], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "" and run.stderr == ""
    for language in LANGUAGES:
        example_bot_command(language)  # and everything is in place afterwards
