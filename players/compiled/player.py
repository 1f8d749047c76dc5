"""The `minimax` player: the compiled alpha-beta (alphabeta.py) behind the Python minimax's options.

Options and their meaning are players/minimax.py's `MinimaxPlayer`'s: `depth` (plies), `nodes`,
`time` (ms a move), `seed` (ties at the root broken at random, from the game's seed); a depth or
node budget is spent whole whatever the load, the clock being only a safety limit (a move it cuts
says `cut`); with no limit at all it searches `DEFAULT_DEPTH` plies, deeper while the tree stays
under `DEFAULT_SOFT_NODES` nodes. The Python search stays as the reference: SPEC `minimax-py`.

Compiled code never runs on a user's clock: numba keeps it in its cache (`cache=True`), `warm()`
compiles or loads it (the tournament runner and `foxgeese play` call it before any game, through
`registry.warm`), and `new_game` runs a small search before the first `turn`. In Hare and Hounds
the search reads the solved table (`hare_hounds_solution`) at every node: exact values, the
shortest win; in `standard` without sideways, the strong solve's bit tables when they are built.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import numpy as np
from numba.typed import List

from foxgeese.engine import DEFAULT_VARIANT, Clock, Game, Move, Side, Variant, get_variant
from foxgeese.engine.variants import Tables
from foxgeese.numba_cache import drop_stale_cache
from foxgeese.players.base import (
    Choice,
    Player,
    combine_budgets,
    game_seed_material,
    safety_budget_ms,
    time_budget_ms,
)
from foxgeese.players.compiled import alphabeta, core
from foxgeese.players.compiled.alphabeta import MATE_BOUND, WIN, Probe, Searcher
from foxgeese.players.compiled.evaluation import eval_tables
from foxgeese.players.compiled.tables import DenseBoard
from foxgeese.players.score import Score
from foxgeese.players.solver.bitlayout import grid_bit
from foxgeese.players.solver.hare_hounds_solution import HOUNDS, load_solution
from foxgeese.players.solver.strong import MIN_GEESE, StrongTables, standard_layout

NUMBA_DEPENDS = (alphabeta, core)  # compiled into this module's cache: an edit there drops it
drop_stale_cache(sys.modules[__name__])

DEFAULT_DEPTH = 4  # as the Python minimax: with no limit, at least this deep...
DEFAULT_SOFT_NODES = 100_000  # ...and deeper while the tree stays this small (30x the Python one's: its speed)
TT_BITS = 20  # a million table entries (40 MB) per searcher
CONTEMPT = 100  # centi-points a draw costs the player (a goose): it plays on rather than repeat (docs/players.md)
WARM_DEPTH = 2


class CompiledSearch:
    """One variant's board, tables and searcher, and the conversions between engine and core."""

    def __init__(self, variant: Variant, *, tt_bits: int = TT_BITS, tables: bool = True,
                 tt_cutoffs: bool = True, table_dir: str | None = None, contempt: int = 0) -> None:
        self.variant = variant
        self.board = DenseBoard(variant)
        probe = None
        if tables and variant.tables is Tables.SOLUTION:
            probe = hare_probe(self.board, table_dir)
        elif tables and variant.tables is Tables.BITS:
            probe = strong_probe(self.board, table_dir, variant)
        self.searcher = Searcher(self.board.tables, eval_tables(self.board), tt_bits=tt_bits, probe=probe,
                                 tt_cutoffs=tt_cutoffs, contempt=contempt)

    def history(self, game: Game) -> list[int]:
        """The keys of the game's positions since its last irreversible move, oldest first."""
        positions = getattr(game, "positions", [game.position])[-(game.position.quiet + 1):]
        keys = []
        for position in positions:
            fox, prey, turn, _, _ = self.board.state(position.state)
            keys.append(int(core.key(fox, prey, turn)))
        return keys

    def engine_move(self, moves: list[Move], code: int) -> Move:
        """The engine move with this core code (chains with one landing and capture set: the first)."""
        for move in moves:
            if int(core.encode(*self.board.move_code(move))) == code:
                return move
        raise ValueError(f"the compiled search chose a move the engine does not list ({code})")

    def principal_variation(self, game: Game, first: Move, depth: int) -> list[Move]:
        """The best move, then the table's moves while they stay legal (as `AlphaBeta.principal_variation`)."""
        line: list[Move] = []
        position = game.position
        seen: set[int] = set()
        move: Move | None = first
        for _ in range(max(depth, 1)):
            moves = position.legal_moves()
            if move is None or move not in moves:
                break
            line.append(move)
            position = position.play(move)
            if position.key() in seen or self.variant.rules.ending(position.state) is not None:
                break
            seen.add(position.key())
            code = self.searcher.table_move(self.board.state(position.state))
            replies = position.legal_moves()
            move = None if code < 0 else next(
                (m for m in replies if int(core.encode(*self.board.move_code(m))) == code), None)
        return line


def hare_probe(board: DenseBoard, table_dir: str | None) -> Probe:
    """The Hare and Hounds solution as the search's probe (loaded, or built once and cached: 0.1 s)."""
    solution = load_solution(table_dir)
    choose = np.zeros((board.tables.n, HOUNDS + 1), np.int64)
    for p in range(board.tables.n):
        value = 1
        for k in range(HOUNDS + 1):
            choose[p, k] = value if k <= p else 0
            value = value * (p - k) // (k + 1)
    return alphabeta.no_probe(alphabeta.HARE_TABLE, scores=np.frombuffer(solution.scores, np.int16).copy(),
                              choose=choose, sets=len(solution.points.masks))


