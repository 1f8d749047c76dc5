"""Remote bots (the Bot API's client, `foxgeese bot remote ... tests/bots/remote_faults.py`) that fail
the way tests/test_botapi.py needs, chosen by FOXGEESE_REMOTE_FAULT: `slow` (thinks past any clock),
`illegal` (answers a move that is not legal), `vanish` (its process dies at its first turn)."""

from __future__ import annotations

import os
import threading

FAULT = os.environ.get("FOXGEESE_REMOTE_FAULT", "")


def choose(position, clock):  # noqa: ANN001, ANN201 (the SDK's move function: position, clock -> move)
    if FAULT == "slow":
        threading.Event().wait(1.5)  # past the test's clock (0.3 s a move): the referee's time loss comes first
    if FAULT == "illegal":
        return "a1-a1"
    if FAULT == "vanish":
        os._exit(7)  # no goodbye: the streams just close
    return position.legal_moves()[0]
