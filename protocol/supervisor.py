"""Runs one bot so that nothing it starts can outlive it; process.py puts one between referee and bot.

    python -I -S supervisor.py LIFELINE_FD GRACE_SECONDS -- COMMAND [ARGS...]

Standard library only, and it imports nothing of foxgeese, so it starts in a few milliseconds.

- It is a child subreaper (PR_SET_CHILD_SUBREAPER): every descendant of the bot whose parent dies
  is re-parented here, also one that left the bot's session with setsid() or double-forked, so
  this process can always find and end the bot's whole tree.
- The bot itself gets PR_SET_PDEATHSIG=SIGKILL before exec: if this process is killed, so is it.
- LIFELINE_FD is the read end of a pipe whose only write end the referee holds. When the referee
  dies, whatever killed it, the kernel closes that end; this process reads end-of-file and kills
  the bot's tree at once. A referee that died before this process started is seen the same way.
- SIGTERM (or SIGHUP, SIGINT) asks for a clean stop: SIGTERM to the whole tree, SIGKILL to what is
  left after GRACE_SECONDS, every process reaped, then exit.
- When the bot's own process ends, what it left running is killed and this process exits the way
  the bot did (same status, or the same signal), so the referee reads the bot's ending.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
ENV_TOKEN_FD = "FOXGEESE_TOKEN_FD"
LAUNCH_FAILED = 127  # exit status when the bot's program could not be started (the reason is on stderr)
LAUNCH_PREFIX = "foxgeese supervisor: cannot start the bot: "
_REAP_LIMIT_S = 5.0

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> None:
    _libc.prctl(option, value, 0, 0, 0)


def descendants(root: int) -> list[int]:
    """Every process below `root`, from /proc (zombies included until they are reaped)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(name))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return found


class Supervisor:
    def __init__(self, lifeline: int, grace_s: float, command: list[str]) -> None:
        self.lifeline, self.grace_s, self.command = lifeline, grace_s, command
        self.me = os.getpid()
        self.bot: subprocess.Popen[bytes] | None = None
        self.bot_status: int | None = None
        self.stop_asked = False

    def run(self) -> int:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, self._ask_stop)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the select below when a child ends
        token_fd = os.environ.get(ENV_TOKEN_FD)
        keep = (int(token_fd),) if token_fd and token_fd.isdigit() else ()
        try:
            self.bot = subprocess.Popen(self.command, pass_fds=keep, start_new_session=True,
                                        preexec_fn=self._before_exec)
        except (OSError, ValueError) as error:
            print(f"{LAUNCH_PREFIX}{error}", file=sys.stderr, flush=True)
            return LAUNCH_FAILED
        finally:
            for fd in keep:  # the bot holds the token now; nobody else should
                os.close(fd)
        while True:
            self._reap()
            if self.bot_status is not None:
                self._kill_tree(signal.SIGKILL)  # the bot ended: what it left running ends too
                return self._exit_code()
            if self.stop_asked:
                return self._stop()
            readable, _, _ = select.select([self.lifeline, wake_read], [], [], 1.0)
            if wake_read in readable:
                os.read(wake_read, 512)
            if self.lifeline in readable and not os.read(self.lifeline, 512):
                self._kill_tree(signal.SIGKILL)  # the referee is gone
                return 0

    def _before_exec(self) -> None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != self.me:  # this process died between fork and prctl
            os._exit(1)

    def _ask_stop(self, *_: object) -> None:
        self.stop_asked = True

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if self.bot is not None and pid == self.bot.pid:
                self.bot_status = status
                self.bot.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again

    def _stop(self) -> int:
        self._signal_tree(signal.SIGTERM)
        deadline = time.monotonic() + self.grace_s
        while time.monotonic() < deadline and descendants(self.me):
            self._reap()
            time.sleep(0.01)
        self._kill_tree(signal.SIGKILL)
        return self._exit_code() if self.bot_status is not None else -signal.SIGTERM

    def _signal_tree(self, signum: int) -> None:
        if self.bot is not None and self.bot_status is None:
            try:
                os.killpg(self.bot.pid, signum)
            except OSError:
                pass
        for pid in descendants(self.me):
            try:
                os.kill(pid, signum)
            except OSError:
                pass

    def _kill_tree(self, signum: int) -> None:
        """Signals every descendant until none is left (each is re-parented here as its parent dies)."""
        deadline = time.monotonic() + _REAP_LIMIT_S
        while time.monotonic() < deadline:
            self._signal_tree(signum)
            self._reap()
            if not descendants(self.me):
                return
            time.sleep(0.005)

    def _exit_code(self) -> int:
        if self.bot_status is None:
            return 0
        return os.waitstatus_to_exitcode(self.bot_status)


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[3] != "--":
        print("usage: supervisor.py LIFELINE_FD GRACE_SECONDS -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    code = Supervisor(int(argv[1]), float(argv[2]), argv[4:]).run()
    if code < 0:  # end the way the bot ended: the referee reads "killed by SIGSEGV"
        if -code != signal.SIGKILL:  # SIGKILL has no handler to reset (and cannot be caught anyway)
            signal.signal(-code, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        os.kill(os.getpid(), -code)
        time.sleep(1)
        return 128 - code
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
