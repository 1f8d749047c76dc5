"""The live event stream of a running tournament: `DIR/events.jsonl` and an optional ZeroMQ PUB.

One JSON object per line, flushed after each, appended across runs (each run starts with
`tournament_started`; `seq` counts from 1 within one runner process). It is a feed to follow,
not the journal: the journal alone is the truth about finished games. The fields are documented
in docs/tournaments.md ("Following a tournament live").
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import msgspec

from foxgeese.tournaments.errors import TournamentError
from foxgeese.tournaments.standings import Row

EVENTS = "events.jsonl"
TOPIC = b"foxgeese.EVENT"
_encode = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps would build an encoder per line


def encoded(event: dict[str, Any]) -> str:
    """An event encoded where it is made (a worker's `move`s), so the runner's `forward` only adds
    `seq` and `time` to the text: `event` comes first and its value (a kind's name) has no comma.
    The line written is the one `forward` writes of the event itself."""
    return _encode(event)


# What a reader of the stream (the live page) takes of each event, typed: the documented fields it
# needs (docs/tournaments.md); an event's other fields, and kinds not here, are for other readers.
class TournamentStarted(msgspec.Struct, tag="tournament_started", tag_field="event"):
    name: str
    players: list[str] = []
    games_total: int = 0
    games_done: int = 0


class GameStarted(msgspec.Struct, tag="game_started", tag_field="event"):
    game_id: str
    start: str
    opening: list[str] = []
    seats: dict[str, str] = {}


class MoveMade(msgspec.Struct, tag="move", tag_field="event"):
    game_id: str
    position: str
    ply: int = 0
    side: str | None = None
    move: str | None = None
    think_ms: int | None = None
    clocks: dict[str, int] = {}


class GameEnded(msgspec.Struct, tag="game_ended", tag_field="event"):
    game_id: str
    winner: str | None = None
    termination: str | None = None
    reason: str = ""
    plies: int | None = None


class StandingsNow(msgspec.Struct, tag="standings", tag_field="event"):
    rows: list[Row] = []
    games_done: int | None = None


class TournamentEnded(msgspec.Struct, tag="tournament_ended", tag_field="event"):
    games_done: int | None = None


Event = TournamentStarted | GameStarted | MoveMade | GameEnded | StandingsNow | TournamentEnded
_read_event = msgspec.json.Decoder(Event)


def read_event(line: bytes) -> Event | None:
    """One line of the stream as the live page reads it; None for a kind it does not follow, or a
    line this version cannot read."""
    try:
        return _read_event.decode(line)
    except msgspec.DecodeError:
        return None


class EventStream:
    """Writes events; safe to call from the runner's slot threads at once."""

    def __init__(self, directory: Path, pub: str | None = None) -> None:
        self.path = Path(directory) / EVENTS
        self._lock = threading.Lock()
        self._seq = 0
        self._handle: IO[str] = open(self.path, "a", encoding="utf-8")
        self._context: Any = None
        self._socket: Any = None
        if pub:
            self._bind(pub)

    def _bind(self, address: str) -> None:
        import zmq

        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.PUB)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.SNDHWM, 10_000)  # a slow subscriber loses events, never the runner
        try:
            self._socket.bind(address)
        except zmq.ZMQError as error:
            self.close()
            raise TournamentError(f"events pub {address!r}: cannot bind: {error}; "
                                  "give tcp://127.0.0.1:PORT with a free PORT") from None
        self.address = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)

    def emit(self, kind: str, **fields: Any) -> None:
        self.forward([{"event": kind, **fields}])

    def forward(self, events: Sequence[dict[str, Any] | str]) -> None:
        """Events made here or by a worker (`move`s, `encoded` there): numbered and timed here,
        written at once."""
        with self._lock:
            lines = []
            now = time.time()
            stamp = _encode(now)
            for event in events:
                self._seq += 1
                if isinstance(event, str):  # encoded ahead: seq and time go in after "event"
                    cut = event.find(",")
                    if cut < 0:  # no field but "event"
                        cut = len(event) - 1
                    lines.append(f'{event[:cut]},"seq":{self._seq},"time":{stamp}{event[cut:]}')
                    continue
                record = {"event": event["event"], "seq": self._seq, "time": now}
                record.update(event)  # its fields after these three ("event" keeps its place)
                lines.append(_encode(record))
            self._handle.write("".join(line + "\n" for line in lines))
            self._handle.flush()
            if self._socket is not None:
                import zmq

                for line in lines:
                    try:
                        self._socket.send_multipart([TOPIC, line.encode()], zmq.NOBLOCK)
                    except zmq.ZMQError:
                        pass

    def close(self) -> None:
        with self._lock:
            if not self._handle.closed:
                self._handle.close()
            if self._socket is not None:
                self._socket.close(linger=200)
                self._socket = None
            if self._context is not None:
                self._context.term()
                self._context = None

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
