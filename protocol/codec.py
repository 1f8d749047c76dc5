"""Wire constants and the one encode/decode pair of protocol version 1 (see PROTOCOL.md).

Every message is one msgpack map with string keys, carrying the protocol version and its type.
Unpacking is bounded so that a hostile peer cannot make the referee allocate without limit;
nothing here ever unpickles.
"""

from __future__ import annotations

from typing import Any

import msgpack

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = (1,)
MAX_MESSAGE_BYTES = 65536
SEED_LIMIT = 2**53  # a game's seed is below this, so every language's doubles hold it exactly

ENV_ENDPOINT = "FOXGEESE_ENDPOINT"
ENV_TOKEN = "FOXGEESE_TOKEN"

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
    """A message that is not a well-formed protocol-1 map (the sender is at fault)."""


def encode(message_type: str, **fields: Any) -> bytes:
    """Packs one message; the version and type are added here so no caller forgets them."""
    return msgpack.packb({"v": PROTOCOL_VERSION, "type": message_type, **fields}, use_bin_type=True)


def decode(data: bytes) -> dict[str, Any]:
    """Unpacks one message, refusing anything over the size cap or not a map with a string `type`."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(data)} bytes is over the {MAX_MESSAGE_BYTES}-byte cap")
    try:
        # The length check above bounds every container inside; the limits below repeat it per kind.
        message = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            max_str_len=MAX_MESSAGE_BYTES,
            max_bin_len=MAX_MESSAGE_BYTES,
            max_array_len=MAX_MESSAGE_BYTES,
            max_map_len=MAX_MESSAGE_BYTES,
            max_ext_len=MAX_MESSAGE_BYTES,
        )
    except Exception as error:  # msgpack raises several unrelated types for bad bytes
        raise ProtocolError(f"not a msgpack message: {error}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"message is a msgpack {type(message).__name__}, expected a map")
    if not isinstance(message.get("type"), str):
        raise ProtocolError("message has no string field 'type'")
    return message


def require(message: dict[str, Any], field: str, kind: type | tuple[type, ...]) -> Any:
    """Returns `message[field]`, raising ProtocolError if it is missing or of the wrong type."""
    if field not in message:
        raise ProtocolError(f"'{message.get('type')}' message lacks field '{field}'")
    value = message[field]
    if isinstance(value, bool) and kind in (int, (int, float)):
        raise ProtocolError(f"field '{field}' must be {_kind_name(kind)}, got bool")
    if not isinstance(value, kind):
        raise ProtocolError(f"field '{field}' must be {_kind_name(kind)}, got {type(value).__name__}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    if isinstance(kind, tuple):
        return " or ".join(k.__name__ for k in kind)
    return kind.__name__


# The `info` fields of a `move`, with the type each must have (pv: a list of move strings).
INFO_FIELDS: dict[str, type] = {
    "score": int, "mate": int, "depth": int, "seldepth": int, "nodes": int, "time_ms": int, "pv": list,
}


def check_info(info: Any) -> dict[str, Any]:
    """The known `info` fields of a move, type-checked; unknown keys are dropped.

    Raises ProtocolError naming the first field of the wrong type: the referee judges a bot by
    this, and `foxgeese bot check` uses the same function so the two never disagree.
    """
    if info is None:
        return {}
    if not isinstance(info, dict):
        raise ProtocolError(f"field 'info' must be a map, got {type(info).__name__}")
    clean = {}
    for key, kind in INFO_FIELDS.items():
        if key in info:
            value = require(info, key, kind)
            if key == "pv" and not all(isinstance(item, str) for item in value):
                raise ProtocolError("info field 'pv' must be a list of str")
            clean[key] = value
    return clean
