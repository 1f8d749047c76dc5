"""One game as a pure state machine (sans-I/O, like h11's Connection): events in, actions out.

A Match never touches a socket, a process or the clock. The Referee (referee.py) feeds it events,
each with the time it happened: a seat filled or lost, a checked message with its arrival time, a
pong's round trip, and `advance(now)`, which checks deadlines and starts the next turn. It answers
with actions: messages to send, `StartClock` (send the turn, then say when with `clock_started`),
`Restart` (a reused bot that did not answer: replace it), `MovePlayed` (for callbacks) and, once,
`Finished`. Nothing between a reply's arrival and the next `clock_started` is on any clock, so
the referee's own work (checks, records, callbacks, printing, journals) is never charged to a bot.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

import msgspec

from foxgeese import __version__
from foxgeese.engine import Game, IllegalMoveError, InvalidMoveError, Move, Outcome, Position, Side, Variant
from foxgeese.engine.outcome import RULE_MEANINGS
from foxgeese.protocol import codec, messages
from foxgeese.protocol.adjudication import Adjudicator, Ending, MaxPliesTracker, TableAdjudicationTracker
from foxgeese.protocol.codec import ProtocolError
from foxgeese.protocol.offer import TurnOffer
from foxgeese.protocol.record import DRAW, GameRecord, MoveRecord, RefereeTermination, SeatRecord, utc_now
from foxgeese.protocol.timecontrol import ChessClock, TimeControl
from foxgeese.protocol.turncache import TurnCache

REFEREE_NAME = f"foxgeese-referee {__version__}"

RULE_REASONS = RULE_MEANINGS  # the engine's words for each rule ending (engine/outcome.py)

PREDATOR, PREY = Side.PREDATOR, Side.PREY  # plain names: an enum member read off its class is slow
_SIDES = (PREDATOR, PREY)
_PROTOCOL_ERROR = RefereeTermination.PROTOCOL_ERROR.value
_Move, _TURN, _INFINITY = messages.Move, codec.TURN, math.inf  # and a module's attribute costs a lookup too
_UNSET = messages.UNSET



# ----------------------------------------------------------------------------- actions


class Send(msgspec.Struct, frozen=True):
    """Send `message_type` with `given` fields to the bot in `side`'s seat.

    A turn, a `new_game` and a `game_over` come already packed (`payload`): their `fields` are
    unpacked only when asked for (by a trace or a test), since building them would cost the referee
    a dict per message (and a turn's, the critical path). Two Sends are equal when they send the
    same message to the same side, packed or not; their fields are a dict, so a Send has no hash.
    A msgspec Struct: made in C, so a turn's costs the match no Python-level call.
    """

    side: Side
    message_type: str
    given: dict[str, Any] | None = None
    payload: bytes | None = None

    @property
    def fields(self) -> dict[str, Any]:
        if self.given is not None:
            return self.given
        return codec.fields_of(self.payload) if self.payload is not None else {}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Send):
            return NotImplemented
        return (self.side, self.message_type, self.fields) == (other.side, other.message_type, other.fields)

    __hash__ = None  # type: ignore[assignment]  # equal by `fields`, a dict

    def __repr__(self) -> str:
        return f"Send({self.side!r}, {self.message_type!r}, {self.fields!r})"


@dataclass(slots=True)
class StartClock:
    """The `turn` just sent starts `side`'s clock: call `clock_started(side, now)` right after sending."""

    side: Side


_START_CLOCK = {side: StartClock(side) for side in (PREDATOR, PREY)}  # the same action every turn


@dataclass(slots=True)
class Restart:
    """A reused bot did not answer `new_game`: end it, start a new one, and `seat` it again."""

    side: Side


@dataclass(slots=True)
class MoveEvent:
    """One move, as a live event stream shows it (the `on_move` callback's argument)."""

    game_id: str
    ply: int  # 1-based, opening moves included
    side: str
    move: str
    think_ms: int
    transport_ms: int
    clocks: dict[str, int]  # both sides' remaining ms after the move (increment included)
    position: str  # the position text after the move
    entry: MoveRecord
    record: GameRecord


@dataclass(slots=True)
class MovePlayed:
    event: MoveEvent


@dataclass(slots=True)
class Finished:
    """The game is over; `record` is complete and every `game_over` is among the actions before."""

    record: GameRecord
    offenders: tuple[Side, ...] = ()  # sides whose bot lost by a fault of its own


Action = Send | StartClock | Restart | MovePlayed | Finished


class Phase(enum.Enum):
    """A game's phases, in order; a Match moves between them only as `_NEXT_PHASES` allows."""

    SEATING = "seating"  # waiting for both bots' hellos (and, after a restart, the new bot's)
    READY = "ready"  # new_game is out, waiting for both `ready`s
    PLAY = "play"  # turns
    OVER = "over"  # the record is complete


_NEXT_PHASES = {
    Phase.SEATING: (Phase.READY, Phase.OVER),
    Phase.READY: (Phase.PLAY, Phase.SEATING, Phase.OVER),  # SEATING again: a reused bot is restarted
    Phase.PLAY: (Phase.OVER,),
    Phase.OVER: (),
}
SEATING, READY, PLAY, OVER = Phase.SEATING, Phase.READY, Phase.PLAY, Phase.OVER  # plain names: faster


class SeatState(enum.Enum):
    """Where one seat stands; it moves only as `_NEXT_SEAT_STATES` allows."""

    AWAITED = "awaited"  # its bot has not said hello yet
    FAILED = "failed"  # it cannot be filled (`_Seat.failed` says why)
    CONNECTED = "connected"  # its bot's hello was accepted
    TOLD = "told"  # `new_game` went out to it
    READY = "ready"  # it answered `ready`


_NEXT_SEAT_STATES = {
    SeatState.AWAITED: (SeatState.CONNECTED, SeatState.FAILED),
    SeatState.FAILED: (),
    SeatState.CONNECTED: (SeatState.TOLD,),
    SeatState.TOLD: (SeatState.READY, SeatState.AWAITED),  # AWAITED: restarted, a new bot comes
    SeatState.READY: (),
}
_IN = (SeatState.CONNECTED, SeatState.TOLD, SeatState.READY)


@dataclass(slots=True)
class _Seat:
    info: SeatRecord
    state: SeatState = SeatState.AWAITED
    hello: messages.Hello | None = None
    hello_deadline: float = math.inf
    waiting_text: str = ""
    failed: str = ""  # why the seat cannot be filled (state FAILED)
    reused: bool = False  # its bot played an earlier game of this referee
    rtt_ms: float | None = None

    def to(self, state: SeatState) -> None:
        assert state in _NEXT_SEAT_STATES[self.state], f"seat {self.info.name}: {self.state} -> {state}"
        self.state = state

    def fail(self, why: str) -> None:
        self.to(SeatState.FAILED)
        self.failed = why

    @property
    def connected(self) -> bool:
        return self.state in _IN

    @property
    def told(self) -> bool:
        return self.state is SeatState.TOLD or self.state is SeatState.READY


class Match:
    """One game: seating, the turn loop and the record, driven by events (see the module doc)."""

    def __init__(
        self,
        variant: Variant,
        game: Game,
        control: TimeControl,
        game_id: str,
        *,
        seed: int,
        max_plies: int | None = None,
        lag_margin_ms: int = 50,
        ready_timeout_s: float = 5.0,
        adjudicator: Adjudicator | None = None,
        cache: TurnCache | None = None,
        clocks: dict[Side, int] | None = None,
    ) -> None:
        """`cache` holds what recurs from game to game (see turncache.py): a referee passes its own.
        `clocks` (ms left by side) start the game with those clocks instead of the time control's base."""
        self.variant, self.control, self.game_id = variant, control, game_id
        self.seed, self.ready_timeout_s = seed, ready_timeout_s
        # The adjudication rules beside the engine's endings (see adjudication.py), None where not asked for.
        self.ply_limit = MaxPliesTracker(max_plies) if max_plies is not None else None
        self.tables = TableAdjudicationTracker(adjudicator) if adjudicator is not None else None
        self.cache = cache = cache if cache is not None else TurnCache()
        setup = cache.setup(variant, control)
        self._setup = setup
        self.names = setup.names
        self.clock = ChessClock(control, list(setup.seat_names), lag_margin_ms)
        start_clocks = {setup.names[side]: int(ms) for side, ms in (clocks or {}).items()}
        self.clock.left_ms.update(start_clocks)
        self.lag_margin_ms = lag_margin_ms
        self.seats: dict[Side, _Seat] = {}
        self.phase = SEATING
        self.attempt = 1
        self.ready_deadline = math.inf
        self.request_id = 0
        self.mover: Side | None = None  # whose turn is out (None between moves)
        self.turn_sent_at = 0.0
        self.turn_deadline = math.inf
        self.idle_since: float | None = None  # when the referee's own work since the last reply began
        self.referee_ms = 0.0  # that work before the turn now out: off every clock, kept in the record
        self.offered: list[Move] = []  # the moves the turn now out offers
        self.events = True  # build a MoveEvent per move (the referee turns it off when nobody listens)
        # The game in play (engine/gamestate.py), from `game` with its opening: the position now and
        # how often each occurred, all a move needs; the record entries are written after the next
        # turn is out.
        self.game = game.now.copy()
        self._offer = TurnOffer(cache, self.game)  # what each turn offers (offer.py)
        self._move_of_text = cache.move_of_text
        self._unrecorded: list[tuple[Any, ...]] = []  # played, their record entries not yet written
        self.move_texts: list[str] = list(map(str, game.moves))
        self._seat_names = setup.seat_names
        self._turns = codec.TurnPacker(game_id, self._seat_names, control.increment_ms, control.per_move_ms)
        self.outbox: list[Action] = []
        self.record = GameRecord(
            game_id=game_id, variant=variant.id, options=dict(setup.options), start=setup.start, bots={},
            time_control=setup.time_control, referee=REFEREE_NAME, started=utc_now(), seed=seed,
            start_clocks=start_clocks,
        )
        for text in self.move_texts:  # the opening
            self._turns.add_move(text)
            self.record.moves.append(MoveRecord(text, book=True))

    @property
    def over(self) -> bool:
        return self.phase is OVER

    def _enter(self, phase: Phase) -> None:
        assert phase in _NEXT_PHASES[self.phase], f"match {self.game_id}: {self.phase} -> {phase}"
        self.phase = phase

    def _take(self) -> list[Action]:
        actions, self.outbox = self.outbox, []
        return actions

    # ------------------------------------------------------------------ events: seats

    def seat(self, side: Side, info: SeatRecord, *, connected: bool, hello: messages.Hello | None = None,
             hello_deadline: float = math.inf, waiting_text: str = "", failed: str = "",
             reused: bool = False, rtt_ms: float | None = None) -> None:
        """Puts a bot in `side`'s seat: connected already (`hello` given) or awaited until `hello_deadline`.

        `rtt_ms` is its last ping's round trip, if known (as `rtt` would tell it)."""
        seat = self.seats[side] = _Seat(info, hello=hello, hello_deadline=hello_deadline,
                                        waiting_text=waiting_text, reused=reused)
        if failed:
            seat.fail(failed)
        elif connected:
            seat.to(SeatState.CONNECTED)
            self._note_hello(seat)
        if rtt_ms is not None:
            self.rtt(side, rtt_ms)

    def connected(self, side: Side, hello: messages.Hello, now: float) -> list[Action]:
        """The awaited bot of `side` said a valid hello."""
        seat = self.seats[side]
        seat.to(SeatState.CONNECTED)
        seat.hello = hello
        self._note_hello(seat)
        return self.advance(now)

    def waiting(self, side: Side, text: str) -> None:
        """What to say should `side`'s awaited bot not come in time (e.g. after a refused hello)."""
        self.seats[side].waiting_text = text

    @staticmethod
    def _note_hello(seat: _Seat) -> None:
        """The record keeps who the bot says it is."""
        info, hello = seat.info, seat.hello
        if hello is not None:
            info.version, info.author, info.bot_name = hello.version, hello.author, hello.name

    def rtt(self, side: Side, rtt_ms: float) -> None:
        """A pong came back: the round trip is the transport part of replies without `think_ms`."""
        seat = self.seats[side]
        seat.rtt_ms, seat.info.rtt_ms = rtt_ms, round(rtt_ms, 3)

    def lost(self, side: Side, why: str, now: float) -> list[Action]:
        """The bot of `side` is gone (its process ended, its connection closed, it was refused)."""
        seat = self.seats.get(side)
        if seat is None or self.over:
            return []
        if self.phase is SEATING and seat.state is SeatState.AWAITED:
            seat.fail(why)
        elif self.phase is READY and seat.state is not SeatState.READY:
            if self.attempt == 1 and seat.reused:
                self._restart([side])
            else:
                self._end(self._no_show({side: why}))
        elif self.phase is READY or self.phase is PLAY:
            self._end(Ending(self.names[side.other], RefereeTermination.CRASH.value,
                             f"{self.names[side]} ({seat.info.name}) {why}", side))
        return self.advance(now)

    # -------------------------------------------------------------- events: messages

    def refused(self, side: Side, why: str, now: float) -> list[Action]:
        """A hello from the process tree of `side`'s bot was refused: before its own hello the seat
        cannot be filled (`no-show`), after it the bot broke the protocol."""
        seat = self.seats.get(side)
        if seat is None or self.over:
            return []
        if seat.state is SeatState.AWAITED:
            seat.fail(why)
            return self.advance(now)
        return self.fault(side, why, now)

    def fault(self, side: Side, reason: str, now: float) -> list[Action]:
        """A frame from `side`'s bot broke the protocol (the codec said why).

        Judged the same in every phase of the game, seating included: a bot is in its game from the
        moment it is seated, so what it says out of place is a protocol error whether or not the
        other seat is filled yet (the referee ignores only what arrived between games)."""
        seat = self.seats.get(side)
        if self.phase is READY or self.phase is PLAY or (seat is not None and seat.connected and self.phase is SEATING):
            self._end(Ending(self.names[side.other], RefereeTermination.PROTOCOL_ERROR.value,
                             f"{self.names[side]}: {reason}", side))
        return self.advance(now)

    def receive(self, side: Side, message: messages.BotMessage, arrival: float) -> list[Action]:
        """A message from `side`'s bot, decoded and validated (`codec.decode_bot`), with its arrival time."""
        if isinstance(message, _Move) and self.phase is PLAY and message.game_id == self.game_id:
            try:  # the hot path: a reply to the turn that is out, then the next turn
                self._on_move(side, message, arrival)
            except ProtocolError as error:
                return self.fault(side, str(error), arrival)
            if self.phase is PLAY:
                self._advance_play(arrival)
            return self._take()
        if self.over:
            return []
        try:
            if isinstance(message, messages.Hello):
                raise ProtocolError("a second 'hello' on a connection that was welcomed")
            if isinstance(message, messages.Pong) or self.phase is SEATING:
                when = "now" if self.phase is not SEATING else "before new_game"
                raise ProtocolError(f"unexpected '{message.kind()}' message {when}")
            if message.game_id != self.game_id:
                named = codec.cut(message.game_id, codec.MAX_ECHO_CHARS)
                raise ProtocolError(f"'{message.kind()}' names game {named!r}, the game is {self.game_id!r}")
            if isinstance(message, messages.Resign):
                self._end(Ending(self.names[side.other], RefereeTermination.RESIGNATION.value,
                                 f"{self.names[side]} resigned"))
            elif isinstance(message, messages.Ready):
                self._on_ready(side, arrival)
            else:
                self._on_move(side, message, arrival)
        except ProtocolError as error:
            return self.fault(side, str(error), arrival)
        return self.advance(arrival)

    def _on_ready(self, side: Side, now: float) -> None:
        seat = self.seats[side]
        if self.phase is not READY or seat.state is not SeatState.TOLD:
            raise ProtocolError("'ready' was not asked for")
        seat.to(SeatState.READY)

    def _on_move(self, side: Side, message: messages.Move, arrival: float) -> None:
        """The critical path, part one: charge the clock, find the move, play it on the state.

        Only what the next turn needs happens here; the record entry follows once that turn is out
        (`clock_started`), unless a callback needs it first.
        """
        if self.mover is not side or self.phase is not PLAY:
            raise ProtocolError("'move' when it is not this bot's turn")
        if message.request_id != self.request_id:
            raise ProtocolError(f"'move' answers request {message.request_id}, the request is {self.request_id}")
        name = self.names[side]
        elapsed_ms = (arrival - self.turn_sent_at) * 1000
        if elapsed_ms < 0:
            elapsed_ms = 0.0
        clock = self.clock
        self.mover = None
        self.idle_since = arrival
        if not clock.charge(name, elapsed_ms):
            self._time_forfeit(side, clock.overrun_budget_ms)
            return
        text = message.move
        move = self._move_of_text.get(text)
        if move is None or move not in self.offered:
            # Not canonical text of a legal move: the engine reads it, or says why not.
            parsed = self._parse_move(side, text)
            if parsed is None:
                return
            move, text = parsed, str(parsed)
        self.game.play(move)
        self.move_texts.append(text)
        self._turns.add_move(text)
        unrecorded = (text, name, elapsed_ms, message, clock.left_ms[name], self.seats[side].rtt_ms, self.referee_ms)
        self._unrecorded.append(unrecorded)
        if self.events:  # a callback wants the entry now, before the next turn
            self._catch_up()
            entry = self.record.moves[-1]
            self.outbox.append(MovePlayed(MoveEvent(
                self.game_id, len(self.move_texts), name, text, entry.think_ms, entry.transport_ms,
                dict(clock.left_ms), self.game.text(), entry, self.record)))

    def _parse_move(self, side: Side, text: str) -> Move | None:
        """A move in other than canonical text (`" B5-A4 "`), or None when the game ended on it as illegal."""
        try:
            return self.position().parse_move(text)  # the game is not over: a turn is out
        except (InvalidMoveError, IllegalMoveError) as error:
            why = getattr(error, "reason", None) or str(error)
        except ValueError:  # text the engine could not even read (e.g. a row of 5000 digits)
            why = "not a move"
        name = self.names[side]
        self._end(Ending(self.names[side.other], RefereeTermination.ILLEGAL_MOVE.value,
                         f"{name} played {codec.cut(text, codec.MAX_ECHO_CHARS)!r}: "
                         f"{codec.cut(why, codec.MAX_ECHO_CHARS * 2)}", side))
        return None

    def _catch_up(self) -> None:
        """Writes the record entries of the moves played (off every clock: see `clock_started`)."""
        if self._unrecorded:
            for unrecorded in self._unrecorded:
                self._record(unrecorded)
            self._unrecorded.clear()

    def _record(self, unrecorded: tuple[Any, ...]) -> MoveRecord:
        """Appends one move's entry: the measured time split into the bot's thinking and transport.

        The bot's own `think_ms` decides when it sent one; otherwise its last ping round trip is
        taken as the transport part.
        """
        move_name, name, elapsed_ms, message, left_ms, rtt_ms, referee_ms = unrecorded
        elapsed = math.ceil(elapsed_ms)
        think = message.think_ms
        if think is _UNSET or think > elapsed:
            think = elapsed - min(elapsed, max(0, round(rtt_ms or 0)))
        info = message.info
        entry = MoveRecord(move_name, name, think, elapsed - think, left_ms,
                           messages.to_fields(info) if info is not _UNSET else {}, referee_ms=referee_ms)
        self.record.moves.append(entry)
        return entry

    def position(self) -> Position:
        """The position now (the game's opening and every move played)."""
        return self.game.position()

    # ----------------------------------------------------------------- events: time

    def clock_started(self, side: Side, now: float) -> None:
        """The turn for `side` has just been sent: its clock runs from `now`."""
        self.turn_sent_at = now
        self.turn_deadline = now + self.clock.budget_ms(self.names[side]) / 1000
        # In ms to the microsecond (round() to whole microseconds: round(x, 3) costs ten times more).
        self.referee_ms = round((now - self.idle_since) * 1e6) / 1000 if self.idle_since is not None else 0.0
        self._catch_up()  # bookkeeping while the bot thinks: it is on no clock either way
        if side == PREDATOR:  # the prey's next moves, worked out while the predator thinks
            self._offer.predator_thinks(self.game)

    def next_deadline(self) -> float:
        """When `advance` must be called next at the latest (math.inf: only an event can move the game)."""
        if self.phase is SEATING:
            return min((s.hello_deadline for s in self.seats.values() if s.state is SeatState.AWAITED),
                       default=math.inf)
        if self.phase is READY:
            return self.ready_deadline
        if self.phase is PLAY and self.mover is not None:
            return self.turn_deadline
        return math.inf

    def advance(self, now: float) -> list[Action]:
        """Checks the deadlines at `now` and moves the game on: seating, the next turn, the end."""
        phase = self.phase
        if phase is SEATING:
            self._advance_seating(now)
            phase = self.phase
        if phase is READY:
            self._advance_ready(now)
            phase = self.phase
        if phase is PLAY:
            self._advance_play(now)
        return self._take()

    def _advance_seating(self, now: float) -> None:
        """Ends the game when a seat cannot be filled; tells both bots the game once both are in."""
        seats = self.seats
        failed, wrong = {}, {}
        all_in = len(seats) == 2
        for side, seat in seats.items():
            if seat.connected:
                variants = seat.hello.variants if seat.hello is not None else None
                if variants and self.variant.id not in variants:
                    wrong[side] = f"plays only {', '.join(variants)}, not {self.variant.id}"
            else:
                all_in = False
                if seat.state is SeatState.AWAITED and now >= seat.hello_deadline:
                    seat.fail(seat.waiting_text or "no hello in time")
            if seat.state is SeatState.FAILED:
                failed[side] = seat.failed
        if failed:
            self._end(self._no_show(failed))
            return
        if not all_in:
            return
        if wrong:
            self._end(self._no_show(wrong))
            return
        self._enter(READY)
        self.ready_deadline = now + self.ready_timeout_s
        for side, seat in seats.items():
            if not seat.told:
                self._tell_new_game(side)

    def _tell_new_game(self, side: Side) -> None:
        """Queues `new_game` for `side`."""
        self.seats[side].to(SeatState.TOLD)
        setup = self._setup
        payload = messages.encode(messages.NewGame(
            game_id=self.game_id, variant=self.variant.id, options=setup.options, side=setup.names[side],
            time_control=setup.time_control_fields, start=setup.start, seed=self.seed))
        self.outbox.append(Send(side, codec.NEW_GAME, None, payload))

    def _advance_ready(self, now: float) -> None:
        seats = self.seats  # both seated: the game came from hello to ready with both
        if seats[PREDATOR].state is SeatState.READY and seats[PREY].state is SeatState.READY:
            self._enter(PLAY)
            self.idle_since = now
            return
        if now < self.ready_deadline:
            return
        late = [side for side, seat in seats.items() if seat.state is not SeatState.READY]
        if self.attempt == 1 and all(self.seats[side].reused for side in late):
            self._restart(late)  # hung or dead since its last game: start it afresh
            return
        self._end(self._no_show({side: f"no 'ready' within {self.ready_timeout_s:g}s" for side in late}))

    def _restart(self, sides: list[Side]) -> None:
        self.attempt = 2
        self._enter(SEATING)
        for side in sides:
            seat = self.seats[side]
            # The new bot's own seat (and hello deadline) comes with the Restart: the old deadline,
            # from a launch games ago, must not judge it in the meantime.
            seat.to(SeatState.AWAITED)
            seat.hello_deadline = math.inf
            self.outbox.append(Restart(side))  # the referee seats the new bot before the next event

    def _advance_play(self, now: float) -> None:
        """The critical path, part two: the ending (the engine's, then the adjudication rules') or the next turn."""
        if self.mover is not None:
            if now >= self.turn_deadline:
                side = self.mover
                self.mover = None
                budget_ms = self.clock.budget_ms(self.names[side])
                self.clock.charge(self.names[side], budget_ms + 1)  # the clock reads 0
                self._time_forfeit(side, budget_ms)
            return
        game = self.game
        moves, legal = self._offer.choices(game)
        # The engine alone says whether the game ended (pieces, counters, repetition, no move: the
        # turn's moves answer that one): an ending added to it ends refereed games too.
        outcome = game.outcome(moves)
        if outcome is not None:
            self._end(Ending(outcome.winner.value, outcome.termination.value, self._rule_reason(outcome)))
            return
        # Then the adjudication rules: the table adjudicator's verdict on a position reached by play
        # (after a move or the opening), then the ply limit.
        tables = self.tables
        if tables is not None and self.move_texts:
            tables.update(game.position())
            if tables.adjudicatable():
                self._end(tables.ending())
                return
        ply_limit = self.ply_limit
        if ply_limit is not None and ply_limit.adjudicatable(len(self.move_texts)):
            self._end(ply_limit.ending())
            return
        self.offered = moves
        side = game.turn
        self.request_id += 1
        self.mover = side
        self.turn_deadline = _INFINITY  # set by clock_started
        payload = self._turns.pack(self.request_id, game.text(), legal, *self.clock.on_turn())
        self.outbox += (Send(side, _TURN, None, payload), _START_CLOCK[side])

    def _time_forfeit(self, side: Side, budget_ms: int) -> None:
        name = self.names[side]
        self._end(Ending(self.names[side.other], RefereeTermination.TIME_FORFEIT.value,
                         f"{name} took over {budget_ms} ms (clock plus {self.lag_margin_ms} ms lag margin)", side))

    def _rule_reason(self, outcome: Outcome) -> str:
        predator, prey = self.names[Side.PREDATOR], self.names[Side.PREY]
        return RULE_REASONS.get(outcome.termination.value, "").format(predator=predator, prey=prey)

    def _no_show(self, why: dict[Side, str]) -> Ending:
        reason = "; ".join(f"{self.names[side]} ({self.seats[side].info.name}): {text}" for side, text in why.items())
        winner = DRAW if len(why) == 2 else self.names[next(iter(why)).other]
        return Ending(winner, RefereeTermination.NO_SHOW.value, reason, next(iter(why)) if len(why) == 1 else None)

    # ----------------------------------------------------------------- the end

    def _end(self, ending: Ending) -> None:
        """Completes the record and queues `error` (to an offender), `game_over` (to both) and Finished."""
        if self.over:
            return
        self._enter(OVER)
        self.mover = None
        self._catch_up()
        record = self.record
        record.winner, record.termination, record.reason = ending.winner, ending.termination, ending.reason
        record.plies = len(self.move_texts)
        record.final = self.game.text()
        record.ended = utc_now()
        seats, names, outbox = self.seats, self.names, self.outbox
        for side in _SIDES:
            seat = seats.get(side)
            if seat is not None:
                record.bots[names[side]] = seat.info
        if ending.offender is not None and ending.termination == _PROTOCOL_ERROR:
            outbox.append(Send(ending.offender, codec.ERROR, {"reason": ending.reason}))
        game_over = messages.encode(messages.GameOver(  # the same for both bots: packed once
            game_id=self.game_id, winner=record.winner, termination=record.termination, reason=record.reason,
            last_move=record.moves[-1].move if record.moves else "", position=record.final))
        for side, seat in seats.items():
            if not seat.connected:
                continue
            if not seat.told:  # it never got new_game: tell it about the game, so game_over is no riddle
                self._tell_new_game(side)
            outbox.append(Send(side, codec.GAME_OVER, None, game_over))
        offenders = (ending.offender,) if ending.offender is not None else ()
        self.outbox.append(Finished(record, offenders))
