"""The referee's TurnCache: move texts are filed by the Move value (no table keyed by id()) and bounded."""

from __future__ import annotations

from foxgeese.engine import Game, Move, get_variant
from foxgeese.protocol import codec
from foxgeese.protocol.turncache import TurnCache


def test_a_move_s_packed_text_is_found_by_its_value_and_the_tables_stay_bounded():
    cache = TurnCache(move_texts_limit=10)
    moves = Game(get_variant("standard")).legal_moves()
    packed = cache.packed_texts(moves)
    assert packed == [codec.pack(str(move)) for move in moves]
    copies = [Move(tuple(list(move.path)), move.is_capture) for move in moves]  # equal values, other objects
    assert all(copy == move and copy.path is not move.path for copy, move in zip(copies, moves))
    assert cache.packed_texts(copies) == packed
    assert all(cache.move_of_text[str(move)] == move for move in moves)
    distinct = [Move((a, b)) for a in range(30) for b in range(30) if a != b]
    for start in range(0, len(distinct), 5):
        cache.packed_texts(distinct[start:start + 5])
        assert len(cache.move_of_text) <= 10 + 5  # emptied when over the limit, before a batch is filed
