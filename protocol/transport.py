"""The referee's transport: one bound ZeroMQ ROUTER socket and its monitor, and nothing of games.

It sends packed messages to an identity, hands the loop whole messages with the moment they were
seen (and, for a connection not yet known, the descriptor it came in on: on ipc:// the kernel names
the process behind it), and reports the connections the monitor saw close. It never raises for what
a peer does: a peer that went away or stopped reading is the loop's to notice by its deadlines.
The loop (referee.py) decides who a connection is and what a message means.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container
from typing import cast

import zmq
from zmq.utils.monitor import recv_monitor_message

# The socket drops a peer whose message is this big outright; between the protocol cap and this the
# message is read and judged a protocol error, so the offending bot gets a proper record.
HARD_MESSAGE_LIMIT = 1 << 20
HEARTBEAT_MISSES = 3  # with heartbeat_s: intervals without a sign of life before a connection is closed
# Plain ints: pyzmq's enum flags cost a Python-level operator call each time on the hot path.
_EVENTS, _POLLIN, _NOBLOCK = int(zmq.EVENTS), int(zmq.POLLIN), int(zmq.NOBLOCK)
_SNDMORE_NOBLOCK = int(zmq.SNDMORE) | _NOBLOCK
_RCVTIMEO = int(zmq.RCVTIMEO)
_SRCFD = int(zmq.SRCFD)  # the descriptor of the connection a message came in on
# On the hot path the transport calls pyzmq's compiled layer: its Python-level wrappers cost more than
# the calls (send's keyword handling; getsockopt builds a SocketOption enum, so the socket is asked
# "anything waiting?" through zmq_poll and a frame's `more`, and RCVTIMEO is seldom changed).
_socket_send = zmq.backend.Socket.send
_zmq_poll = zmq.backend.zmq_poll

# A message as read: its frames (the identity first), the descriptor of a newcomer's connection
# (None for a known identity, or where there is none), and when it was seen.
Received = tuple[list[bytes], int | None, float]


class Transport:
    """A ROUTER socket bound to `endpoint` (ZMQError if it cannot be: nothing is left open), and its
    monitor. `heartbeat_s` turns on ZeroMQ's own heartbeat (ZMTP 3.1, answered by the peer's I/O
    thread even while its bot thinks): a connection silent for HEARTBEAT_MISSES intervals is closed.
    Off by default: a ZMTP 3.0 peer (libzmq 4.0, 4.1) is sent PINGs it does not know, and may be cut
    off; a ZMTP 2.0 one (JeroMQ 0.3.6) gets none, and is not watched (PROTOCOL.md, heartbeats)."""

    def __init__(self, endpoint: str, heartbeat_s: float | None = None) -> None:
        self._context = zmq.Context()
        self.socket = socket = self._context.socket(zmq.ROUTER)
        try:
            socket.setsockopt(zmq.LINGER, 0)
            socket.setsockopt(zmq.MAXMSGSIZE, HARD_MESSAGE_LIMIT)
            if heartbeat_s:
                interval_ms = max(1, round(heartbeat_s * 1000))
                socket.setsockopt(zmq.HEARTBEAT_IVL, interval_ms)
                socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, interval_ms * HEARTBEAT_MISSES)
            socket.bind(endpoint)
            self.endpoint: str = socket.getsockopt_string(zmq.LAST_ENDPOINT)
            # Remote bots have no process to watch: the monitor reports their connection closing.
            self._monitor = socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        except BaseException:  # a bad option or endpoint: nothing is left open
            socket.close(linger=0)
            self._context.term()
            raise
        self._poller = zmq.Poller()  # both, while a remote bot is about (see poll)
        self._poller.register(socket, zmq.POLLIN)
        self._poller.register(self._monitor, zmq.POLLIN)
        self._items = [(socket, _POLLIN)]  # for zmq_poll
        self._receive_timeout_ms = -1  # the socket's RCVTIMEO (see receive)

    def bind_also(self, endpoint: str) -> str:
        """Binds the socket to one more endpoint (ZMQError if it cannot be) and returns it as bound
        (a port 0 made real): bots of one referee may reach it over ipc:// and loopback TCP at once."""
        self.socket.bind(endpoint)
        return self.socket.getsockopt_string(zmq.LAST_ENDPOINT)

    def send(self, identity: bytes, payload: bytes) -> None:
        """Sends one packed message; a peer that went away or stopped reading is not an error here."""
        try:  # two plain sends: send_multipart's per-frame checks cost more than the send
            _socket_send(self.socket, identity, _SNDMORE_NOBLOCK)
            _socket_send(self.socket, payload, _NOBLOCK)
        except zmq.ZMQError:
            pass

    def receive(self, timeout_ms: int, known: Container[bytes]) -> Received | None:
        """The next message, waiting up to `timeout_ms` (> 0) for it, stamped the moment the wait
        ended; None if none came. `known`: the identities whose descriptor is not wanted."""
        socket = self.socket
        if timeout_ms != self._receive_timeout_ms:
            socket.setsockopt(_RCVTIMEO, timeout_ms)
            self._receive_timeout_ms = timeout_ms
        try:
            identity = socket.recv()
        except zmq.Again:
            return None
        arrival = time.monotonic()
        recv = socket.recv  # the rest as _rest reads it, without a call on the path of every reply
        try:
            frame = recv(_NOBLOCK, copy=False)
            frames = [identity, frame.bytes]
            fd = None if identity in known else _source_fd(frame)
            while frame.more:
                frame = recv(_NOBLOCK, copy=False)
                frames.append(frame.bytes)
        except zmq.ZMQError:
            return None
        return frames, fd, arrival

    def drain(self, dispatch: Callable[[list[bytes], int | None], object], known: Container[bytes]) -> bool:
        """Hands every message waiting now to `dispatch` (frames, a newcomer's descriptor), one by one
        as it is read (what one dispatch does can make the next message known); True if there was one."""
        recv, items = self.socket.recv, self._items
        any_read = False
        try:
            while _zmq_poll(items, 0):  # no exception raised and caught when nothing waits
                any_read = True
                message = self._rest(recv(_NOBLOCK), known)
                if message is not None:
                    dispatch(*message)
        except zmq.ZMQError:
            pass
        return any_read

    def _rest(self, identity: bytes, known: Container[bytes]) -> tuple[list[bytes], int | None] | None:
        """Reads the rest of a message whose identity frame came in."""
        recv = self.socket.recv
        try:
            frame = recv(_NOBLOCK, copy=False)
            frames = [identity, frame.bytes]
            fd = None if identity in known else _source_fd(frame)  # for a newcomer's hello
            while frame.more:
                frame = recv(_NOBLOCK, copy=False)
                frames.append(frame.bytes)
        except zmq.ZMQError:
            return None  # the rest of a message is there once its first frame is: cannot happen
        return frames, fd

    def poll(self, timeout_ms: int) -> bool:
        """Waits up to `timeout_ms` for a message or a closed connection; reads neither."""
        return bool(self._poller.poll(timeout_ms))

    def closed_connections(self) -> list[int]:
        """The descriptors of the connections the monitor saw close since last asked."""
        monitor, closed = self._monitor, []
        try:
            while cast(int, monitor.getsockopt(_EVENTS)) & _POLLIN:  # ZMQ_EVENTS is an int option
                closed.append(int(recv_monitor_message(monitor, _NOBLOCK)["value"]))
        except zmq.ZMQError:
            pass
        return closed

    def close(self, linger_ms: int = 0) -> None:
        """Closes the monitor and the socket (keeping queued messages up to `linger_ms`), then the context."""
        self.socket.disable_monitor()
        self._monitor.close(linger=0)
        self.socket.close(linger=linger_ms)
        self._context.term()


def _source_fd(frame: zmq.Frame) -> int | None:
    """The descriptor of the connection a frame came in on; None where there is none (inproc://)."""
    try:
        return frame.get(_SRCFD)
    except zmq.ZMQError:
        return None
