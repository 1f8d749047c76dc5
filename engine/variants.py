"""Variants are data plus a registry: a board, a start, how the prey may step, and which endings apply."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from foxgeese.engine import board as boards
from foxgeese.engine.board import Board, point_index
from foxgeese.engine.errors import UnknownVariantError
from foxgeese.engine.outcome import Outcome, Side, Termination, Winner
from foxgeese.engine.userinput import NumberError, did_you_mean, parse_int, shown

if TYPE_CHECKING:
    from foxgeese.engine.position import PieceTexts, Position
    from foxgeese.engine.rules import Rules

FORWARD = ((0, 1), (1, 1), (-1, 1))
SIDEWAYS = ((1, 0), (-1, 0))


@dataclass(frozen=True, eq=False)  # one shared instance per id and options: identity is equality
class Variant:
    """A board, a start, how the prey may step, which endings apply; one instance per id and options.

    A variant owns what is derived from it once and asked for often: its rules core (`rules`, with
    the move tables) and the pieces' position text (`texts`), each made at its first use (a bot
    process imports the engine and uses one variant). Copies and pickles are the shared instance.
    """

    id: str
    board: Board
    predator_name: str  # "fox" or "hare"
    prey_name: str  # "geese" or "hounds"
    prey_singular: str  # "goose" or "hound"
    predator_start: int
    prey_start: int  # bitmask
    first_to_move: Side
    prey_directions: tuple[tuple[int, int], ...]
    captures: bool
    endings: frozenset[Termination]
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def option_dict(self) -> dict[str, Any]:
        return dict(self.options)

    def side_name(self, side: Side) -> str:
        return self.predator_name if side == Side.PREDATOR else self.prey_name

    def side_by_name(self, name: str) -> Side:
        if name == self.predator_name:
            return Side.PREDATOR
        if name == self.prey_name:
            return Side.PREY
        raise ValueError(f"{shown(name)} is not a side of {self.id}; use {self.predator_name} or {self.prey_name}")

    def winner_for(self, side: Side) -> Winner:
        return Winner(self.side_name(side))

    def outcome(self, termination: Termination) -> Outcome:
        """What a rule ending means in this variant: its winner by name (or a draw) and the ending."""
        side = termination.winner
        return Outcome(Winner.DRAW if side is None else self.winner_for(side), termination)

    def options_text(self) -> str:
        """`geese=13,sideways=0` for standard, `-` for variants without options."""
        return ",".join(f"{key}={int(value)}" for key, value in self.options) or "-"

    def start_position(self) -> Position:
        from foxgeese.engine.position import Position

        return Position(self, self.predator_start, self.prey_start, self.first_to_move, 0, 0, 0)

    @cached_property
    def rules(self) -> Rules:
        """The rules core on plain integers (`foxgeese.engine.rules`), with its move tables."""
        from foxgeese.engine.rules import Rules

        return Rules(self)

    @cached_property
    def texts(self) -> PieceTexts:
        """Position text up to the counters, by pieces (`foxgeese.engine.position.pieces_text`)."""
        from foxgeese.engine.position import PieceTexts

        return PieceTexts(self)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and copied) as its id and options: the shared instance, without what it made."""
        return _shared, (self.id, self.options)

    def __str__(self) -> str:
        return self.id if not self.options else f"{self.id} ({self.options_text()})"


def _mask(names: tuple[str, ...]) -> int:
    total = 0
    for name in names:
        total |= 1 << point_index("abcdefghi".index(name[0]), int(name[1:]) - 1)
    return total


def _row(row: int, first: str, last: str) -> tuple[str, ...]:
    return tuple(f"{chr(c)}{row}" for c in range(ord(first), ord(last) + 1))


@dataclass(frozen=True, eq=False)  # rows are compared by identity (they hold a dict)
class VariantSpec:
    """One row of the variant table: everything a variant is, before its options are chosen.

    `prey_starts` maps each allowed prey count to the start points (one entry: no `geese`
    option). `sideways` is True/False when fixed, None when it is an option (default off).
    `draw_endings` (fifty moves, repetition) apply only when the prey may step sideways: without
    sideways steps every prey move is forward, and the game ends by itself.
    """

    id: str
    board: Callable[[], Board]
    predator_name: str
    prey_name: str
    prey_singular: str
    predator_start: str
    prey_starts: dict[int, tuple[str, ...]]
    first_to_move: Side
    sideways: bool | None
    captures: bool
    endings: frozenset[Termination]
    draw_endings: frozenset[Termination] = frozenset()

    @property
    def option_names(self) -> tuple[str, ...]:
        names = ("geese",) if len(self.prey_starts) > 1 else ()
        return names + (("sideways",) if self.sideways is None else ())


_STANDARD_13 = _row(3, "a", "g") + _row(1, "c", "e") + _row(2, "c", "e")
_DRAWS = frozenset({Termination.FIFTY_MOVES, Termination.REPETITION})
_BLOCKED = frozenset({Termination.TRAPPED, Termination.IMMOBILIZED})

