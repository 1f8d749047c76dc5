"""`foxgeese bot check`: walks one bot program through every step of protocol 2 (fastchess --compliance).

The checker is a tiny private referee: it binds its own ROUTER where the referee would for this
command (loopback TCP unless `transport` is ipc: a `cmd:` bot's default, which every ZeroMQ library
reaches), launches the command as the referee does (FOXGEESE_ENDPOINT set, the token behind the
descriptor FOXGEESE_TOKEN_FD names),
and for every variant the bot claims plays both sides through `new_game`, several `turn`s (the
start, a mid-game position with history, and for fox variants a position where a capture chain is
on), `game_over` and `ping`, then `quit`. Each step prints one line, `PASS step` or `FAIL step:
expected ..., got ...`; the run fails if any step fails.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import zmq

from foxgeese.engine import VARIANT_IDS, Game, Position, Side, Variant, get_variant
from foxgeese.engine.userinput import one_line
from foxgeese.engine.variants import variant_spec
from foxgeese.protocol import codec, messages, workdir
from foxgeese.protocol.botconfig import BotConfig, BotSpecError
from foxgeese.protocol.process import BotLaunchError, BotProcess


def capture_position(variant_id: str) -> Position | None:
    """Where a capture chain of two jumps is on for the fox (and a single jump elsewhere), in the
    first options `bot check` plays: the variant's `capture_check` (None where nobody captures)."""
    row = variant_spec(variant_id)
    if row.capture_check is None:
        return None
    variant = get_variant(variant_id, **row.checks[0])
    return Position.from_text(f"{variant.id} {variant.options_text()} {row.capture_check}")


TIME_CONTROL = {"base_ms": 60_000, "increment_ms": 1_000, "per_move_ms": 0}
MID_GAME_PLIES = 9
# Unanswered requests after which the run stops (a bot that ignores one kind of message keeps doing so).
MAX_TIMEOUTS = 3
# How long a bot still running at the end gets between SIGTERM and SIGKILL.
STOP_GRACE_S = 0.2


class CheckAborted(Exception):
    """A failure after which the remaining steps cannot run (no hello, the bot died, ...)."""


@dataclass
class Reply:
    message: dict[str, Any] | None
    elapsed_ms: float
    problem: str = ""  # what came instead of a message: nothing, garbage, process exit
    data: bytes = b""  # the message as sent


