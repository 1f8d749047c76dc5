"""A bot that leaves a daemon behind: a grandchild that calls setsid() after a double fork, so it
is in no process group or session of the bot's, and sleeps for ever. Its pid is appended to
--pid-file. The bot itself then plays random moves through the SDK (or exits with --crash-after).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time

from foxgeese.players.random_player import RandomPlayer
from foxgeese.protocol.sdk import run_bot


def spawn_daemon(pid_file: str) -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pid_file, "a") as out:
                out.write(f"{os.getpid()}\n")
            while True:
                time.sleep(1)
        os._exit(0)
    os.wait()


class MisbehavingPlayer(RandomPlayer):
    """Plays `turns` random moves, then crashes (exit status 3) or hangs for ever."""

    def __init__(self, turns: int, hang: bool) -> None:
        super().__init__(seed=1)
        self.left, self.hang = turns, hang

    def choose(self, game, clock=None):
        self.left -= 1
        if self.left < 0:
            print("daemon-bot: hanging" if self.hang else "daemon-bot: crashing", file=sys.stderr, flush=True)
            while self.hang:
                time.sleep(1)
            os._exit(3)
        return super().choose(game, clock)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid-file", required=True)
    parser.add_argument("--crash-after", type=int, default=None, help="turns played before exiting")
    parser.add_argument("--hang-after", type=int, default=None, help="turns played before hanging")
    parser.add_argument("--ignore-term", action="store_true", help="SIGTERM does not stop this bot")
    args = parser.parse_args()
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    spawn_daemon(args.pid_file)
    if args.crash_after is not None:
        player = MisbehavingPlayer(args.crash_after, hang=False)
    elif args.hang_after is not None:
        player = MisbehavingPlayer(args.hang_after, hang=True)
    else:
        player = RandomPlayer(seed=1)
    run_bot(player, name="daemon-bot")
    return 0


if __name__ == "__main__":
    sys.exit(main())
