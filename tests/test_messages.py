"""The message classes (protocol/messages.py) are the protocol's one definition of every message:
PROTOCOL.md's message table names exactly their fields, what a bot sends is decoded as them (and
refused without a field or the version), and what the referee sends decodes as them."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from foxgeese.protocol import codec, messages

ROOT = Path(__file__).resolve().parent.parent
# Backticked words in the table that are values, message types or nested fields, not a message's own fields.
NOT_FIELDS = {"fox", "geese", "hare", "hounds", "draw"} | set(messages.BY_KIND)
NESTED = {"new_game": set(messages.TimeControlFields.__struct_fields__)}


def table_rows() -> dict[str, set[str]]:
    """type -> the field names its row of PROTOCOL.md's two message tables lists."""
    page = (ROOT / "PROTOCOL.md").read_text()
    section = page[page.index("## Messages"):page.index("Details, field by field")]
    rows = {}
    for line in section.splitlines():
        found = re.match(r"^\| `(\w+)` \| (.*) \|$", line)
        if found:
            kind, cell = found.groups()
            own = set(messages.field_names(messages.BY_KIND[kind])) if kind in messages.BY_KIND else set()
            rows[kind] = set(re.findall(r"`(\w+)`", cell)) - ((NOT_FIELDS | NESTED.get(kind, set())) - own)
    return rows


@pytest.mark.parametrize("cls", messages.BOT_MESSAGE_TYPES + messages.REFEREE_MESSAGE_TYPES,
                         ids=lambda cls: cls.kind())
def test_the_page_lists_each_message_with_its_fields(cls):
    assert table_rows()[cls.kind()] == set(messages.field_names(cls))


def test_the_page_lists_no_other_message():
    assert set(table_rows()) == set(messages.BY_KIND)


SAMPLES = {"hello": {"token": "t", "name": "n", "author": "a", "version": "1", "variants": ["hare-and-hounds"]},
           "ready": {"game_id": "g"},
           "move": {"game_id": "g", "request_id": 1, "move": "b1-b2", "info": {"depth": 3}, "think_ms": 5},
           "resign": {"game_id": "g", "request_id": 1}, "pong": {"id": 3}}
OPTIONAL = {"info", "think_ms"}


@pytest.mark.parametrize("cls", messages.BOT_MESSAGE_TYPES, ids=lambda cls: cls.kind())
def test_the_referee_decodes_a_bot_message_as_its_class_and_requires_each_field_and_the_version(cls):
    fields = SAMPLES[cls.kind()]
    assert set(fields) == set(messages.field_names(cls))  # every field, so dropping each is tested below
    decoded = codec.decode_bot(codec.pack({"v": 2, "type": cls.kind(), **fields}))
    assert decoded.__class__ is cls and messages.to_fields(decoded) == {"v": 2, "type": cls.kind(), **fields}
    whole = {"v": 2, "type": cls.kind(), **fields}
    for name in ("v", *fields):
        without = codec.pack({key: value for key, value in whole.items() if key != name})
        if name in OPTIONAL:
            assert codec.decode_bot(without).__class__ is cls
            continue
        with pytest.raises(codec.ProtocolError) as refused:
            codec.decode_bot(without)
        wanted = "missing field v" if name == "v" else f"'{cls.kind()}' message: missing field {name}"
        assert str(refused.value) == wanted


def test_every_message_carries_the_version_and_its_type():
    packed = messages.encode(messages.Quit())
    assert codec.decode(packed) == {"v": 2, "type": "quit"}
    assert msgspec.msgpack.decode(messages.encode_fields("ping", {"id": 3}), type=messages.Ping) == messages.Ping(id=3)
    with pytest.raises(TypeError):
        messages.encode_fields("ping", {"id": 3, "extra": 1})
