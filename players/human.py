"""A person at a terminal: shows the board, reads a move, explains an illegal one and asks again.

Streams are injectable so tests can script a session.
"""

from __future__ import annotations

import sys
from typing import TextIO

from foxgeese.engine import Clock, Game, IllegalMoveError, InvalidMoveError, draw_board
from foxgeese.players.base import Choice, Player


def draw(game: Game) -> str:
    """The engine's diagram of the current position."""
    return draw_board(game.position)


class HumanPlayer(Player):
    """Reads moves like `d4-d5` or `d4xd6xf6`; `moves` lists the legal ones, `quit` gives up."""

    name = "human"
    spec_options: tuple[str, ...] = ()  # the streams are for tests, not for a SPEC

    def __init__(self, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin
        self.stdout = stdout

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        stdin = self.stdin or sys.stdin
        out = self.stdout or sys.stdout
        out.write(draw(game) + "\n")
        while True:
            out.write("your move> ")
            out.flush()
            line = stdin.readline()
            if not line:  # end of input: the person has left
                return Choice(None, {"resign": "input closed"})
            text = line.strip()
            if not text:
                continue
            if text.lower() in ("quit", "resign", "exit"):
                return Choice(None, {"resign": text.lower()})
            if text.lower() in ("moves", "help", "?"):
                legal = " ".join(sorted(str(m) for m in game.legal_moves()))
                out.write(f"legal moves: {legal}\n")
                continue
            try:
                move = game.parse_move(text)
            except (InvalidMoveError, IllegalMoveError) as error:
                out.write(f"{error} (type 'moves' to list the legal ones)\n")
                continue
            return Choice(move, None)
