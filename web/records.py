"""Game records uploaded to `foxgeese serve` to be replayed: checked by the one record schema,
kept in a bounded store.

An upload is checked by `GameRecord.from_json` (protocol/record.py, the one schema of a record
file: size, depth and the JSON type of every field) and then replayed by the engine; any
failure is one line for the page. What the server keeps is bounded by count and by bytes: the
oldest uploads are dropped first, so uploads cannot grow the server without limit.
"""

from __future__ import annotations

import json
import secrets
from collections import OrderedDict
from typing import Any

from foxgeese.protocol.record import GameRecord, RecordError
from foxgeese.tournaments.replay import ReplayError, replay_data

MAX_RECORD_BYTES = 8 << 20  # one upload
MAX_REPLAY_PLIES = 5000  # far above any game the referee plays; a replay page costs ~1 KB a ply
MAX_KEPT_RECORDS = 50
MAX_KEPT_RECORD_BYTES = 32 << 20


class RecordUploadError(ValueError):
    """An upload that is not a game record this server replays; the message is for the page."""


def checked_record(body: bytes) -> dict[str, Any]:
    """The record in `body` as a plain dict, once the schema and a replay accept it."""
    if len(body) > MAX_RECORD_BYTES:
        raise RecordUploadError(f"not a game record: more than {MAX_RECORD_BYTES >> 20} MB")
    try:
        record = GameRecord.from_json(body)
    except RecordError as error:
        raise RecordUploadError(f"not a game record: {error}") from None
    if len(record.moves) > MAX_REPLAY_PLIES:
        raise RecordUploadError(f"a record of {len(record.moves)} plies is longer than this server replays "
                                f"({MAX_REPLAY_PLIES})")
    data = record.to_dict()
    try:
        replay_data(data)
    except ReplayError as error:
        raise RecordUploadError(f"the record does not replay: {error}") from None
    return data


class KeptRecords:
    """Uploaded records by id, at most `max_count` of them and `max_bytes` of their JSON."""

    def __init__(self, max_count: int = MAX_KEPT_RECORDS, max_bytes: int = MAX_KEPT_RECORD_BYTES) -> None:
        self.max_count = max_count
        self.max_bytes = max_bytes
        self.bytes = 0
        self._texts: OrderedDict[str, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._texts)

    def add(self, record: dict[str, Any]) -> str:
        """Keeps a record (dropping the oldest ones it does not fit beside); returns its id."""
        text = json.dumps(record, separators=(",", ":")).encode()
        record_id = secrets.token_urlsafe(6)
        self._texts[record_id] = text
        self.bytes += len(text)
        while len(self._texts) > 1 and (len(self._texts) > self.max_count or self.bytes > self.max_bytes):
            _, old = self._texts.popitem(last=False)
            self.bytes -= len(old)
        return record_id

    def get(self, record_id: str) -> dict[str, Any] | None:
        text = self._texts.get(record_id)
        return None if text is None else json.loads(text)