# The variants of docs/rules.md, as data; `get_variant` reads this table and nothing else.
VARIANT_TABLE: tuple[VariantSpec, ...] = (
    VariantSpec(
        id="standard", board=boards.standard_board, predator_name="fox", prey_name="geese", prey_singular="goose",
        predator_start="d4",
        prey_starts={13: _STANDARD_13, 15: _STANDARD_13 + ("a4", "g4"), 17: _STANDARD_13 + ("a4", "b4", "f4", "g4")},
        first_to_move=Side.PREDATOR, sideways=None, captures=True,
        endings=_BLOCKED | {Termination.CAPTURED}, draw_endings=_DRAWS,
    ),
    VariantSpec(
        id="hare-and-hounds", board=boards.hare_and_hounds_board, predator_name="hare", prey_name="hounds",
        prey_singular="hound", predator_start="b5", prey_starts={3: ("b1", "a2", "c2")},
        first_to_move=Side.PREY, sideways=True, captures=False,
        endings=_BLOCKED | {Termination.ESCAPED, Termination.STALLING},
    ),
    VariantSpec(
        id="great-cross", board=boards.great_cross_board, predator_name="fox", prey_name="geese", prey_singular="goose",
        predator_start="e7",
        prey_starts={18: _row(1, "d", "f") + _row(2, "d", "f") + _row(3, "d", "f") + _row(4, "a", "i")},
        first_to_move=Side.PREDATOR, sideways=True, captures=True,
        endings=_BLOCKED | {Termination.CAPTURED}, draw_endings=_DRAWS,
    ),
)
REGISTRY: Mapping[str, VariantSpec] = MappingProxyType({spec.id: spec for spec in VARIANT_TABLE})
VARIANT_IDS = tuple(REGISTRY)


def _build(spec: VariantSpec, board: Board, prey_count: int, sideways: bool) -> Variant:
    """The Variant of a table row and its options."""
    options: tuple[tuple[str, Any], ...] = ()
    if "geese" in spec.option_names:
        options += (("geese", prey_count),)
    if "sideways" in spec.option_names:
        options += (("sideways", sideways),)
    return Variant(
        id=spec.id,
        board=board,
        predator_name=spec.predator_name,
        prey_name=spec.prey_name,
        prey_singular=spec.prey_singular,
        predator_start=_mask((spec.predator_start,)).bit_length() - 1,
        prey_start=_mask(spec.prey_starts[prey_count]),
        first_to_move=spec.first_to_move,
        prey_directions=FORWARD + (SIDEWAYS if sideways else ()),
        captures=spec.captures,
        endings=spec.endings | (spec.draw_endings if sideways else frozenset()),
        options=options,
    )


def _every_variant() -> Mapping[tuple[str, int, bool], Variant]:
    """Every variant of the table, made once (about a millisecond): (id, prey count, sideways) -> Variant."""
    built = {}
    for spec in VARIANT_TABLE:
        board = spec.board()
        for prey_count in spec.prey_starts:
            for sideways in (False, True) if spec.sideways is None else (spec.sideways,):
                built[spec.id, prey_count, sideways] = _build(spec, board, prey_count, sideways)
    return MappingProxyType(built)


# The one shared instance of each variant and options (identity is equality): a fixed table.
_VARIANTS = _every_variant()


def get_variant(variant_id: str, **options: Any) -> Variant:
    """Looks a variant up by id; options (`standard` has geese and sideways) default sensibly.

    Options given as None are ignored, so CLI flags can be passed straight through. Unknown ids and
    options raise UnknownVariantError naming the valid ones.
    """
    options = {key: value for key, value in options.items() if value is not None}
    key = variant_id.strip().lower()
    spec = REGISTRY.get(key)
    if spec is None:
        raise UnknownVariantError(f"unknown variant {shown(variant_id)}{did_you_mean(variant_id, VARIANT_IDS)}; "
                                  f"valid variants: {', '.join(VARIANT_IDS)}")
    unknown = sorted(set(options) - set(spec.option_names), key=str)
    if unknown and not spec.option_names:
        got = shown(", ".join(sorted(map(str, options))))
        raise UnknownVariantError(f"{key} has no options (got {got}); only standard has")
    if unknown:
        raise UnknownVariantError(
            f"unknown option {shown(unknown[0])} for {key}; valid options: {', '.join(spec.option_names)}"
        )
    counts = sorted(spec.prey_starts)
    prey_count = _coerce_int(options.get("geese", counts[0]), "geese")
    if prey_count not in spec.prey_starts:
        allowed = f"{', '.join(map(str, counts[:-1]))} or {counts[-1]}"
        raise UnknownVariantError(f"{key} has {allowed} geese, not {prey_count}")
    sideways = spec.sideways if spec.sideways is not None else _coerce_bool(options.get("sideways", False), "sideways")
    return _VARIANTS[key, prey_count, sideways]


def _shared(variant_id: str, options: tuple[tuple[str, Any], ...]) -> Variant:
    return get_variant(variant_id, **dict(options))


def parse_options(text: str) -> dict[str, Any]:
    """Reads the OPTIONS token of position text (`geese=13,sideways=0` or `-`)."""
    if text == "-":
        return {}
    options: dict[str, Any] = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise UnknownVariantError(f"bad option {shown(item)}: expected key=value, like geese=13")
        options[key] = value
    return options


def _coerce_int(value: Any, name: str) -> int:
    try:
        return parse_int(value, f"option {name}")
    except NumberError as error:
        raise UnknownVariantError(str(error)) from None


def _coerce_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise UnknownVariantError(f"option {name} must be 0 or 1, not {shown(value)}")
