"""The message classes (protocol/messages.py) are the protocol's one definition of every message:
PROTOCOL.md's message table names exactly their fields, the codec's schema is derived from them,
and what the referee sends decodes as them."""

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


def test_the_codec_checks_exactly_the_fields_of_the_bot_messages():
    for cls in messages.BOT_MESSAGE_TYPES:
        assert tuple(codec.BOT_MESSAGES[cls.kind()]) == messages.field_names(cls)
    assert tuple(codec.INFO_FIELDS) == messages.Info.__struct_fields__


def test_every_message_carries_the_version_and_its_type():
    packed = messages.encode(messages.Quit())
    assert codec.decode(packed) == {"v": 2, "type": "quit"}
    assert msgspec.msgpack.decode(messages.encode_fields("ping", {"id": 3}), type=messages.Ping) == messages.Ping(id=3)
    with pytest.raises(TypeError):
        messages.encode_fields("ping", {"id": 3, "extra": 1})
