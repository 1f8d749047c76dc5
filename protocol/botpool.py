"""The bots of one referee, kept between games: who they are, how they were started, who answers for a hello.

A `Bot` is one connection and, unless it is remote, the process behind it. The `BotPool` launches
bots (each with a fresh token of its own), awaits remote ones (with the referee's shared token),
hands an idle connected bot of a config to the next game, and tells the referee which bot a
hello's token names and which bot's process tree a connecting process belongs to. It owns no
socket: the referee's transport (transport.py) and loop (referee.py) talk to the bots.
"""

from __future__ import annotations

import itertools
import math
import os
import secrets
import time
from dataclasses import dataclass, field

from foxgeese.protocol import codec, messages, peers, sandbox
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.process import BotLaunchError, BotProcess, process_chain

DISCONNECT_GRACE_S = 0.5  # a launched bot whose connection closed: how long its exit may take to be seen


@dataclass(eq=False)
class Bot:
    """One connection (and, unless remote, the process behind it)."""

    config: BotConfig
    token: str
    launched_at: float
    process: BotProcess | None = None
    stderr_path: str | None = None
    identity: bytes | None = None
    hello: messages.Hello | None = None
    refusal: str = ""  # why it cannot take a seat (it could not be launched, or was refused)
    past_games: set[str] = field(default_factory=set)
    fd: int | None = None  # its connection, to tell when it closes
    disconnected: bool = False
    disconnected_at: float = 0.0  # when its connection was seen closed
    ping_id: int = 0
    ping_sent: float = 0.0  # when the ping now unanswered went out (0.0: none is)
    pinged_at: float = -math.inf  # when the last ping went out
    rtt_ms: float | None = None  # last ping round trip: the transport part of every reply
    gone_reported: bool = False  # its exit was told to the match in progress

    def alive(self) -> bool:
        """Whether it can still play: its connection open (a token is good for one), its process running.

        A launched bot whose connection closed is given DISCONNECT_GRACE_S to be seen exiting (a
        process that ends closes its connection first), so that its record says how it ended."""
        if self.process is None:
            return not self.disconnected
        if self.disconnected and time.monotonic() - self.disconnected_at >= DISCONNECT_GRACE_S:
            return False
        return self.process.alive()

    def exit_text(self) -> str:
        if self.process is None:
            return "disconnected"
        if self.disconnected and self.process.alive():
            return ("disconnected: its connection closed while its process runs (it closed its socket, "
                    "or sent no sign of life for three heartbeats)")
        return self.process.describe_exit()


class BotPool:
    """Every bot one referee started or awaits, until it is removed (see the module doc)."""

    def __init__(self, *, remote_token: str, connect_endpoint: str, log_dir: str, kill_grace_s: float) -> None:
        self.remote_token, self.connect_endpoint = remote_token, connect_endpoint
        self.log_dir, self.kill_grace_s = log_dir, kill_grace_s
        self.bots: list[Bot] = []
        self._awaited: dict[str, Bot] = {}  # launched bots awaiting their hello, by token
        self._remote_awaited: list[Bot] = []
        self._used_tokens: set[str] = set()  # launched bots' tokens once used: still no one else's
        self._offences: dict[BotConfig, str] = {}  # config -> a refusal of an idle bot, for its next seat
        self._launches = itertools.count(1)

    def matching(self, config: BotConfig, taken: list[Bot]) -> list[Bot]:
        """The bots of `config` not among `taken` (connected or not, alive or not)."""
        return [bot for bot in self.bots if bot not in taken and (bot.config is config or bot.config == config)]

    def start(self, config: BotConfig, endpoint: str | None = None, cannot: str = "") -> Bot:
        """A new bot for `config`: launched (its `refusal` says why if it could not be, or `cannot`
        if it is not to be) to connect to `endpoint` (default: the pool's), or awaited."""
        if config.is_remote:
            bot = Bot(config, self.remote_token, time.monotonic())
            self._remote_awaited.append(bot)
            self.bots.append(bot)
            return bot
        bot = Bot(config, secrets.token_urlsafe(16), time.monotonic())
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in config.name)[:40]
        bot.stderr_path = os.path.join(self.log_dir, f"{safe}-{next(self._launches)}.stderr")
        endpoint = endpoint or self.connect_endpoint
        if cannot:
            bot.refusal = codec.cut(cannot)
            self.bots.append(bot)
            return bot
        try:
            bot.process = BotProcess(config, {codec.ENV_ENDPOINT: endpoint}, bot.stderr_path,
                                     bot.token, grace_s=self.kill_grace_s,
                                     socket_path=sandbox.ipc_path(endpoint))
        except BotLaunchError as error:
            bot.refusal = codec.cut(str(error))  # its seat fails at once (Match.seat with failed=)
        else:
            self._awaited[bot.token] = bot
        self.bots.append(bot)
        return bot

    def remove(self, bot: Bot) -> None:
        """Ends the bot's process (if any) and forgets the bot."""
        if bot.process is not None:
            bot.process.stop()
        self._awaited.pop(bot.token, None)
        if bot in self._remote_awaited:
            self._remote_awaited.remove(bot)
        if bot in self.bots:
            self.bots.remove(bot)

    # ------------------------------------------------------------------ hellos

    def named_by(self, token: object, name: object) -> Bot | None:
        """The awaited bot a hello's token names: a launched bot's own, or the shared remote token
        (then the remote seat of that `name`, else the first awaited)."""
        bot = self._awaited.get(token) if isinstance(token, str) else None
        if bot is None and token == self.remote_token and self._remote_awaited:
            bot = next((b for b in self._remote_awaited if b.config.name == name), self._remote_awaited[0])
        return bot

    def was_used(self, token: object) -> bool:
        """Whether `token` is a launched bot's that was used for a hello already."""
        return token in self._used_tokens

    def owner_of(self, pid: int) -> Bot | None:
        """The launched bot (seated or idle) whose process tree process `pid` belongs to, if any."""
        chain = process_chain(pid)
        for bot in self.bots:
            if bot.process is not None and bot.process.pid in chain:
                return bot
        return None

    def owner_of_socket(self, inode: int, first: Bot | None) -> Bot | None:
        """The launched bot whose process tree holds the TCP socket `inode`, `first` looked at first:
        a connection its own tree holds is its own, whoever else may hold a copy of it."""
        launched = [bot for bot in self.bots if bot.process is not None]
        if first in launched:
            launched.remove(first)
            launched.insert(0, first)
        root = peers.holder_in([bot.process.pid for bot in launched if bot.process is not None], inode)
        return next((bot for bot in launched if bot.process is not None and bot.process.pid == root), None)

    def welcomed(self, bot: Bot) -> None:
        """The bot's hello was accepted: its token is used up."""
        self._awaited.pop(bot.token, None)
        self._used_tokens.add(bot.token)
        if bot in self._remote_awaited:
            self._remote_awaited.remove(bot)

    def awaited(self) -> list[Bot]:
        """The launched bots that have not said hello yet (for tests and monitors)."""
        return list(self._awaited.values())

    # ------------------------------------------------------------------ offences

    def note_offence(self, config: BotConfig, why: str) -> None:
        """An idle bot of `config` was refused: its config's next seat starts lost, for `why`."""
        self._offences[config] = why

    def offence(self, config: BotConfig) -> str:
        """The offence noted for `config`'s next seat ("" if none), forgotten once asked."""
        return self._offences.pop(config, "")
