"""Wire constants, the one encode/decode pair, and the one schema of protocol version 2 (PROTOCOL.md).

Every message is one msgpack map with string keys, carrying the protocol version and its type.
Unpacking is bounded so that a hostile peer cannot make the referee allocate without limit, and
every field of every message a bot sends is checked here, against `BOT_MESSAGES`, before anything
else reads it: the referee, `foxgeese bot check` and the SDK share these checks, and their errors
speak the protocol's words ("field 'move': expected msgpack str, got msgpack bin"), never Python's.
Fields a message does not define are dropped unread. Nothing here ever unpickles.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import msgpack
import msgspec

from foxgeese.protocol import messages

PROTOCOL_VERSION = messages.PROTOCOL_VERSION
SUPPORTED_VERSIONS = (2,)
MAX_MESSAGE_BYTES = 65536
SEED_LIMIT = messages.SEED_LIMIT  # a game's seed is below this, so every language's doubles hold it exactly
MAX_REASON_CHARS = 400  # a reason the referee sends is cut to this, so game_over always fits
MAX_ECHO_CHARS = 60  # a bot's own text quoted back in a reason (a bad move) is cut to this

ENV_ENDPOINT = "FOXGEESE_ENDPOINT"
ENV_TOKEN = "FOXGEESE_TOKEN"  # remote bots and bots started by hand only: launched bots get TOKEN_FD
ENV_TOKEN_FD = "FOXGEESE_TOKEN_FD"  # a launched bot reads its token from this inherited descriptor

# Bot -> referee
HELLO = "hello"
READY = "ready"
MOVE = "move"
RESIGN = "resign"
PONG = "pong"
# Referee -> bot
WELCOME = "welcome"
REFUSED = "refused"
NEW_GAME = "new_game"
TURN = "turn"
GAME_OVER = "game_over"
PING = "ping"
QUIT = "quit"
ERROR = "error"


class ProtocolError(ValueError):
    """A message that breaks the protocol's schema (the sender is at fault); the text says how."""


# One Packer for every call: msgpack.packb builds a new one each time, which cost more than the
# packing of a short value. Sharing it is safe: a Packer runs no Python code for the plain values
# messages hold, so the GIL makes each call whole, and it resets its buffer when a value fails.
pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
"""`pack(value)`: one msgpack value, for the parts of a message packed ahead (see `TurnPacker`)."""


def encode(message_type: str, **fields: Any) -> bytes:
    """Packs one message; the version and type are added here so no caller forgets them."""
    return pack({"v": PROTOCOL_VERSION, "type": message_type, **fields})


def _array_head(count: int) -> bytes:
    """The msgpack header of an array of `count` items."""
    if count < 16:
        return bytes((0x90 | count,))
    if count < 1 << 16:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


_ARRAY_HEADS = tuple(_array_head(count) for count in range(1024))  # a game's `moves`, without a call


def array_head(count: int) -> bytes:
    """The msgpack header of an array of `count` items (for arrays joined from items packed ahead)."""
    return _ARRAY_HEADS[count] if count < 1024 else _array_head(count)


class TurnPacker:
    """Packs one game's `turn` messages (messages.Turn) with the parts that grow packed ahead: the
    moves so far (each packed once, as it is played) and, from the caller, the `legal` array it
    keeps per position. A turn is on the referee's critical path (a reply in, the next turn out),
    so only what changes from turn to turn is built then.
    """

    def __init__(self, game_id: str, seat_names: tuple[str, str], increment_ms: int, per_move_ms: int) -> None:
        self.game_id, self.seat_names = game_id, seat_names
        self.increment_ms, self.per_move_ms = increment_ms, per_move_ms
        self._moves = bytearray()
        self._move_count = 0
        self._clocks = dict.fromkeys(seat_names, 0)  # refilled for each turn, which is packed at once

    def add_move(self, text: str) -> None:
        """A move was played: it is in the `moves` of every later turn."""
        self._moves += pack(text)
        self._move_count += 1

    def pack(self, request_id: int, position: str, legal: bytes, first_ms: int, second_ms: int) -> bytes:
        """One `turn`: `legal` is the array of move texts already packed (the referee keeps it per
        position); `first_ms` and `second_ms` are the clocks of the seats in the order given."""
        first, second = self.seat_names
        clocks = self._clocks
        clocks[first], clocks[second] = first_ms, second_ms
        # Positional: game_id, request_id, position, moves, legal, clocks, increment_ms, per_move_ms.
        return _encode(_Turn(self.game_id, request_id, position, _Raw(array_head(self._move_count) + self._moves),
                             _Raw(legal), clocks, self.increment_ms, self.per_move_ms))