def read_only(words: np.ndarray) -> np.ndarray:
    """The table's words as a read-only int64 array (a view of the memory map: nothing is copied)."""
    view = np.asarray(words).view(np.int64)
    view.setflags(write=False)
    return view


def strong_probe(board: DenseBoard, table_dir: str | None, variant: Variant | None = None) -> Probe | None:
    """The strong solve's bit tables of `variant`'s rules on disk (4 geese up to the most built),
    memory-mapped, or None."""
    tables = StrongTables(table_dir, standard_layout(variant))
    top = tables.available()
    if top < MIN_GEESE:
        return None
    layout = tables.layout
    words = List([read_only(tables.words(k)) for k in range(MIN_GEESE, top + 1)])
    grid7 = np.array([grid_bit(g) for g in board.grid], np.int64)
    return alphabeta.no_probe(alphabeta.STRONG_TABLE, words=words, top=top, grid7=grid7, board7=int(layout.board),
                              radix=layout.radix, row_rank=layout.row_rank, stride=layout.stride,
                              block_word=layout.block_word)


class CompiledMinimaxPlayer(Player):
    """Alpha-beta searcher (compiled). Limits: `depth` (plies), `nodes`, `time` (ms per move); the
    clock caps the time too. With no limit at all it searches `DEFAULT_DEPTH` plies, deeper while
    the tree stays under `DEFAULT_SOFT_NODES` nodes (deterministic either way)."""

    name = "minimax"

    def __init__(self, *, depth: int | None = None, nodes: int | None = None, time: float | None = None,
                 seed: int | None = None) -> None:
        for label, value in (("depth", depth), ("nodes", nodes), ("time", time)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(f"{label} must be a positive number, not {value!r}")
        self.depth = None if depth is None else int(depth)
        self.nodes = None if nodes is None else int(nodes)
        self.time = time
        self.seed = seed
        self.rng = random.Random(seed) if seed is not None else None
        self._search: CompiledSearch | None = None

    @staticmethod
    def warm() -> None:
        """Compiles (the first time on a machine: about half a minute) or loads the search's code."""
        search = CompiledSearch(get_variant(DEFAULT_VARIANT), tt_bits=10, tables=False)
        state = search.board.state(search.variant.start_position().state)
        search.searcher.search(state, [int(core.key(*state[:3]))], depth=WARM_DEPTH)
        search.searcher.table_move(state)  # called from Python (the principal variation): its own code

    def new_game(self, variant: Variant, side: Side, seed: int | None = None) -> None:
        """Makes the variant's searcher (kept between games of one variant, its table emptied) and
        runs a small search, so that loading compiled code never falls on a turn."""
        super().new_game(variant, side, seed)
        material = game_seed_material(self.seed, seed) if self.seed is not None else None
        if material is not None:
            self.rng = random.Random(material)
        search = self.search_for(variant)
        state = search.board.state(variant.start_position().state)
        search.searcher.search(state, [int(core.key(*state[:3]))], depth=WARM_DEPTH)
        search.searcher.clear()

    def search_for(self, variant: Variant) -> CompiledSearch:
        if self._search is None or self._search.variant is not variant:
            self._search = CompiledSearch(variant, contempt=CONTEMPT)
        return self._search

    def choose(self, game: Game, clock: Clock | None = None) -> Choice:
        position = game.position
        search = self.search_for(position.variant)
        fixed = self.depth is not None or self.nodes is not None  # the clock is then a safety limit only
        budget = combine_budgets(self.time, safety_budget_ms(clock) if fixed else time_budget_ms(clock))
        depth, soft_nodes = self.depth, None
        if depth is None and self.nodes is None and budget is None:
            depth, soft_nodes = DEFAULT_DEPTH, DEFAULT_SOFT_NODES
        moves = position.legal_moves()
        state = search.board.state(position.state)
        noise = None
        if self.rng is not None:
            noise = list(range(len(moves)))
            self.rng.shuffle(noise)
        result = search.searcher.search(state, search.history(game), depth=depth, nodes=self.nodes,
                                        time_ms=budget, soft_nodes=soft_nodes,
                                        time_is_budget=not fixed or self.time is not None,
                                        whole_time=self.time is not None and budget == self.time, noise=noise)
        move = search.engine_move(moves, result.move)
        info: dict[str, Any] = {
            **verdict(result.score, position.turn).info(),
            "depth": result.depth,
            "nodes": result.nodes,
            "pv": [str(m) for m in search.principal_variation(game, move, result.depth)],
            "time_ms": int(result.time_ms),
        }
        if fixed and result.timed_out:
            info["cut"] = True
        return Choice(move, info)


def verdict(score: int, mover: Side) -> Score:
    """A search score as a `Score` from the mover's point of view (as `SearchResult.verdict`); a
    result from the bit tables is proven without a distance."""
    if alphabeta.KNOWN_WIN - alphabeta.MAX_PLY <= abs(score) < MATE_BOUND:
        return Score.proven_win(mover) if score > 0 else Score.proven_loss(mover)
    if abs(score) < MATE_BOUND:
        return Score(mover, score)
    mate = WIN - score if score > 0 else -(WIN + score)
    return Score.proven_win(mover, mate) if mate > 0 else Score.proven_loss(mover, -mate)
