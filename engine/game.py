"""A game: a start position, the moves played, and the game in play (`GameState`: the history repetition needs)."""

from __future__ import annotations

from collections.abc import Sequence

from foxgeese.engine.errors import IllegalMoveError, InvalidMoveError
from foxgeese.engine.gamestate import GameState
from foxgeese.engine.move import Move
from foxgeese.engine.outcome import Outcome
from foxgeese.engine.position import Position
from foxgeese.engine.variants import Variant


class Game:
    """Positions from a start, with push/pop like python-chess's move stack.

    `now` is the game in play (see gamestate.py): its endings, repetitions and text; the positions
    and moves here are the stack that `pop` takes back.
    """

    def __init__(self, variant: Variant | None = None, *, start: Position | None = None) -> None:
        if start is None:
            if variant is None:
                raise ValueError("Game needs a variant or a start position")
            start = variant.start_position()
        self.start = start
        self.variant = start.variant
        self.moves: list[Move] = []
        self.positions: list[Position] = [start]
        self.now = GameState(start)

    @classmethod
    def from_position(cls, position: Position) -> Game:
        return cls(start=position)

    @classmethod
    def from_moves(cls, start: Position, moves: Sequence[str | Move]) -> Game:
        """Replays `moves` from `start`, checking each; raises IllegalMoveError naming the ply."""
        game = cls(start=start)
        for number, text in enumerate(moves, 1):
            try:
                game.push(game.parse_move(text))
            except IllegalMoveError as error:
                raise IllegalMoveError(error.move_text, f"{error.reason} (ply {number})") from None
            except InvalidMoveError as error:
                raise InvalidMoveError(f"ply {number}: {error}") from None
        return game

    @property
    def position(self) -> Position:
        return self.positions[-1]

    def repetitions(self) -> int:
        """How often the current position (pieces and side to move) has occurred in this game."""
        return self.now.repetitions()

    def outcome(self) -> Outcome | None:
        return self.now.outcome()

    def is_over(self) -> bool:
        return self.outcome() is not None

    def legal_moves(self) -> list[Move]:
        """The legal moves, or [] when the game is over by any ending, repetition included."""
        if self.outcome() is not None:
            return []
        return self.now.moves()

    def parse_move(self, text: str | Move) -> Move:
        """Reads a move and checks it is legal now; InvalidMoveError / IllegalMoveError say why not.
        The position checks it; only the history's own ending (repetition) is told here."""
        ended = self.outcome()
        if ended is not None:
            move = text if isinstance(text, Move) else Move.parse(text)
            raise IllegalMoveError(str(move), f"the game is over ({ended})")
        return self.position.parse_move(text)

    def push(self, move: Move) -> Position:
        """Plays a move (legality is the caller's: use `parse_move` for untrusted input)."""
        now = self.now
        now.play(move)
        position = now.position()
        self.moves.append(move)
        self.positions.append(position)
        return position

    def pop(self) -> Move:
        self.positions.pop()
        self.now.back_to(self.positions[-1])
        return self.moves.pop()

    def copy(self) -> Game:
        clone = Game(start=self.start)
        clone.moves = list(self.moves)
        clone.positions = list(self.positions)
        clone.now = self.now.copy()
        return clone
