"""The Python bot SDK: one call, `run_bot`, turns a move function or a `Player` into a bot process.

It hides protocol 2 (PROTOCOL.md) the way zguide's `mdwrkapi` hides its broker: the bot author
writes either

    def my_bot(position: Position, clock: Clock) -> Move | str: ...
    run_bot(my_bot, name="my-bot")

or passes an object with `choose(game, clock)` (and optionally `new_game(variant, side, seed=None)`), such as
any built-in `foxgeese.players.base.Player`. The SDK connects one DEALER socket, says hello, answers
`new_game` with `ready`, rebuilds the game (start position plus the moves so far, so players see the
history that repetition needs) for every `turn`, answers `ping`, plays game after game on the same
connection and returns on `quit`.

A referee that disappears sends nothing more, and ZeroMQ cannot tell silence from death. A bot the
referee launched is killed with it (process.py); the SDK also polls with a timeout and returns
when its parent process has died (it was re-parented). A bot started by hand keeps waiting until `quit`, Ctrl-C,
or the optional `idle_timeout_s` of silence.

An exception raised by the player is not caught: the bot process ends with its traceback on
stderr, which the referee records as a crash (and restarts the bot before the next game).
"""

from __future__ import annotations

import inspect
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec
import zmq

from foxgeese.engine import VARIANT_IDS, Clock, Game, Move, Position, Side, Variant, get_variant
from foxgeese.protocol import codec, messages
from foxgeese.protocol.memo import BoundedMemo

POLL_MS = 500

MoveFunction = Callable[[Position, Clock], "Move | str"]


class BotError(Exception):
    """Base of the errors that stop a bot; the CLI prints the message as one line."""


class BotConfigError(BotError):
    """The bot was not told where the referee is (no endpoint) or how to prove it was invited."""


class RefusedError(BotError):
    """The referee refused the bot's hello (wrong token, unsupported protocol version)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the referee refused this bot: {reason}")
        self.reason = reason


@dataclass
class _GameState:
    """What the bot remembers of the game in progress; the referee's messages stay authoritative."""

    game_id: str
    variant: Variant
    side: Side
    side_name: str
    opponent_name: str
    start: str
    game: Game | None = None
    moves: list[str] = field(default_factory=list)


_PV_LENGTH, _PV_TEXT = messages.PV_MOVES, messages.MOVE_TEXT_CHARS  # messages.Info's bounds
_VERSION: Final = messages.PROTOCOL_VERSION  # a bot's messages carry it


def clean_info(info: Any) -> dict[str, Any] | None:
    """Keeps only the `info` fields the protocol defines (`messages.Info`), each of its type and bounds;
    a field that is not is dropped, not the move (pv: its items as text, cut to the longest allowed)."""
    if not isinstance(info, dict):
        return None
    kept: dict[str, Any] = {}
    for key in messages.Info.__struct_fields__:
        value = info.get(key)
        if isinstance(value, list):  # pv: move texts
            value = [str(item)[:_PV_TEXT] for item in value][:_PV_LENGTH]
        if value is not None and _info_converts({key: value}):
            kept[key] = value
    return kept or None


def _info_converts(fields: dict[str, Any]) -> bool:
    try:
        msgspec.convert(fields, messages.Info)
    except msgspec.ValidationError:
        return False
    return True


