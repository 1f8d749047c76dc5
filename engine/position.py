"""Positions: where the pieces stand, who moves, and the counters the endings need.

A Position knows nothing of the moves that led to it; `Game` adds the history that repetition
needs. Positions are treated as immutable: `play` returns a new one.
"""

from __future__ import annotations

from foxgeese.engine import movegen
from foxgeese.engine.board import GRID_WIDTH, POINT_NAMES, parse_point, point_name
from foxgeese.engine.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, UnknownVariantError
from foxgeese.engine.move import Move
from foxgeese.engine.outcome import Outcome, Side, Termination, Winner
from foxgeese.engine.userinput import NumberError, parse_int, shown
from foxgeese.engine.variants import Variant, get_variant, parse_options

FIFTY_MOVE_PLIES = 100
STALLING_MOVES = 10
REPETITION_COUNT = 3
MIN_GEESE = 4
MAX_COUNTER = 10**9  # far more plies than any game has; keeps counters plain integers everywhere


class Position:
    """One position of a variant.

    `quiet` counts plies since the last capture or forward prey step (fifty-move rule);
    `stall` counts hound moves in a row that did not raise a row (hare-and-hounds only);
    `ply` counts plies since the game's start.
    """

    __slots__ = ("variant", "predator", "prey", "turn", "quiet", "stall", "ply", "_tables")

    def __init__(
        self, variant: Variant, predator: int, prey: int, turn: Side, quiet: int = 0, stall: int = 0, ply: int = 0
    ) -> None:
        self.variant = variant
        self.predator = predator
        self.prey = prey
        self.turn = turn
        self.quiet = quiet
        self.stall = stall
        self.ply = ply
        self._tables = movegen.tables_for(variant)

    # -- identity -------------------------------------------------------------------------------

    def key(self) -> int:
        """An exact integer key of the pieces and the side to move (what repetition compares).

        It is injective, so a transposition table keyed on it never confuses two positions.
        """
        return self.prey << 8 | self.predator << 1 | int(self.turn)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (self.variant, self.predator, self.prey, self.turn, self.quiet, self.stall, self.ply) == (
            other.variant, other.predator, other.prey, other.turn, other.quiet, other.stall, other.ply
        )

    def __hash__(self) -> int:
        return hash((self.variant.id, self.variant.options, self.key(), self.quiet, self.stall, self.ply))

    def __repr__(self) -> str:
        return f"Position.from_text({self.text()!r})"

    @property
    def prey_points(self) -> list[int]:
        return _bits(self.prey)

    # -- text -----------------------------------------------------------------------------------

    def text(self) -> str:
        """The canonical one-line form: `VARIANT OPTIONS TURN PREDATOR PREY QUIET STALL PLY`."""
        variant = self.variant
        prey = ",".join([POINT_NAMES[p] for p in _bits(self.prey)]) or "-"
        return (
            f"{variant.id} {variant.options_text()} {variant.side_name(self.turn)} {POINT_NAMES[self.predator]} "
            f"{prey} {self.quiet} {self.stall} {self.ply}"
        )

    __str__ = text

    @classmethod
    def from_text(cls, text: str) -> "Position":
        """Parses position text (any case, surrounding spaces); InvalidPositionError says what is wrong."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"position must be text, not {type(text).__name__}")
        tokens = text.strip().lower().split()
        if len(tokens) != 8:
            raise InvalidPositionError(
                f"position text has {len(tokens)} tokens, expected 8: "
                "VARIANT OPTIONS TURN PREDATOR PREY QUIET STALL PLY"
            )
        variant_id, options, turn_name, predator_text, prey_text, *counters = tokens
        try:
            variant = get_variant(variant_id, **parse_options(options))
        except UnknownVariantError as error:
            raise InvalidPositionError(str(error)) from None
        try:
            turn = variant.side_by_name(turn_name)
        except ValueError as error:
            raise InvalidPositionError(str(error)) from None
        board = variant.board
        try:
            predator = parse_point(predator_text)
            prey_list = [] if prey_text == "-" else [parse_point(p) for p in prey_text.split(",")]
        except InvalidMoveError as error:
            raise InvalidPositionError(str(error)) from None
        for point in [predator, *prey_list]:
            if point not in board.points:
                raise InvalidPositionError(f"{point_name(point)} is not a point of the {variant.id} board")
        prey = 0
        for point in prey_list:
            if prey >> point & 1 or point == predator:
                raise InvalidPositionError(f"two pieces on {point_name(point)}")
            prey |= 1 << point
        values = []
        for name, token in zip(("quiet", "stall", "ply"), counters):
            if not token.isascii() or not token.isdigit():  # no sign: a counter never goes below 0
                raise InvalidPositionError(f"{name} counter must be a whole number, not {shown(token)}")
            try:
                values.append(parse_int(token, f"{name} counter", 0, MAX_COUNTER))
            except NumberError as error:
                raise InvalidPositionError(str(error)) from None
        return cls(variant, predator, prey, turn, *values)

    # -- moves ----------------------------------------------------------------------------------

    def is_over_by_counters(self) -> Outcome | None:
        """The endings that the pieces and counters alone decide, before looking at moves."""
        variant = self.variant
        endings = variant.endings
        if Termination.CAPTURED in endings and self.prey.bit_count() < MIN_GEESE:
            return Outcome(variant.winner_for(Side.PREDATOR), Termination.CAPTURED)
        if Termination.ESCAPED in endings and self.predator // GRID_WIDTH < _lowest_row(self.prey):
            return Outcome(variant.winner_for(Side.PREDATOR), Termination.ESCAPED)
        if Termination.STALLING in endings and self.stall >= STALLING_MOVES:
            return Outcome(variant.winner_for(Side.PREDATOR), Termination.STALLING)
        if Termination.FIFTY_MOVES in endings and self.quiet >= FIFTY_MOVE_PLIES:
            return Outcome(Winner.DRAW, Termination.FIFTY_MOVES)
        return None

    def outcome(self, repetitions: int = 1) -> Outcome | None:
        """The ending of this position, if any; `repetitions` is how often it has occurred so far."""
        ended = self.is_over_by_counters()
        if ended:
            return ended
        variant = self.variant
        if Termination.REPETITION in variant.endings and repetitions >= REPETITION_COUNT:
            return Outcome(Winner.DRAW, Termination.REPETITION)
        if self.turn == Side.PREDATOR:
            if not movegen.has_predator_move(self._tables, self.predator, self.prey):
                return Outcome(variant.winner_for(Side.PREY), Termination.TRAPPED)
        elif not movegen.has_prey_move(self._tables, self.predator, self.prey):
            return Outcome(variant.winner_for(Side.PREDATOR), Termination.IMMOBILIZED)
        return None

    def legal_moves(self) -> list[Move]:
        """Every legal move, ignoring repetition (a Game knows the history); [] once the game is over."""
        if self.is_over_by_counters():
            return []
        return self.pseudo_moves()

    def pseudo_moves(self) -> list[Move]:
        """The moves of the side to move, without checking whether the game has already ended."""
        if self.turn == Side.PREDATOR:
            return movegen.predator_moves(self._tables, self.predator, self.prey)
        return movegen.prey_moves(self._tables, self.predator, self.prey)

    def play(self, move: Move) -> "Position":
        """The position after `move`, which must be legal here (not checked: see `parse_move`)."""
        path = move.path
        prey = self.prey
        stall = self.stall
        if self.turn == Side.PREDATOR:
            if move.is_capture:
                for a, b in zip(path, path[1:]):
                    prey &= ~(1 << ((a + b) >> 1))
                quiet = 0
            else:
                quiet = self.quiet + 1
            return Position(self.variant, path[-1], prey, Side.PREY, quiet, stall, self.ply + 1)
        origin, target = path
        prey ^= (1 << origin) | (1 << target)
        raises_row = target > origin + 1
        quiet = 0 if raises_row else self.quiet + 1
        if Termination.STALLING in self.variant.endings:
            stall = 0 if raises_row else stall + 1
        return Position(self.variant, self.predator, prey, Side.PREDATOR, quiet, stall, self.ply + 1)

    def parse_move(self, text: str | Move) -> Move:
        """Reads a move and checks it is legal here; the IllegalMoveError says why it is not."""
        move = text if isinstance(text, Move) else Move.parse(text)
        if move in self.legal_moves():
            return move
        raise IllegalMoveError(str(move), explain_illegal(self, move))


def explain_illegal(position: Position, move: Move) -> str:
    """Why `move` is not legal in `position`, in words a player understands."""
    variant = position.variant
    board = variant.board
    ended = position.outcome()
    if ended:
        return f"the game is over ({ended})"
    for point in move.path:
        if point not in board.points:
            return f"{point_name(point)} is not a point of the {variant.id} board"
    mover_name = variant.side_name(position.turn)
    origin = move.origin
    piece_at = _piece_names(position)
    if position.turn == Side.PREDATOR:
        if origin != position.predator:
            return f"no {variant.predator_name} on {point_name(origin)}"
    elif not position.prey >> origin & 1:
        if origin == position.predator:
            possessive = mover_name + ("'" if mover_name.endswith("s") else "'s")
            return f"{point_name(origin)} holds the {variant.predator_name}, and it is the {possessive} turn"
        return f"no {variant.prey_singular} on {point_name(origin)}"
    if move.is_capture:
        if position.turn == Side.PREY or not variant.captures:
            return f"the {mover_name} cannot capture; only the fox does"
        prey = position.prey
        jumped: set[int] = set()
        for a, b in zip(move.path, move.path[1:]):
            dc, dr = _direction(a, b)
            step = (dc // 2, dr // 2)
            middle = board.neighbour(a, step) if not dc % 2 and not dr % 2 and max(abs(dc), abs(dr)) == 2 else None
            if middle is None or board.neighbour(middle, step) != b:
                return f"{point_name(a)} and {point_name(b)} are not two steps apart along one line"
            if middle in jumped:
                return f"the goose on {point_name(middle)} was already jumped in this move"
            if not prey >> middle & 1:
                return f"no goose on {point_name(middle)} to jump"
            if prey >> b & 1:
                return f"{point_name(b)} is occupied"
            prey &= ~(1 << middle)
            jumped.add(middle)
        return "not a legal move here"
    origin, target = move.path[0], move.path[-1]
    if not board.joined(origin, target):
        return f"{point_name(origin)} and {point_name(target)} are not joined by a line"
    if target in piece_at:
        return f"{point_name(target)} is occupied by the {piece_at[target]}"
    if position.turn == Side.PREY:
        if target < origin - 1:
            return f"the {mover_name} never move back"
        if target in (origin - 1, origin + 1):
            return f"the {mover_name} may not move sideways in {variant}"
    return "not a legal move here"


def _direction(a: int, b: int) -> tuple[int, int]:
    return ((b % GRID_WIDTH) - (a % GRID_WIDTH), (b // GRID_WIDTH) - (a // GRID_WIDTH))


def _piece_names(position: Position) -> dict[int, str]:
    names = {p: position.variant.prey_singular for p in _bits(position.prey)}
    names[position.predator] = position.variant.predator_name
    return names


def _bits(mask: int) -> list[int]:
    points = []
    while mask:
        low = mask & -mask
        points.append(low.bit_length() - 1)
        mask ^= low
    return points


def _lowest_row(prey: int) -> int:
    """Row of the lowest prey piece (bits run row by row), or the grid height with no prey."""
    if not prey:
        return GRID_WIDTH
    return ((prey & -prey).bit_length() - 1) // GRID_WIDTH
