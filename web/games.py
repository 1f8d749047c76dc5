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
import hashlib
import itertools
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from foxgeese.engine import DEFAULT_VARIANT, Game, Move, Side, get_variant, words
from foxgeese.engine.svg import board_svg
from foxgeese.engine.variants import Variant, variant_spec
from foxgeese.protocol.botconfig import CMD_PREFIX, BotConfig
from foxgeese.protocol.referee import Referee
from foxgeese.protocol.sdk import BotSession
from foxgeese.protocol.timecontrol import TimeControl
from foxgeese.tournaments.replay import result_text
from foxgeese.web.analysis import material
from foxgeese.web.pushes import Pushes, ShownClocks

HUMAN = "human"
REMOTE_PREFIX = "remote:"


class RemoteSeats(Protocol):
    """What a game needs of the Bot API hub (web/botapi.py's BotHub) for its `remote:NAME` seats."""

    def online(self, name: str) -> bool: ...

    def bot_config(self, name: str, seat_name: str | None = None) -> BotConfig: ...


def seat_key(secret: str) -> str:
    """What the store keeps of a seat's secret: its SHA-256, enough to know the seat's link again
    after a restart (for a rematch) without keeping a link that could take a seat."""
    return hashlib.sha256(secret.encode()).hexdigest()


def stored_seat(data: dict[str, Any], secret: str) -> str:
    """The side name whose seat this secret is in a stored game (`WebGame.snapshot`), else ''."""
    if not secret:
        return ""
    key = seat_key(secret)
    return next((side for side, stored in (data.get("seat_keys") or {}).items()
                 if secrets.compare_digest(str(stored), key)), "")


def seat_label(seat: dict[str, Any]) -> str:
    """How a stored seat is named to everyone (past games, reviews): a person is "human" (games
    stored before this version named them "fox player"), a program by its SPEC."""
    return HUMAN if seat.get("human") else str(seat.get("name", ""))


def has_draws(variant: Variant) -> bool:
    """Whether the variant's rules know draws (repetition, fifty moves): its endings say (`Variant.can_draw`)."""
    return variant.can_draw


def interrupted_result(count: int) -> str:
    """The result line of a game the server's stop cut short after `count` plies."""
    return f"interrupted: the server stopped after {words.plies(count)}; the game cannot go on"


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

    @property
    def is_remote(self) -> bool:
        """A bot of the Bot API (`remote:NAME`): its bridge is seated through the server's hub (web/botapi.py)."""
        return self.spec.startswith(REMOTE_PREFIX)


class BrowserRelay:
    """The `Player` a human seat's BotSession runs: each `choose` waits for the browser's move."""

    def __init__(self, game: WebGame, side: Side) -> None:
        self.game = game
        self.side = side
        self.moves: queue.Queue[str | None] = queue.Queue()

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        pass

    def choose(self, game: Game, clock: Any) -> str | None:
        self.game.human_turn(self.side, game, clock)
        return self.moves.get()  # None resigns: sent only once the game is over (or the server stops)


