"""Errors a user of the engine can cause; each message says what was wrong and what would be right."""

from __future__ import annotations


class UnknownVariantError(ValueError):
    """A variant id or option that the registry does not have."""


class InvalidMoveError(ValueError):
    """Move text that is not a move at all (bad syntax or a point outside the grid)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in this position."""

    def __init__(self, move_text: str, reason: str) -> None:
        super().__init__(f"{move_text}: {reason}")
        self.move_text = move_text
        self.reason = reason


class InvalidPositionError(ValueError):
    """Position text that does not describe a position of a known variant."""
