"""A person at a terminal: shows the board, reads a move, explains an illegal one and asks again.

Streams are injectable so tests can script a session.
"""

from __future__ import annotations

import sys
from typing import TextIO

from foxgeese.engine import Clock, Game, IllegalMoveError, InvalidMoveError, Position, Side, draw_board
from foxgeese.engine.board import point_name
from foxgeese.players.base import Choice, Player

COMMANDS_HINT = "'moves' lists the legal moves, 'quit' resigns"


def hint(position: Position) -> str:
    """How to type a move, with examples of this variant and side: a step legal now, and for a
    side that can capture, a capture and a chain drawn on this board (Hare and Hounds has none)."""
    variant = position.variant
    steps = sorted(str(move) for move in position.legal_moves() if not move.is_capture)
    parts = [f"type a move like {steps[0]}" if steps else "type a move"]
    if variant.captures and position.turn == Side.PREDATOR:
        chain = _capture_chain(position)
        if chain:
            first = "x".join(map(point_name, chain[:2]))
            more = f" (a chain: {'x'.join(map(point_name, chain))})" if len(chain) > 2 else ""
            parts.append(f"a capture like {first}{more}")
    return ", ".join(parts) + "; " + COMMANDS_HINT


def _capture_chain(position: Position) -> list[int]:
    """Jump landings from the predator's point on this board (geometry only, as an example)."""
    jumps = position.variant.board.jumps
    chain = [position.predator]
    for _ in range(2):
        hops = [landing for _over, landing in jumps[chain[-1]] if landing not in chain]
        if not hops:
            break
        chain.append(min(hops))
    return chain if len(chain) > 1 else []


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
        self._hinted = False

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        stdin = self.stdin or sys.stdin
        out = self.stdout or sys.stdout
        if game.moves:  # the opponent's reply, said here so it always comes before the prompt
            mover = game.position.variant.side_name(game.positions[-2].turn)
            out.write(f"{mover} played {game.moves[-1]}\n")
        out.write(draw(game) + "\n")
        if not self._hinted:
            out.write(hint(game.position) + "\n")
            self._hinted = True
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
