"""The referee: launches bots, carries games between them over ZeroMQ, keeps the clocks.

The Referee is the one poll loop (zguide's mdbroker: poll with a timeout, dispatch what came in,
check processes and deadlines; `time.monotonic()` throughout) and the seating of bots: its
`Transport` (transport.py) owns the socket, its `Endpoints` (endpoints.py) where bots connect,
its `BotPool` (botpool.py) the bots' processes. One
game's rules of engagement (seating, turns, clocks, the record) are the pure state machine `Match`
(match.py): the loop turns what happens into its events, each message stamped with the time the
poll saw it arrive, and carries out the actions it returns. Nothing a bot sends makes the referee
raise: every fault becomes a termination in the record.
One game at a time per instance; run several instances (each with its own socket) in threads.
"""

from __future__ import annotations

import itertools
import math
import os
import secrets
import time
from collections.abc import Callable
from typing import Any

import zmq

from foxgeese.engine import Game, Side, Variant, get_variant
from foxgeese.engine.userinput import shown
from foxgeese.protocol import codec, messages, peers, workdir
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.botpool import Bot, BotPool
from foxgeese.protocol.codec import ProtocolError
from foxgeese.protocol.endpoints import (
    Endpoints,
    RefereeConfigError,
    check_endpoint,
    ipc_hint,
    private_endpoint,
)
from foxgeese.protocol.match import (
    REFEREE_NAME,
    Adjudicator,
    Finished,
    Match,
    MoveEvent,
    MovePlayed,
    Restart,
    Send,
    StartClock,
)
from foxgeese.protocol.process import BotProcess
from foxgeese.protocol.record import GameRecord, SeatRecord
from foxgeese.protocol.timecontrol import MAX_CLOCK_MS, TimeControl
from foxgeese.protocol.transport import Transport
from foxgeese.protocol.turncache import TurnCache

_PROCESS_CHECK_S = 0.02
_PROCESS_CHECK_MS = round(_PROCESS_CHECK_S * 1000)

OnMove = Callable[[MoveEvent], None]
_SIDES = (Side.PREDATOR, Side.PREY)
_BOTH_SIDES = frozenset(_SIDES)
_decode_bot, _Pong = codec.decode_bot, messages.Pong  # plain names on the hot path