@dataclass(eq=False)
class WebGame:
    """One game: its seats, what the browsers see, and the thread that referees it."""

    id: str
    variant: Variant
    control: TimeControl
    seats: dict[Side, Seat]
    notify: Callable[[WebGame], None] = lambda game: None
    takeback: bool = False  # a person may take back moves (against an AI only)
    request: dict[str, Any] = field(default_factory=dict)  # what made it: a rematch swaps its players
    save: Callable[[WebGame], None] = lambda game: None  # persistence (web/store.py), after each change
    status: str = "waiting"  # waiting (for people to open their links), playing, over, interrupted
    created: float = field(default_factory=time.time)
    game: Game = field(init=False)
    moves: list[dict[str, Any]] = field(default_factory=list)
    clocks: ShownClocks = field(default_factory=ShownClocks)  # the clocks the browsers see (pushes.py)
    awaiting: Side | None = None  # a person's turn: the relay waits for the browser's move
    result: str = ""
    record: dict[str, Any] | None = None
    pushes: Pushes = field(default_factory=Pushes)  # the state's versions and their pushes' pacing (pushes.py)
    lock: threading.RLock = field(default_factory=threading.RLock)
    ending: dict[str, Any] | None = None  # an end the players chose (resignation, agreed draw): wins over the referee's
    restart: list[str] | None = None  # a takeback: the referee plays on from these moves ...
    restart_clocks: dict[Side, int] | None = None  # ... with the clocks each side had there (Fischer only)
    draw_offer: Side | None = None  # who offers a draw now
    draw_refused: dict[str, str] | None = None  # the last offer turned down: {"offer": side, "how": declined/moved}
    rematch: dict[str, Any] | None = None  # {"id": ..., "links": {side name: link}} once asked for
    stopping: bool = False  # the server stops: the game is interrupted, not lost
    remote: RemoteSeats | None = None  # the hub that seats `remote:NAME` bots

    def __post_init__(self) -> None:
        self.game = Game(self.variant)
        start = self.control.per_move_ms if self.control.is_per_move else self.control.base_ms
        self.clocks.left_ms = {self.variant.side_name(side): start for side in self.seats}

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
            configs = {side: self._config(seat) for side, seat in self.seats.items()}
            for config in configs.values():  # compiled players' code compiled or loaded now, off the clocks
                config.warm()
            with Referee(hello_timeout_s=30.0, join_timeout_s=30.0) as referee:
                for side, seat in self.seats.items():
                    if seat.is_human:
                        seat.relay = BrowserRelay(self, side)
                        session = BotSession(seat.relay, name=self._referee_name(seat),
                                             endpoint=referee.connect_endpoint, token=referee.token, version="web")
                        threading.Thread(target=session.run, name=f"relay-{self.id}-{seat.name}", daemon=True).start()
                opening: list[str] = []
                clocks: dict[Side, int] | None = None
                for line in itertools.count():  # a takeback plays on in a new referee game from the moves kept
                    game_id = self.id if not line else f"{self.id}~{line}"  # a referee never reuses a game's id
                    record = referee.play_game(self.variant, configs, self.control, opening=opening, game_id=game_id,
                                               on_move=self._on_move, clocks=clocks)
                    with self.lock:
                        restart, self.restart = self.restart, None
                        clocks, self.restart_clocks = self.restart_clocks, None
                        if restart is None or self.ending is not None or self.stopping:
                            break
                        for seat in self.seats.values():  # what ended the old line must not end the new one
                            while seat.relay is not None and not seat.relay.moves.empty():
                                seat.relay.moves.get_nowait()
                    opening = restart
                self._over(record.to_dict(), record.result_line())
                self._release_relays()
        except Exception as error:  # a referee that cannot run (cannot bind, a bot that cannot start): say so
            self._over(None, f"the game could not go on: {error}")
            self._release_relays()

    def _referee_name(self, seat: Seat) -> str:
        """The seat's name to the referee: a person's relay says hello by name with the shared remote
        token, so two people in one game (both "human") get their side added, or the first hello to
        arrive would take the first seat whichever relay sent it."""
        if any(other.name == seat.name for other in self.seats.values() if other is not seat):
            return f"{seat.name} ({self.variant.side_name(seat.side)})"
        return seat.name

    def _config(self, seat: Seat) -> BotConfig:
        if seat.is_human:
            return BotConfig(self._referee_name(seat))
        if seat.is_remote:
            assert self.remote is not None, "new_game seats a remote bot only with a hub"
            return self.remote.bot_config(seat.spec[len(REMOTE_PREFIX):], seat.name)
        return BotConfig.from_spec(seat.spec, name=seat.name, sandbox=seat.sandbox)

    def shutdown(self) -> None:
        """The server stops: a person's seat that waits for a move resigns, so the referee ends; the
        game is kept as interrupted, not as lost."""
        with self.lock:
            self.stopping = True
        self._release_relays()

    def _release_relays(self) -> None:
        for seat in self.seats.values():
            if seat.relay is not None:
                seat.relay.moves.put(None)

    def _over(self, record: dict[str, Any] | None, result: str) -> None:
        with self.lock:
            if record is not None:
                record = self._completed(record)
                result = self._result_line(record, result)
                if record.get("termination") == "time-forfeit" and record.get("winner") in self.clocks.left_ms:
                    loser = next(side for side in self.clocks.left_ms if side != record["winner"])
                    self.clocks.left_ms[loser] = 0  # the flag fell: the clock shows 0:00.0, not what it had at the turn
            if self.stopping and self.ending is None and (record is None or record.get("termination") == "resignation"):
                self.status, self.record = "interrupted", None
                self.result = interrupted_result(len(self.moves))
            else:
                self.status, self.result, self.record = "over", result, record
            self.awaiting, self.draw_offer = None, None
            self.clocks.stop()
            self.pushes.release()
            self.draw_refused = None
        self._changed()

    def _completed(self, record: dict[str, Any]) -> dict[str, Any]:
        """The referee's record made the game's: moves replayed after a takeback keep their times
        (the referee saw them as an opening), and an end the players chose replaces the referee's."""
        record["game_id"] = self.id
        for side, seat in self.seats.items():  # the names the page shows, not the referee's (`_referee_name`)
            record.get("bots", {}).get(self.variant.side_name(side), {})["name"] = seat.name
        moves = record.get("moves", [])
        for index, entry in enumerate(moves[:len(self.moves)]):
            if entry.get("book"):
                record["start_clocks"] = {}  # the game started from its time control: its moves say the rest
                mine = self.moves[index]
                entry.update(book=False, side=mine["side"], think_ms=int(mine.get("think_ms") or 0),
                             clock_ms=int(mine.get("clock_ms") or 0), info=mine.get("info") or {})
        if self.ending is not None:
            record["moves"] = moves[:self.ending["ply"]]
            record.update(winner=self.ending["winner"], termination=self.ending["termination"],
                          reason=self.ending["reason"], plies=self.ending["ply"], final=self.game.position.text())
        return record

    def _result_line(self, record: dict[str, Any], fallback: str) -> str:
        try:
            return result_text(record)
        except (KeyError, TypeError, ValueError):
            return fallback

    # -- what the players choose: resign, a draw, a takeback ----------------------------------

    def end_by(self, winner: str, termination: str, reason: str) -> str:
        """Ends the game now as the players chose ('' when done, else why not); the referee's game
        is stopped by the people's relays, and its record carries this end."""
        with self.lock:
            if self.status != "playing":
                return "the game is not being played"
            if self.ending is not None or self.restart is not None:
                return "the game is already ending"
            self.ending = {"winner": winner, "termination": termination, "reason": reason, "ply": len(self.game.moves)}
            self.record = None
            self.result = self._result_line({"winner": winner, "termination": termination, "reason": reason,
                                             "plies": len(self.game.moves), "moves": self.moves}, reason)
            self.status, self.awaiting, self.draw_offer = "over", None, None
            self.clocks.stop()
            self.draw_refused = None
        self._release_relays()
        self._changed()
        return ""

    def take_back(self, seat: Seat) -> str:
        """Takes back this person's last move (and the AI's reply to it): the referee plays on from
        the moves before it. '' when done, else why not."""
        with self.lock:
            if not self.takeback:
                return "takebacks are off in this game (they are for games against an AI)"
            if self.status != "playing" or self.ending is not None:
                return "the game is not being played"
            if self.restart is not None:
                return "a takeback is under way"
            if self.awaiting is None and self.game.position.turn == seat.side:
                return "your move is on its way to the referee; take it back when it is played"
            mine = [index for index, move in enumerate(self.moves) if move["side"] == self.variant.side_name(seat.side)]
            if not mine:
                return "you have made no move to take back"
            keep = mine[-1]
            self.restart = [move["move"] for move in self.moves[:keep]]
            clocks = self._clocks_at(keep)
            if clocks is not None:
                self.clocks.left_ms.update({self.variant.side_name(side): ms for side, ms in clocks.items()})
                if any(ms != self.control.base_ms for ms in clocks.values()):  # else the game's own start
                    self.restart_clocks = clocks
            del self.moves[keep:]
            self.game = Game(self.variant)
            for text in self.restart:
                self.game.push(Move.parse(text))
            self.awaiting, self.draw_offer, self.draw_refused = None, None, None
            self.clocks.stop()
        self._release_relays()
        self._changed()
        return ""

    def _clocks_at(self, ply: int) -> dict[Side, int] | None:
        """Each side's clock after the first `ply` moves (its last move's `clock_ms`, else the time
        control's base): where a takeback plays on from. None with a fixed time per move."""
        if self.control.is_per_move:
            return None
        clocks = dict.fromkeys(self.seats, self.control.base_ms)
        for move in self.moves[:ply]:
            if move.get("clock_ms") is not None:  # 0 only within the lag margin, with no increment: 1 ms left
                clocks[self.variant.side_by_name(move["side"])] = max(1, int(move["clock_ms"]))
        return clocks

    @property
    def settling(self) -> bool:
        """Moves of the referee's current line are not this game's any more (an end or a takeback is under way)."""
        return self.ending is not None or self.restart is not None or self.status != "playing"

    def human_turn(self, side: Side, game: Game, clock: Any) -> None:
        """From a relay: the referee asked this person for a move (the game so far, the clocks)."""
        with self.lock:
            if self.settling:
                return
            if len(game.moves) < len(self.game.moves):  # a takeback's new line, before its first turn
                return
            self._catch_up(game.moves)
            name = self.variant.side_name(side)
            if clock.remaining_ms is not None:
                self.clocks.left_ms[name] = int(clock.remaining_ms)
            if clock.opponent_ms is not None:
                self.clocks.left_ms[self.variant.side_name(side.other)] = int(clock.opponent_ms)
            self.clocks.start(name)
            self.awaiting = side
            self.pushes.release()
        self._changed()

    def _on_move(self, event: Any) -> None:
        """From the referee: one move (`MoveEvent`: its record entry, both clocks after it)."""
        with self.lock:
            record, entry = event.record, event.entry
            index = len(record.moves) - 1
            if self.settling or index < len(self.game.moves) - 1:
                return
            self._catch_up([Move.parse(m.move) for m in record.moves])
            self.moves[index].update(think_ms=entry.think_ms, clock_ms=entry.clock_ms, info=entry.info or {},
                                     position=self.game.position.text())
            mover_side = self.variant.side_by_name(entry.side)
            if self.draw_refused is not None and self.draw_refused["offer"] == entry.side:
                self.draw_refused = None  # the offering side has seen the answer and played on
            if self.draw_offer is not None and self.draw_offer != mover_side:
                # an offer stands until the other side has moved: moving on without accepting turns it down
                self.draw_refused = {"offer": self.variant.side_name(self.draw_offer), "how": "moved"}
                self.draw_offer = None
            self.clocks.left_ms.update({side: int(ms) for side, ms in event.clocks.items()})
            self.pushes.hold_after(self.seats[mover_side].is_human, self.seats[self.game.position.turn].is_human)
            if self.awaiting is None or len(self.game.moves) > index + 1:
                self.clocks.start(self.variant.side_name(self.game.position.turn))
        self._changed()

    def _catch_up(self, moves: list[Move]) -> None:
        """Plays the moves the referee has and this copy lacks (both report; whichever comes first)."""
        for move in moves[len(self.game.moves):]:
            side = self.variant.side_name(self.game.position.turn)
            self.game.push(move)
            self.moves.append({"move": str(move), "side": side, "think_ms": None, "info": {},
                               "position": self.game.position.text()})

    def play(self, seat: Seat, text: str) -> str:
        """A browser's move for its seat: '' when it went to the referee, else what was wrong
        (the engine's words for an illegal move: `d4-d6: d4 and d6 are not joined by a line`)."""
        with self.lock:
            if self.status != "playing" or self.settling:
                return f"{text}: the game is {'over' if self.status != 'waiting' else 'not started yet'}"
            side_name = self.variant.side_name(self.game.position.turn)
            if self.awaiting != seat.side:
                return f"{text}: it is not your turn, the {words.side_verb(side_name, 'is', 'are')} to move"
            try:
                move = self.game.parse_move(str(text))
            except ValueError as error:
                return str(error)
            self.awaiting = None
        assert seat.relay is not None, "a person's seat has its relay while the game is played"
        seat.relay.moves.put(str(move))
        return ""

    # -- what a browser sees -------------------------------------------------------------------

    def hold_s(self) -> float:
        """How long a push should wait for the AI's reply to a person's move (0: push now)."""
        return self.pushes.hold_s()

    def _changed(self) -> None:
        with self.lock:
            self.pushes.changed()
        self.notify(self)
        self.save(self)

    def snapshot(self) -> dict[str, Any]:
        """What the store keeps (web/store.py): enough to show the game after a restart."""
        with self.lock:
            winner = (self.record or {}).get("winner") or (self.ending or {}).get("winner") or ""
            return {"id": self.id, "created": self.created, "variant": str(self.variant), "variant_id": self.variant.id,
                    "status": self.status, "winner": winner if self.status == "over" else "", "result": self.result,
                    "sides": [self.variant.predator_name, self.variant.prey_name],
                    "seats": {self.variant.side_name(side): {"name": s.name, "human": s.is_human}
                              for side, s in self.seats.items()},
                    "time_control": str(self.control), "clocks": dict(self.clocks.left_ms), "moves": list(self.moves),
                    "position": self.game.position.text(), "record": self.record, "request": self.request,
                    "seat_keys": {self.variant.side_name(side): seat_key(s.secret)
                                  for side, s in self.seats.items() if s.is_human}}

    def view(self, seat: Seat | None, flipped: bool = False) -> dict[str, Any]:
        """The state message for one browser (its seat, if any, decides whether it gets legal moves;
        `flipped` draws the board turned round)."""
        with self.lock:
            last = self.game.moves[-1] if self.game.moves else None
            svg = self.pushes.svg(flipped, lambda: board_svg(self.game.position, last_move=last, flipped=flipped))
            clocks = self.clocks.now(ticking=not self.control.is_per_move)
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
                "svg": svg,
                "flipped": flipped,
                "position": self.game.position.text(),
                "start": self.variant.start_position().text(),
                "material": material(self.game.position),
                "takeback": self.takeback and seat is not None,
                "draws": has_draws(self.variant),
                "draw_offer": self.variant.side_name(self.draw_offer) if self.draw_offer is not None else None,
                "draw_refused": dict(self.draw_refused) if self.draw_refused is not None else None,
                "against_ai": seat is not None and not self.seats[seat.side.other].is_human,
                "rematch": (self.rematch["links"].get(self.variant.side_name(seat.side), "") if seat else
                            f"/game/{self.rematch['id']}") if self.rematch else "",
                "watch": f"/game/{self.id}",
                "legal": [str(move) for move in self.game.legal_moves()] if mine else [],
                "clocks": clocks,
                "running": self.clocks.running if self.status == "playing" else None,
                "time_control": str(self.control),
                "moves": list(self.moves),
                "result": self.result,
                "replay": f"/replay/game/{self.id}" if self.record else "",
            }


