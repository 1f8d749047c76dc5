"""What turns repeat from game to game, owned by one referee (or one Match) and bounded: no module state.

A Referee makes one `TurnCache` and hands it to every Match it plays (`Match(..., cache=...)`), so
the games of a match, a tournament or a benchmark share what recurs, and two referees in two
threads share nothing. Each table is bounded: when one is full it is emptied (its entries are cheap
to make again), and the tables that depend on each other are emptied together by the one method
that owns them (`_forget_moves`).

- Move texts, both ways, filed by the Move value: a move's text packed as a msgpack str (a turn's
  `legal` array is those joined) and canonical text -> Move (a reply in canonical text is found
  without parsing).
- Choices: what a turn offers in a position (the moves and their `legal` array), by rules core and
  position key, for the opening plies only (later positions seldom recur); and the predator's
  moves by its point and the prey within its reach.
- Reach: per rules core, per point, the points the predator reaches from there and the prey's
  steps onto it (`reach`).
- Setups: what every game of a variant under a time control shares (seat names, the start text,
  the time control as `new_game` sends it), and time control texts read before.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from foxgeese.engine import Move, Side, movegen
from foxgeese.engine.rules import Rules
from foxgeese.engine.variants import Variant
from foxgeese.protocol import codec, messages
from foxgeese.protocol.memo import BoundedMemo
from foxgeese.protocol.timecontrol import TimeControl

Choices = tuple[list[Move], bytes]  # a turn's moves and their packed `legal` array

MOVE_TEXTS_LIMIT = 100_000
CHOICES_LIMIT = 1 << 14  # per rules core, about 1 KB an entry
SETUPS_LIMIT = 256


class Reach(NamedTuple):
    """Per point of a variant's grid, what decides a turn's moves there (see `TurnCache.reach`)."""

    predator: tuple[int, ...]  # the predator's neighbours and the landing points of its jumps, as a mask
    prey_onto: tuple[dict[int, Move], ...]  # the prey's steps onto the point, by their origin point


class Setup(NamedTuple):
    """What every game of a variant under a time control shares, made once per cache."""

    names: dict[Side, str]  # read only
    seat_names: tuple[str, str]  # predator's, prey's
    start: str  # the start position's text
    options: dict[str, Any]  # copied into each record
    time_control: str  # its text
    time_control_fields: messages.TimeControlFields  # as `new_game` sends it


def prey_moves_ignoring_predator(tables: movegen.MoveTables, prey: int) -> list[Move]:
    """The prey's moves as if the predator stood nowhere, in the order of `Rules.moves`. With the
    predator on point p they are these less the steps onto p, so the referee works them out while
    the predator thinks (a predator step leaves the prey as they were)."""
    return movegen.prey_steps(tables, prey, tables.board_mask & ~prey)


def legal_array(packed: list[bytes]) -> bytes:
    """Moves' packed texts as one packed msgpack array: a turn's `legal`."""
    return codec.array_head(len(packed)) + b"".join(packed)


class TurnCache:
    """The tables above, for one owner; not shared between threads."""

    def __init__(self, *, move_texts_limit: int = MOVE_TEXTS_LIMIT, choices_limit: int = CHOICES_LIMIT,
                 setups_limit: int = SETUPS_LIMIT) -> None:
        self.move_texts_limit, self.choices_limit, self.setups_limit = move_texts_limit, choices_limit, setups_limit
        self._packed: dict[Move, bytes] = {}  # a move's text, packed
        self.move_of_text: dict[str, Move] = {}  # canonical text -> Move (read by Match on every reply)
        self._rules_filed: set[Rules] = set()  # the rules cores whose steps are all in the tables above
        self._choices: dict[Rules, dict[int, Choices]] = {}
        self._predator_choices: dict[Rules, dict[tuple[int, int], Choices]] = {}
        self._reach: BoundedMemo[Rules, Reach] = BoundedMemo(_make_reach, setups_limit)
        self._setups: BoundedMemo[tuple[Variant, TimeControl], Setup] = BoundedMemo(_make_setup, setups_limit)
        self._time_controls: BoundedMemo[str, TimeControl] = BoundedMemo(TimeControl.parse, setups_limit)

    # ------------------------------------------------------------------ move texts

    def packed_texts(self, moves: list[Move]) -> list[bytes]:
        """Each move's text packed as a msgpack str, remembered both ways."""
        try:
            return list(map(self._packed.__getitem__, moves))
        except KeyError:
            pass
        if len(self._packed) > self.move_texts_limit:
            self._forget_moves()
        packed = []
        for move in moves:
            text = str(move)
            packed.append(codec.pack(text))
            self._packed[move] = packed[-1]
            self.move_of_text[text] = move
        return packed

    def keep_steps(self, rules: Rules) -> None:
        """Files the text of every step of `rules`' move tables, once: a game's steps are then found
        from its first ply on, and a new game pays for none of them."""
        if rules in self._rules_filed:
            return
        tables = rules.tables
        steps = [move for _, _, by_target in tables.prey_steps for move in by_target if move is not None]
        steps += [move for by_target in tables.predator_steps for move in by_target if move is not None]
        self.packed_texts(steps)
        self._rules_filed.add(rules)

    def _forget_moves(self) -> None:
        """Empties the move tables together: every Move filed by text has its packed text filed too,
        and a rules core's steps are filed again when asked for."""
        self._packed.clear()
        self.move_of_text.clear()
        self._rules_filed.clear()

    # ------------------------------------------------------------------ choices

    def choices(self, rules: Rules) -> dict[int, Choices]:
        """The choices of `rules`' positions by key (the caller bounds it with `store`)."""
        return self._choices.setdefault(rules, {})

    def predator_choices(self, rules: Rules) -> dict[tuple[int, int], Choices]:
        """The predator's choices by (its point, the prey within its reach): see `reach`."""
        return self._predator_choices.setdefault(rules, {})

    def reach(self, rules: Rules) -> Reach:
        """Per point: the points the predator reaches from it (where no capture is possible, its moves
        depend on nothing but its point and the prey on these points, so `predator_choices` is filed
        by those), and the prey's steps onto it (which a predator standing there blocks). See
        TurnOffer.here (offer.py)."""
        return self._reach[rules]

    def store(self, table: dict[Any, Choices], key: Any, value: Choices) -> None:
        """Files `value` in one of the choices tables, emptying it first when full."""
        if len(table) >= self.choices_limit:
            table.clear()
        table[key] = value

    # ------------------------------------------------------------------ setups

    def time_control(self, text: str) -> TimeControl:
        """TimeControl.parse(text), remembered: a tournament passes the same text for every game, and
        reading it was 7% of the referee's Python work in a game."""
        return self._time_controls[text]

    def setup(self, variant: Variant, control: TimeControl) -> Setup:
        return self._setups[variant, control]


def _make_reach(rules: Rules) -> Reach:
    tables = rules.tables
    predator = tuple(near | sum(1 << landing for _, landing in jumps)
                     for near, jumps in zip(tables.neighbours, tables.jumps))
    prey_onto = tuple({step.origin: step for _, _, steps in tables.prey_steps if (step := steps[point])}
                      for point in range(len(tables.neighbours)))
    return Reach(predator, prey_onto)


def _make_setup(key: tuple[Variant, TimeControl]) -> Setup:
    variant, control = key
    names = {side: variant.side_name(side) for side in (Side.PREDATOR, Side.PREY)}
    return Setup(names, (names[Side.PREDATOR], names[Side.PREY]), variant.start_position().text(),
                 dict(variant.options), control.text(), messages.TimeControlFields(**control.to_wire()))
