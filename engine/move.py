"""Moves: small immutable values with one canonical text form (`d4-d5`, `d4xd6xf6`)."""

from __future__ import annotations

import re
from typing import NamedTuple

from foxgeese.engine.board import POINT_NAMES, parse_point
from foxgeese.engine.errors import InvalidMoveError
from foxgeese.engine.userinput import shown

_POINT_SHAPE = r"[a-z][1-9][0-9]?"  # ASCII digits, no leading zero: `d٤`, `d04` are no points
_MOVE_SHAPE = re.compile(rf"{_POINT_SHAPE}(?:-{_POINT_SHAPE}|(?:x{_POINT_SHAPE})+)", re.ASCII)
MAX_MOVE_TEXT = 200  # longer than any capture chain on these boards


class Move(NamedTuple):
    """A step (`path` of two points) or a fox capture chain (`path` of every landing point).

    Points are grid indices (see board.py), so a move means the same on any board and its text
    needs no board to write.
    """

    path: tuple[int, ...]
    is_capture: bool = False

    @property
    def origin(self) -> int:
        return self.path[0]

    @property
    def target(self) -> int:
        return self.path[-1]

    def captured_points(self) -> list[int]:
        """The jumped points, each the average of two consecutive landing points."""
        if not self.is_capture:
            return []
        return [(a + b) >> 1 for a, b in zip(self.path, self.path[1:])]

    def __str__(self) -> str:
        return ("x" if self.is_capture else "-").join([POINT_NAMES[p] for p in self.path])

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Reads move text in any case with surrounding spaces; raises InvalidMoveError otherwise."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"move must be text like d4-d5, not {type(text).__name__}")
        cleaned = text.strip().lower()
        if len(cleaned) > MAX_MOVE_TEXT or not _MOVE_SHAPE.fullmatch(cleaned):
            raise InvalidMoveError(
                f"bad move {shown(text.strip())}: write a step as d4-d5 or a capture as d4xd6 (chains: d4xd6xf6)"
            )
        is_capture = "x" in cleaned
        path = tuple(parse_point(part) for part in re.split(r"[-x]", cleaned))
        return cls(path, is_capture)
