"""Variants are data plus a registry: a board, a start, how the prey may step, which endings apply, and
every other fact about a variant (options, sides, draws, conformance cases, solved tables)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from itertools import product
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


class Role(str, Enum):
    """What an option changes, so that a new option of a known role is one row of data."""

    PREY_COUNT = "prey count"  # the start's prey (the row's `prey_starts` has one start per value)
    SIDEWAYS = "sideways"  # the prey may step sideways (and the draw endings apply)
    BOARD = "board"  # which board (one per value, `OptionSpec.boards`)


class Tables(str, Enum):
    """Which solved tables cover a variant (what `foxgeese solve` builds and the solver reads)."""

    SOLUTION = "solution"  # the whole game solved at once (Hare and Hounds)
    BITS = "bits"  # one bit a position per goose count, no draws (fox variants without draw endings)
    WDL = "wdl"  # win/draw/loss, two bits a position per goose count (fox variants with draw endings)


@dataclass(frozen=True)
class OptionSpec:
    """One option of a variant: its name, what it changes, its values (the default first), its help.

    `written` options appear in every position text; an option added later is written only when it
    is not its default, so that every text, record and table name from before it stays the same.
    """

    name: str
    role: Role
    values: tuple[Any, ...]
    help: str
    boards: tuple[Callable[[], Board], ...] = ()  # Role.BOARD: the board of each value
    written: bool = True

    @property
    def default(self) -> Any:
        return self.values[0]

    @property
    def kind(self) -> str:
        """`count` (an integer), `flag` (0 or 1) or `choice` (a word)."""
        first = self.values[0]
        return "flag" if isinstance(first, bool) else "count" if isinstance(first, int) else "choice"

    def text(self, value: Any) -> str:
        """The value as position text writes it: `13`, `0`/`1`, `alternating`."""
        return str(int(value)) if self.kind != "choice" else str(value)

    def shows(self, value: Any) -> bool:
        """Whether position text (and `Variant.options`) carries this value."""
        return self.written or value != self.default

    def coerce(self, value: Any, variant_id: str) -> Any:
        """A given value (text from a command line or position text, or a typed value) as one of `values`."""
        if self.kind == "flag":
            return _coerce_bool(value, self.name)
        if self.kind == "count":
            count = _coerce_int(value, self.name)
            if count not in self.values:
                raise UnknownVariantError(f"{variant_id} has {_either(self.values)} {self.name}, not {count}")
            return count
        word = str(value).strip().lower()
        if word not in self.values:
            raise UnknownVariantError(f"option {self.name} of {variant_id} is {_either(self.values)}, "
                                      f"not {shown(str(value))}")
        return word

    def schema(self) -> dict[str, Any]:
        """The option as a page or a tool describes it: name, kind, values, default, help."""
        return {"name": self.name, "kind": self.kind, "values": list(self.values), "default": self.default,
                "help": self.help}


def _either(values: tuple[Any, ...]) -> str:
    words = [str(int(v) if isinstance(v, bool) else v) for v in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


@dataclass(frozen=True, eq=False)  # one shared instance per id and options: identity is equality
class Variant:
    """A board, a start, how the prey may step, which endings apply; one instance per id and options.

    A variant owns what is derived from it once and asked for often: its rules core (`rules`, with
    the move tables) and the pieces' position text (`texts`), each made at its first use (a bot
    process imports the engine and uses one variant). Copies and pickles are the shared instance.
    Every other fact about it is here too, or on its table row (`spec`): its options' schema,
    whether it can end drawn, its sides' names and their grammar, its conformance cases and
    which solved tables cover it, so no other package tests a variant's id.
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
    options: tuple[tuple[str, Any], ...] = ()  # as position text writes them (`OptionSpec.written`)
    values: tuple[tuple[str, Any], ...] = ()  # every option's value, defaults included
    spec: VariantSpec | None = field(default=None, repr=False)

    @property
    def option_dict(self) -> dict[str, Any]:
        return dict(self.options)

    def option(self, name: str) -> Any:
        """An option's value (its default when not written); None for an option the variant lacks."""
        return dict(self.values).get(name)

    @property
    def row(self) -> VariantSpec:
        assert self.spec is not None, "a Variant is made from its table row"
        return self.spec

    @property
    def can_draw(self) -> bool:
        """Whether a game can end drawn: some ending of this variant has no winner."""
        return any(ending.winner is None for ending in self.endings)

    @property
    def prey_count(self) -> int:
        return self.prey_start.bit_count()

    @property
    def tables(self) -> Tables | None:
        """Which solved tables cover this variant's rules (None: none)."""
        if self.row.solved_whole:
            return Tables.SOLUTION
        if not self.captures:
            return None
        return Tables.WDL if self.can_draw else Tables.BITS

    @property
    def table_key(self) -> str:
        """The part of a table file's name that says which rules it solves (`standard-sideways0`): the
        id and every option but the goose count (the tables of a start's goose count hold the fewer)."""
        parts = [self.id]
        for option in self.row.options:
            value = self.option(option.name)
            if option.role is Role.PREY_COUNT or not option.shows(value):
                continue
            parts.append(f"{option.name}{int(value)}" if option.kind == "flag" else str(value))
        return "-".join(parts)

    def with_options(self, **options: Any) -> Variant:
        """The same variant with some options changed (`variant.with_options(sideways=True)`)."""
        return get_variant(self.id, **{**dict(self.values), **options})

    def side_name(self, side: Side) -> str:
        return self.predator_name if side == Side.PREDATOR else self.prey_name

    def piece_name(self, side: Side) -> str:
        """One piece of the side: `fox`, `goose`, `hare`, `hound`."""
        return self.predator_name if side == Side.PREDATOR else self.prey_singular

    def plural(self, side: Side) -> bool:
        """Whether the side's name takes a plural verb (`the geese win`, `the fox wins`)."""
        return self.row.prey_plural if side == Side.PREY else self.row.predator_plural

    def side_verb(self, side: Side, singular: str, plural: str) -> str:
        """`fox wins` / `geese win`: the side's name with the verb that agrees with it."""
        return f"{self.side_name(side)} {plural if self.plural(side) else singular}"

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
        by_name = {option.name: option for option in self.row.options}
        return ",".join(f"{key}={by_name[key].text(value)}" for key, value in self.options) or "-"

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


