"""Games played in the browser, each through a real Referee with real clocks.

A person's seat is a `remote` bot of the referee: a relay (a BotSession of the Python SDK, in a
thread of this server) connects over ZeroMQ like any bot and answers each `turn` with the move
the browser sent. The referee therefore judges a browser exactly as it judges a program: its
clock runs from the `turn` on, a seat that does not move in time loses by `time-forfeit`.

A closed tab leaves the relay connected: the game waits, the clock runs, the seat can be taken
back by opening its link again before the flag falls. A seat's link carries its secret; a second
browser on a seat that is already open is refused.

Threads: the referee's thread and the relays call `WebGame` methods; every change of state goes
through `_changed`, which asks the asyncio loop (`notify`) to push the new state to the browsers.
"""

from __future__ import annotations

import enum
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from foxgeese.engine import Game, Move, Side, get_variant
from foxgeese.engine.svg import board_svg
from foxgeese.protocol.botconfig import CMD_PREFIX, BotConfig
from foxgeese.protocol.referee import Referee
from foxgeese.protocol.sdk import BotSession
from foxgeese.protocol.timecontrol import TimeControl

HUMAN = "human"


class WebGameError(ValueError):
    """A game request that cannot be played (bad variant, player, time control): shown in the page."""


class Commands(enum.Enum):
    """What the server does with a `cmd:` seat a page asks for: a program run as the server's user.

    Whoever can open the pages could run anything, so it is the user's choice when starting the
    server (`foxgeese serve --allow-commands`); a `--public` server runs them in bubblewrap."""

    REFUSED = "refused"
    ALLOWED = "allowed"
    SANDBOXED = "sandboxed"


@dataclass(eq=False)
class Seat:
    side: Side
    name: str
    spec: str  # HUMAN or a player SPEC
    secret: str = ""
    sandbox: bool = False  # a cmd: bot of a --public server: run in bubblewrap
    connections: int = 0  # browsers on this seat now (at most one is let in)
    claimed: bool = False  # a browser took it at least once
    relay: BrowserRelay | None = None

    @property
    def is_human(self) -> bool:
        return self.spec == HUMAN


class BrowserRelay:
    """The `Player` a human seat's BotSession runs: each `choose` waits for the browser's move."""

    def __init__(self, game: WebGame, side: Side) -> None:
        self.game = game
        self.side = side
        self.moves: queue.Queue[str | None] = queue.Queue()

    def new_game(self, variant: Any, side: Side, seed: int | None = None) -> None:
        pass

    def choose(self, game: Game, clock: Any) -> str | None:
        self.game.human_turn(self.side, game, clock)
        return self.moves.get()  # None resigns: sent only once the game is over (or the server stops)