class Referee:
    """Binds one ROUTER socket and plays games between bots on it; use as a context manager.

    Each launched bot's stderr goes to a file in `log_dir`, named in the game record. Without a
    `log_dir` the referee uses a private temporary folder (also home of its ipc:// socket), and
    `close()` tidies it: logs a bot wrote nothing to are removed (a record's `stderr` path that no
    longer exists means the bot was silent), the rest stay, and so does the folder while it holds
    any. A `log_dir` of the caller's is never touched. A referee that was killed cannot tidy, so
    each new referee tidies the private folders of dead ones (see workdir.py); its bots end with it
    (their supervisors hold a lifeline to it, see process.py).
    """

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
        heartbeat_s: float | None = None,
        ping_interval_s: float = 5.0,
        cache: TurnCache | None = None,
    ) -> None:
        self.bind_public = bind_public
        self.cache = cache if cache is not None else TurnCache()  # what recurs across its games (turncache.py)
        # A bot between games is pinged again when its last ping is older than this: the round
        # trip changes slowly, and a ping before every game of a fast match cost its seating a
        # send, a pong and a wake-up of the bot.
        self.ping_interval_s = ping_interval_s
        self.token = token or secrets.token_urlsafe(16)
        self.lag_margin_ms = lag_margin_ms
        self.hello_timeout_s = hello_timeout_s
        self.ready_timeout_s = ready_timeout_s
        self.join_timeout_s = join_timeout_s
        self.kill_grace_s = kill_grace_s
        self.record_dir = record_dir
        self.trace = trace  # called with ("->" or "<-", bot name, message) for every message
        check_endpoint(endpoint, bind_public)
        if log_dir:
            os.makedirs(log_dir, exist_ok=True)
        workdir.sweep_stale()  # folders of referees that were killed and could not tidy up
        self._own_dir = workdir.make_private_dir()
        self.log_dir = log_dir or self._own_dir
        try:  # with heartbeat_s, a remote bot whose connection falls silent loses by crash
            self._transport = Transport(endpoint or private_endpoint(self._own_dir), heartbeat_s)
        except zmq.ZMQError as error:
            self._tidy_own_dir()
            raise RefereeConfigError(f"cannot bind {endpoint!r}: {error}") from None
        except BaseException:  # e.g. a heartbeat too long for ZeroMQ: the folder goes too
            self._tidy_own_dir()
            raise
        # Where launched bots connect, by transport: the bound endpoint, and the other one bound
        # when a bot first needs it (endpoints.py).
        self._endpoints = Endpoints(self._transport, self._own_dir, chosen=endpoint is not None)
        self.endpoint: str = self._endpoints.bound
        self.connect_endpoint = self._endpoints.connect
        # The transport reports connections closing, matched to their bot by file descriptor: a remote
        # bot has no process to watch, and a launched one whose connection closed (it closed its
        # socket, or ZeroMQ's heartbeat gave it up) cannot come back (a token is good for one).
        self._by_fd: dict[int, Bot] = {}
        self._remote_about = False  # a remote bot is in the game: its connection is watched every round
        self._busy_since = 0.0  # since when the referee has been at its own work (see _run)
        self.pool = BotPool(remote_token=self.token, connect_endpoint=self.connect_endpoint, log_dir=self.log_dir,
                            kill_grace_s=kill_grace_s)
        self._by_identity: dict[bytes, Bot] = {}
        self._ignored: set[bytes] = set()
        # Newcomers' first messages read between games, held for the next game's seats (see _run).
        self._held: list[tuple[list[bytes], int | None, float]] | None = None
        self._game_ids = itertools.count(1)
        self._match: Match | None = None
        self._side_of: dict[Bot, Side] = {}  # the bots of the game in progress
        self._bot_of: dict[Side, Bot] = {}
        self._on_move: OnMove | None = None
        self._last_refusal = ""  # of a connection no seat could be told of (a bad token, say)
        self._next_process_check = 0.0
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
        for bot in self.pool.bots:
            if bot.identity is not None:
                self._send(bot, codec.QUIT, {})
        deadline = time.monotonic() + self.kill_grace_s
        for bot in self.pool.bots:
            if bot.process is not None:
                bot.process.wait(deadline - time.monotonic())
        for bot in self.pool.bots:
            if bot.process is not None:
                bot.process.stop()
        # Launched bots had their moment to read `quit` above; remote ones get a short linger.
        remote = any(bot.config.is_remote and bot.identity is not None for bot in self.pool.bots)
        self._transport.close(linger_ms=200 if remote else 0)
        self._tidy_own_dir()

    def _tidy_own_dir(self) -> None:
        """Runs after every bot process has ended, so an empty log stays empty (see workdir.tidy)."""
        workdir.tidy(self._own_dir)

    def processes(self) -> list[BotProcess]:
        """Every bot process this referee started and has not yet replaced (for tests, monitors)."""
        return [bot.process for bot in self.pool.bots if bot.process is not None]

    # ------------------------------------------------------------------ a game

    def play_game(
        self,
        variant: Variant | str,
        seats: dict[Side, BotConfig],
        time_control: TimeControl | str,
        opening: tuple[str, ...] | list[str] = (),
        max_plies: int | None = None,
        game_id: str | None = None,
        on_move: OnMove | None = None,
        record_path: str | None = None,
        seed: int | None = None,
        adjudicator: Adjudicator | None = None,
        clocks: dict[Side, int] | None = None,
    ) -> GameRecord:
        """Plays one game to its end and returns its record (also saved when asked to).

        `clocks` (ms left, by side; a side left out starts from the time control) start a game played
        on from a kept position with the clocks it had there: the bots see them in the first `turn`,
        the record keeps them (`start_clocks`). Fischer time controls only.

        `seed` (0 <= seed < 2**53) goes to both bots in `new_game` and into the record; a bot seeds
        its randomness from it, so the game replays from its seed alone. None draws a fresh one.
        `on_move(event)` is called after every move, `adjudicator(position)` too (it may end the
        game: a `(winner, reason)` pair gives the termination `adjudicated`); both run off every
        clock, before the next `turn` is sent.
        """
        if self._closed:
            raise RefereeConfigError("this referee is closed")
        if isinstance(variant, str):
            variant = get_variant(variant)
        if isinstance(time_control, str):
            time_control = self.cache.time_control(time_control)
        if set(seats) != _BOTH_SIDES:
            raise RefereeConfigError("seats must name a bot for both Side.PREDATOR and Side.PREY")
        if seed is None:
            seed = secrets.randbelow(codec.SEED_LIMIT)
        elif not codec.is_seed(seed):
            raise RefereeConfigError(f"seed must be a whole number from 0 to 2**53-1, not {seed!r}")
        clocks = _checked_clocks(clocks, time_control)
        game = Game(variant)
        for text in opening:
            game.push(game.parse_move(text))  # a bad opening is the caller's error: it raises
        match = Match(variant, game, time_control, game_id or self._new_game_id(), seed=seed, max_plies=max_plies,
                      lag_margin_ms=self.lag_margin_ms, ready_timeout_s=self.ready_timeout_s, adjudicator=adjudicator,
                      cache=self.cache, clocks=clocks)
        match.events = on_move is not None
        self._match, self._on_move = match, on_move
        try:
            self._run(match, seats)
        finally:
            self._match, self._on_move = None, None
            self._side_of, self._bot_of = {}, {}
        record = match.record
        if record_path:
            record.save(record_path)
        if self.record_dir:
            os.makedirs(self.record_dir, exist_ok=True)
            record.save(os.path.join(self.record_dir, f"{record.game_id}.json"))
        return record

    @property
    def _game(self) -> Match:
        """The match in progress: asked for only where a bot is seated, which happens only in one."""
        assert self._match is not None, "no game in progress"
        return self._match

    def _new_game_id(self) -> str:
        return f"g{next(self._game_ids)}-{os.urandom(3).hex()}"  # what secrets.token_hex(3) gives, less two calls

    # ------------------------------------------------------------ the poll loop

    def _run(self, match: Match, seats: dict[Side, BotConfig]) -> None:
        """The one poll loop, for one game: poll, dispatch, check processes and deadlines.

        A message is stamped with the moment the referee stopped waiting (its receive's return) or,
        for one found already queued when the referee comes back from its own work, the moment that
        work began (`_busy_since`: that return, or the sending of a turn, after which the referee
        writes the record while the bot thinks). So no message is stamped later than it arrived,
        and the referee's work is never charged to a bot.

        What arrived before this game began (a reused bot's messages between games) is read first,
        with no seat taken: it is judged as arrived between games, and ignored.
        """
        self._busy_since = time.monotonic()
        self._held = []  # newcomers' hellos, for the seats about to be set
        self._drain()
        held, self._held = self._held, None
        for side in _SIDES:
            self._seat(side, self._acquire(seats[side], list(self._bot_of.values())))
        for frames, fd, arrival in held:
            self._dispatch(frames, fd, arrival)
        monotonic = time.monotonic
        self._busy_since = monotonic()
        self._carry_out(match.advance(self._busy_since))
        # The monitor (remote bots' disconnections) is polled only while a remote bot is about;
        # otherwise the loop waits in a receive with a timeout (no poller to build or to ask), and
        # launched bots' closed connections are read with the process checks.
        wait = self._receive
        self._remote_about = False
        for bot in self.pool.bots:
            if bot.config.is_remote:
                wait, self._remote_about = self._poll_both, True
                break
        drain, dispatch, known = self._transport.drain, self._dispatch, self._by_identity  # _drain, a call less
        while not match.over:
            now = monotonic()
            if now >= self._next_process_check:
                self._check_processes(now)
                if match.over:
                    break
            if self._remote_about:
                self._read_disconnects(self._busy_since)
            if drain(dispatch, known):  # it came while the referee was busy
                continue
            now = monotonic()
            # Wake for the match's next deadline, or after a process-check interval at the latest
            # (a check falls due at the loop's top, so one is at most an interval late).
            left_s = match.next_deadline() - now
            if left_s > 0:
                if wait(_PROCESS_CHECK_MS if left_s >= _PROCESS_CHECK_S else max(1, math.ceil(left_s * 1000))):
                    continue
                now = monotonic()
            self._busy_since = now
            self._carry_out(match.advance(now))  # a deadline, or a process check, is due

    def _receive(self, timeout_ms: int) -> bool:
        """Waits up to `timeout_ms` for a message and dispatches it, stamped with its arrival."""
        received = self._transport.receive(timeout_ms, self._by_identity)
        if received is None:
            return False
        frames, fd, self._busy_since = received
        self._dispatch(frames, fd, self._busy_since)
        return True

    def _poll_both(self, timeout_ms: int) -> bool:
        """Waits up to `timeout_ms` for a message or a closed connection (remote bots) and reads it."""
        if not self._transport.poll(timeout_ms):
            return False
        self._busy_since = time.monotonic()
        self._drain()
        return True

    def _carry_out(self, actions: list[Any]) -> None:
        """Does what the match asked for, in order."""
        match = self._match
        assert match is not None
        for action in actions:
            kind = action.__class__
            if kind is Send:
                bot, payload = self._bot_of[action.side], action.payload
                if payload and self.trace is None and bot.identity is not None:
                    self._transport.send(bot.identity, payload)  # as _send would, a call less on every turn
                else:  # a turn, new_game or game_over comes packed ahead: its fields are not built
                    self._send(bot, action.message_type, None if payload else action.fields, payload)
            elif kind is StartClock:
                # The turn is out: its clock runs from now, and whatever comes in while the referee
                # does its bookkeeping (clock_started writes the record) is stamped with this moment.
                self._busy_since = now = time.monotonic()
                match.clock_started(action.side, now)
            elif kind is MovePlayed:
                if self._on_move is not None:
                    self._on_move(action.event)
            elif kind is Restart:
                old = self._bot_of[action.side]
                self._seat(action.side, self._replace(old))
            elif kind is Finished:
                self._finish()

    def _seat(self, side: Side, bot: Bot) -> None:
        """Tells the match who sits in `side`'s seat: a connected bot (pinged first) or one awaited."""
        match = self._match
        assert match is not None
        old = self._bot_of.get(side)
        if old is not None:
            self._side_of.pop(old, None)
        self._bot_of[side], self._side_of[bot] = bot, side
        config = bot.config
        info = SeatRecord(config.name, list(config.command), stderr=bot.stderr_path)
        reused = bot.identity is not None  # a bot of an earlier game, connected already
        if reused and time.monotonic() - bot.pinged_at >= self.ping_interval_s:
            self._ping(bot)
        limit = self.join_timeout_s if config.is_remote else self.hello_timeout_s
        failed = self.pool.offence(config) or bot.refusal
        hint = ipc_hint(config, self.bot_endpoint(config, bind=False))
        match.seat(side, info, connected=reused and not failed, hello=bot.hello, reused=reused, failed=failed,
                   hello_deadline=bot.launched_at + limit, waiting_text=f"no hello within {limit:g}s{hint}",
                   rtt_ms=bot.rtt_ms)

    def _finish(self) -> None:
        game_id = self._game.game_id
        for bot in self._side_of:
            bot.past_games.add(game_id)
            if bot.identity is None or not bot.alive():
                self._retire(bot)  # reaped (or no longer awaited) now; the next game starts a fresh one

    def _check_processes(self, now: float) -> None:
        self._next_process_check = now + _PROCESS_CHECK_S
        match = self._match
        if match is None:
            return
        if self._by_fd and not self._remote_about:
            self._read_disconnects(now)
        for bot, side in list(self._side_of.items()):
            if bot.gone_reported or bot.alive():
                continue
            bot.gone_reported = True
            if bot.identity is None:
                why = bot.refusal or f"{bot.exit_text()} before saying hello"
                if not bot.refusal and self._last_refusal:
                    why += f" (a connection was refused: {self._last_refusal})"
            else:
                why = bot.exit_text()
            self._carry_out(match.lost(side, why, now))
            if match.over:
                return

    def _drain(self) -> bool:
        """Dispatches every message waiting now, each stamped `_busy_since`; True if there was one.

        Closed connections are read first: a newcomer can reuse the descriptor of a connection
        that just closed, and that closing must not be charged to it."""
        if self._by_fd:
            self._read_disconnects(self._busy_since)
        return self._transport.drain(self._dispatch, self._by_identity)

    def _read_disconnects(self, now: float) -> None:
        """Marks the bots whose connection the transport reports closed."""
        for fd in self._transport.closed_connections():
            bot = self._by_fd.pop(fd, None)
            if bot is not None:
                bot.disconnected, bot.disconnected_at = True, now
                self._next_process_check = now  # tell the match on this round

    # ------------------------------------------------------------- messages

    def _send(self, bot: Bot, message_type: str, fields: dict[str, Any] | None,
              payload: bytes | None = None) -> None:
        """Sends `fields`, or `payload` already packed (a turn: its fields are unpacked for a trace only)."""
        if bot.identity is None:
            return
        if payload is None:
            payload = messages.encode_fields(message_type, fields or {})
        if self.trace is not None:
            shown_fields = fields if fields is not None else codec.fields_of(payload)
            self.trace("->", bot.config.name, {"v": codec.PROTOCOL_VERSION, "type": message_type, **shown_fields})
        self._transport.send(bot.identity, payload)  # a peer gone or not reading: its deadlines will tell

    def _dispatch(self, frames: list[bytes], fd: int | None, arrival: float | None = None) -> None:
        """Judges a message (frames, identity first) from `fd` (a newcomer's connection) that arrived
        at `arrival`; None: it was found waiting after the referee's own work, and is stamped `_busy_since`."""
        if arrival is None:
            arrival = self._busy_since
        identity = frames[0]
        bot = self._by_identity.get(identity)
        if bot is None:
            if self._held is not None:  # between games: a newcomer may be for a seat of the next one
                self._held.append((frames, fd, arrival))
            elif identity not in self._ignored:
                self._on_stranger(identity, frames[1:], fd, arrival)
            return
        try:
            if len(frames) != 2:
                raise ProtocolError(f"a message must be one frame, got {len(frames) - 1}")
            message = _decode_bot(frames[1])
        except ProtocolError as error:
            if self.trace is not None:
                self.trace("<-", bot.config.name, {"raw": repr(frames[1:])[:200]})
            self._fault(bot, str(error), arrival)
            return
        if self.trace is not None:
            self.trace("<-", bot.config.name, messages.to_fields(message))
        if message.__class__ is _Pong:
            if message.id == bot.ping_id and bot.ping_sent:
                # A pong found waiting after the referee's own work is stamped at that work's start, which
                # can precede the ping it answers: a round trip is never less than 0.
                bot.rtt_ms, bot.ping_sent = max(0.0, (arrival - bot.ping_sent) * 1000), 0.0
                side = self._side_of.get(bot)
                if side is not None:
                    self._game.rtt(side, bot.rtt_ms)
            return
        if getattr(message, "game_id", None) in bot.past_games:
            return  # a late answer for a game that is over: harmless
        side = self._side_of.get(bot)
        if side is not None:
            match = self._match  # a seated bot: a game is in progress
            assert match is not None
            self._carry_out(match.receive(side, message, arrival))
        # Between games a bot has nothing to say; what it says anyway is ignored.

    def _fault(self, bot: Bot, reason: str, now: float) -> None:
        side = self._side_of.get(bot)
        if side is not None:
            self._carry_out(self._game.fault(side, reason, now))

    def _on_stranger(self, identity: bytes, payload: list[bytes], fd: int | None, now: float) -> None:
        """A first message on a new connection must be a valid `hello` with a known token.

        On ipc:// the kernel names the process that connected (SO_PEERCRED). When it belongs to the
        process tree of a bot this referee launched, that bot answers for the hello: it is seated
        only with its own token, on its first connection, and any hello from its tree that is
        refused loses its game (a bot that presents another seat's token, stolen however, loses;
        the seat it tried to take is untouched). A process of no launched tree cannot present a
        launched bot's token at all."""
        try:
            if len(payload) != 1:
                raise ProtocolError("a message must be one frame")
            message = codec.decode(payload[0])  # a plain map first: whose hello it is, even one refused
        except ProtocolError:
            self._ignored.add(identity)
            return
        if message["type"] != codec.HELLO:
            self._ignored.add(identity)
            return
        version = message.get("v")
        token = message.get("token")
        bot = self.pool.named_by(token, message.get("name"))
        known, owner = self._peer(fd, bot)
        blamed = owner or bot
        if version.__class__ is not int or version not in codec.SUPPORTED_VERSIONS:
            why = "missing field v" if "v" not in message else (
                f"protocol version {codec.cut(repr(version), 20)} is not supported")
            self._refuse(identity, blamed, why, now, supported=list(codec.SUPPORTED_VERSIONS))
            return
        try:
            hello = _decode_bot(payload[0])
        except ProtocolError as error:
            self._refuse(identity, blamed, f"bad hello: {error}", now)
            return
        assert isinstance(hello, messages.Hello)  # its type was read above
        if owner is not None and bot is not owner:
            if token != owner.token and (bot is not None or self.pool.was_used(token)):
                why = "this token belongs to another bot"
            elif owner.identity is not None:
                why = "this bot is connected already (a token is good for one connection)"
            else:
                why = "wrong token"
            self._refuse(identity, owner, why, now)
            return
        if bot is None:
            remote = token == self.token
            self._refuse(identity, None, "no seat is waiting for a remote bot" if remote else "wrong token", now)
            return
        if bot.process is not None and known and owner is not bot:
            # the process that connected must be this seat's own bot (or one it started)
            self._refuse(identity, None, "this token belongs to another process", now)
            return
        self.pool.welcomed(bot)
        if self.trace is not None:
            self.trace("<-", bot.config.name, messages.to_fields(hello))
        bot.identity, bot.hello = identity, hello
        self._by_identity[identity] = bot
        if fd is not None:
            bot.fd = fd
            self._by_fd[fd] = bot
        self._send(bot, codec.WELCOME, {"referee": REFEREE_NAME, "bot_id": f"{bot.config.name}#{id(bot) % 10000}"})
        self._ping(bot)
        side = self._side_of.get(bot)
        if side is not None:
            self._carry_out(self._game.connected(side, hello, now))

    def _peer(self, fd: int | None, named: Bot | None) -> tuple[bool, Bot | None]:
        """Whether the kernel could be asked who is behind connection `fd`, and the launched bot
        whose process tree that is (None: none). On ipc:// the process that connected
        (SO_PEERCRED); on TCP the tree that holds the peer's socket, `named` (the bot the hello's
        token names) asked first. A TCP connection that no process of a launched tree holds (from
        another machine, another user, or closed already) belongs to none."""
        if fd is None:
            return False, None
        if self._by_fd:  # a closing that came before this connection is not charged to it
            self._read_disconnects(self._busy_since)
        peer = peers.peer_of(fd)
        if peer.kind == "unix":
            return peer.pid is not None, self.pool.owner_of(peer.pid) if peer.pid is not None else None
        if peer.kind == "tcp":
            return True, self.pool.owner_of_socket(peer.inode, named) if peer.inode is not None else None
        return False, None

    def _ping(self, bot: Bot) -> None:
        """Liveness probe; the pong's round trip is kept as the bot's transport time estimate."""
        bot.ping_id += 1
        bot.ping_sent = bot.pinged_at = time.monotonic()
        self._send(bot, codec.PING, {"id": bot.ping_id})

    def _refuse(self, identity: bytes, bot: Bot | None, reason: str, now: float, **extra: Any) -> None:
        """Answers `refused` and ignores the connection from now on; the bot answering for it (if
        known) keeps why, and loses its game: at once when seated, else its next one."""
        reason = codec.cut(reason)
        self._transport.send(identity, messages.encode(messages.Refused(reason=reason, **extra)))
        self._ignored.add(identity)
        if bot is None:
            self._last_refusal = reason
            return
        side = self._side_of.get(bot)
        if bot.config.is_remote:  # the shared token: another connection may still take the seat
            bot.refusal = reason
            if side is not None:
                self._game.waiting(side, f"no valid hello within {self.join_timeout_s:g}s (refused: {reason})")
            return
        if bot.identity is None:
            bot.refusal = reason
        if side is not None:
            self._carry_out(self._game.refused(side, f"refused: {reason}", now))
        else:  # an idle bot of the pool, between its games: it is ended, and its next seat starts lost
            self.pool.note_offence(bot.config, f"refused: {reason} (a hello from its process between games)")
            self._retire(bot)

    # ------------------------------------------------------------- bot pool

    def _acquire(self, config: BotConfig, taken: list[Bot]) -> Bot:
        """An idle connected bot for `config` from the pool, else a new one (launched or awaited)."""
        for bot in self.pool.matching(config, taken):
            if bot.disconnected or not bot.alive():
                self._retire(bot)  # died (or lost its connection) between games: a new one below
            elif bot.identity is not None:
                bot.gone_reported = False
                return bot
        return self._start(config)

    def _replace(self, old: Bot) -> Bot:
        """A new bot for `old`'s config, `old` ended."""
        self._retire(old)
        return self._start(old.config)

    def _start(self, config: BotConfig) -> Bot:
        """A new bot for `config`, launched to connect over its transport (a remote one is awaited)."""
        try:
            endpoint = self.bot_endpoint(config)
        except zmq.ZMQError as error:  # its seat fails at once, as for a program that cannot start
            return self.pool.start(config, cannot=f"cannot bind its {config.transport_kind()} endpoint: {error}")
        return self.pool.start(config, endpoint)

    def bot_endpoint(self, config: BotConfig, bind: bool = True) -> str | None:
        """Where a launched bot connects (`Endpoints.for_bot`)."""
        return self._endpoints.for_bot(config, bind)

    def _retire(self, bot: Bot) -> None:
        """Ends a bot for good (hung or dead): forgets its connection, then the pool ends its process."""
        if bot.fd is not None and self._by_fd.get(bot.fd) is bot:
            del self._by_fd[bot.fd]
        if bot.identity is not None:
            self._send(bot, codec.QUIT, {})
            self._by_identity.pop(bot.identity, None)
            self._ignored.add(bot.identity)
        self.pool.remove(bot)


def _checked_clocks(clocks: dict[Side, int] | None, control: TimeControl) -> dict[Side, int] | None:
    """`play_game`'s starting clocks, checked: sides to whole ms from 1 to MAX_CLOCK_MS, Fischer only."""
    if not clocks:
        return None
    if control.is_per_move:
        raise RefereeConfigError(f"clocks: a fixed time per move ({control}) starts every move afresh; "
                                 "starting clocks are for Fischer time controls")
    for side, ms in clocks.items():
        if side not in _BOTH_SIDES:
            raise RefereeConfigError(f"clocks: keys are Side.PREDATOR and Side.PREY, not {shown(side, 30)}")
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 < ms <= MAX_CLOCK_MS:
            raise RefereeConfigError(f"clocks: whole milliseconds from 1 to {MAX_CLOCK_MS}, not {shown(ms, 30)}")
    return dict(clocks)
