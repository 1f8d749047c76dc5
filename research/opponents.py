"""The other side of a Gymnasium game: a built-in player in-process, or any SPEC through the real referee.

`InProcessOpponent` asks a `foxgeese.players.registry` player directly (no processes, fastest).
`RefereeOpponent` plays every game through `foxgeese.protocol.referee.Referee` (its public
`play_game`, in a thread that owns the referee): the opponent is whatever the SPEC launches (a
`cmd:` bot, a built-in bot process), the agent's seat is the relay bot (relay.py), and the
environment sees the referee's `on_move` events, its clocks and its verdicts (a crash, an
illegal move or a timeout ends the game as the referee says).
"""

from __future__ import annotations

import queue
import shutil
import sys
import tempfile
import threading
import weakref
from typing import Any

import zmq

from foxgeese.engine import Clock, Game, Move, Side, Variant
from foxgeese.players.registry import make_player
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.referee import Referee
from foxgeese.research.relay import ENV_RELAY

EVENT_TIMEOUT_S = 600.0  # longer than any move a sane time control allows: a stuck referee is an error


class OpponentError(RuntimeError):
    """The referee's game could not go on (its thread died, or nothing happened for EVENT_TIMEOUT_S)."""


class InProcessOpponent:
    """A built-in player (`random`, `mcts:playouts=200`, `solver`, `learned:weights=...`) called directly."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.player = make_player(spec)

    def start(self, variant: Variant, side: Side, seed: int) -> None:
        self.player.new_game(variant, side, seed)

    def move(self, game: Game) -> Move | None:
        return self.player.choose(game, Clock()).move

    def close(self) -> None:
        pass


class RefereeOpponent:
    """Any SPEC through the real referee; see the module docstring. Events come on one queue:
    ("move", side name, move text), ("turn", position text), ("end", GameRecord) or ("error", text)."""

    def __init__(self, spec: str, *, time_control: str = "move=60", referee_options: dict[str, Any] | None = None,
                 sandbox: bool = False, transport: str = "auto") -> None:
        self.spec = spec
        self.time_control = time_control
        self.opponent = BotConfig.from_spec(spec, sandbox=sandbox, transport=transport)
        self.folder = tempfile.mkdtemp(prefix="fg-relay-")
        weakref.finalize(self, shutil.rmtree, self.folder, ignore_errors=True)  # also if close() is never called
        self.endpoint = f"ipc://{self.folder}/relay"
        self.agent = BotConfig("gym-agent", [sys.executable, "-m", "foxgeese.research.relay"],
                               env={ENV_RELAY: self.endpoint}, transport="ipc")  # pyzmq: ipc:// is sure
        self.events: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self.answers: queue.Queue[str] = queue.Queue()
        self.jobs: queue.Queue[tuple[Variant, Side, int] | None] = queue.Queue()
        self.stopping = threading.Event()
        self.listener = threading.Thread(target=self._listen, name="relay-listener", daemon=True)
        self.runner = threading.Thread(target=self._run, args=(referee_options or {},), name="referee", daemon=True)
        self.listener.start()
        self.runner.start()
        self.in_game = False
        self.waiting_turn = False

    # -- the two threads ----------------------------------------------------------------------------

    def _listen(self) -> None:
        """Owns the REP socket: each relay request becomes a ("turn", text) event; its answer is sent back."""
        with zmq.Context() as context, context.socket(zmq.REP) as socket:
            socket.setsockopt(zmq.LINGER, 0)
            socket.bind(self.endpoint)
            while not self.stopping.is_set():
                if not socket.poll(100):
                    continue
                self.events.put(("turn", socket.recv_string()))
                while True:
                    try:
                        socket.send_string(self.answers.get(timeout=0.1))
                        break
                    except queue.Empty:
                        if self.stopping.is_set():
                            return

    def _run(self, referee_options: dict[str, Any]) -> None:
        """Owns the referee: plays each queued game and reports its events."""
        try:
            with Referee(**referee_options) as referee:
                while (job := self.jobs.get()) is not None:
                    variant, side, seed = job
                    seats = {side: self.opponent, side.other: self.agent}  # `side`: the opponent's
                    record = referee.play_game(
                        variant, seats, self.time_control, seed=seed,
                        on_move=lambda event: self.events.put(("move", event.side, event.move)))
                    self.events.put(("end", record))
        except Exception as error:  # the environment's step raises it as OpponentError
            self.events.put(("error", f"{type(error).__name__}: {error}"))

    # -- what the environment calls -----------------------------------------------------------------

    def start(self, variant: Variant, side: Side, seed: int) -> None:
        self.abandon()
        self.jobs.put((variant, side, seed))
        self.in_game = True

    def next_event(self) -> tuple[Any, ...]:
        """The next thing that happened in the referee's game (blocks)."""
        try:
            event = self.events.get(timeout=EVENT_TIMEOUT_S)
        except queue.Empty:
            raise OpponentError(f"the referee said nothing for {EVENT_TIMEOUT_S:.0f} s") from None
        if event[0] == "error":
            self.in_game = False
            raise OpponentError(f"the referee stopped: {event[1]}")
        if event[0] == "turn":
            self.waiting_turn = True
        if event[0] == "end":
            self.in_game = False
        return event

    def answer(self, move: Move | None) -> None:
        """The agent's move for the pending turn (None resigns)."""
        self.waiting_turn = False
        self.answers.put("" if move is None else str(move))

    def abandon(self) -> None:
        """Ends a game still going (the agent resigns at its next turn) and waits for its end."""
        while self.in_game:
            if self.waiting_turn:
                self.answer(None)
            self.next_event()

    def close(self) -> None:
        if self.runner.is_alive():
            try:
                self.abandon()
            except OpponentError:
                pass
            self.jobs.put(None)
            self.runner.join(timeout=30)
        self.stopping.set()
        self.listener.join(timeout=5)
        shutil.rmtree(self.folder, ignore_errors=True)


def make_opponent(spec: str, *, referee: bool | None = None, **options: Any) -> InProcessOpponent | RefereeOpponent:
    """A `cmd:` SPEC always goes through the referee; a built-in one in-process unless `referee=True`."""
    if spec.strip().startswith("cmd:") or referee:
        return RefereeOpponent(spec, **options)
    return InProcessOpponent(spec)


__all__ = ["InProcessOpponent", "OpponentError", "RefereeOpponent", "make_opponent"]