class NewGameRequest(msgspec.Struct):
    """A new game's fields, as the page's form and a kept game's `request` give them (other keys are
    ignored): their JSON types, checked in one `msgspec.convert`; `new_game` checks their values."""

    variant: str = DEFAULT_VARIANT
    options: dict[str, str | int | bool] = {}  # any option of the variant's row (the page's form: its schema)
    geese: int | None = None  # older requests' options (kept games)
    sideways: bool | None = None
    tc: str | None = None
    players: dict[str, str | None] = {}
    takeback: bool = True  # on against an AI, never by link


def new_game(request: dict[str, Any], notify: Callable[[WebGame], None],
             commands: Commands = Commands.REFUSED, remote: RemoteSeats | None = None) -> WebGame:
    """A game from the page's form: `variant`, its `options` (or the older `geese`, `sideways`), `tc`,
    and per side a SPEC or `human`. `commands` says what becomes of a `cmd:` seat; `remote` seats
    `remote:NAME` (a bot of the Bot API)."""
    try:
        fields = msgspec.convert(request, NewGameRequest)
    except msgspec.ValidationError as error:
        raise WebGameError(f"send the new game as a JSON object of the form's fields: {error}") from None
    try:
        names = variant_spec(fields.variant).option_names  # older keys count only where the variant has them
        older = {key: value for key, value in (("geese", fields.geese), ("sideways", fields.sideways))
                 if key in names and value is not None}
        variant = get_variant(fields.variant, **{**fields.options, **older})
    except ValueError as error:
        raise WebGameError(str(error)) from None
    try:
        control = TimeControl.parse(fields.tc or "300+5")
    except ValueError as error:
        raise WebGameError(f"time control: {error}") from None
    players = fields.players
    seats: dict[Side, Seat] = {}
    for side in (Side.PREDATOR, Side.PREY):
        side_name = variant.side_name(side)
        spec = str(players.get(side_name) or "").strip()
        if not spec:
            raise WebGameError(f"choose who plays the {side_name}")
        if spec == HUMAN:
            seats[side] = Seat(side, HUMAN, HUMAN, secrets.token_urlsafe(12))  # the page says "you" to its seat
            continue
        if spec.startswith(REMOTE_PREFIX) and remote is not None:
            bot = spec[len(REMOTE_PREFIX):]
            if not remote.online(bot):
                raise WebGameError(f"the remote bot {bot[:60]!r} is not connected to this server now (its event "
                                   "stream is closed, or no bot has that name): try again when it is")
            seats[side] = Seat(side, spec, spec)
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
        seats[side] = Seat(side, spec if side == Side.PREDATOR or spec != seats[Side.PREDATOR].spec else f"{spec} (2)",
                           spec, sandbox=sandbox)
    humans = sum(seat.is_human for seat in seats.values())
    # a takeback replays the game in a new referee game: a remote bot would see its game end and another start
    takeback = humans == 1 and fields.takeback and not any(seat.is_remote for seat in seats.values())
    game = WebGame(secrets.token_urlsafe(6), variant, control, seats, notify, takeback=takeback, remote=remote,
                   request={"variant": variant.id, "options": dict(variant.options), "tc": str(control),
                            "players": {variant.side_name(side): seat.spec for side, seat in seats.items()},
                            "takeback": fields.takeback})
    if not any(seat.is_human for seat in seats.values()):
        game.start()
    return game
