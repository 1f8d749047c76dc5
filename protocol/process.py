"""Launching bot programs so that none of their processes outlives its referee, and ending them for sure.

Each bot runs under its own supervisor (supervisor.py: a child subreaper on a lifeline pipe, which
gives the bot PR_SET_PDEATHSIG), in a session of its own, with stderr in a file and stdin from
/dev/null unless it is an interactive (human) bot. Its token is never in its environment: the bot
inherits a read-only descriptor of a sealed memory file holding it (number in FOXGEESE_TOKEN_FD),
which nobody can drain: another process that duplicates it (pidfd_getfd) or opens it through
/proc/PID/fd reads a copy and leaves the bot's own (read with pread) intact. What keeps a seat is
not the token's secrecy but the kernel: `process_chain` and peers.py let the referee tell which
launched bot's process tree a hello comes from, on ipc:// and on loopback TCP.
With `BotConfig.sandbox` the bot runs inside bubblewrap (sandbox.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import IO

import psutil

from foxgeese.protocol import codec, sandbox, supervisor
from foxgeese.protocol.botconfig import BotConfig

SUPERVISOR = supervisor.__file__
_STOP_MARGIN_S = 2.0  # beyond the supervisor's own grace, before it is killed outright
_EXITED_NOWAIT = os.WEXITED | os.WNOHANG | os.WNOWAIT


class BotLaunchError(OSError):
    """The bot's program could not be started at all (not found, not executable, bad cwd, no sandbox)."""


_SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE


