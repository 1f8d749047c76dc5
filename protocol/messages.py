"""Every message of protocol version 2, one typed definition each (msgspec Structs tagged by `type`).

These classes are the protocol's message table (PROTOCOL.md, "Messages"; tests/test_messages.py
checks the page against them). What the referee sends is built from them and packed by one encoder,
with no hand-counted map headers. What a bot sends is judged by the codec against the schema it
derives from the bot's classes here (`codec.BOT_MESSAGES`), field by field, in the protocol's words.
The bounds are the classes' own (`Meta`): names and other texts at most 200 characters, a move 256,
ids and counters 0 to 2**53-1, `info` integers signed 64-bit.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

PROTOCOL_VERSION = 2
SEED_LIMIT = 2**53  # a game's seed is below this, so every language's doubles hold it exactly

Text = Annotated[str, msgspec.Meta(max_length=200)]
Id = Annotated[int, msgspec.Meta(ge=0, le=SEED_LIMIT - 1)]
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
MoveText = Annotated[str, msgspec.Meta(max_length=256)]
UNSET: Any = msgspec.UNSET
Unset = msgspec.UnsetType


class Message(msgspec.Struct, tag_field="type", kw_only=True):
    """A message: a msgpack map with `type` (the class's tag) and `v`, the protocol version."""

    v: int = PROTOCOL_VERSION

    @classmethod
    def kind(cls) -> str:
        return str(cls.__struct_config__.tag)


# ----------------------------------------------------------------------------- bot -> referee


class Hello(Message, tag="hello"):
    token: Text
    name: Text
    author: Text
    version: Text
    variants: Annotated[list[Annotated[str, msgspec.Meta(max_length=64)]], msgspec.Meta(max_length=16)]


class Ready(Message, tag="ready"):
    game_id: Text


class Info(msgspec.Struct, omit_defaults=True):
    """A move's optional search info; keys not listed are dropped."""

    score: Int64 | Unset = UNSET
    mate: Int64 | Unset = UNSET
    depth: Int64 | Unset = UNSET
    seldepth: Int64 | Unset = UNSET
    nodes: Int64 | Unset = UNSET
    time_ms: Int64 | Unset = UNSET
    pv: Annotated[list[MoveText], msgspec.Meta(max_length=256)] | Unset = UNSET
    playouts: Int64 | Unset = UNSET  # MCTS simulations
    cut: bool | Unset = UNSET  # the clock stopped a fixed budget before it was spent


class Move(Message, tag="move"):
    game_id: Text
    request_id: Id
    move: MoveText
    info: Info | Unset = UNSET
    think_ms: Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)] | Unset = UNSET


class Resign(Message, tag="resign"):
    game_id: Text
    request_id: Id


class Pong(Message, tag="pong"):
    id: Id


BOT_MESSAGE_TYPES: tuple[type[Message], ...] = (Hello, Ready, Move, Resign, Pong)


# ----------------------------------------------------------------------------- referee -> bot


class Welcome(Message, tag="welcome"):
    referee: str
    bot_id: str


class Refused(Message, tag="refused"):
    reason: str
    supported: list[int] | Unset = UNSET


class TimeControlFields(msgspec.Struct):
    """`new_game`'s `time_control`: the unused ones are 0."""

    base_ms: int
    increment_ms: int
    per_move_ms: int


class NewGame(Message, tag="new_game"):
    game_id: str
    variant: str
    options: dict[str, Any]
    side: str
    time_control: TimeControlFields
    start: str
    seed: int


class Turn(Message, tag="turn"):
    """`moves` and `legal` are arrays of move texts; the referee passes them packed ahead (Raw)."""

    game_id: str
    request_id: int
    position: str
    moves: list[str] | msgspec.Raw
    legal: list[str] | msgspec.Raw
    clocks: dict[str, int]
    increment_ms: int
    per_move_ms: int


class GameOver(Message, tag="game_over"):
    game_id: str
    winner: str
    termination: str
    reason: str
    last_move: str
    position: str


class Ping(Message, tag="ping"):
    id: int


class Quit(Message, tag="quit"):
    pass


class Error(Message, tag="error"):
    reason: str


REFEREE_MESSAGE_TYPES: tuple[type[Message], ...] = (Welcome, Refused, NewGame, Turn, GameOver, Ping, Quit, Error)

BY_KIND: dict[str, type[Message]] = {cls.kind(): cls for cls in BOT_MESSAGE_TYPES + REFEREE_MESSAGE_TYPES}

encode = msgspec.msgpack.Encoder().encode
"""`encode(message)`: one message's msgpack bytes."""


def encode_fields(kind: str, fields: dict[str, Any]) -> bytes:
    """The message of type `kind` with `fields`, packed (a TypeError for a field it does not have)."""
    return encode(BY_KIND[kind](**fields))


def field_names(cls: type[Message]) -> tuple[str, ...]:
    """A message's own fields, in order (not `v` and `type`)."""
    return tuple(name for name in cls.__struct_fields__ if name != "v")
