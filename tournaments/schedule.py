"""Every game of a tournament, decided up front from the config and its seed.

The schedule is a pure function of the config: the same seed gives the same ids, pairings, roles
and openings, which is what lets a journal be resumed exactly. Games come in role-swapped twins
(same opening, roles exchanged), ordered round by round so a tournament stopped early is balanced.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from foxgeese.engine import Game, get_variant

if TYPE_CHECKING:  # a worker reads ScheduledGame without loading the config's machinery (pydantic, books)
    from foxgeese.tournaments.config import TournamentConfig

MAX_OPENING_TRIES = 200


@dataclass(frozen=True)
class ScheduledGame:
    """One game to play. `twin` is the id of the game with the same opening and the roles swapped."""

    id: str
    round: int
    variant_index: int
    variant_id: str
    variant_options: dict[str, Any] = field(hash=False)
    predator: str
    prey: str
    opening: tuple[str, ...]
    twin: str

    @property
    def players(self) -> tuple[str, str]:
        return (self.predator, self.prey)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "round": self.round,
            "variant": self.variant_id,
            "options": dict(self.variant_options),
            "predator": self.predator,
            "prey": self.prey,
            "opening": list(self.opening),
            "twin": self.twin,
        }


    @classmethod
    def from_json(cls, data: dict[str, Any], variant_index: int) -> ScheduledGame:
        return cls(id=data["id"], round=data["round"], variant_index=variant_index, variant_id=data["variant"],
                   variant_options=dict(data["options"]), predator=data["predator"], prey=data["prey"],
                   opening=tuple(data["opening"]), twin=data["twin"])


def pairings(config: TournamentConfig) -> list[tuple[str, str]]:
    """Pairs of player names in config order: all pairs, or the gauntlet player against each other."""
    names = [player.name for player in config.players]
    if config.format == "gauntlet":
        hub = config.gauntlet_player
        assert hub is not None, "a gauntlet names its player (the config checks it)"
        return [(hub, name) for name in names if name != hub]
    return list(combinations(names, 2))


def make_schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """All games of the tournament in playing order, with ids r0001, r0002, ..."""
    pairs = pairings(config)
    rounds = config.games_per_pairing // 2
    total = rounds * len(config.variants) * len(pairs) * 2
    width = max(4, len(str(total)))
    games: list[ScheduledGame] = []
    for round_index in range(rounds):
        for variant_index, variant in enumerate(config.variants):
            if variant.book is not None:
                opening = variant.openings[round_index % len(variant.openings)]
            else:
                opening = random_opening(variant.id, variant.options, config.opening_plies,
                                         f"{config.seed}/{variant_index}/{round_index}")
            for first, second in pairs:
                ids = [f"r{len(games) + 1:0{width}d}", f"r{len(games) + 2:0{width}d}"]
                for slot, (predator, prey) in enumerate(((first, second), (second, first))):
                    games.append(ScheduledGame(
                        id=ids[slot], round=round_index, variant_index=variant_index,
                        variant_id=variant.id, variant_options=dict(variant.options),
                        predator=predator, prey=prey, opening=opening, twin=ids[1 - slot],
                    ))
    return games


def random_opening(variant_id: str, options: dict[str, Any], plies: int, seed: str) -> tuple[str, ...]:
    """`plies` uniformly random legal moves from the start, never a finished game, from `seed`.

    A draw that ends the game early is thrown away and drawn again from the same generator, so the
    result still depends on the seed alone.
    """
    if plies == 0:
        return ()

    variant = get_variant(variant_id, **options)
    rng = random.Random(seed)
    best: list[str] = []
    for _ in range(MAX_OPENING_TRIES):
        game = Game(variant)
        moves: list[str] = []
        while len(moves) < plies:
            legal = sorted(game.legal_moves(), key=str)
            if not legal:
                break
            move = rng.choice(legal)
            game.push(move)
            if game.outcome() is not None:
                break
            moves.append(str(move))
        if len(moves) == plies and game.outcome() is None:
            return tuple(moves)
        if len(moves) > len(best):
            best = moves[: len(moves)]
    return tuple(best)  # a variant where long random openings always end: play the longest seen
