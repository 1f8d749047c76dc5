"""A scripted transport for exact message sequences (as python-chess's MockTransport scripts an engine).

Match is sans-I/O, so the script stands where the referee's socket does: each step is one bot
message in and the exact referee messages that must come out of it, in order. A bot message goes
through the codec as a frame would (`codec.decode_bot`; a first hello then to `Match.connected`, as
the referee's hello path does) and a sent `turn` starts its clock at once, as
the referee does right after sending it. Only Match's messages are scripted: `welcome`, `ping` and
`refused` belong to the referee's connection handling and are tested with real sockets.
"""

from __future__ import annotations

import math
from typing import Any

from foxgeese.engine import Side
from foxgeese.protocol import codec, messages
from foxgeese.protocol.match import Finished, Match, Send, StartClock
from foxgeese.protocol.record import SeatRecord

Expected = tuple[Side, str, dict[str, Any]]  # to whom, the message type, fields it must have (a subset)


def bot_message(message_type: str, **fields: Any) -> dict[str, Any]:
    """A bot's message as a script writes it (the version is added, as a bot's SDK adds it)."""
    return {"v": codec.PROTOCOL_VERSION, "type": message_type, **fields}


class ScriptedTransport:
    """Drives one Match with awaited seats through a script; `step` fails on the first message off script."""

    def __init__(self, match: Match, *, seconds_per_step: float = 0.01) -> None:
        self.match = match
        self.now = 0.0
        self.seconds_per_step = seconds_per_step
        self.welcomed: set[Side] = set()
        self.finished: Finished | None = None
        for side in (Side.PREDATOR, Side.PREY):
            match.seat(side, SeatRecord(name=f"{side.name.lower()}-bot"), connected=False, hello_deadline=math.inf)

    def step(self, side: Side, message: dict[str, Any], *expected: Expected) -> list[Send]:
        """`side`'s bot sends `message`; the referee must answer with exactly `expected`, in order."""
        self.now += self.seconds_per_step
        if message.get("type") == codec.HELLO and side not in self.welcomed:
            self.welcomed.add(side)
            hello = codec.decode_bot(codec.pack(message))
            assert isinstance(hello, messages.Hello)
            actions = self.match.connected(side, hello, self.now)
        else:
            actions = self.match.receive(side, codec.decode_bot(codec.pack(message)), self.now)
        sent = []
        for action in actions:
            if isinstance(action, Send):
                sent.append(action)
            elif isinstance(action, StartClock):
                assert sent and sent[-1].message_type == codec.TURN and sent[-1].side is action.side
                self.match.clock_started(action.side, self.now)
            elif isinstance(action, Finished):
                assert self.finished is None, "a second Finished"
                self.finished = action
        got = [(send.side, send.message_type) for send in sent]
        assert got == [(to, kind) for to, kind, _ in expected], f"after {message}: sent {got}"
        for send, (_, kind, fields) in zip(sent, expected):
            shown = {name: send.fields.get(name) for name in fields}
            assert shown == fields, f"{kind} to {send.side.name}: {shown} != {fields}"
        return sent

    def turn(self) -> dict[str, Any]:
        """The fields a bot needs to answer the turn now out (its game and request)."""
        return {"game_id": self.match.game_id, "request_id": self.match.request_id}
