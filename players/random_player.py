"""The random player: a uniformly random legal move, from an injected seed (reproducible)."""

from __future__ import annotations

import random

from foxgeese.engine import Clock, Game, Side, Variant
from foxgeese.players.base import Choice, Player, reseed


class RandomPlayer(Player):
    """Picks uniformly among legal moves; `seed` makes its games replayable."""

    name = "random"

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        super().new_game(variant, side, seed)
        reseed(self.rng, self.seed, seed)

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        moves = game.legal_moves()
        if not moves:
            raise ValueError("the game is over: no move to choose")
        return Choice(self.rng.choice(moves), None)