OptionValue = int | bool | str  # a count, a flag or a choice
Options = dict[str, OptionValue]  # options by name, as `get_variant` takes them


@dataclass(frozen=True, eq=False)  # rows are compared by identity (they hold a dict)
class VariantSpec:
    """One row of the variant table: everything a variant is, before its options are chosen.

    `prey_starts` maps each allowed prey count to the start points (the values of a PREY_COUNT
    option). `sideways` is whether the prey may step sideways when no SIDEWAYS option says.
    `draw_endings` (fifty moves, repetition) apply only when the prey may step sideways: without
    sideways steps every prey move is forward, and the game ends by itself. `checks` are the
    options `foxgeese bot check` plays (`capture_check`: the pieces of a position where a capture
    chain is on, checked with the first); `vectors` the options and start perft depths of the
    conformance vectors (every value of every option is covered, at depth 4 where not listed).
    """

    id: str
    board: Callable[[], Board]
    predator_name: str
    prey_name: str
    prey_singular: str
    predator_start: str
    prey_starts: dict[int, tuple[str, ...]]
    first_to_move: Side
    sideways: bool
    captures: bool
    endings: frozenset[Termination]
    draw_endings: frozenset[Termination] = frozenset()
    options: tuple[OptionSpec, ...] = ()
    predator_plural: bool = False
    prey_plural: bool = True
    solved_whole: bool = False  # the whole game is solved at once (small board, no captures)
    checks: tuple[Options, ...] = ({},)
    capture_check: str | None = None
    vectors: tuple[tuple[Options, int], ...] = (({}, 5),)
    tuning: Mapping[str, Any] = field(default_factory=dict)  # what players and the solver measured here

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(option.name for option in self.options)

    def option(self, name: str) -> OptionSpec:
        return next(option for option in self.options if option.name == name)

    def variants(self) -> tuple[Variant, ...]:
        """Every variant of this row, one per combination of option values, in table order."""
        return tuple(v for key, v in _VARIANTS.items() if key[0] == self.id)

    def conformance_cases(self) -> tuple[tuple[Variant, int], ...]:
        """The variants and start perft depths of the conformance vectors: `vectors`, then every
        option value they do not reach (on the defaults otherwise), at depth 4."""
        cases = [(get_variant(self.id, **options), depth) for options, depth in self.vectors]
        for option in self.options:
            for value in option.values:
                if all(variant.option(option.name) != value for variant, _ in cases):
                    cases.append((get_variant(self.id, **{option.name: value}), 4))
        return tuple(cases)


