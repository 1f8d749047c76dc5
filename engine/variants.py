"""Variants are data plus a registry: a board, a start, how the prey may step, and which endings apply."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from foxgeese.engine import board as boards
from foxgeese.engine.board import Board, point_index
from foxgeese.engine.errors import UnknownVariantError
from foxgeese.engine.outcome import Side, Termination, Winner
from foxgeese.engine.userinput import NumberError, parse_int, shown

if TYPE_CHECKING:
    from foxgeese.engine.position import Position

FORWARD = ((0, 1), (1, 1), (-1, 1))
SIDEWAYS = ((1, 0), (-1, 0))


@dataclass(frozen=True, eq=False)  # one shared instance per id and options: identity is equality
class Variant:
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

    def options_text(self) -> str:
        """`geese=13,sideways=0` for standard, `-` for variants without options."""
        return _options_text(self.options)

    def start_position(self) -> "Position":
        from foxgeese.engine.position import Position

        return Position(self, self.predator_start, self.prey_start, self.first_to_move, 0, 0, 0)

    def __str__(self) -> str:
        return self.id if not self.options else f"{self.id} ({self.options_text()})"


@functools.lru_cache(maxsize=None)
def _options_text(options: tuple[tuple[str, Any], ...]) -> str:
    if not options:
        return "-"
    return ",".join(f"{key}={int(value)}" for key, value in options)


def _mask(*names: str) -> int:
    total = 0
    for name in names:
        total |= 1 << point_index("abcdefghi".index(name[0]), int(name[1:]) - 1)
    return total


def _row(row: int, first: str, last: str) -> tuple[str, ...]:
    return tuple(f"{chr(c)}{row}" for c in range(ord(first), ord(last) + 1))


_STANDARD_GEESE = {
    13: _row(3, "a", "g") + _row(1, "c", "e") + _row(2, "c", "e"),
}
_STANDARD_GEESE[15] = _STANDARD_GEESE[13] + ("a4", "g4")
_STANDARD_GEESE[17] = _STANDARD_GEESE[13] + ("a4", "b4", "f4", "g4")

_STANDARD_OPTIONS = {"geese": (13, 15, 17), "sideways": (False, True)}


@functools.lru_cache(maxsize=None)
def _standard(geese: int, sideways: bool) -> Variant:
    endings = {Termination.CAPTURED, Termination.TRAPPED, Termination.IMMOBILIZED}
    if sideways:
        endings |= {Termination.FIFTY_MOVES, Termination.REPETITION}
    return Variant(
        id="standard",
        board=boards.standard_board(),
        predator_name="fox",
        prey_name="geese",
        prey_singular="goose",
        predator_start=point_index(3, 3),
        prey_start=_mask(*_STANDARD_GEESE[geese]),
        first_to_move=Side.PREDATOR,
        prey_directions=FORWARD + (SIDEWAYS if sideways else ()),
        captures=True,
        endings=frozenset(endings),
        options=(("geese", geese), ("sideways", sideways)),
    )


@functools.lru_cache(maxsize=None)
def _great_cross() -> Variant:
    return Variant(
        id="great-cross",
        board=boards.great_cross_board(),
        predator_name="fox",
        prey_name="geese",
        prey_singular="goose",
        predator_start=point_index(4, 6),
        prey_start=_mask(*(_row(1, "d", "f") + _row(2, "d", "f") + _row(3, "d", "f") + _row(4, "a", "i"))),
        first_to_move=Side.PREDATOR,
        prey_directions=FORWARD + SIDEWAYS,
        captures=True,
        endings=frozenset(
            {
                Termination.CAPTURED,
                Termination.FIFTY_MOVES,
                Termination.REPETITION,
                Termination.TRAPPED,
                Termination.IMMOBILIZED,
            }
        ),
    )


@functools.lru_cache(maxsize=None)
def _hare_and_hounds() -> Variant:
    return Variant(
        id="hare-and-hounds",
        board=boards.hare_and_hounds_board(),
        predator_name="hare",
        prey_name="hounds",
        prey_singular="hound",
        predator_start=point_index(1, 4),
        prey_start=_mask("b1", "a2", "c2"),
        first_to_move=Side.PREY,
        prey_directions=FORWARD + SIDEWAYS,
        captures=False,
        endings=frozenset(
            {Termination.ESCAPED, Termination.STALLING, Termination.TRAPPED, Termination.IMMOBILIZED}
        ),
    )


VARIANT_IDS = ("standard", "hare-and-hounds", "great-cross")


def get_variant(variant_id: str, **options: Any) -> Variant:
    """Looks a variant up by id; options (only `standard` has any: geese, sideways) default sensibly.

    Options given as None are ignored, so CLI flags can be passed straight through.
    """
    options = {key: value for key, value in options.items() if value is not None}
    key = variant_id.strip().lower()
    if key == "standard":
        unknown = set(options) - set(_STANDARD_OPTIONS)
        if unknown:
            raise UnknownVariantError(
                f"unknown option {shown(sorted(unknown, key=str)[0])} for standard; valid options: geese, sideways"
            )
        geese = _coerce_int(options.get("geese", 13), "geese")
        if geese not in _STANDARD_OPTIONS["geese"]:
            raise UnknownVariantError(f"standard has 13, 15 or 17 geese, not {geese}")
        sideways = _coerce_bool(options.get("sideways", False), "sideways")
        return _standard(geese, sideways)
    if key in ("hare-and-hounds", "great-cross"):
        if options:
            got = shown(", ".join(sorted(map(str, options))))
            raise UnknownVariantError(f"{key} has no options (got {got}); only standard has")
        return _hare_and_hounds() if key == "hare-and-hounds" else _great_cross()
    raise UnknownVariantError(f"unknown variant {shown(variant_id)}; valid variants: {', '.join(VARIANT_IDS)}")


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