_encode, _Turn, _Raw = messages.encode, messages.Turn, msgspec.Raw


_unpackb = msgpack.unpackb
_STR_ONLY = frozenset((str,))


def decode(data: bytes) -> dict[str, Any]:
    """Unpacks one message, refusing anything over the size cap or not a map with a str `type`.

    The fields are not checked here (see `check`); this is the part both directions share.
    """
    return _as_message(_unpack(data))


def decode_checked(data: bytes) -> dict[str, Any]:
    """`check(decode(data))`: a bot's message unpacked and checked, with the same verdicts.

    The referee's call for every frame a bot sends. The message of every ply, a bare `move`, is
    checked here in one pass: with exactly five keys that are `v`, `type` and the three fields of
    the schema, there is no other key to judge or drop.
    """
    message = _unpack(data)
    if message.__class__ is dict and len(message) == 5:
        kind, version, game_id, request_id, move = map(message.get, _MOVE_KEYS)
        if (kind == MOVE and version.__class__ is int and version in SUPPORTED_VERSIONS
                and game_id.__class__ is str and len(game_id) <= _GAME_ID_MAX
                and request_id.__class__ is int and _REQUEST_ID_LOW <= request_id <= _REQUEST_ID_HIGH
                and move.__class__ is str and len(move) <= _MOVE_TEXT_MAX):
            return message
    return check(_as_message(message))


def _unpack(data: bytes) -> Any:
    """One msgpack value of at most MAX_MESSAGE_BYTES, or ProtocolError."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(data)} bytes is over the {MAX_MESSAGE_BYTES}-byte cap")
    try:
        # The length check above bounds every container inside: unpackb limits each kind (str, bin,
        # array, map, ext) to the length of its input (msgpack >= 1.0), and reads str as str.
        # Map keys other than str are judged below, in the protocol's words.
        message = _unpackb(data, strict_map_key=False)
    except msgpack.ExtraData:
        raise ProtocolError("not one msgpack value: bytes left over after the map") from None
    except Exception:  # msgpack raises several unrelated types for bad bytes
        raise ProtocolError("not valid msgpack") from None
    return message


def _as_message(message: Any) -> dict[str, Any]:
    """An unpacked value that is a map with str keys and a str `type`, or ProtocolError."""
    if message.__class__ is not dict:
        raise ProtocolError(f"message is {wire_type(message)}, expected a msgpack map")
    if not _STR_ONLY.issuperset(map(type, message)):  # one pass in C over the keys
        key = next(key for key in message if key.__class__ is not str)
        raise ProtocolError(f"map key is {wire_type(key)}, expected msgpack str")
    if "type" not in message:
        raise ProtocolError("missing field type")
    if not isinstance(message["type"], str):
        raise ProtocolError(f"field type: expected msgpack str, got {wire_type(message['type'])}")
    return message


def fields_of(data: bytes) -> dict[str, Any]:
    """The fields of a message the referee packed itself (a turn packed ahead), for traces and tests."""
    message = decode(data)
    del message["v"], message["type"]
    return message


def wire_type(value: Any) -> str:
    """The msgpack name of a decoded value's type, for error messages."""
    if value is None:
        return "msgpack nil"
    if isinstance(value, bool):
        return "msgpack bool"
    if isinstance(value, int):
        return "msgpack int"
    if isinstance(value, float):
        return "msgpack float"
    if isinstance(value, str):
        return "msgpack str"
    if isinstance(value, (bytes, bytearray)):
        return "msgpack bin"
    if isinstance(value, (list, tuple)):
        return "msgpack array"
    if isinstance(value, dict):
        return "msgpack map"
    return "msgpack ext"  # ExtType, Timestamp


