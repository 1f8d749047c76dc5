"""Launching bot programs in process groups of their own, and ending them for sure.

Each bot gets its own session (so its whole process tree can be signalled at once), its stderr in
a file, and stdin from /dev/null unless it is an interactive (human) bot.
"""

from __future__ import annotations

import os
import signal
import subprocess
from typing import IO

import psutil

from foxgeese.protocol.botconfig import BotConfig


class BotLaunchError(OSError):
    """The bot's program could not be started at all (not found, not executable, bad cwd)."""


class BotProcess:
    """One running bot program; `stop()` ends it and every process it started."""

    def __init__(self, config: BotConfig, env: dict[str, str], stderr_path: str) -> None:
        self.config = config
        self.stderr_path = stderr_path
        self._log: IO[bytes] = open(stderr_path, "ab")
        interactive = config.interactive
        try:
            self.popen = subprocess.Popen(
                list(config.command),
                cwd=config.cwd,
                env={**os.environ, **config.environment(), **env},
                stdin=None if interactive else subprocess.DEVNULL,
                stdout=None if interactive else self._log,
                stderr=self._log,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as error:
            self._log.close()
            raise BotLaunchError(f"cannot start bot {config.name!r}: {error}") from None
        self.pid = self.popen.pid

    @property
    def returncode(self) -> int | None:
        """None while the bot runs, else its exit status (negative: killed by that signal)."""
        return self.popen.poll()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def wait(self, timeout_s: float) -> bool:
        """Waits up to `timeout_s` for the bot to exit by itself; True when it has."""
        try:
            self.popen.wait(timeout=max(0.0, timeout_s))
        except subprocess.TimeoutExpired:
            return False
        return True

    def stop(self, grace_s: float = 1.0) -> int | None:
        """SIGTERM to the bot's process group, then SIGKILL after `grace_s`; reaps the bot."""
        try:
            descendants = psutil.Process(self.pid).children(recursive=True)
        except psutil.Error:
            descendants = []
        if self.alive():
            self._signal_group(signal.SIGTERM)
            if not self.wait(grace_s):
                self._signal_group(signal.SIGKILL)
                self.wait(5.0)
        # The group may outlive its leader, and a child may have left the group: end those too.
        self._signal_group(signal.SIGKILL)
        for child in descendants:
            try:
                child.kill()
            except psutil.Error:
                pass
        if descendants:
            psutil.wait_procs(descendants, timeout=1.0)
        self._log.close()
        return self.popen.poll()

    def _signal_group(self, signum: int) -> None:
        try:
            os.killpg(self.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def describe_exit(self) -> str:
        """Human words for how the bot ended, for a record's `reason`."""
        code = self.popen.poll()
        if code is None:
            return "still running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

