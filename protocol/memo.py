"""A bounded memo for the protocol's look-ups that recur game after game (a bot's move texts, the
referee's time controls and setups): a dict that makes a missing value and empties itself when full."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(dict[K, V]):
    """`memo[key]`: the value remembered for `key`, else `make(key)`, remembered; the memo is emptied
    first when it holds `limit` values. A hit is a plain dict look-up (the hot paths pay nothing for
    the bound); an exception from `make` is raised as it is, with nothing remembered."""

    __slots__ = ("make", "limit")

    def __init__(self, make: Callable[[K], V], limit: int) -> None:
        super().__init__()
        self.make, self.limit = make, limit

    def __missing__(self, key: K) -> V:
        value = self.make(key)
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value