# ----------------------------------------------------------------------------- the schema


@dataclass(frozen=True)
class Field:
    """One field of a message: its msgpack kind and bounds. `kind` is str, int, bool, list (of str) or dict."""

    kind: type
    required: bool = True
    max_len: int = 200  # str: characters; list: items (each a str of at most `item_len`)
    item_len: int = 200
    low: int = 0
    high: int = SEED_LIMIT - 1


def _field_of(kind: msgspec.inspect.Type, required: bool) -> Field:
    """The codec's Field for one field of a message class (see messages.py)."""
    if isinstance(kind, msgspec.inspect.StrType):
        return Field(str, required, max_len=kind.max_length or MAX_MESSAGE_BYTES)
    if isinstance(kind, msgspec.inspect.BoolType):
        return Field(bool, required)
    if isinstance(kind, msgspec.inspect.IntType):
        return Field(int, required, low=kind.ge if kind.ge is not None else -(2**63),
                     high=kind.le if kind.le is not None else 2**63 - 1)
    if isinstance(kind, msgspec.inspect.ListType) and isinstance(kind.item_type, msgspec.inspect.StrType):
        return Field(list, required, max_len=kind.max_length or MAX_MESSAGE_BYTES,
                     item_len=kind.item_type.max_length or MAX_MESSAGE_BYTES)
    if isinstance(kind, (msgspec.inspect.StructType, msgspec.inspect.DictType)):
        return Field(dict, required)
    raise TypeError(f"no wire check for {kind!r}")


def _schema_of(cls: type[msgspec.Struct]) -> dict[str, Field]:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return {f.name: _field_of(f.type, f.required) for f in info.fields if f.name != "v"}


# Every message a bot sends, field by field, derived from its class in messages.py (PROTOCOL.md,
# "Messages"): nothing else is read.
BOT_MESSAGES: dict[str, dict[str, Field]] = {cls.kind(): _schema_of(cls) for cls in messages.BOT_MESSAGE_TYPES}

_GAME_ID, _REQUEST_ID, _MOVE_TEXT = (BOT_MESSAGES[MOVE][name] for name in ("game_id", "request_id", "move"))
# The same bounds as plain module names, and the keys of a bare `move`, for decode_checked's one pass.
_GAME_ID_MAX, _MOVE_TEXT_MAX = _GAME_ID.max_len, _MOVE_TEXT.max_len
_REQUEST_ID_LOW, _REQUEST_ID_HIGH = _REQUEST_ID.low, _REQUEST_ID.high
_MOVE_KEYS = ("type", "v", "game_id", "request_id", "move")

# The `info` fields of a `move` (pv: a list of move texts); unknown keys are dropped.
INFO_FIELDS: dict[str, Field] = _schema_of(messages.Info)


def check(message: dict[str, Any]) -> dict[str, Any]:
    """A decoded bot message with every field checked: returns only what the schema defines.

    Raises ProtocolError with a short reason in the protocol's words. The version must be one the
    referee speaks; an unknown `type` is an error too.
    """
    if "v" not in message:
        raise ProtocolError("missing field v")
    version = message["v"]
    if version.__class__ is not int:
        raise ProtocolError(f"field v: expected msgpack int, got {wire_type(version)}")
    if version not in SUPPORTED_VERSIONS:
        raise ProtocolError(f"protocol version {version} is not {PROTOCOL_VERSION}")
    kind = message["type"]
    schema = BOT_MESSAGES.get(kind)
    if schema is None:
        raise ProtocolError(f"unknown message type {cut(kind, MAX_ECHO_CHARS)!r}")
    clean: dict[str, Any] = {"v": version, "type": kind}
    for name, spec in schema.items():
        if name in message:
            clean[name] = _checked(name, message[name], spec)
        elif spec.required:
            raise ProtocolError(f"'{kind}' message: missing field {name}")
    if "info" in clean:
        clean["info"] = check_info(clean["info"])
    return clean


