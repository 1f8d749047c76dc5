"""The solver's one oracle (players/solver/oracle.py): the values each consumer read before it
existed, and every consumer asking it.

The references below are what the analysis `Judge`, the web `Coach`, the research `Labeller`, the
solver player and the tables adjudicator each computed from the readers themselves before the
oracle (the Hare and Hounds solution's scores, the int16 tables' scores); the oracle must give
the same values on a sample of positions of Hare and Hounds and of `standard` with up to four
geese (the conftest's tables).
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from foxgeese.engine import Game, Position, Winner, get_variant
from foxgeese.engine.sampling import played_positions, scattered_position
from foxgeese.players.solver.adjudicate import table_adjudicator
from foxgeese.players.solver.analyse import Judge
from foxgeese.players.solver.hare_hounds_solution import load_solution
from foxgeese.players.solver.oracle import LOSS, UNKNOWN, WIN, Oracle, Solved, Source, exact, tables_for
from foxgeese.players.solver.player import SolverPlayer
from foxgeese.players.solver.tables import TableSet, describe, to_parent
from foxgeese.research.labels import Labeller
from foxgeese.web.analysis import Coach

ROOT = Path(__file__).resolve().parent.parent
HARE = get_variant("hare-and-hounds")
STANDARD = get_variant("standard")


def hare_positions() -> list[Position]:
    return played_positions(HARE, 40, seed=3, plies=(0, 30))


def fox_positions() -> list[Position]:
    """`standard` positions of three to five geese, each side to move: some won, lost, ended, unknown."""
    rng = random.Random(11)
    return [scattered_position(STANDARD, rng, prey_count=rng.choice((3, 4, 4, 4, 5))) for _ in range(60)]


class Reference:
    """What the consumers computed from the readers before the oracle (their common core)."""

    def __init__(self, directory: Path) -> None:
        self.hare = load_solution(directory)
        self.int16 = TableSet(STANDARD, directory)

    def score(self, position: Position) -> int | None:
        if position.variant is HARE:
            return int(self.hare.score(position))
        return self.int16.score(position)

    def judge(self, position: Position) -> int | None:  # analyse.Judge.value
        score = self.score(position)
        return None if score is None else (score > 0) - (score < 0)

    def coach(self, position: Position) -> tuple[str, int | None, str]:  # web Coach.value
        ended = position.outcome()
        if ended is not None:
            winner = ended.termination.winner
            return ("draw" if winner is None else WIN if winner == position.turn else LOSS), 0, "rules"
        score = self.score(position)
        if score is None:
            return UNKNOWN, None, ""
        return (*describe(score), "Hare and Hounds solution" if position.variant is HARE else "endgame tables")

    def player(self, position: Position) -> list[int] | None:  # SolverPlayer.score_moves
        if position.variant is HARE:
            return [entry.score for entry in sorted(self.hare.move_scores(position), key=lambda e: str(e.move))]
        if self.int16.score(position) is None:
            return None
        children = [self.int16.score(position.play(move)) for move in sorted(position.legal_moves(), key=str)]
        return None if None in children else [int(to_parent(child)) for child in children if child is not None]


@pytest.fixture(scope="module")
def reference(four_geese_tables: Path) -> Reference:
    return Reference(four_geese_tables)


@pytest.fixture(scope="module")
def oracle(four_geese_tables: Path) -> Oracle:
    return Oracle(four_geese_tables)


def test_the_tables_of_each_variant_come_from_one_place():
    assert tables_for(HARE) == (Source.HARE_HOUNDS,)
    assert tables_for(STANDARD) == (Source.ENDGAME, Source.STRONG)
    assert tables_for(get_variant("standard", geese=17, sideways=True)) == (Source.ENDGAME, Source.WDL)
    assert tables_for(get_variant("great-cross")) == (Source.ENDGAME, Source.WDL)
    assert exact(HARE) and exact(STANDARD) and not exact(get_variant("great-cross"))


@pytest.mark.parametrize("positions", [hare_positions, fox_positions], ids=["hare-and-hounds", "standard"])
def test_the_oracle_gives_the_values_every_old_path_gave(positions, reference: Reference, oracle: Oracle):
    seen = set()
    for position in positions():
        solved = oracle.value(position)
        seen.add(solved.result)
        assert (solved.result, solved.plies, solved.source) == reference.coach(position), position.text()
        if position.outcome() is None:  # the judge and the player read the tables even there
            assert solved.sign == reference.judge(position), position.text()
            old = reference.player(position)
            values = sorted(oracle.move_values(position), key=lambda item: str(item[0]))
            scores = [value.score() for _, value in values]
            assert (None if None in scores else scores) == old, position.text()
        assert oracle.covers(position) == solved.known, position.text()
    assert {WIN, LOSS} <= seen and (UNKNOWN in seen) == (positions is fox_positions)


class Counting(Oracle):
    """A real oracle that counts the positions it is asked about."""

    def __init__(self, tables: Path) -> None:
        super().__init__(tables)
        self.asked = 0

    def value(self, position: Position) -> Solved:
        self.asked += 1
        return super().value(position)


def test_every_consumer_asks_the_oracle(four_geese_tables: Path, reference: Reference):
    position = next(p for p in fox_positions() if p.outcome() is None and reference.judge(p) is not None)
    expected = reference.coach(position)
    for ask in (lambda o: Judge(oracle=o).value(position) == (1 if expected[0] == WIN else -1),
                lambda o: Coach(oracle=o).value(position).result == expected[0],
                lambda o: Labeller(oracle=o).value(position).value == expected[0]):
        counting = Counting(four_geese_tables)
        assert ask(counting) and counting.asked == 1
    counting = Counting(four_geese_tables)
    verdict = table_adjudicator(oracle=counting)(position)
    winner = position.turn if expected[0] == WIN else position.turn.other
    assert verdict is not None and verdict[0] == Winner(STANDARD.side_name(winner)) and counting.asked == 1
    player = SolverPlayer(tables=str(four_geese_tables), seed=2)
    player.oracle = counting = Counting(four_geese_tables)
    player.new_game(STANDARD, position.turn)
    choice = player.choose(Game.from_position(position))
    assert counting.asked == 1 + len(position.legal_moves()) and choice.info["source"] == "tables"
    best = max(v.score() or 0 for _, v in counting.move_values(position))
    assert dict(counting.move_values(position))[choice.move].score() == best


CONSUMERS = ("players/solver/analyse.py", "players/solver/player.py", "players/solver/adjudicate.py",
             "web/analysis.py", "research/labels.py")
READERS = {"TableSet", "StrongTables", "WdlTables", "HareHoundsSolution", "load_solution"}


@pytest.mark.parametrize("path", CONSUMERS)
def test_no_consumer_opens_tables_itself(path: str):
    """Only the oracle holds the readers: a consumer that imported one would pick tables again."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert not imported & READERS and "Oracle" in imported


def test_a_side_to_move_value_seen_by_the_mover_is_one_ply_further():
    assert Solved(WIN, 3, "endgame tables").for_parent() == Solved(LOSS, 4, "endgame tables")
    assert Solved(LOSS, None, "strong solve").for_parent().score() is None
    assert Solved(WIN, 3, "endgame tables").score() == 32000 - 3
