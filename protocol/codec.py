"""Wire constants and the decoding of protocol version 2's messages as their classes (PROTOCOL.md).

Every message is one msgpack map with string keys, carrying the protocol version and its type.
Unpacking is bounded so that a hostile peer cannot make the referee allocate without limit, and
every message a bot sends is decoded as its class in messages.py (`decode_bot`: one msgspec
Decoder decodes and validates it) before anything else reads it: the referee and `foxgeese bot
check` share this, as the SDK reads the referee's (`decode_referee`), and a refusal speaks the
protocol's words ("field move: expected msgpack str, got msgpack bin"), never Python's. Fields a
message does not define are skipped. Nothing here ever unpickles.
"""

from __future__ import annotations

import os
import re
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
    """Unpacks one message as a plain map, refusing anything over the size cap or not a map with a
    str `type`; its fields are not checked (see `decode_bot`, `decode_referee`). For what a message
    that did not decode still tells: a refused hello's token and version, `bot check`'s report."""
    return _as_message(_unpack(data))


def _unpack(data: bytes, *, refuse_repeats: bool = False) -> Any:
    """One msgpack value of at most MAX_MESSAGE_BYTES, or ProtocolError. With `refuse_repeats`, a map
    with a key twice is refused (else its last value counts, as msgpack reads it)."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(data)} bytes is over the {MAX_MESSAGE_BYTES}-byte cap")
    try:
        # The length check above bounds every container inside: unpackb limits each kind (str, bin,
        # array, map, ext) to the length of its input (msgpack >= 1.0), and reads str as str.
        # Map keys other than str are judged below, in the protocol's words.
        pairs_hook = _map_without_repeats if refuse_repeats else None
        message = _unpackb(data, strict_map_key=False, object_pairs_hook=pairs_hook)
    except ProtocolError:
        raise
    except msgpack.ExtraData:
        raise ProtocolError("not one msgpack value: bytes left over after the map") from None
    except Exception:  # msgpack raises several unrelated types for bad bytes
        raise ProtocolError("not valid msgpack") from None
    return message


def _map_without_repeats(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    mapped: dict[Any, Any] = {}
    for key, value in pairs:
        if key in mapped:
            raise ProtocolError(f"map has key {cut(repr(key), MAX_ECHO_CHARS)} twice")
        mapped[key] = value
    return mapped


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


# ----------------------------------------------------------------------------- messages as their classes


_decode_bot = msgspec.msgpack.Decoder(messages.BotMessage).decode
_decode_referee = msgspec.msgpack.Decoder(messages.RefereeMessage).decode
_BOT_CLASSES: dict[str, type[messages.Message]] = {cls.kind(): cls for cls in messages.BOT_MESSAGE_TYPES}
_REFEREE_CLASSES: dict[str, type[messages.Message]] = {cls.kind(): cls for cls in messages.REFEREE_MESSAGE_TYPES}


def decode_bot(data: bytes) -> messages.BotMessage:
    """A bot's message, decoded and validated as its class in messages.py in one call.

    The referee's call for every frame a bot sends (and `foxgeese bot check`'s). Fields a message
    does not define are skipped. Raises ProtocolError in the protocol's words (see `_refusal`).
    """
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(data)} bytes is over the {MAX_MESSAGE_BYTES}-byte cap")
    try:
        return _decode_bot(data)
    except msgspec.DecodeError as error:  # ValidationError included
        raise ProtocolError(_refusal(data, error, _BOT_CLASSES)) from None
    except RecursionError:  # nested deeper than msgspec goes (in a field to skip, say): msgpack reads it
        pass
    try:
        return msgspec.convert(_as_message(_unpack(data)), messages.BotMessage)
    except msgspec.ValidationError as error:
        raise ProtocolError(_refusal(data, error, _BOT_CLASSES)) from None


def decode_referee(data: bytes) -> messages.RefereeMessage:
    """A referee's message, decoded and validated as its class in messages.py: the SDK's reading
    (and a test's). Raises ProtocolError in the protocol's words, as `decode_bot` does."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(data)} bytes is over the {MAX_MESSAGE_BYTES}-byte cap")
    try:
        return _decode_referee(data)
    except (msgspec.DecodeError, RecursionError) as error:
        raise ProtocolError(_refusal(data, error, _REFEREE_CLASSES)) from None