class BotSession:
    """One connection to a referee; `run()` plays until `quit` (or the parent process dies)."""

    def __init__(
        self,
        player: Any,
        *,
        name: str,
        author: str = "",
        version: str = "",
        variants: Iterable[str] | None = None,
        endpoint: str | None = None,
        token: str | None = None,
        idle_timeout_s: float | None = None,
    ) -> None:
        self.player = player
        self.is_player = hasattr(player, "choose")
        self._seeded = self.is_player and hasattr(player, "new_game") and _takes_seed(player.new_game)
        if not self.is_player and not callable(player):
            raise TypeError("run_bot needs a function (position, clock) -> move or an object with choose(game, clock)")
        self.name = name
        self.author = author
        self.version = version
        claimed = variants if variants is not None else getattr(player, "variants", None)
        self.variants = list(claimed) if claimed else list(VARIANT_IDS)
        found = endpoint or os.environ.get(codec.ENV_ENDPOINT)
        self.token = token if token is not None else token_from_environment()
        if not found:
            raise BotConfigError(
                f"no referee endpoint: pass endpoint=... (--connect) or set {codec.ENV_ENDPOINT}"
            )
        self.endpoint: str = found
        self.idle_timeout_s = idle_timeout_s
        self.state: _GameState | None = None
        self.games_played = 0
        self.bot_id: str | None = None
        self.move_texts = MoveTexts()

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> int:
        """Plays until the referee says `quit`; returns the number of games that reached game_over."""
        parent = os.getppid()
        with zmq.Context() as context, context.socket(zmq.DEALER) as socket:
            socket.setsockopt(zmq.LINGER, 0)
            socket.setsockopt(zmq.RCVTIMEO, POLL_MS)  # a plain recv waits at most this long: no poller a message
            socket.connect(self.endpoint)
            self._send(socket, codec.HELLO, token=self.token, name=self.name, author=self.author,
                       version=self.version, variants=self.variants)
            last_heard = time.monotonic()
            while True:
                try:
                    data = socket.recv()
                except zmq.Again:  # silence for POLL_MS
                    if os.getppid() != parent:
                        return self.games_played  # the process that launched us is gone
                    if self.idle_timeout_s is not None and time.monotonic() - last_heard > self.idle_timeout_s:
                        return self.games_played
                    continue
                last_heard = time.monotonic()
                try:
                    message = codec.decode_referee(data)
                except codec.ProtocolError as error:  # an unknown type too: a bot ignores what it does not know
                    _warn(f"ignoring a message from the referee: {error}")
                    continue
                if not self._dispatch(socket, message):
                    return self.games_played

    def _dispatch(self, socket: zmq.Socket, message: messages.RefereeMessage) -> bool:
        """Handles one referee message, decoded as its class; False means stop."""
        if isinstance(message, messages.Turn):
            self._on_turn(socket, message)
        elif isinstance(message, messages.Ping):
            self._send(socket, codec.PONG, id=message.id)
        elif isinstance(message, messages.NewGame):
            self._on_new_game(socket, message)
        elif isinstance(message, messages.GameOver):
            if self.state is not None and message.game_id == self.state.game_id:
                self.games_played += 1
                self.state = None
        elif isinstance(message, messages.Quit):
            return False
        elif isinstance(message, messages.Welcome):
            self.bot_id = message.bot_id
        elif isinstance(message, messages.Refused):
            raise RefusedError(message.reason)
        elif isinstance(message, messages.Error):
            _warn(f"the referee reports a protocol error: {message.reason}")
        return True

    def _on_new_game(self, socket: zmq.Socket, message: messages.NewGame) -> None:
        game_id, side_name = message.game_id, message.side
        try:
            variant = get_variant(message.variant, **message.options)
            side = variant.side_by_name(side_name)
            start = Position.from_text(message.start).text()
        except ValueError as error:  # the engine's parse errors
            _warn(f"cannot take part in this new_game ({error}); not answering ready")
            self.state = None
            return
        self.state = _GameState(
            game_id=game_id,
            variant=variant,
            side=side,
            side_name=side_name,
            opponent_name=variant.side_name(side.other),
            start=start,
        )
        if self.is_player and hasattr(self.player, "new_game"):
            if self._seeded:
                self.player.new_game(variant, side, seed=message.seed)
            else:  # a player written before games had seeds
                self.player.new_game(variant, side)
        self._send(socket, codec.READY, game_id=game_id)

    def _on_turn(self, socket: zmq.Socket, message: messages.Turn) -> None:
        """A turn, on the bot's critical path: the game brought up to date, the player asked, the
        reply packed as a typed `move` (`_move_reply`)."""
        game_id, request_id = message.game_id, message.request_id
        state = self.state
        if state is None or state.game_id != game_id:
            _warn(f"turn for game {game_id!r} that this bot was not told about; resigning it")
            self._send(socket, codec.RESIGN, game_id=game_id, request_id=request_id)
            return
        game = self._game_for(state, message)
        clock = self._clock_for(state, message)
        if self.is_player:
            choice = self.player.choose(game, clock)
            move, info = (choice.move, getattr(choice, "info", None)) if hasattr(choice, "move") else (choice, None)
        else:
            move, info = self.player(game.position, clock), None
        if move is None:  # a player gives up by choosing no move (the human player's `quit`)
            self._send(socket, codec.RESIGN, game_id=game_id, request_id=request_id)
            return
        text = self.move_texts.text(move)
        info = clean_info(info) if info is not None else None
        if info:
            self._send(socket, codec.MOVE, game_id=game_id, request_id=request_id, move=text, info=info)
        else:
            socket.send(_move_reply(state, request_id, text))
        self._remember(state, game, move, text)

    # -- helpers ----------------------------------------------------------------------------

    def _game_for(self, state: _GameState, message: messages.Turn) -> Game:
        """The game so far: the cached one extended by the new moves, or rebuilt from `start`.

        The referee checked every move, so they are played without generating the legal moves
        again; the position they lead to must be the `position` the referee sent, else the bot plays
        on from that position alone.
        """
        moves = message.moves if isinstance(message.moves, list) else []  # decoded: always a list
        try:
            game = state.game
            known = len(state.moves)
            stale = game is None or len(game.moves) != known  # a player left it changed
            # state.moves holds str only: moves of any other type differ, and the game is rebuilt
            if game is None or stale or moves[:known] != state.moves:
                game = state.game = Game.from_position(Position.from_text(state.start))
                state.moves, known = [], 0
            for item in moves[known:]:
                text = str(item)
                game.push(self.move_texts.parse(text))
                state.moves.append(text)
            reached, sent = game.position.text(), message.position
            if reached != sent and Position.from_text(sent).text() != reached:
                raise ValueError(f"they lead to {reached!r}, not to the position sent")
            return game
        except ValueError as error:
            # The history does not replay (should not happen): play on from the position alone.
            _warn(f"cannot replay the move list ({error}); using the position text")
            state.game, state.moves = None, []
            return Game.from_position(Position.from_text(message.position))

    def _remember(self, state: _GameState, game: Game, move: Any, text: str) -> None:
        """Plays the bot's own move (sent as `text`) on the cached game, while the opponent thinks."""
        if state.game is not game or len(game.moves) != len(state.moves):
            return  # not the cached game, or a player left it changed: the next turn rebuilds it
        if isinstance(move, Move):
            played = move
        else:  # text from a move function, perhaps not canonical (" B5-A4 ")
            try:
                played = self.move_texts.parse(text)
            except ValueError:
                return  # the referee refuses it and ends the game
            text = str(played)
        game.push(played)
        state.moves.append(text)

    @staticmethod
    def _clock_for(state: _GameState, message: messages.Turn) -> Clock:
        clocks = message.clocks
        return Clock(clocks.get(state.side_name), clocks.get(state.opponent_name),
                     message.increment_ms, message.per_move_ms or None)

    @staticmethod
    def _send(socket: zmq.Socket, message_type: str, **fields: Any) -> None:
        socket.send(messages.encode_fields(message_type, fields))