def _token_file(token: str) -> int:
    """A read-only descriptor of a sealed memory file holding `token` and a newline.

    Not a socket or a pipe: what is read from those is gone, so another process of the same user
    that duplicated the descriptor (pidfd_getfd) could drain it before the bot reads it. A memory
    file is read, not consumed; read with pread at offset 0 it gives the token whoever read it
    before, and sealed, nobody can change it.
    """
    writable = os.memfd_create("foxgeese-token", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.write(writable, token.encode("ascii") + b"\n")
        fcntl.fcntl(writable, fcntl.F_ADD_SEALS, _SEALS)
        return os.open(f"/proc/self/fd/{writable}", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(writable)


class BotProcess:
    """One running bot program (behind its supervisor); `stop()` ends it and every process it started."""

    def __init__(self, config: BotConfig, env: dict[str, str], stderr_path: str, token: str,
                 grace_s: float = 1.0, socket_path: str | None = None) -> None:
        self.config = config
        self.stderr_path = stderr_path
        self.grace_s = grace_s
        command = list(config.command)
        if config.sandbox:
            try:
                command = sandbox.wrap(command, socket_path=socket_path, cwd=config.cwd)
            except sandbox.SandboxError as error:
                raise BotLaunchError(f"cannot start bot {config.name!r}: {error}") from None
        if config.cwd is not None and not os.path.isdir(config.cwd):
            raise BotLaunchError(f"cannot start bot {config.name!r}: no folder {config.cwd!r}")
        self._log: IO[bytes] = open(stderr_path, "ab")
        lifeline_read, self._lifeline = os.pipe()  # both ends close-on-exec: only pass_fds crosses
        token_read = _token_file(token)
        interactive = config.interactive
        base = {key: value for key, value in os.environ.items() if key not in (codec.ENV_TOKEN, codec.ENV_TOKEN_FD)}
        try:
            self.popen = subprocess.Popen(
                [sys.executable, "-I", "-S", SUPERVISOR, str(lifeline_read), f"{grace_s:g}", "--", *command],
                cwd=config.cwd,
                env={**base, **config.environment(), **env, codec.ENV_TOKEN_FD: str(token_read)},
                stdin=None if interactive else subprocess.DEVNULL,
                stdout=None if interactive else self._log,
                stderr=self._log,
                start_new_session=True,
                close_fds=True,
                pass_fds=(lifeline_read, token_read),
            )
        except OSError as error:
            os.close(self._lifeline)
            self._log.close()
            raise BotLaunchError(f"cannot start bot {config.name!r}: {error}") from None
        finally:
            os.close(lifeline_read)
            os.close(token_read)
        self.pid = self.popen.pid

    @property
    def returncode(self) -> int | None:
        """None while the bot runs, else its exit status (negative: killed by that signal)."""
        return self.popen.poll()

    def alive(self) -> bool:
        """Whether the bot still runs. Asked before and after every game and every 20 ms of one, so it
        is one system call: waitid with WNOWAIT sees an exit without reaping it, and the Popen
        reaps it, with its status, when next asked (`returncode`, `describe_exit`, `stop`)."""
        if self.popen.returncode is not None:
            return False
        try:
            return os.waitid(os.P_PID, self.pid, _EXITED_NOWAIT) is None
        except ChildProcessError:  # reaped already, by a Popen call in another thread
            return self.popen.poll() is None

    def wait(self, timeout_s: float) -> bool:
        """Waits up to `timeout_s` for the bot to exit by itself; True when it has."""
        try:
            self.popen.wait(timeout=max(0.0, timeout_s))
        except subprocess.TimeoutExpired:
            return False
        return True

    def stop(self, grace_s: float | None = None) -> int | None:
        """Asks the supervisor to end the bot's whole tree (SIGTERM, SIGKILL after the grace); reaps it.

        Should the supervisor itself not end, it is killed, which kills the bot (PDEATHSIG), and
        every descendant seen before is killed too.
        """
        if self.alive():
            try:
                descendants = psutil.Process(self.pid).children(recursive=True)
            except psutil.Error:
                descendants = []
            self._signal(signal.SIGTERM)
            if not self.wait(self.grace_s + _STOP_MARGIN_S):
                self._signal(signal.SIGKILL)
                self.wait(5.0)
                for child in descendants:
                    with contextlib.suppress(psutil.Error):
                        child.kill()
        self._close()
        return self.popen.poll()

    def _signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signum)

    def _close(self) -> None:
        if self._lifeline >= 0:
            os.close(self._lifeline)
            self._lifeline = -1
        self._log.close()

    def describe_exit(self) -> str:
        """Human words for how the bot ended, for a record's `reason`."""
        code = self.popen.poll()
        if code is None:
            return "still running"
        if code == supervisor.LAUNCH_FAILED:
            why = self._launch_failure()
            if why:
                return f"could not be started ({why})"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    def _launch_failure(self) -> str:
        try:
            with open(self.stderr_path, "rb") as log:
                log.seek(max(0, os.path.getsize(self.stderr_path) - 2000))
                lines = log.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        for line in reversed(lines):
            if line.startswith(supervisor.LAUNCH_PREFIX):
                return codec.cut(line[len(supervisor.LAUNCH_PREFIX):], 200)
        return ""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: unwinds like Ctrl-C, so every `with Referee()` ends its bots."""


@contextlib.contextmanager
def terminate_like_ctrl_c() -> Iterator[None]:
    """Within this block SIGTERM and SIGHUP raise `Terminated` (a KeyboardInterrupt) in the main thread.

    Use it around a referee's life in a command (`foxgeese play`), so a `kill` tidies up as Ctrl-C
    does. Outside the main thread it does nothing (Python allows signal handlers only there).
    """
    def interrupt(signum: int, _frame: object) -> None:
        raise Terminated(signal.Signals(signum).name)

    try:
        previous = {signum: signal.signal(signum, interrupt) for signum in (signal.SIGTERM, signal.SIGHUP)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def process_chain(pid: int) -> list[int]:
    """`pid` and its ancestors up to (not including) init, from /proc; a supervisor keeps all its
    bot's processes below it, so a launched bot's tree is every chain that holds its supervisor."""
    chain: list[int] = []
    while pid > 1 and len(chain) < 64:
        chain.append(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                pid = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return chain


def descends_from(pid: int, ancestor: int) -> bool:
    """Whether process `pid` is `ancestor` or below it."""
    return ancestor in process_chain(pid)
