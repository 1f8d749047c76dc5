"""The referee: launches bots, carries games between them over ZeroMQ, keeps the clocks.

One poll loop in the style of zguide's mdbroker: poll the ROUTER socket with a timeout, dispatch
every message that came in, then check deadlines and bot processes; `time.monotonic()` throughout.
Nothing a bot does makes the referee raise: every fault becomes a termination in the record.
One game at a time per instance; run several instances (each with its own socket) in threads.
"""

from __future__ import annotations

import ipaddress
import itertools
import os
import secrets
import shutil
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable

import zmq

from foxgeese import __version__
from foxgeese.engine import Game, IllegalMoveError, InvalidMoveError, Side, get_variant
from foxgeese.protocol import codec
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.codec import ProtocolError, decode, require
from foxgeese.protocol.process import BotLaunchError, BotProcess
from foxgeese.protocol.record import DRAW, GameRecord, MoveRecord, RefereeTermination, SeatRecord, utc_now
from foxgeese.protocol.timecontrol import ChessClock, TimeControl

REFEREE_NAME = f"foxgeese-referee {__version__}"
# The socket drops a peer whose message is this big outright; between the protocol cap and this the
# message is read and judged a protocol error, so the offending bot gets a proper record.
HARD_MESSAGE_LIMIT = 1 << 20
_PROCESS_CHECK_S = 0.02
# Plain ints: pyzmq's enum flags cost a Python-level operator call each time on the hot path.
_EVENTS, _POLLIN, _NOBLOCK = int(zmq.EVENTS), int(zmq.POLLIN), int(zmq.NOBLOCK)
_SNDMORE_NOBLOCK = int(zmq.SNDMORE) | _NOBLOCK

_RULE_REASONS = {
    "captured": "fewer than four {prey} remain",
    "escaped": "the {predator} stands on a lower row than every hound",
    "stalling": "ten hound moves in a row did not raise a row",
    "fifty-moves": "100 plies without a capture or a forward {prey} step",
    "repetition": "the same position occurred for the third time",
    "trapped": "the {predator} is to move and has no legal move",
    "immobilized": "the {prey} are to move and have no legal move",
}


class RefereeConfigError(ValueError):
    """A Referee set up wrongly by its caller (public address without bind_public, bad seats...)."""


class _Ending(Exception):
    """Raised inside the game loop to stop it: the game is decided (never escapes play_game)."""

    def __init__(self, winner: str, termination: str, reason: str, offender: _Bot | None = None):
        super().__init__(reason)
        self.winner, self.termination, self.reason, self.offender = winner, termination, reason, offender


@dataclass(eq=False)
class _Bot:
    """One connection (and, unless remote, the process behind it)."""

    config: BotConfig
    token: str
    process: BotProcess | None = None
    stderr_path: str | None = None
    identity: bytes | None = None
    hello: dict[str, Any] | None = None
    refusal: str = ""
    launched_at: float = 0.0
    suspect: bool = False  # misbehaved: prove it answers (or restart it) before the next game
    past_games: set[str] = field(default_factory=set)
    ping_id: int = 0
    ping_sent: float = 0.0
    rtt_ms: float | None = None  # last ping round trip: the transport part of every reply
    # Filled by dispatch while a game runs:
    fault: str = ""
    ready_for: str = ""
    reply: dict[str, Any] | None = None
    reply_at: float = 0.0

    def alive(self) -> bool:
        return self.process is None or self.process.alive()

    def exit_text(self) -> str:
        return self.process.describe_exit() if self.process else "disconnected"


