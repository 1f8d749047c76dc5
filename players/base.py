"""The interface every built-in AI implements, plus time management shared by the searches.

A player only sees a `Game` (position plus history) and a `Clock`; seating, sockets and clocks
that tick are the referee's business.
"""

from __future__ import annotations

import abc
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from foxgeese.engine import Clock, Game, Move, Side, Variant

# What a search keeps back from its budget for the reply to travel and the process to wake up.
SAFETY_MARGIN_MS = 30
# ... and this share of the planned time: a long search builds a big tree, and a garbage collection
# or freeing the tree can take tens of ms (measured: up to 22 ms for a full collection at 1 s a move).
SAFETY_SHARE = 0.05
# Fraction of the remaining time a search may spend on one move when there is no fixed per-move time.
MOVES_TO_GO = 20
# Never plan more than this per move (keeps games brisk even with a large base time).
MAX_BUDGET_MS = 10_000
MIN_BUDGET_MS = 5


@dataclass(frozen=True)
class Choice:
    """A move and what the search knows about it.

    `info` keys (all optional): `score` (int, from the mover's point of view, centi-points),
    `mate` (plies to a forced win, negative when losing), `depth`, `nodes`, `pv` (list of move
    strings), `playouts`, `time_ms`, and `cut` (true: the clock stopped a fixed depth, node or
    playout budget before it was spent; `depth`/`nodes`/`playouts` then say how far it got).
    """

    move: Move | None  # None resigns (the human player's `quit`); searches always give a move
    info: dict[str, Any] | None = field(default=None)


class Player(abc.ABC):
    """A built-in AI. `new_game` resets per-game state; `choose` picks a move for the side to move."""

    name: str = "player"

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        """Forget whatever belonged to the previous game (default: nothing to forget).

        `seed` is the game's own seed (the referee's `new_game` carries one): a player with any
        randomness re-seeds from it here, so a game's moves never depend on earlier games.
        """
        self.variant = variant
        self.side = side
        self.game_seed = seed

    @abc.abstractmethod
    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        """Return a legal move for `game.position.turn`; `game` must not be left modified.

        Without a `clock` (analysis, the web's hints) a player searches to its own fixed limits."""


def game_seed_material(own_seed: int | None, game_seed: int | None) -> int | str | None:
    """What to seed a player's RNG with for one game: the game's seed combined with the player's own
    `seed=` option (so two seeded players in one game still differ), or None for no re-seeding."""
    if game_seed is None:
        return None
    if own_seed is None:
        return game_seed
    return f"{own_seed}/{game_seed}"  # random.Random hashes a str with SHA-512: stable everywhere


def reseed(rng: random.Random, own_seed: int | None, game_seed: int | None) -> None:
    """Re-seeds `rng` in place for a new game (left as it is when the game has no seed)."""
    material = game_seed_material(own_seed, game_seed)
    if material is not None:
        rng.seed(material)


def time_budget_ms(clock: Clock | None, *, margin_ms: int = SAFETY_MARGIN_MS) -> int | None:
    """How long one move may take, in ms, or None when the clock sets no limit.

    A fixed per-move time wins when present. The referee then shows that allowance as the clock
    too, so it is spent whole, not divided by MOVES_TO_GO. Otherwise: remaining/20 plus most of the
    increment, capped so that a big base does not make one move eat the game, and never more than
    half of what is left; always less the margin and 5%.
    """
    return _budget_ms(clock, margin_ms, lambda remaining, increment: min(
        remaining / MOVES_TO_GO + increment * 0.8, MAX_BUDGET_MS, remaining / 2))


def safety_budget_ms(clock: Clock | None, *, margin_ms: int = SAFETY_MARGIN_MS) -> int | None:
    """The longest a move with a fixed budget (depth, nodes, playouts) may take, or None.

    Such a move plays its whole budget whatever the load, so that the same seed gives the same
    game on a busy machine as on a quiet one; the clock is only a safety limit against losing on
    time: the whole per-move allowance, else half of what is left plus the increment (so a move
    never leaves the side without time). When it binds, the move's info says `cut`.
    """
    return _budget_ms(clock, margin_ms, lambda remaining, increment: remaining / 2 + increment)


def _budget_ms(clock: Clock | None, margin_ms: int, fischer: Callable[[float, float], float]) -> int | None:
    """The two budgets' shared frame: a fixed per-move time is spent whole; under a Fischer clock
    `fischer(remaining, increment)` plans the move; always less the margin and the safety share."""
    if clock is None:
        return None
    per_move = getattr(clock, "per_move_ms", None)
    remaining = getattr(clock, "remaining_ms", None)
    increment = getattr(clock, "increment_ms", None) or 0
    if per_move:
        planned = min(per_move, remaining if remaining is not None else per_move)
    elif remaining is not None:
        planned = fischer(remaining, increment)
    else:
        return None
    return int(max(MIN_BUDGET_MS, planned * (1 - SAFETY_SHARE) - margin_ms))


class Deadline:
    """A monotonic point in time a search must stop at (None: never)."""

    __slots__ = ("end",)

    def __init__(self, budget_ms: float | None) -> None:
        self.end = None if budget_ms is None else time.monotonic() + budget_ms / 1000.0

    def passed(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end

    def left_ms(self) -> float | None:
        return None if self.end is None else max(0.0, (self.end - time.monotonic()) * 1000.0)


def combine_budgets(*budgets_ms: float | None) -> float | None:
    """The tightest of several optional budgets."""
    present = [b for b in budgets_ms if b is not None]
    return min(present) if present else None
