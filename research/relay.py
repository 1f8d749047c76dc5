"""The Gymnasium agent's seat at a real referee: a bot process that asks the environment for each move.

Launched by `RefereeOpponent` as `python -m foxgeese.research.relay` with the environment's
socket in FOXGEESE_RELAY. On every `turn` it sends the position text over a REQ socket and plays
the move text it gets back; an empty answer resigns (the environment was reset or closed mid-game).
"""

from __future__ import annotations

import os
import sys

import zmq

from foxgeese.engine import Clock, Game, Move, Side, Variant
from foxgeese.protocol.sdk import run_bot

ENV_RELAY = "FOXGEESE_RELAY"


class RelayPlayer:
    """A player whose `choose` is the environment's answer."""

    name = "gym-agent"

    def __init__(self, socket: zmq.Socket) -> None:
        self.socket = socket

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        pass

    def choose(self, game: Game, clock: Clock) -> _Choice:
        self.socket.send_string(game.position.text())
        answer = self.socket.recv_string()
        return _Choice(Move.parse(answer) if answer else None)


class _Choice:
    __slots__ = ("move",)

    def __init__(self, move: Move | None) -> None:
        self.move = move


def main() -> int:
    endpoint = os.environ.get(ENV_RELAY)
    if not endpoint:
        print(f"foxgeese: {ENV_RELAY} is not set; this bot is started by the Gymnasium environment", file=sys.stderr)
        return 2
    with zmq.Context() as context, context.socket(zmq.REQ) as socket:
        socket.setsockopt(zmq.LINGER, 0)
        socket.connect(endpoint)
        run_bot(RelayPlayer(socket), name="gym-agent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
