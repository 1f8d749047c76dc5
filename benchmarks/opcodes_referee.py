"""Python opcodes the referee executes per ply: a figure of its own work that the machine's load
does not move (unlike time), for comparing two trees of the referee.

    python benchmarks/opcodes_referee.py [--games 3] [--max-plies 100] [--variant great-cross]

The bots are bench_referee.py's (a random legal move, seeded by the game's id) and the game ids are
fixed, so the games are the same in every run and every tree. Every opcode of the referee's
thread is counted (sys.settrace with f_trace_opcodes), from `play_game`'s call to its return,
waiting included (a poll loop that wakes runs opcodes too); the first game, which launches the bots,
is not counted. Run it with each tree's own Python, e.g. `/work/venvs/main/bin/python
benchmarks/opcodes_referee.py` from /work/main, and this tree's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import FrameType
from typing import Any

BENCH_BOT = str(Path(__file__).resolve().parent / "bench_referee.py")


class OpcodeCounter:
    """Counts the opcodes of the calling thread while on, and the lines, for what they are worth."""

    def __init__(self) -> None:
        self.opcodes = 0

    def _trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
        elif event == "opcode":
            self.opcodes += 1
        return self._trace

    def __enter__(self) -> OpcodeCounter:
        sys.settrace(self._trace)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--max-plies", type=int, default=100)
    parser.add_argument("--variant", default="great-cross")
    args = parser.parse_args()
    from foxgeese.engine import Side, get_variant
    from foxgeese.protocol.botconfig import BotConfig
    from foxgeese.protocol.referee import Referee

    variant = get_variant(args.variant)
    bot = [sys.executable, BENCH_BOT, "--role", "random"]
    seats = {Side.PREDATOR: BotConfig("random-a", bot), Side.PREY: BotConfig("random-b", bot)}
    plies = 0
    with Referee() as referee:
        referee.play_game(variant, seats, "600+1", max_plies=4, game_id="warm-up")  # launches the bots
        with OpcodeCounter() as counter:
            for game in range(args.games):
                record = referee.play_game(variant, seats, "600+1", max_plies=args.max_plies, game_id=f"game-{game}")
                plies += record.plies
    print(f"referee opcodes per ply: {counter.opcodes / plies:9.0f}  ({args.games} {args.variant} games, "
          f"{plies} plies, waiting included)")


if __name__ == "__main__":
    main()
