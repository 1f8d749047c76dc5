"""Game records uploaded to `foxgeese serve` to be replayed: checked by the one record schema,
and the bounds of what the server keeps of them.

An upload is checked by `GameRecord.from_json` (protocol/record.py, the one schema of a record
file: size, depth and the JSON type of every field) and then replayed by the engine; any
failure is one line for the page. The server's store (web/store.py) keeps at most
`MAX_KEPT_RECORDS` uploads and `MAX_KEPT_RECORD_BYTES` of their JSON, dropping the oldest
first, so uploads cannot grow the server without limit.
"""

from __future__ import annotations

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
    try:
        replay_data(record)
    except ReplayError as error:
        raise RecordUploadError(f"the record does not replay: {error}") from None
    return record.to_dict()