_STANDARD_13 = _row(3, "a", "g") + _row(1, "c", "e") + _row(2, "c", "e")
_DRAWS = frozenset({Termination.FIFTY_MOVES, Termination.REPETITION})
_BLOCKED = frozenset({Termination.TRAPPED, Termination.IMMOBILIZED})

# The win/draw/loss builds measured in docs/solver.md (one thread; on the row's first board, with
# sideways steps): per goose count, build seconds, peak memory GB, table GB (`players.solver.analyse`).
_STANDARD_WDL_BUILDS = MappingProxyType({
    4: (2, 0.17, 0.001), 5: (1, 0.18, 0.003), 6: (2, 0.2, 0.015), 7: (12, 0.27, 0.056), 8: (71, 0.48, 0.17),
    9: (209, 1.0, 0.46), 10: (778, 1.94, 1.06), 11: (611, 4.05, 2.13), 12: (1124, 7.26, 3.73),
    13: (1268, 11.56, 5.73)})
_GREAT_CROSS_WDL_BUILDS = MappingProxyType({
    4: (22, 0.26, 0.003), 5: (6, 0.29, 0.025), 6: (12, 0.43, 0.16), 7: (125, 1.14, 0.86), 8: (778, 4.04, 3.99),
    9: (962, 15.1, 15.95)})

# The variants of docs/rules.md, as data; `get_variant` reads this table and nothing else.
VARIANT_TABLE: tuple[VariantSpec, ...] = (
    VariantSpec(
        id="standard", board=boards.standard_board, predator_name="fox", prey_name="geese", prey_singular="goose",
        predator_start="d4",
        prey_starts={13: _STANDARD_13, 15: _STANDARD_13 + ("a4", "g4"), 17: _STANDARD_13 + ("a4", "b4", "f4", "g4")},
        first_to_move=Side.PREDATOR, sideways=False, captures=True,
        endings=_BLOCKED | {Termination.CAPTURED}, draw_endings=_DRAWS,
        options=(
            OptionSpec("geese", Role.PREY_COUNT, (13, 15, 17), "geese at the start"),
            OptionSpec("sideways", Role.SIDEWAYS, (False, True), "geese may also step sideways"),
            OptionSpec("diagonals", Role.BOARD, ("all", "alternating"),
                       "all: both diagonals in every square; alternating: through every other point (Ludii's board)",
                       boards=(boards.standard_board, boards.alternating_board), written=False),
        ),
        checks=({"geese": 13, "sideways": False}, {"geese": 17, "sideways": True}),
        capture_check="fox d3 c1,d1,e1,a3,d4,e5 0 0 0",
        tuning=MappingProxyType({"wdl builds": _STANDARD_WDL_BUILDS,
                                 "wdl out of reach": "14 geese and more are not built yet (docs/solver.md)"}),
        vectors=(({"geese": 13}, 6), ({"geese": 15}, 5), ({"geese": 17}, 5), ({"sideways": True}, 5),
                 ({"geese": 17, "sideways": True}, 4)),
    ),
    VariantSpec(
        id="hare-and-hounds", board=boards.hare_and_hounds_board, predator_name="hare", prey_name="hounds",
        prey_singular="hound", predator_start="b5", prey_starts={3: ("b1", "a2", "c2")},
        first_to_move=Side.PREY, sideways=True, captures=False,
        endings=_BLOCKED | {Termination.ESCAPED, Termination.STALLING}, solved_whole=True, vectors=(({}, 9),),
    ),
    VariantSpec(
        id="great-cross", board=boards.great_cross_board, predator_name="fox", prey_name="geese", prey_singular="goose",
        predator_start="e7",
        prey_starts={18: _row(1, "d", "f") + _row(2, "d", "f") + _row(3, "d", "f") + _row(4, "a", "i")},
        first_to_move=Side.PREDATOR, sideways=True, captures=True,
        endings=_BLOCKED | {Termination.CAPTURED}, draw_endings=_DRAWS,
        capture_check="fox e3 d1,e1,f1,e4,f5 0 0 0",
        tuning=MappingProxyType({"mcts": MappingProxyType({"rollout": 0, "implicit": 0.8}),
                                 "wdl builds": _GREAT_CROSS_WDL_BUILDS,
                                 "wdl out of reach": "10 geese would need about 50 GB of memory"}),
    ),
)
REGISTRY: Mapping[str, VariantSpec] = MappingProxyType({spec.id: spec for spec in VARIANT_TABLE})
VARIANT_IDS = tuple(REGISTRY)
DEFAULT_VARIANT = VARIANT_IDS[0]  # what a command, a page or an environment plays when not told