@dataclass(eq=False)
class WebGame:
    """One game: its seats, what the browsers see, and the thread that referees it."""

    id: str
    variant: Any
    control: TimeControl
    seats: dict[Side, Seat]
    notify: Callable[[WebGame], None] = lambda game: None
    status: str = "waiting"  # waiting (for people to open their links), playing, over
    game: Game = field(init=False)
    moves: list[dict[str, Any]] = field(default_factory=list)
    clocks: dict[str, int] = field(default_factory=dict)
    running: str | None = None  # the side whose clock runs
    running_since: float = 0.0
    awaiting: Side | None = None  # a person's turn: the relay waits for the browser's move
    result: str = ""
    record: dict[str, Any] | None = None
    version: int = 0
    pushed: int = -1  # the version last sent to the browsers (app.Server.push)
    hold_until: float = 0.0  # after a person's move to an AI: wait this long for the reply before pushing
    lock: threading.RLock = field(default_factory=threading.RLock)
    _svg: tuple[int, str] = (-1, "")

    HOLD_S = 0.05
    TURN_HOLD_S = 0.02

    def __post_init__(self) -> None:
        self.game = Game(self.variant)
        start = self.control.per_move_ms if self.control.is_per_move else self.control.base_ms
        self.clocks = {self.variant.side_name(side): start for side in self.seats}

    # -- seats ---------------------------------------------------------------------------------

    def seat_by_secret(self, secret: str) -> Seat | None:
        for seat in self.seats.values():
            if seat.is_human and secrets.compare_digest(seat.secret, secret):
                return seat
        return None

    def attach(self, seat: Seat) -> str:
        """Lets a browser take its seat; '' when it may, else why not."""
        with self.lock:
            if seat.connections:
                return (f"the {self.variant.side_name(seat.side)} seat of this game is already open in another "
                        "tab or browser: close it there and reload this page to play here")
            seat.connections += 1
            seat.claimed = True
            start = self.status == "waiting" and all(s.claimed for s in self.seats.values() if s.is_human)
        self._changed()
        if start:
            self.start()
        return ""

    def detach(self, seat: Seat) -> None:
        with self.lock:
            seat.connections = max(0, seat.connections - 1)
        self._changed()

    # -- the game ------------------------------------------------------------------------------

    def start(self) -> None:
        with self.lock:
            if self.status != "waiting":
                return
            self.status = "playing"
        threading.Thread(target=self._referee, name=f"referee-{self.id}", daemon=True).start()
        self._changed()

    def _referee(self) -> None:
        try:
            configs = {side: (BotConfig(seat.name) if seat.is_human
                              else BotConfig.from_spec(seat.spec, name=seat.name, sandbox=seat.sandbox))
                       for side, seat in self.seats.items()}
            with Referee(hello_timeout_s=30.0, join_timeout_s=30.0) as referee:
                for side, seat in self.seats.items():
                    if seat.is_human:
                        seat.relay = BrowserRelay(self, side)
                        session = BotSession(seat.relay, name=seat.name, endpoint=referee.connect_endpoint,
                                             token=referee.token, version="web")
                        threading.Thread(target=session.run, name=f"relay-{self.id}-{seat.name}", daemon=True).start()
                record = referee.play_game(self.variant, configs, self.control, game_id=self.id, on_move=self._on_move)
                self._over(record.to_dict(), record.result_line())
                self._release_relays()
        except Exception as error:  # a referee that cannot run (cannot bind, a bot that cannot start): say so
            self._over(None, f"the game could not go on: {error}")
            self._release_relays()

    def shutdown(self) -> None:
        """The server stops: a person's seat that waits for a move resigns, so the referee ends."""
        self._release_relays()

    def _release_relays(self) -> None:
        for seat in self.seats.values():
            if seat.relay is not None:
                seat.relay.moves.put(None)

    def _over(self, record: dict[str, Any] | None, result: str) -> None:
        with self.lock:
            self.status, self.result, self.record = "over", result, record
            self.running, self.awaiting, self.hold_until = None, None, 0.0
        self._changed()

    def human_turn(self, side: Side, game: Game, clock: Any) -> None:
        """From a relay: the referee asked this person for a move (the game so far, the clocks)."""
        with self.lock:
            self._catch_up(game.moves)
            name = self.variant.side_name(side)
            if clock.remaining_ms is not None:
                self.clocks[name] = int(clock.remaining_ms)
            if clock.opponent_ms is not None:
                self.clocks[self.variant.side_name(side.other)] = int(clock.opponent_ms)
            self.running, self.running_since, self.awaiting = name, time.monotonic(), side
            self.hold_until = 0.0
        self._changed()

    def _on_move(self, event: Any) -> None:
        """From the referee: one move (`MoveEvent`: its record entry, both clocks after it)."""
        with self.lock:
            record, entry = event.record, event.entry
            index = len(record.moves) - 1
            self._catch_up([Move.parse(m.move) for m in record.moves])
            self.moves[index].update(think_ms=entry.think_ms, clock_ms=entry.clock_ms, info=entry.info or {})
            self.clocks.update({side: int(ms) for side, ms in event.clocks.items()})
            mover = self.seats[self.variant.side_by_name(entry.side)]
            next_seat = self.seats[self.game.position.turn]
            # Hold the push for the event that follows at once: the AI's reply to a person's move,
            # the `turn` that asks the person after an AI's move (one state, drawn once).
            hold = self.HOLD_S if mover.is_human and not next_seat.is_human else (
                self.TURN_HOLD_S if next_seat.is_human and not mover.is_human else 0.0)
            self.hold_until = time.monotonic() + hold if hold else 0.0
            if self.awaiting is None or len(self.game.moves) > index + 1:
                self.running = self.variant.side_name(self.game.position.turn)
                self.running_since = time.monotonic()
        self._changed()

    def _catch_up(self, moves: list[Move]) -> None:
        """Plays the moves the referee has and this copy lacks (both report; whichever comes first)."""
        for move in moves[len(self.game.moves):]:
            side = self.variant.side_name(self.game.position.turn)
            self.game.push(move)
            self.moves.append({"move": str(move), "side": side, "think_ms": None, "info": {}})

    def play(self, seat: Seat, text: str) -> str:
        """A browser's move for its seat: '' when it went to the referee, else what was wrong
        (the engine's words for an illegal move: `d4-d6: d4 and d6 are not joined by a line`)."""
        with self.lock:
            if self.status != "playing":
                return f"{text}: the game is {'over' if self.status == 'over' else 'not started yet'}"
            side_name = self.variant.side_name(self.game.position.turn)
            if self.awaiting != seat.side:
                verb = "are" if side_name in ("geese", "hounds") else "is"
                return f"{text}: it is not your turn, the {side_name} {verb} to move"
            try:
                move = self.game.parse_move(str(text))
            except ValueError as error:
                return str(error)
            self.awaiting = None
        seat.relay.moves.put(str(move))
        return ""

    # -- what a browser sees -------------------------------------------------------------------

    def hold_s(self) -> float:
        """How long a push should wait for the AI's reply to a person's move (0: push now)."""
        return max(0.0, self.hold_until - time.monotonic())

    def _changed(self) -> None:
        with self.lock:
            self.version += 1
        self.notify(self)

    def view(self, seat: Seat | None) -> dict[str, Any]:
        """The state message for one browser (its seat, if any, decides whether it gets legal moves)."""
        with self.lock:
            if self._svg[0] != len(self.game.moves):
                last = self.game.moves[-1] if self.game.moves else None
                self._svg = (len(self.game.moves), board_svg(self.game.position, last_move=last))
            clocks = dict(self.clocks)
            if self.running is not None and not self.control.is_per_move:
                spent_ms = round((time.monotonic() - self.running_since) * 1000)
                clocks[self.running] = max(0, clocks[self.running] - spent_ms)
            mine = seat is not None and self.awaiting == seat.side and self.status == "playing"
            return {
                "type": "state",
                "id": self.id,
                "status": self.status,
                "variant": str(self.variant),
                "sides": [self.variant.predator_name, self.variant.prey_name],
                "seats": {self.variant.side_name(side): {"name": s.name, "human": s.is_human,
                                                         "present": s.connections > 0}
                          for side, s in self.seats.items()},
                "you": self.variant.side_name(seat.side) if seat else None,
                "turn": self.variant.side_name(self.game.position.turn),
                "svg": self._svg[1],
                "legal": [str(move) for move in self.game.legal_moves()] if mine else [],
                "clocks": clocks,
                "running": self.running if self.status == "playing" else None,
                "time_control": str(self.control),
                "moves": list(self.moves),
                "result": self.result,
                "replay": f"/replay/game/{self.id}" if self.record else "",
            }


