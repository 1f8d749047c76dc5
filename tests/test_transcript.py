"""PROTOCOL.md's annotated transcript is a real run: the command it shows is played again here and
each bot's messages must be the page's, but for what changes from run to run (tokens, ids, clock
readings, and where the pings and pongs fall)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "foxgeese play hare-and-hounds --hare random:seed=5 --hounds solver --tc 5+0.1 --trace --quiet --seed 5"
LINE = re.compile(r"^(<-|->) ([^:]+(?::seed=5)?): (\{.*\})$")
VARYING = {"token": "TOKEN", "bot_id": "BOT-ID", "game_id": "GAME-ID"}


def per_bot(lines: list[str]) -> dict[str, list[tuple[str, dict]]]:
    """Each bot's messages in order (direction, message), the varying values replaced, pings and pongs left out."""
    bots: dict[str, list[tuple[str, dict]]] = {}
    for line in lines:
        found = LINE.match(line)
        if found is None:
            continue
        direction, bot, text = found.groups()
        message = json.loads(text)
        if message["type"] in ("ping", "pong"):
            continue
        message.update({key: shown for key, shown in VARYING.items() if key in message})
        if "clocks" in message:
            message["clocks"] = sorted(message["clocks"])
        bots.setdefault(bot, []).append((direction, message))
    return bots


def page_transcript() -> list[str]:
    page = (ROOT / "PROTOCOL.md").read_text()
    section = page[page.index("## Annotated transcript of a whole game"):page.index("## A minimal bot")]
    assert f"```\n{COMMAND}\n```" in section
    return section.splitlines()


def test_the_transcript_on_the_page_is_the_game_the_referee_plays():
    run = subprocess.run([sys.executable, "-m", "foxgeese", *COMMAND.split()[1:]], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    played, shown = per_bot(run.stderr.splitlines()), per_bot(page_transcript())
    assert set(played) == set(shown) == {"random:seed=5", "solver"}
    for bot in played:
        assert shown[bot] == played[bot], f"{bot}: PROTOCOL.md's transcript is not what a run gives:\n" + \
            "\n".join(f"{direction} {json.dumps(message)}" for direction, message in played[bot])
    assert pings_and_pongs(run.stderr.splitlines()) == pings_and_pongs(page_transcript())


def pings_and_pongs(lines: list[str]) -> int:
    return sum('"type": "ping"' in line or '"type": "pong"' in line for line in lines)
