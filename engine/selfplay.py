"""In-process games: the one loop that plays players against each other without the referee.

The book maker, the benchmarks and the tests play this way (OpenSpiel's `evaluate_bots`); games
between processes, with clocks enforced, go through `foxgeese.protocol.referee` instead. A player
is anything with `new_game` and `choose` (every `foxgeese.players` player): the engine knows no
players, only this shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Protocol

from foxgeese.engine.clock import Clock
from foxgeese.engine.game import Game
from foxgeese.engine.move import Move
from foxgeese.engine.outcome import Side
from foxgeese.engine.variants import Variant


class Chosen(Protocol):
    """What `choose` returns: a move, or None to resign."""

    @property
    def move(self) -> Move | None: ...


class Picked(NamedTuple):
    """A choice with nothing more to say than its move (for movers that are no search)."""

    move: Move | None


class Mover(Protocol):
    """A player as far as an in-process game needs one."""

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None: ...

    def choose(self, game: Game, clock: Clock) -> Chosen: ...


def play_game(
    game: Game,
    players: Mapping[Side, Mover],
    *,
    max_plies: int | None = None,
    clock: Clock | None = None,
    seed: int | None = None,
    start: bool = True,
) -> Game:
    """Plays `players` (by side) on from `game` until it ends, holds `max_plies` moves (opening
    included) or a player resigns (a choice without a move); returns `game`.

    With `start`, each player first gets `new_game(variant, side)`, with `seed` if one is given. Every move is checked
    (`Game.parse_move`): a player's illegal move raises `IllegalMoveError`. `clock` is what each
    player is told about time (default: no limits; nothing here enforces it).
    """
    clock = clock or Clock()
    if start:
        for side, player in players.items():
            if seed is None:  # as a caller without seeds would: some players take none
                player.new_game(game.variant, side)
            else:
                player.new_game(game.variant, side, seed)
    while game.outcome() is None and (max_plies is None or len(game.moves) < max_plies):
        move = players[game.position.turn].choose(game, clock).move
        if move is None:
            break
        game.push(game.parse_move(move))
    return game
