"""Errors a tournament user can cause; the CLI prints each as one line on stderr and exits non-zero."""

from __future__ import annotations


class TournamentError(Exception):
    """Base of the user errors of this package (bad config, busy or mismatched output directory)."""


class ConfigError(TournamentError):
    """A configuration that is not valid; `problems` holds one line per thing to fix."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class OutputDirBusyError(TournamentError):
    """Another runner holds the lock of the output directory."""


class ConfigChangedError(TournamentError):
    """The output directory holds a journal of a tournament with a different configuration."""


class JournalError(TournamentError):
    """A journal that cannot be read (not a torn last line, which is repaired, but real damage)."""