class Checker:
    """One conformance run; `run()` returns True when every step passed."""

    def __init__(self, command: list[str], *, timeout_ms: int = 5000, out: Callable[[str], None] = print,
                 cwd: str | None = None, transport: str = "auto") -> None:
        self.command = command
        self.config = BotConfig(os.path.basename(command[0]), command, cwd=cwd, transport=transport)
        self.timeout_ms = timeout_ms
        self.out = out
        self.cwd = cwd
        self.failures = 0
        self.timeouts = 0
        self.token = secrets.token_urlsafe(16)  # 128 bits, as the referee's
        self.rng = random.Random(20240607)
        self.request_id = 40
        self.identity: bytes | None = None
        self.process: BotProcess | None = None

    # -- reporting --------------------------------------------------------------------------

    def passed(self, step: str) -> None:
        self.out(f"PASS {step}")

    def failed(self, step: str, expected: str, got: str) -> None:
        self.failures += 1
        self.out(f"FAIL {step}: expected {expected}, got {got}")

    # -- the run ----------------------------------------------------------------------------

    def run(self) -> bool:
        workdir.sweep_stale()
        folder = workdir.make_private_dir()  # named like a referee's, so a killed check is tidied too
        stderr_path = os.path.join(folder, "bot.stderr")
        try:
            with zmq.Context() as context, context.socket(zmq.ROUTER) as socket:
                socket.setsockopt(zmq.LINGER, 0)
                if self.config.transport_kind() == "ipc":
                    socket.bind(f"ipc://{folder}/{workdir.SOCKET_NAME}")
                else:
                    socket.bind("tcp://127.0.0.1:0")
                endpoint = socket.getsockopt_string(zmq.LAST_ENDPOINT)
                self.socket = socket
                try:
                    self._launch(endpoint, stderr_path)
                    self._steps()
                except CheckAborted:
                    pass
                finally:
                    if self.process is not None:
                        self.process.stop(STOP_GRACE_S)  # the bot and anything it started; closes its log
                if self.failures:
                    self._show_stderr(stderr_path)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        verdict = "all steps passed" if not self.failures else f"{self.failures} step(s) failed"
        self.out(f"{'PASS' if not self.failures else 'FAIL'} bot check: {verdict}")
        return not self.failures

    def _launch(self, endpoint: str, stderr_path: str) -> None:
        """Starts the bot as the referee does (its own session, stdout and stderr to one file)."""
        config = self.config
        env = {codec.ENV_ENDPOINT: endpoint}
        try:
            config.check()
            self.process = BotProcess(config, env, stderr_path, self.token, grace_s=STOP_GRACE_S)
        except (BotSpecError, BotLaunchError) as error:
            self.failed("launch", f"a program to run ({' '.join(self.command)})", str(error))
            raise CheckAborted from None
        self.passed(f"launch (connect to {endpoint})")

    def _steps(self) -> None:
        variants = self._hello()
        self._send(codec.WELCOME, referee="foxgeese bot check", bot_id="bot-1")
        self.passed("welcome sent")
        for variant_id in variants:
            capture = capture_position(variant_id)
            for options in variant_spec(variant_id).checks:  # the options the variant's row has bot check play
                variant = get_variant(variant_id, **options)
                for side_name in (variant.predator_name, variant.prey_name):
                    self._game(variant, side_name, variant.start_position(), mid_game=True)
                if capture is not None and capture.variant is variant:
                    self._game(variant, variant.predator_name, capture, mid_game=False, label="capture chain")
        self._ping("ping")
        self._quit()

    def _hello(self) -> list[str]:
        reply = self._receive()
        step = "hello"
        if reply.message is None:
            hint = ""
            if self.config.transport_kind() == "ipc":
                hint = (" (a ZeroMQ library without ipc://, such as JeroMQ or NetMQ, cannot reach an ipc:// "
                        "endpoint: check it with --transport tcp)")
            self.failed(step, f"a hello within {self.timeout_ms} ms", reply.problem + hint)
            raise CheckAborted
        message = reply.message
        try:
            if message["type"] != codec.HELLO:
                raise codec.ProtocolError(f"a '{codec.cut(message['type'], 40)}' message")
            message = messages.to_fields(codec.decode_bot(reply.data))  # the referee's own decoding
        except codec.ProtocolError as error:
            self.failed(step, f"hello with v={codec.PROTOCOL_VERSION}, token, name, author, version (msgpack str) "
                        "and variants (msgpack array of str)", str(error))
            raise CheckAborted from None
        if message["token"] != self.token:
            self.failed(step, f"the token read from the descriptor in {codec.ENV_TOKEN_FD}",
                        codec.cut(repr(message["token"]), 60))
            raise CheckAborted
        if not message["name"].strip():
            self.failed(step, "a non-empty name", "''")
        variants = message["variants"]
        unknown = [v for v in variants if v not in VARIANT_IDS]
        if not variants or unknown:
            self.failed(step, f"variants from {', '.join(VARIANT_IDS)}", repr(variants))
            raise CheckAborted
        self.passed(f"{step} (name {message['name']!r}, variants {', '.join(variants)})")
        return list(dict.fromkeys(variants))

    def _game(self, variant: Variant, side_name: str, start: Position, *, mid_game: bool, label: str = "") -> None:
        options = variant.option_dict
        where = f"{variant} {side_name}" + (f" {label}" if label else "")
        game_id = f"check-{self.request_id}"
        self._send(codec.NEW_GAME, game_id=game_id, variant=variant.id, options=options, side=side_name,
                   time_control=TIME_CONTROL, start=start.text(), seed=self.request_id)
        reply = self._expect(f"new_game {where}", codec.READY, game_id=game_id)
        if reply is None:
            raise CheckAborted
        self.passed(f"new_game {where}: ready in {reply.elapsed_ms:.0f} ms")
        game = Game.from_position(start)
        side = variant.side_by_name(side_name)
        if game.position.turn == side:
            self._turn(f"turn {where} {'start' if not label else 'position'}", game_id, game)
        last = game
        if mid_game:
            reached = self._mid_game(start, side)
            if reached is not None:
                self._turn(f"turn {where} mid-game (ply {len(reached.moves)})", game_id, reached)
                last = reached
        self._send(codec.GAME_OVER, game_id=game_id, winner="draw", termination="aborted",
                   reason="conformance check", last_move=str(last.moves[-1]) if last.moves else "",
                   position=last.position.text())
        self._ping(f"game_over {where}, then ping")

    def _mid_game(self, start: Position, side: Side) -> Game | None:
        """A random game from `start` that is not over, with `side` to move, some plies in."""
        for _ in range(50):
            game = Game.from_position(start)
            target = MID_GAME_PLIES + (0 if (start.turn == side) == (MID_GAME_PLIES % 2 == 0) else 1)
            while len(game.moves) < target and game.legal_moves():
                game.push(self.rng.choice(game.legal_moves()))
            if len(game.moves) == target and game.legal_moves() and game.position.turn == side:
                return game
        return None

    def _turn(self, step: str, game_id: str, game: Game) -> None:
        self.request_id += 3
        request_id = self.request_id
        position = game.position
        self._send(codec.TURN, game_id=game_id, request_id=request_id, position=position.text(),
                   moves=[str(move) for move in game.moves], legal=[str(move) for move in game.legal_moves()],
                   clocks={game.variant.predator_name: 59_000, game.variant.prey_name: 58_500},
                   increment_ms=TIME_CONTROL["increment_ms"], per_move_ms=0)
        reply = self._expect(step, codec.MOVE, game_id=game_id, request_id=request_id)
        if reply is None:
            return
        message = reply.message
        assert message is not None
        text = message["move"]
        try:
            move = game.parse_move(text)
        except ValueError as error:
            self.failed(step, f"a legal move in '{position.text()}'", f"{codec.cut(repr(text), 60)} ({error})")
            return
        self.passed(f"{step}: {move} in {reply.elapsed_ms:.0f} ms")

    def _ping(self, step: str) -> None:
        ping_id = self.rng.randrange(1, 1_000_000)
        self._send(codec.PING, id=ping_id)
        if self._expect(step, codec.PONG, id=ping_id) is not None:
            self.passed(step)

    def _quit(self) -> None:
        self._send(codec.QUIT)
        assert self.process is not None
        if not self.process.wait(self.timeout_ms / 1000):
            self.failed("quit", f"the process to exit within {self.timeout_ms} ms", "it still runs")
            return
        code = self.process.returncode
        if code != 0:
            self.failed("quit", "exit status 0", f"exit status {code}")
        else:
            self.passed("quit")

    # -- sockets ----------------------------------------------------------------------------

    def _send(self, message_type: str, **fields: Any) -> None:
        if self.identity is not None:
            self.socket.send_multipart([self.identity, messages.encode_fields(message_type, fields)])

    def _receive(self) -> Reply:
        """The next message from the bot within the timeout (None with a reason otherwise)."""
        started = time.monotonic()
        deadline = started + self.timeout_ms / 1000
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return Reply(None, self.timeout_ms, f"nothing within {self.timeout_ms} ms")
            if self.socket.poll(min(50, max(1, int(left * 1000))), zmq.POLLIN):
                frames = self.socket.recv_multipart()
                elapsed = (time.monotonic() - started) * 1000
                if self.identity is None:
                    self.identity = frames[0]
                elif frames[0] != self.identity:
                    continue  # some other peer; only the launched bot counts
                if len(frames) != 2:
                    return Reply(None, elapsed, f"a message of {len(frames) - 1} frames")
                try:
                    return Reply(codec.decode(frames[1]), elapsed, data=frames[1])
                except codec.ProtocolError as error:
                    return Reply(None, elapsed, f"a malformed message ({error})")
            assert self.process is not None
            code = self.process.returncode
            if code is not None:
                return Reply(None, (time.monotonic() - started) * 1000, f"the process exited with status {code}")

    def _expect(self, step: str, message_type: str, **fields: Any) -> Reply | None:
        """Receives one reply and checks its type and fields; reports and returns None on failure."""
        want = f"'{message_type}'" + "".join(f" {k}={v!r}" for k, v in fields.items())
        reply = self._receive()
        if reply.message is None:
            self.failed(step, f"{want} within {self.timeout_ms} ms", reply.problem)
            if self.process is not None and not self.process.alive():
                raise CheckAborted
            self.timeouts += 1
            if self.timeouts >= MAX_TIMEOUTS:
                self.failed("responsiveness", "answers to requests", f"{self.timeouts} left unanswered; stopping")
                raise CheckAborted
            return None
        message = reply.message
        if message["type"] == message_type:
            try:
                message = reply.message = messages.to_fields(codec.decode_bot(reply.data))  # in the referee's words
            except codec.ProtocolError as error:
                self.failed(step, f"a well-formed '{message_type}'", str(error))
                return None
        if message["type"] != message_type or any(message.get(k) != v for k, v in fields.items()):
            got = f"'{codec.cut(message['type'], 40)}'" + "".join(
                f" {k}={codec.cut(repr(message.get(k)), 60)}" for k in fields)
            self.failed(step, want, got)
            return None
        return reply

    def _show_stderr(self, path: str) -> None:
        try:
            with open(path, "rb") as handle:
                lines = handle.read().decode("utf-8", "replace").strip().splitlines()
        except OSError:
            return
        # The cause is often at the top (node: "Cannot find module 'zeromq'", then a stack) and
        # sometimes at the bottom (Python's traceback): keep both ends of a long output.
        head, tail = STDERR_HEAD_LINES, STDERR_TAIL_LINES
        shown_lines = lines if len(lines) <= head + tail + 1 else [
            *lines[:head], f"... {len(lines) - head - tail} lines skipped ...", *lines[-tail:]]
        for line in shown_lines:
            line = one_line(line)
            self.out(f"  bot output: {line[:300]}{'...' if len(line) > 300 else ''}")


STDERR_HEAD_LINES = 10
STDERR_TAIL_LINES = 15


def info_problem(info: Any) -> str:
    """What is wrong with a move's optional `info` map ('' when nothing is), judged as the referee does."""
    if info is None:
        return ""
    try:
        codec.decode_bot(codec.pack({"v": codec.PROTOCOL_VERSION, "type": codec.MOVE, "game_id": "g",
                                     "request_id": 0, "move": "-", "info": info}))
    except codec.ProtocolError as error:
        return str(error)
    return ""


def check_bot(command: list[str], *, timeout_ms: int = 5000, out: Callable[[str], None] = print,
              cwd: str | None = None, transport: str = "auto") -> bool:
    """Runs the conformance steps against `command` over `transport` (BotConfig's); True when every
    step passed."""
    return Checker(command, timeout_ms=timeout_ms, out=out, cwd=cwd, transport=transport).run()