def new_game(request: dict[str, Any], notify: Callable[[WebGame], None],
             commands: Commands = Commands.REFUSED) -> WebGame:
    """A game from the page's form: `variant`, `geese`, `sideways`, `tc`, and per side a SPEC or `human`.
    `commands` says what becomes of a `cmd:` seat."""
    try:
        variant = get_variant(str(request.get("variant", "standard")),
                              **({"geese": request.get("geese"), "sideways": request.get("sideways")}
                                 if str(request.get("variant", "standard")) == "standard" else {}))
    except ValueError as error:
        raise WebGameError(str(error)) from None
    try:
        control = TimeControl.parse(str(request.get("tc") or "300+5"))
    except ValueError as error:
        raise WebGameError(f"time control: {error}") from None
    players = request.get("players") or {}
    seats: dict[Side, Seat] = {}
    for side in (Side.PREDATOR, Side.PREY):
        side_name = variant.side_name(side)
        spec = str(players.get(side_name) or "").strip()
        if not spec:
            raise WebGameError(f"choose who plays the {side_name}")
        if spec == HUMAN:
            seats[side] = Seat(side, f"person-{side_name}", HUMAN, secrets.token_urlsafe(12))
            continue
        if spec.split(":")[0] in ("human", "remote"):
            raise WebGameError(f"{spec!r} cannot play in the browser; choose a person, a built-in player or cmd:...")
        sandbox = spec.startswith(CMD_PREFIX) and commands is Commands.SANDBOXED
        if spec.startswith(CMD_PREFIX) and commands is Commands.REFUSED:
            raise WebGameError("cmd: bots are off on this server: anyone who can open its pages could run programs "
                               "as its user. Choose a built-in player, or start the server with "
                               "foxgeese serve --allow-commands if you accept that")
        try:
            BotConfig.from_spec(spec, name=spec, sandbox=sandbox)
        except ValueError as error:
            raise WebGameError(str(error)) from None
        seats[side] = Seat(side, spec if side == Side.PREDATOR or spec != seats[Side.PREDATOR].spec else f"{spec}#2",
                           spec, sandbox=sandbox)
    game = WebGame(secrets.token_urlsafe(6), variant, control, seats, notify)
    if not any(seat.is_human for seat in seats.values()):
        game.start()
    return game
