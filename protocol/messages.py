"""Every message of protocol version 2, one typed definition each (msgspec Structs tagged by `type`).

These classes are the protocol's message table (PROTOCOL.md, "Messages"; tests/test_messages.py
checks the page against them). What the referee sends is built from them and packed by one encoder,
with no hand-counted map headers. What a bot sends is decoded and validated as them in one call
(`codec.decode_bot`, one msgspec Decoder over `BotMessage`); the codec only words a refusal in
the protocol's terms. The bounds are the classes' own (`Meta`): names and other texts at most 200
characters, a move 256, ids and counters 0 to 2**53-1, `info` integers signed 64-bit. A bot's
message must carry `v` (no default: `encode_fields` fills it); the referee's have it by default.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec

PROTOCOL_VERSION: Final = 2
SEED_LIMIT = 2**53  # a game's seed is below this, so every language's doubles hold it exactly

Text = Annotated[str, msgspec.Meta(max_length=200)]
Id = Annotated[int, msgspec.Meta(ge=0, le=SEED_LIMIT - 1)]
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
MOVE_TEXT_CHARS = 256  # a move's text, at most
PV_MOVES = 256  # the moves of a principal variation (`info.pv`), at most
MoveText = Annotated[str, msgspec.Meta(max_length=MOVE_TEXT_CHARS)]
UNSET: Any = msgspec.UNSET
Unset = msgspec.UnsetType


class Message(msgspec.Struct, tag_field="type", kw_only=True):
    """A message: a msgpack map with `type` (the class's tag) and `v`, the protocol version."""

    @classmethod
    def kind(cls) -> str:
        return str(cls.__struct_config__.tag)


# ----------------------------------------------------------------------------- bot -> referee


class FromBot(Message, kw_only=True):
    """A bot's message: `v` is required, so one without it does not decode (the encoder fills it in)."""

    v: Literal[2]


class Hello(FromBot, tag="hello"):
    token: Text
    name: Text
    author: Text
    version: Text
    variants: Annotated[list[Annotated[str, msgspec.Meta(max_length=64)]], msgspec.Meta(max_length=16)]


class Ready(FromBot, tag="ready"):
    game_id: Text


class Info(msgspec.Struct, omit_defaults=True):
    """A move's optional search info; keys not listed are dropped."""

    score: Int64 | Unset = UNSET
    mate: Int64 | Unset = UNSET
    depth: Int64 | Unset = UNSET
    seldepth: Int64 | Unset = UNSET
    nodes: Int64 | Unset = UNSET
    time_ms: Int64 | Unset = UNSET
    pv: Annotated[list[MoveText], msgspec.Meta(max_length=PV_MOVES)] | Unset = UNSET
    playouts: Int64 | Unset = UNSET  # MCTS simulations
    cut: bool | Unset = UNSET  # the clock stopped a fixed budget before it was spent


class Move(FromBot, tag="move"):
    game_id: Text
    request_id: Id
    move: MoveText
    info: Info | Unset = UNSET
    think_ms: Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)] | Unset = UNSET


class Resign(FromBot, tag="resign"):
    game_id: Text
    request_id: Id


class Pong(FromBot, tag="pong"):
    id: Id


BotMessage = Hello | Ready | Move | Resign | Pong
BOT_MESSAGE_TYPES: tuple[type[FromBot], ...] = (Hello, Ready, Move, Resign, Pong)


# ----------------------------------------------------------------------------- referee -> bot


class FromReferee(Message, kw_only=True):
    """A referee's message: `v` is filled in."""

    v: int = PROTOCOL_VERSION


class Welcome(FromReferee, tag="welcome"):
    referee: str
    bot_id: str


class Refused(FromReferee, tag="refused"):
    reason: str
    supported: list[int] | Unset = UNSET


class TimeControlFields(msgspec.Struct):
    """`new_game`'s `time_control`: the unused ones are 0."""

    base_ms: int
    increment_ms: int
    per_move_ms: int


class NewGame(FromReferee, tag="new_game"):
    game_id: str
    variant: str
    options: dict[str, Any]
    side: str
    time_control: TimeControlFields
    start: str
    seed: int


class Turn(FromReferee, tag="turn"):
    """`moves` and `legal` are arrays of move texts; the referee passes them packed ahead (Raw)."""

    game_id: str
    request_id: int
    position: str
    moves: list[str] | msgspec.Raw
    legal: list[str] | msgspec.Raw
    clocks: dict[str, int]
    increment_ms: int
    per_move_ms: int


class GameOver(FromReferee, tag="game_over"):
    game_id: str
    winner: str
    termination: str
    reason: str
    last_move: str
    position: str


class Ping(FromReferee, tag="ping"):
    id: int


class Quit(FromReferee, tag="quit"):
    pass


class Error(FromReferee, tag="error"):
    reason: str


RefereeMessage = Welcome | Refused | NewGame | Turn | GameOver | Ping | Quit | Error
REFEREE_MESSAGE_TYPES: tuple[type[FromReferee], ...] = (Welcome, Refused, NewGame, Turn, GameOver, Ping, Quit, Error)

BY_KIND: dict[str, type[Message]] = {cls.kind(): cls for cls in BOT_MESSAGE_TYPES + REFEREE_MESSAGE_TYPES}

encode = msgspec.msgpack.Encoder().encode
"""`encode(message)`: one message's msgpack bytes."""


def encode_fields(kind: str, fields: dict[str, Any]) -> bytes:
    """The message of type `kind` with `fields` and the version, packed (a TypeError for a field it does not have)."""
    return encode(BY_KIND[kind](v=PROTOCOL_VERSION, **fields))


def to_fields(message: msgspec.Struct) -> dict[str, Any]:
    """A message (or a move's Info) as a plain dict: `type`, `v` and the fields that are set, for
    traces and records."""
    fields: dict[str, Any] = msgspec.to_builtins(message)
    if "v" in fields:  # first, as every message is shown (`v` is a kw-only field, so msgspec puts it last)
        return {"v": fields.pop("v"), **fields}
    return fields


def field_names(cls: type[Message]) -> tuple[str, ...]:
    """A message's own fields, in order (not `v` and `type`)."""
    return tuple(name for name in cls.__struct_fields__ if name != "v")