def run_bot(
    player_or_function: Any,
    *,
    name: str,
    author: str = "",
    version: str = "",
    variants: Iterable[str] | None = None,
    endpoint: str | None = None,
    token: str | None = None,
    idle_timeout_s: float | None = None,
) -> int:
    """Runs a bot until the referee says `quit`; returns how many games it finished.

    `endpoint` and `token` default to the FOXGEESE_ENDPOINT / FOXGEESE_TOKEN environment variables
    the referee sets for bots it launches. `variants` defaults to the player's `variants`
    attribute, else every variant. Raises BotConfigError (no endpoint) or RefusedError.
    """
    session = BotSession(
        player_or_function, name=name, author=author, version=version, variants=variants,
        endpoint=endpoint, token=token, idle_timeout_s=idle_timeout_s,
    )
    return session.run()



def token_from_environment() -> str:
    """The token of a launched bot (read once from the descriptor FOXGEESE_TOKEN_FD names), else FOXGEESE_TOKEN."""
    fd_text = os.environ.pop(codec.ENV_TOKEN_FD, "")
    if fd_text.isdigit():
        try:
            return codec.read_token_fd(int(fd_text))
        except OSError as error:
            raise BotConfigError(f"cannot read the token from descriptor {fd_text} ({error.strerror})") from None
    return os.environ.get(codec.ENV_TOKEN, "")


class MoveTexts:
    """Move texts both ways, remembered by one bot session and bounded (emptied when full): the same
    few thousand come back game after game, and parsing or str(move) costs more than the look-up."""

    def __init__(self, limit: int = 8192) -> None:
        self._moves: BoundedMemo[str, Move] = BoundedMemo(Move.parse, limit)
        self._texts: BoundedMemo[Move, str] = BoundedMemo(str, limit)

    def parse(self, text: str) -> Move:
        """Move.parse(text), remembered (raises ValueError as it does)."""
        return self._moves[text]

    def text(self, move: Any) -> str:
        """The text a move is sent as: str(move), remembered for engine moves."""
        if move.__class__ is not Move:
            return str(move)
        return self._texts[move]


def _move_reply(state: _GameState, request_id: int, text: str) -> bytes:
    """A bare `move` (no info, no think_ms): the reply of every ply, on the referee's clock."""
    return messages.encode(messages.Move(v=_VERSION, game_id=state.game_id, request_id=request_id, move=text))


def _takes_seed(method: Callable[..., Any]) -> bool:
    """Whether a player's `new_game` accepts the game's seed (as `seed=` or **kwargs)."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "seed" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def _warn(text: str) -> None:
    print(f"foxgeese bot: {text}", file=sys.stderr, flush=True)