def _checked(name: str, value: Any, spec: Field) -> Any:
    kind = spec.kind
    if kind is bool:
        if value.__class__ is not bool:
            raise ProtocolError(f"field {name}: expected msgpack bool, got {wire_type(value)}")
        return value
    if kind is int:
        if value.__class__ is not int:
            raise ProtocolError(f"field {name}: expected msgpack int, got {wire_type(value)}")
        if not spec.low <= value <= spec.high:
            raise ProtocolError(f"field {name}: {value} is out of range {spec.low}..{spec.high}")
        return value
    if kind is str:
        if value.__class__ is not str:
            raise ProtocolError(f"field {name}: expected msgpack str, got {wire_type(value)}")
        if len(value) > spec.max_len:
            raise ProtocolError(f"field {name}: str of {len(value)} characters, at most {spec.max_len}")
        return value
    if kind is list:
        if value.__class__ is not list:
            raise ProtocolError(f"field {name}: expected msgpack array, got {wire_type(value)}")
        if len(value) > spec.max_len:
            raise ProtocolError(f"field {name}: array of {len(value)} items, at most {spec.max_len}")
        for item in value:
            if item.__class__ is not str:
                raise ProtocolError(f"field {name}: items must be msgpack str, got {wire_type(item)}")
            if len(item) > spec.item_len:
                raise ProtocolError(f"field {name}: an item of {len(item)} characters, at most {spec.item_len}")
        return value
    if value.__class__ is not dict:
        raise ProtocolError(f"field {name}: expected msgpack map, got {wire_type(value)}")
    return value


def check_info(info: Any) -> dict[str, Any]:
    """The known `info` fields of a move, checked; unknown keys are dropped.

    Raises ProtocolError naming the first field of the wrong type: the referee judges a bot by
    this, and `foxgeese bot check` uses the same function so the two never disagree.
    """
    if info is None:
        return {}
    if not isinstance(info, dict):
        raise ProtocolError(f"field info: expected msgpack map, got {wire_type(info)}")
    return {key: _checked(f"info.{key}", info[key], spec) for key, spec in INFO_FIELDS.items() if key in info}


def require(message: dict[str, Any], field: str, kind: type | tuple[type, ...]) -> Any:
    """Returns `message[field]`, raising ProtocolError if it is missing or of the wrong type.

    For messages the referee sends (the SDK and the example bots read those); a bot's own
    messages go through `check`.
    """
    if field not in message:
        sent_type = cut(repr(message.get("type")), MAX_ECHO_CHARS)  # the sender's text, escaped: printable and short
        raise ProtocolError(f"{sent_type} message: missing field {field}")
    value = message[field]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise ProtocolError(f"field {field}: expected {_names(kinds)}, got msgpack bool")
    if not isinstance(value, kinds):
        raise ProtocolError(f"field {field}: expected {_names(kinds)}, got {wire_type(value)}")
    return value


def _names(kinds: tuple[type, ...]) -> str:
    names = {str: "msgpack str", int: "msgpack int", float: "msgpack float", list: "msgpack array",
             dict: "msgpack map", bool: "msgpack bool"}
    return " or ".join(names.get(kind, kind.__name__) for kind in kinds)


def cut(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """`text` cut to `limit` characters (marked with an ellipsis), so what the referee sends is bounded."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


def is_seed(value: Any) -> bool:
    """A game seed as the protocol defines it: an int with 0 <= seed < 2**53."""
    return value.__class__ is int and 0 <= value < SEED_LIMIT


def read_token_fd(fd: int) -> str:
    """Reads the token behind an inherited descriptor (the referee's sealed memory file), then closes it.

    Positioned reads from offset 0 (pread): another process of the same user that duplicated the
    descriptor shares its file offset, and could move it to the end to make a plain read() find nothing.
    """
    chunks = []
    offset = 0
    try:
        while chunk := os.pread(fd, 256, offset):
            chunks.append(chunk)
            offset += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("ascii", "replace").strip()