class Referee:
    """Binds one ROUTER socket and plays games between bots on it; use as a context manager."""

    def __init__(
        self,
        endpoint: str | None = None,
        bind_public: bool = False,
        token: str | None = None,
        lag_margin_ms: int = 50,
        hello_timeout_s: float = 15.0,
        ready_timeout_s: float = 5.0,
        join_timeout_s: float = 600.0,
        kill_grace_s: float = 1.0,
        log_dir: str | None = None,
        record_dir: str | None = None,
        trace: Callable[[str, str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.bind_public = bind_public
        self.token = token or secrets.token_urlsafe(16)
        self.lag_margin_ms = lag_margin_ms
        self.hello_timeout_s = hello_timeout_s
        self.ready_timeout_s = ready_timeout_s
        self.join_timeout_s = join_timeout_s
        self.kill_grace_s = kill_grace_s
        self.record_dir = record_dir
        self.trace = trace  # called with ("->" or "<-", bot name, message) for every message
        _check_endpoint(endpoint, bind_public)
        self._own_dir = tempfile.mkdtemp(prefix="foxgeese-referee-")
        self.log_dir = log_dir or self._own_dir
        os.makedirs(self.log_dir, exist_ok=True)
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.ROUTER)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.MAXMSGSIZE, HARD_MESSAGE_LIMIT)
        try:
            self._socket.bind(endpoint or f"ipc://{self._own_dir}/referee.sock")
        except zmq.ZMQError as error:
            self._socket.close()
            self._context.term()
            raise RefereeConfigError(f"cannot bind {endpoint!r}: {error}") from None
        self.endpoint: str = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self.connect_endpoint = _connectable(self.endpoint)
        self._poller = zmq.Poller()
        self._poller.register(self._socket, zmq.POLLIN)
        self._bots: list[_Bot] = []
        self._by_identity: dict[bytes, _Bot] = {}
        self._pending: dict[str, _Bot] = {}  # launched bots awaiting hello, by their token
        self._remote_pending: list[_Bot] = []
        self._ignored: set[bytes] = set()
        self._launches = itertools.count(1)
        self._game_ids = itertools.count(1)
        self._game: _Match | None = None
        self._next_process_check = 0.0
        self._move_text: dict[Any, str] = {}  # Move -> its text; moves are plain values
        self._closed = False

    # ----------------------------------------------------------------- lifetime

    def __enter__(self) -> Referee:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Sends `quit` to every bot, gives them a moment to exit, then ends and reaps them all."""
        if self._closed:
            return
        self._closed = True
        for bot in self._bots:
            if bot.identity is not None:
                self._send(bot, codec.QUIT)
        deadline = time.monotonic() + self.kill_grace_s
        for bot in self._bots:
            if bot.process is not None:
                bot.process.wait(deadline - time.monotonic())
        for bot in self._bots:
            if bot.process is not None:
                bot.process.stop(self.kill_grace_s)
        # Launched bots had their moment to read `quit` above; remote ones get a short linger.
        remote = any(bot.config.is_remote and bot.identity is not None for bot in self._bots)
        self._socket.close(linger=200 if remote else 0)
        self._context.term()
        if self.log_dir != self._own_dir and self.record_dir != self._own_dir:
            shutil.rmtree(self._own_dir, ignore_errors=True)
        else:  # logs live here; only the socket file goes
            try:
                os.unlink(os.path.join(self._own_dir, "referee.sock"))
            except OSError:
                pass

    def processes(self) -> list[BotProcess]:
        """Every bot process this referee started and has not yet replaced (for tests, monitors)."""
        return [bot.process for bot in self._bots if bot.process is not None]

    # ------------------------------------------------------------------ a game

    def play_game(
        self,
        variant: Any,
        seats: dict[Side, BotConfig],
        time_control: TimeControl | str,
        opening: tuple[str, ...] | list[str] = (),
        max_plies: int | None = None,
        game_id: str | None = None,
        on_move: Callable[[GameRecord, MoveRecord], None] | None = None,
        record_path: str | None = None,
    ) -> GameRecord:
        """Plays one game to its end and returns its record (also saved when asked to)."""
        if self._closed:
            raise RefereeConfigError("this referee is closed")
        if isinstance(variant, str):
            variant = get_variant(variant)
        if isinstance(time_control, str):
            time_control = TimeControl.parse(time_control)
        if set(seats) != {Side.PREDATOR, Side.PREY}:
            raise RefereeConfigError("seats must name a bot for both Side.PREDATOR and Side.PREY")
        game = Game(variant)
        for text in opening:
            game.push(game.parse_move(text))  # a bad opening is the caller's error: it raises
        match = _Match(self, variant, game, seats, time_control, game_id or self._new_game_id(), max_plies)
        match.on_move = on_move
        self._game = match
        try:
            match.run()
        finally:
            self._game = None
        record = match.record
        if record_path:
            record.save(record_path)
        if self.record_dir:
            os.makedirs(self.record_dir, exist_ok=True)
            record.save(os.path.join(self.record_dir, f"{record.game_id}.json"))
        return record

    def _new_game_id(self) -> str:
        return f"g{next(self._game_ids)}-{secrets.token_hex(3)}"

    # ------------------------------------------------------------- bot pool

    def _acquire(self, config: BotConfig, taken: list[_Bot]) -> _Bot:
        """An idle bot for `config` from the pool, else a new one (launched or awaited)."""
        for bot in list(self._bots):
            if bot.config == config and bot not in taken:
                if not bot.alive():
                    self._retire(bot)  # died between games: reap it, start a new one below
                elif bot.identity is not None:
                    return bot
        return self._start(config)

    def _start(self, config: BotConfig, replacing: _Bot | None = None) -> _Bot:
        if replacing is not None:
            self._retire(replacing)
        if config.is_remote:
            bot = _Bot(config, self.token, launched_at=time.monotonic())
            self._remote_pending.append(bot)
            self._bots.append(bot)
            return bot
        bot = _Bot(config, secrets.token_urlsafe(16), launched_at=time.monotonic())
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in config.name)[:40]
        bot.stderr_path = os.path.join(self.log_dir, f"{safe}-{next(self._launches)}.stderr")
        env = {codec.ENV_ENDPOINT: self.connect_endpoint, codec.ENV_TOKEN: bot.token}
        try:
            bot.process = BotProcess(config, env, bot.stderr_path)
        except BotLaunchError as error:
            bot.refusal = str(error)
            bot.launched_at = -1.0  # never coming
        else:
            self._pending[bot.token] = bot
        self._bots.append(bot)
        return bot

    def _retire(self, bot: _Bot) -> None:
        """Ends a bot for good (hung or dead) and forgets its connection."""
        if bot.identity is not None:
            self._send(bot, codec.QUIT)
            self._by_identity.pop(bot.identity, None)
            self._ignored.add(bot.identity)
        if bot.process is not None:
            bot.process.stop(self.kill_grace_s)
        self._pending.pop(bot.token, None)
        if bot in self._remote_pending:
            self._remote_pending.remove(bot)
        if bot in self._bots:
            self._bots.remove(bot)

    # ------------------------------------------------------------ poll loop

    def _wait(self, done: Callable[[], bool], deadline: float) -> bool:
        """The poll loop: poll, dispatch, check processes and deadlines, until `done()` or timeout."""
        poll = self._poller.poll
        while True:
            if done():
                return True
            now = time.monotonic()
            if now >= self._next_process_check:
                self._check_processes(now)
                if done():
                    return True
            if now >= deadline:
                self._drain()  # a message may sit in the queue right at the deadline
                return done()
            timeout_ms = min(deadline - now, _PROCESS_CHECK_S) * 1000
            if poll(max(1, int(timeout_ms + 0.999))):
                self._drain()

    def _drain(self) -> None:
        """Dispatches every message waiting now (asking EVENTS is cheaper than catching zmq.Again)."""
        socket = self._socket
        try:
            while socket.getsockopt(_EVENTS) & _POLLIN:
                self._dispatch(socket.recv_multipart(_NOBLOCK), time.monotonic())
        except zmq.ZMQError:
            return

    def _check_processes(self, now: float) -> None:
        self._next_process_check = now + _PROCESS_CHECK_S
        if self._game is not None:
            self._game.check_processes()

    def _send(self, bot: _Bot, message_type: str, **fields: Any) -> None:
        if bot.identity is None:
            return
        if self.trace is not None:
            self.trace("->", bot.config.name, {"v": codec.PROTOCOL_VERSION, "type": message_type, **fields})
        try:  # two plain sends: send_multipart's per-frame checks cost more than the send
            self._socket.send(bot.identity, _SNDMORE_NOBLOCK)
            self._socket.send(codec.encode(message_type, **fields), _NOBLOCK)
        except zmq.ZMQError:
            pass  # a peer that went away or stopped reading; its deadlines will tell

    def _dispatch(self, frames: list[bytes], now: float) -> None:
        identity = frames[0]
        if identity in self._ignored:
            return
        bot = self._by_identity.get(identity)
        if bot is None:
            self._on_stranger(identity, frames[1:])
            return
        try:
            if len(frames) != 2:
                raise ProtocolError(f"a message must be one frame, got {len(frames) - 1}")
            message = decode(frames[1])
            version = message.get("v")
            if version.__class__ is not int or version != codec.PROTOCOL_VERSION:
                raise ProtocolError(f"message has protocol version {message.get('v')!r}, expected 1")
        except ProtocolError as error:
            if self.trace is not None:
                self.trace("<-", bot.config.name, {"raw": repr(frames[1:])[:200]})
            self._fault(bot, str(error))
            return
        if self.trace is not None:
            self.trace("<-", bot.config.name, message)
        kind = message["type"]
        if kind == codec.PONG:
            if message.get("id") == bot.ping_id and bot.ping_sent:
                bot.rtt_ms, bot.ping_sent = (now - bot.ping_sent) * 1000, 0.0
            return
        if self._game is not None and bot in self._game.bots:
            self._game.on_message(bot, message, now)
        elif kind in (codec.MOVE, codec.RESIGN, codec.READY) and message.get("game_id") in bot.past_games:
            return  # a late answer for a game that is over: harmless
        else:
            self._fault(bot, f"unexpected '{kind}' message between games")

    def _fault(self, bot: _Bot, reason: str) -> None:
        if self._game is not None and bot in self._game.bots:
            self._game.on_fault(bot, reason)
        else:
            bot.suspect = True
            bot.fault = reason

    def _on_stranger(self, identity: bytes, payload: list[bytes]) -> None:
        """A first message on a new connection must be a valid `hello` with a known token."""
        try:
            if len(payload) != 1:
                raise ProtocolError("a message must be one frame")
            message = decode(payload[0])
        except ProtocolError:
            self._ignored.add(identity)
            return
        if message["type"] != codec.HELLO:
            self._ignored.add(identity)
            return
        token = message.get("token")
        bot = self._pending.get(token) if isinstance(token, str) else None
        if bot is None and token == self.token and self._remote_pending:
            name = message.get("name")
            bot = next((b for b in self._remote_pending if b.config.name == name), self._remote_pending[0])
        if bot is None:
            remote = token == self.token
            self._refuse(identity, "no seat is waiting for a remote bot" if remote else "wrong token")
            return
        version = message.get("v")
        if version.__class__ is not int or version not in codec.SUPPORTED_VERSIONS:
            bot.refusal = f"protocol version {version!r} is not supported"
            self._refuse(identity, bot.refusal, supported=list(codec.SUPPORTED_VERSIONS))
            return
        try:
            hello = {
                "name": require(message, "name", str),
                "author": require(message, "author", str),
                "version": require(message, "version", str),
                "variants": require(message, "variants", list),
            }
            if not all(isinstance(v, str) for v in hello["variants"]):
                raise ProtocolError("field 'variants' must be a list of str")
        except ProtocolError as error:
            bot.refusal = f"bad hello: {error}"
            self._refuse(identity, bot.refusal)
            return
        self._pending.pop(bot.token, None)
        if bot in self._remote_pending:
            self._remote_pending.remove(bot)
        if self.trace is not None:
            self.trace("<-", bot.config.name, message)
        bot.identity, bot.hello = identity, hello
        self._by_identity[identity] = bot
        self._send(bot, codec.WELCOME, referee=REFEREE_NAME, bot_id=f"{bot.config.name}#{id(bot) % 10000}")
        self._ping(bot)

    def _ping(self, bot: _Bot) -> None:
        """Liveness probe; the pong's round trip is kept as the bot's transport time estimate."""
        bot.ping_id += 1
        bot.ping_sent = time.monotonic()
        self._send(bot, codec.PING, id=bot.ping_id)

    def _refuse(self, identity: bytes, reason: str, **extra: Any) -> None:
        try:
            self._socket.send_multipart([identity, codec.encode(codec.REFUSED, reason=reason, **extra)], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass
        self._ignored.add(identity)


class _Match:
    """One game in progress: seats, clock, request ids, and what dispatch found out meanwhile."""

    def __init__(self, referee: Referee, variant: Any, game: Game, seats: dict[Side, BotConfig],
                 control: TimeControl, game_id: str, max_plies: int | None) -> None:
        self.referee, self.variant, self.game, self.seats = referee, variant, game, seats
        self.control, self.game_id, self.max_plies = control, game_id, max_plies
        self.names = {side: variant.side_name(side) for side in (Side.PREDATOR, Side.PREY)}
        self.clock = ChessClock(control, list(self.names.values()), referee.lag_margin_ms)
        self.bot_of: dict[Side, _Bot] = {}
        self.bots: list[_Bot] = []
        self.told: set[_Bot] = set()  # bots sent this game's new_game
        self.phase = "hello"
        self.pending: _Ending | None = None
        self.mover: _Bot | None = None
        self.request_id = 0
        self.move_texts: list[str] = [str(move) for move in game.moves]
        self.on_move: Callable[[GameRecord, MoveRecord], None] | None = None
        self.unrecorded: tuple[str, str, float, dict[str, Any], int, float | None] | None = None
        start = variant.start_position()
        self.record = GameRecord(
            game_id=game_id, variant=variant.id, options=dict(variant.options), start=start.text(),
            bots={}, time_control=control.text(), referee=REFEREE_NAME, started=utc_now(),
        )
        for text in self.move_texts:
            self.record.moves.append(MoveRecord(text, book=True))

    # ------------------------------------------------------------------ phases

    def run(self) -> None:
        try:
            self._seat()
            self.phase = "play"
            self._play()
        except _Ending as ending:
            self._finish(ending)

    def _side_of(self, bot: _Bot) -> Side:
        return Side.PREDATOR if self.bot_of.get(Side.PREDATOR) is bot else Side.PREY

    def _other_name(self, bot: _Bot) -> str:
        return self.names[self._side_of(bot).other]

    def _seat(self) -> None:
        """Gets both bots connected and `ready`, restarting once a reused bot that does not answer."""
        referee = self.referee
        for side in (Side.PREDATOR, Side.PREY):
            bot = referee._acquire(self.seats[side], list(self.bot_of.values()))
            self.bot_of[side] = bot
        self.bots = list(self.bot_of.values())
        reused = {bot for bot in self.bots if bot.identity is not None}
        for bot in self.bots:
            bot.ready_for = ""
        for attempt in (1, 2):
            self.phase = "hello"
            self._await_hellos()
            self._check_variants()
            self.phase = "ready"
            for side, bot in self.bot_of.items():
                if bot in self.told:
                    continue  # ready already (a retry only concerns the other seat)
                if bot in reused:
                    referee._ping(bot)
                self._tell_new_game(side, bot)
            deadline = time.monotonic() + referee.ready_timeout_s
            referee._wait(lambda: self.pending is not None or all(b.ready_for for b in self.bots), deadline)
            if self.pending is not None:
                raise self.pending
            late = [side for side, bot in self.bot_of.items() if not bot.ready_for]
            if not late:
                break
            if attempt == 1 and all(self.bot_of[side] in reused for side in late):
                for side in late:  # hung or dead since its last game: start it afresh
                    old = self.bot_of[side]
                    self.bot_of[side] = referee._start(old.config, replacing=old)
                self.bots = list(self.bot_of.values())
                continue
            self._no_show({side: f"no 'ready' within {referee.ready_timeout_s:g}s" for side in late})
        for side, bot in self.bot_of.items():
            hello = bot.hello or {}
            self.record.bots[self.names[side]] = SeatRecord(
                name=bot.config.name, command=list(bot.config.command), version=hello.get("version", ""),
                author=hello.get("author", ""), bot_name=hello.get("name", ""), stderr=bot.stderr_path,
                rtt_ms=None if bot.rtt_ms is None else round(bot.rtt_ms, 3),
            )

    def _tell_new_game(self, side: Side, bot: _Bot) -> None:
        self.told.add(bot)
        self.referee._send(bot, codec.NEW_GAME, game_id=self.game_id, variant=self.variant.id,
                           options=dict(self.variant.options), side=self.names[side],
                           time_control=self.control.to_wire(), start=self.record.start)

    def _await_hellos(self) -> None:
        referee = self.referee
        waiting = [bot for bot in self.bots if bot.identity is None]
        if not waiting:
            return

        def deadline_of(bot: _Bot) -> float:
            limit = referee.join_timeout_s if bot.config.is_remote else referee.hello_timeout_s
            return bot.launched_at + limit if bot.launched_at >= 0 else 0.0

        def failed(bot: _Bot, now: float) -> bool:
            return bot.identity is None and (not bot.alive() or now >= deadline_of(bot))

        def settled() -> bool:
            now = time.monotonic()
            return all(bot.identity is not None or failed(bot, now) for bot in waiting) or any(
                failed(bot, now) for bot in waiting)

        referee._wait(settled, max(deadline_of(bot) for bot in waiting))
        now = time.monotonic()
        missing = {}
        for side, bot in self.bot_of.items():
            if bot.identity is None and failed(bot, now):
                if bot.refusal:
                    why = bot.refusal
                elif not bot.alive():
                    why = f"{bot.exit_text()} before saying hello"
                else:
                    why = "no hello within " + (f"{referee.join_timeout_s:g}s" if bot.config.is_remote
                                                else f"{referee.hello_timeout_s:g}s")
                missing[side] = why
        if missing:
            self._no_show(missing)

    def _check_variants(self) -> None:
        wrong = {}
        for side, bot in self.bot_of.items():
            variants = (bot.hello or {}).get("variants", [])
            if variants and self.variant.id not in variants:
                wrong[side] = f"plays only {', '.join(variants)}, not {self.variant.id}"
        if wrong:
            self._no_show(wrong)

    def _no_show(self, why: dict[Side, str]) -> None:
        reason = "; ".join(f"{self.names[side]} ({self.bot_of[side].config.name}): {text}"
                           for side, text in why.items())
        winner = DRAW if len(why) == 2 else self.names[next(iter(why)).other]
        raise _Ending(winner, RefereeTermination.NO_SHOW.value, reason)

    # -------------------------------------------------------------- the game

    def _play(self) -> None:
        referee, game, clock, names = self.referee, self.game, self.clock, self.names
        send, wait = referee._send, referee._wait
        increment_ms, per_move_ms = self.control.increment_ms, self.control.per_move_ms
        move_text = referee._move_text
        predator, prey = names[Side.PREDATOR], names[Side.PREY]
        while True:
            moves = game.legal_moves()  # [] exactly when the game is over: one generation per ply
            if not moves:
                outcome = game.outcome()
                if outcome is None:  # cannot happen by the rules; never hang on it
                    raise _Ending(DRAW, RefereeTermination.MAX_PLIES.value, "no legal move and no rule ending")
                raise _Ending(outcome.winner.value, outcome.termination.value, self._rule_reason(outcome))
            if self.max_plies is not None and len(game.moves) >= self.max_plies:
                raise _Ending(DRAW, RefereeTermination.MAX_PLIES.value, f"stopped after {self.max_plies} plies")
            side = game.position.turn
            name = names[side]
            bot = self.bot_of[side]
            try:  # move texts are cached (str(move) was the hot path's biggest cost); map/zip run in C
                texts = list(map(move_text.__getitem__, moves))
            except KeyError:
                move_text.update((move, str(move)) for move in moves if move not in move_text)
                texts = list(map(move_text.__getitem__, moves))
            legal = dict(zip(texts, moves))
            self.request_id += 1
            self.mover, bot.reply = bot, None
            send(bot, codec.TURN, game_id=self.game_id, request_id=self.request_id,
                 position=game.position.text(), moves=self.move_texts, legal=texts,
                 clocks={predator: clock.on_turn_ms(predator), prey: clock.on_turn_ms(prey)},
                 increment_ms=increment_ms, per_move_ms=per_move_ms)
            sent = time.monotonic()
            if self.unrecorded is not None:  # the last move's bookkeeping, done while this bot thinks
                self._record_last()
            budget_ms = clock.budget_ms(name)
            wait(lambda: bot.reply is not None or self.pending is not None, sent + budget_ms / 1000)
            if self.pending is not None:
                raise self.pending
            reply = bot.reply
            elapsed_ms = ((bot.reply_at if reply is not None else time.monotonic()) - sent) * 1000
            if reply is None or not clock.charge(name, elapsed_ms):
                bot.suspect = True
                raise _Ending(names[side.other], RefereeTermination.TIME_FORFEIT.value,
                              f"{name} took over {budget_ms} ms (clock plus {referee.lag_margin_ms} ms lag margin)",
                              offender=bot)
            if reply["type"] == codec.RESIGN:
                raise _Ending(names[side.other], RefereeTermination.RESIGNATION.value, f"{name} resigned")
            text = move_name = reply["move"]
            move = legal.get(text)
            if move is None:  # not canonical text of a legal move: the engine reads it, or says why not
                try:
                    move = game.parse_move(text)
                except (InvalidMoveError, IllegalMoveError) as error:
                    raise _Ending(names[side.other], RefereeTermination.ILLEGAL_MOVE.value,
                                  f"{name} played {text!r}: {getattr(error, 'reason', error)}",
                                  offender=bot) from None
                move_name = str(move)
            game.push(move)
            self.move_texts.append(move_name)
            self.unrecorded = (move_name, name, elapsed_ms, reply, clock.left_ms[name], bot.rtt_ms)

    def _record_last(self) -> None:
        """Splits the measured time into thinking and transport, and appends the move's entry.

        The bot's own `think_ms` decides when it sent one; otherwise its last ping round trip is
        taken as the transport part.
        """
        move_name, name, elapsed_ms, reply, left_ms, rtt_ms = self.unrecorded
        self.unrecorded = None
        elapsed = round(elapsed_ms)
        think = reply.get("think_ms")
        if think.__class__ is not int or not 0 <= think <= elapsed:
            think = elapsed - min(elapsed, round(rtt_ms or 0))
        entry = MoveRecord(move_name, name, think, elapsed - think, left_ms, reply.get("info") or {})
        self.record.moves.append(entry)
        if self.on_move is not None:
            self.on_move(self.record, entry)

    def _rule_reason(self, outcome: Any) -> str:
        predator, prey = self.names[Side.PREDATOR], self.names[Side.PREY]
        return _RULE_REASONS.get(outcome.termination.value, "").format(predator=predator, prey=prey)

    # --------------------------------------------------------------- dispatch

    def on_message(self, bot: _Bot, message: dict[str, Any], now: float) -> None:
        kind = message["type"]
        try:
            if kind not in (codec.READY, codec.MOVE, codec.RESIGN):
                raise ProtocolError(f"unexpected '{kind}' message during a game")
            game_id = require(message, "game_id", str)
            if game_id in bot.past_games:
                return
            if game_id != self.game_id:
                raise ProtocolError(f"'{kind}' names game {game_id!r}, the game is {self.game_id!r}")
            if kind == codec.READY:
                if self.phase != "ready" or bot.ready_for:
                    raise ProtocolError("'ready' was not asked for")
                bot.ready_for = game_id
                return
            request_id = require(message, "request_id", int)
            if kind == codec.RESIGN and bot is not self.mover:
                self._end_soon(_Ending(self._other_name(bot), RefereeTermination.RESIGNATION.value,
                                       f"{self.names[self._side_of(bot)]} resigned"))
                return
            if bot is not self.mover or bot.reply is not None:
                raise ProtocolError(f"'{kind}' when it is not this bot's turn")
            if request_id != self.request_id:
                raise ProtocolError(f"'{kind}' answers request {request_id}, the request is {self.request_id}")
            if kind == codec.MOVE:
                require(message, "move", str)
                if "think_ms" in message:
                    require(message, "think_ms", int)
                if "info" in message:
                    message["info"] = codec.check_info(message["info"])
            bot.reply, bot.reply_at = message, now
        except ProtocolError as error:
            self.on_fault(bot, str(error))

    def on_fault(self, bot: _Bot, reason: str) -> None:
        bot.suspect = True
        self._end_soon(_Ending(self._other_name(bot), RefereeTermination.PROTOCOL_ERROR.value,
                               f"{self.names[self._side_of(bot)]}: {reason}", offender=bot))

    def _end_soon(self, ending: _Ending) -> None:
        if self.pending is None:
            self.pending = ending

    def check_processes(self) -> None:
        if self.phase != "play":
            return
        for side, bot in self.bot_of.items():
            if not bot.alive():
                self._end_soon(_Ending(self.names[side.other], RefereeTermination.CRASH.value,
                                       f"{self.names[side]} ({bot.config.name}) {bot.exit_text()}", offender=bot))

    # ----------------------------------------------------------------- ending

    def _finish(self, ending: _Ending) -> None:
        referee, record = self.referee, self.record
        if self.unrecorded is not None:
            self._record_last()
        record.winner, record.termination, record.reason = ending.winner, ending.termination, ending.reason
        record.plies = len(self.game.moves)
        record.final = self.game.position.text()
        record.ended = utc_now()
        for side, bot in self.bot_of.items():
            if self.names[side] not in record.bots:
                hello = bot.hello or {}
                record.bots[self.names[side]] = SeatRecord(
                    name=bot.config.name, command=list(bot.config.command), version=hello.get("version", ""),
                    author=hello.get("author", ""), bot_name=hello.get("name", ""), stderr=bot.stderr_path)
        if ending.offender is not None and ending.termination == RefereeTermination.PROTOCOL_ERROR.value:
            referee._send(ending.offender, codec.ERROR, reason=ending.reason)
        for bot in self.bots:
            if bot.identity is not None and bot not in self.told:
                # It never got new_game; tell it about the game before its end, so game_over is not a riddle.
                self._tell_new_game(self._side_of(bot), bot)
            referee._send(bot, codec.GAME_OVER, game_id=self.game_id, winner=record.winner,
                          termination=record.termination, reason=record.reason)
            bot.past_games.add(self.game_id)
            bot.reply, bot.ready_for = None, ""
            if not bot.alive() or bot.identity is None:
                referee._retire(bot)  # reaped (or no longer awaited) now; the next game starts a fresh one


def _check_endpoint(endpoint: str | None, bind_public: bool) -> None:
    """Refuses a routable bind address unless the caller asked for one with bind_public."""
    if endpoint is None or bind_public:
        return
    parsed = urllib.parse.urlsplit(endpoint)
    if parsed.scheme in ("ipc", "inproc"):
        return
    if parsed.scheme != "tcp":
        raise RefereeConfigError(f"endpoint {endpoint!r}: use ipc://PATH or tcp://HOST:PORT")
    host = endpoint[len("tcp://"):].rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise RefereeConfigError(
            f"endpoint {endpoint!r} is reachable from other machines; pass bind_public=True "
            "(--bind-public) to allow that, or bind tcp://127.0.0.1:PORT"
        )


def _connectable(endpoint: str) -> str:
    """The address a local bot connects to when the referee bound a wildcard."""
    for wildcard in ("tcp://0.0.0.0:", "tcp://*:", "tcp://[::]:"):
        if endpoint.startswith(wildcard):
            return "tcp://127.0.0.1:" + endpoint[len(wildcard):]
    return endpoint