def _build(spec: VariantSpec, values: tuple[tuple[str, Any], ...], board: Board) -> Variant:
    """The Variant of a table row and its options' values."""
    by_role = {option.role: value for option, (_, value) in zip(spec.options, values)}
    prey_count = by_role.get(Role.PREY_COUNT, next(iter(spec.prey_starts)))
    sideways = by_role.get(Role.SIDEWAYS, spec.sideways)
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
        options=tuple((name, value) for option, (name, value) in zip(spec.options, values) if option.shows(value)),
        values=values,
        spec=spec,
    )


def _every_variant() -> Mapping[tuple[Any, ...], Variant]:
    """Every variant of the table, made once (milliseconds): (id, *option values) -> Variant."""
    built = {}
    for spec in VARIANT_TABLE:
        for option in spec.options:
            assert option.role is not Role.PREY_COUNT or set(option.values) == set(spec.prey_starts), spec.id
            assert option.role is not Role.BOARD or len(option.boards) == len(option.values), spec.id
        made: dict[Callable[[], Board], Board] = {}
        for combination in product(*(option.values for option in spec.options)):
            values = tuple((option.name, value) for option, value in zip(spec.options, combination))
            board_of = spec.board
            for option, value in zip(spec.options, combination):
                if option.role is Role.BOARD:
                    board_of = option.boards[option.values.index(value)]
            board = made.setdefault(board_of, board_of())
            built[(spec.id, *combination)] = _build(spec, values, board)
    return MappingProxyType(built)


# The one shared instance of each variant and options (identity is equality): a fixed table.
_VARIANTS = _every_variant()


def get_variant(variant_id: str, **options: Any) -> Variant:
    """Looks a variant up by id; options (the row's `options`) default to their first value.

    Options given as None are ignored, so CLI flags can be passed straight through. Unknown ids and
    options raise UnknownVariantError naming the valid ones.
    """
    options = {key: value for key, value in options.items() if value is not None}
    key = variant_id.strip().lower() if isinstance(variant_id, str) else str(variant_id)
    spec = REGISTRY.get(key)
    if spec is None:
        asked = str(variant_id)
        raise UnknownVariantError(f"unknown variant {shown(asked)}{did_you_mean(asked, VARIANT_IDS)}; "
                                  f"valid variants: {', '.join(VARIANT_IDS)}")
    unknown = sorted(set(options) - set(spec.option_names), key=str)
    if unknown and not spec.option_names:
        got = shown(", ".join(sorted(map(str, options))))
        having = ", ".join(row.id for row in VARIANT_TABLE if row.options)
        verb = "has" if "," not in having else "have"
        raise UnknownVariantError(f"{key} has no options (got {got}); only {having} {verb}")
    if unknown:
        raise UnknownVariantError(
            f"unknown option {shown(unknown[0])} for {key}; valid options: {', '.join(spec.option_names)}"
        )
    chosen = tuple(option.coerce(options[option.name], key) if option.name in options else option.default
                   for option in spec.options)
    return _VARIANTS[(key, *chosen)]


def variant_spec(variant_id: str) -> VariantSpec:
    """The table row of a variant id (UnknownVariantError as `get_variant`)."""
    return get_variant(variant_id).row


def every_variant() -> tuple[Variant, ...]:
    """Every variant and every combination of its options, in table order."""
    return tuple(_VARIANTS.values())


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
