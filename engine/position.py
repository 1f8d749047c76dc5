"""Positions: where the pieces stand, who moves, and the counters the endings need.

A Position is a rules state (`foxgeese.engine.rules`) with its variant and ply; it knows nothing
of the moves that led to it (`Game` adds the history that repetition needs). Positions are
treated as immutable: `play` returns a new one.
"""

from __future__ import annotations

from foxgeese.engine.board import GRID_WIDTH, POINT_NAMES, parse_point, point_name
from foxgeese.engine.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, UnknownVariantError
from foxgeese.engine.move import Move
from foxgeese.engine.outcome import Outcome, Side, Termination
from foxgeese.engine.rules import FIFTY_MOVE_PLIES, MIN_GEESE, REPETITION_COUNT, STALLING_MOVES, State
from foxgeese.engine.userinput import NumberError, parse_int, shown
from foxgeese.engine.variants import Variant, get_variant, parse_options

__all__ = ["FIFTY_MOVE_PLIES", "MIN_GEESE", "REPETITION_COUNT", "STALLING_MOVES", "Position", "explain_illegal"]

MAX_COUNTER = 10**9  # far more plies than any game has; keeps counters plain integers everywhere


class Position:
    """One position of a variant.

    `quiet` counts plies since the last capture or forward prey step (fifty-move rule);
    `stall` counts hound moves in a row that did not raise a row (hare-and-hounds only);
    `ply` counts plies since the game's start.
    """

    __slots__ = ("variant", "predator", "prey", "turn", "quiet", "stall", "ply", "_rules")

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
        self._rules = variant.rules

    @classmethod
    def from_state(cls, variant: Variant, state: State, ply: int = 0) -> Position:
        """The position of a rules state (see `foxgeese.engine.rules`)."""
        predator, prey, turn, quiet, stall = state
        return cls(variant, predator, prey, turn, quiet, stall, ply)

    @property
    def state(self) -> State:
        """`(predator, prey, turn, quiet, stall)`: what the rules core works on."""
        return (self.predator, self.prey, self.turn, self.quiet, self.stall)

    # -- identity -------------------------------------------------------------------------------

    def key(self) -> int:
        """An exact integer key of the pieces and the side to move (what repetition compares).

        It is injective, so a transposition table keyed on it never confuses two positions.
        """
        return self._rules.key(self.state)

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
        return f"{pieces_text(self.variant, self.state)} {self.quiet} {self.stall} {self.ply}"

    __str__ = text

    @classmethod
    def from_text(cls, text: str) -> Position:
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
        if values[1] and Termination.STALLING not in variant.endings:
            raise InvalidPositionError(
                f"stall counter is {values[1]}, but {variant.id} counts no stalls: "
                "write 0 (only hare-and-hounds has one)"
            )
        return cls(variant, predator, prey, turn, *values)

    # -- moves ----------------------------------------------------------------------------------

    def is_over_by_counters(self) -> Outcome | None:
        """The endings that the pieces and counters alone decide, before looking at moves."""
        return self._outcome_of(self._rules.ending(self.state))

    def outcome(self, repetitions: int = 1) -> Outcome | None:
        """The ending of this position, if any; `repetitions` is how often it has occurred so far."""
        return self._outcome_of(self._rules.outcome(self.state, repetitions))

    def _outcome_of(self, termination: Termination | None) -> Outcome | None:
        return None if termination is None else self.variant.outcome(termination)

    def legal_moves(self) -> list[Move]:
        """Every legal move, ignoring repetition (a Game knows the history); [] once the game is over."""
        state = self.state
        if self._rules.ending(state) is not None:
            return []
        return self._rules.moves(state)

    def pseudo_moves(self) -> list[Move]:
        """The moves of the side to move, without checking whether the game has already ended."""
        return self._rules.moves(self.state)

    def play(self, move: Move) -> Position:
        """The position after `move`, which must be legal here (not checked: see `parse_move`)."""
        return Position.from_state(self.variant, self._rules.play(self.state, move), self.ply + 1)

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


def pieces_text(variant: Variant, state: State) -> str:
    """Position text up to its counters (`VARIANT OPTIONS TURN PREDATOR PREY`): what the referee
    writes into every turn, so it is two lookups and a concatenation (see `PieceTexts`)."""
    texts = variant.texts
    return texts.prefixes[state[2]][state[0]] + texts.prey[state[1]]


class PieceTexts:
    """One variant's position text by its pieces, owned by the variant (`Variant.texts`).

    `prefixes[side to move][predator point]` is the text up to the prey (`VARIANT OPTIONS TURN
    PREDATOR `); `prey[mask]` the prey field, remembered up to `limit` masks at a time.
    """

    __slots__ = ("prefixes", "prey")

    def __init__(self, variant: Variant, limit: int = 1 << 8) -> None:
        start = f"{variant.id} {variant.options_text()} "
        self.prefixes = tuple(
            tuple(f"{start}{variant.side_name(side)} {name} " for name in POINT_NAMES) for side in Side
        )
        self.prey = PreyTexts(limit)


class PreyTexts(dict[int, str]):
    """The prey field of position text by prey mask: the referee writes it every ply, and a predator
    move leaves it as it was. A hit is a plain dict look-up; a miss joins a lookup per row of the
    grid (`rows`: per row, the text of each set of its points) and is kept, the whole memo emptied
    when it holds `limit` masks. Referees in threads share a variant's: a dict's item reads and writes
    are atomic, and an entry lost to a concurrent `clear` costs only its joins again."""

    __slots__ = ("rows", "limit")

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.rows = tuple(map(_row_texts, _ROW_SHIFTS))
        self.limit = limit

    def __missing__(self, mask: int) -> str:
        if len(self) >= self.limit:
            self.clear()
        rows = map(_ROW_MASK.__and__, map(mask.__rshift__, _ROW_SHIFTS))  # each row's bits, in C
        text = self[mask] = ",".join(filter(None, map(tuple.__getitem__, self.rows, rows))) or "-"
        return text


_ROW_MASK = (1 << GRID_WIDTH) - 1
_ROW_SHIFTS = tuple(range(0, len(POINT_NAMES), GRID_WIDTH))


def _row_texts(start: int) -> tuple[str, ...]:
    """Per set of the points of the row that begins at point `start`, their names joined."""
    texts = [""]
    for bits in range(1, 1 << GRID_WIDTH):  # the lowest point's name, then the rest's text
        low = bits & -bits
        name, rest = POINT_NAMES[start + low.bit_length() - 1], texts[bits ^ low]
        texts.append(f"{name},{rest}" if rest else name)
    return tuple(texts)


def _bits(mask: int) -> list[int]:
    points = []
    while mask:
        low = mask & -mask
        points.append(low.bit_length() - 1)
        mask ^= low
    return points