def _refusal(data: bytes, error: Exception, classes: dict[str, type[messages.Message]]) -> str:
    """Why a message did not decode as one of `classes`, in the protocol's words and order: the bytes,
    the map, its `type`, the version, the type's name, then the field msgspec's error names."""
    # Raises for bytes that are no msgpack map with a str `type`, or a map with a key twice (msgspec
    # and msgpack would each read another of its values: the reason must be about what was sent).
    message = _as_message(_unpack(data, refuse_repeats=True))
    if "v" not in message:
        return "missing field v"
    version = message["v"]
    if version.__class__ is not int:
        return f"field v: expected msgpack int, got {wire_type(version)}"
    if version not in SUPPORTED_VERSIONS:
        return f"protocol version {version} is not {PROTOCOL_VERSION}"
    kind = message["type"]
    cls = classes.get(kind)
    if cls is None:
        return f"unknown message type {cut(kind, MAX_ECHO_CHARS)!r}"
    try:
        return _field_refusal(kind, cls, message, str(error))
    except Exception:  # noqa: BLE001 - a path msgspec names that the map does not have: still a refusal
        return f"not a valid '{kind}' message"


def _field_refusal(kind: str, cls: type[messages.Message], message: dict[str, Any], text: str) -> str:
    """What is wrong with the field msgspec's error `text` points at (its own words are Python's):
    the value found there in `message`, described against the field's type in `cls`."""
    missing = _MISSING.match(text)
    if missing:  # at the top, or inside a field (`time_control`)
        return f"'{kind}' message: missing field {'.'.join([*_steps(missing[2] or ''), missing[1]])}"
    key_in = _KEY_IN.search(text)
    if key_in is not None:  # a map inside with a key that is no str (info)
        return f"field {'.'.join(_steps(key_in[1]))}: map key is not msgpack str"
    where = _WHERE.search(text)
    if where is None:
        return f"not a valid '{kind}' message"
    steps = _steps(where[1])
    index = steps.pop() if steps and steps[-1].isdigit() else None
    name = ".".join(steps)
    value: Any = message
    for step in steps:
        value = value[step]
    kind_info: Any = msgspec.inspect.type_info(cls)
    for step in steps:
        kind_info = _unwrap(next(f.type for f in kind_info.fields if f.encode_name == step))
    in_container = index is not None or where[1].endswith("[...]")  # an item of an array, a value of a map
    if in_container:
        items, kind_info, what = ([value[int(index)]], kind_info.item_type, "items") if index is not None else (
            list(value.values()), kind_info.value_type, "values")
        python_type, expected = _wire_kind(kind_info)
        for item in items:
            if not _decodes_as(item, python_type):
                return f"field {name}: {what} must be {expected}, got {wire_type(item)}"
        value = items[0]
    else:
        python_type, expected = _wire_kind(kind_info)
        if not _decodes_as(value, python_type):
            return f"field {name}: expected {expected}, got {wire_type(value)}"
    if isinstance(kind_info, msgspec.inspect.StrType):
        shape = "an item" if in_container else "str"
        return f"field {name}: {shape} of {len(value)} characters, at most {kind_info.max_length}"
    if isinstance(kind_info, msgspec.inspect.ListType):
        return f"field {name}: array of {len(value)} items, at most {kind_info.max_length}"
    if isinstance(kind_info, msgspec.inspect.IntType):
        return f"field {name}: {value} is out of range {kind_info.ge}..{kind_info.le}"
    return f"not a valid '{kind}' message (field {name})"


_MISSING = re.compile(r"^Object missing required field `(\w+)`(?: - at `(\$[^`]*)`)?$")
_KEY_IN = re.compile(r" - at `key` in `(\$[^`]*)`$")
_WHERE = re.compile(r" - at `(\$[^`]*)`$")
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]")
_WIRE_KINDS = ((msgspec.inspect.StrType, str, "msgpack str"), (msgspec.inspect.IntType, int, "msgpack int"),
               (msgspec.inspect.BoolType, bool, "msgpack bool"), (msgspec.inspect.ListType, list, "msgpack array"),
               (msgspec.inspect.StructType, dict, "msgpack map"), (msgspec.inspect.DictType, dict, "msgpack map"))


def _wire_kind(kind: Any) -> tuple[type | None, str]:
    """The Python type a field of msgspec type `kind` decodes to from msgpack, and its msgpack name."""
    for inspected, python_type, name in _WIRE_KINDS:
        if isinstance(kind, inspected):
            return python_type, name
    return None, "a value of its type"


def _decodes_as(value: Any, python_type: type | None) -> bool:
    return value.__class__ is python_type  # exactly: a bool is no int here


def _steps(path: str) -> list[str]:
    """msgspec's path to a value as keys and indexes: "$.info.pv[1]" -> info, pv, 1."""
    return [name or index for name, index in _STEP.findall(path)]


def _unwrap(kind: Any) -> Any:
    """A field's type without an alternative that is never decoded (a turn's `moves: list[str] | Raw`)."""
    if isinstance(kind, msgspec.inspect.UnionType):
        return next(t for t in kind.types if _wire_kind(t)[0] is not None)
    return kind


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
