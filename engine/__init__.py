"""The rules of the fox-and-geese family: boards, variants, moves, positions, endings and perft.

Nothing here knows about processes, sockets or clocks being enforced; see docs/rules.md.
"""

from foxgeese.engine.board import Board, parse_point, point_name
from foxgeese.engine.clock import Clock
from foxgeese.engine.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, UnknownVariantError
from foxgeese.engine.game import Game
from foxgeese.engine.gamestate import GameState
from foxgeese.engine.move import Move
from foxgeese.engine.outcome import Outcome, Side, Termination, Winner
from foxgeese.engine.perft import divide, perft
from foxgeese.engine.position import Position
from foxgeese.engine.render import draw_board
from foxgeese.engine.selfplay import play_game
from foxgeese.engine.variants import DEFAULT_VARIANT, VARIANT_IDS, Variant, get_variant

__all__ = [
    "Board", "Clock", "DEFAULT_VARIANT", "Game", "GameState", "IllegalMoveError", "InvalidMoveError",
    "InvalidPositionError", "Move", "Outcome", "Position", "Side", "Termination", "UnknownVariantError",
    "VARIANT_IDS", "Variant", "Winner", "divide", "draw_board", "get_variant", "parse_point", "perft",
    "play_game", "point_name",
]
