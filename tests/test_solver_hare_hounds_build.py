"""The Hare and Hounds build (memoised recursion) gives the table that backward induction over every
state gave before it, slot for slot, including the states no game from the start reaches.

`retrograde_scores` is the build it replaced, kept here as the yardstick: the whole move graph
both ways, then terminal states first and in order of distance, a state won as soon as one move
reaches a lost state and lost once every move reaches a won one.
"""

from __future__ import annotations

from array import array
from collections import deque

import pytest

from foxgeese.engine import Position, Side, get_variant
from foxgeese.engine.rules import rules_for
from foxgeese.players.solver.hare_hounds_solution import (
    SCORE_TYPE,
    STALL_STATES,
    Points,
    load_solution,
    rules_fingerprint,
    solve,
)
from foxgeese.players.solver.table_files import NO_MOVE, WIN, read_header, table_path, write_table

HH = get_variant("hare-and-hounds")


def retrograde_scores() -> tuple[list[int], int]:
    """Every slot's score by backward induction (NO_MOVE where the hare stands on a hound), and the move count."""
    rules, points = rules_for(HH), Points()
    states = [None if mask >> hare & 1 else (hare, mask, side, 0, stall)
              for stall in range(STALL_STATES) for side in (Side.PREDATOR, Side.PREY)
              for hare in points.grid for mask in points.masks]
    score = [NO_MOVE] * len(states)
    pending, best = [0] * len(states), [NO_MOVE] * len(states)
    parents: list[list[int]] = [[] for _ in states]
    queue: deque[int] = deque()
    for i, state in enumerate(states):
        if state is None:
            continue
        ended = rules.outcome(state)
        if ended is not None:
            score[i] = WIN if ended.winner == state[2] else -WIN
            queue.append(i)
            continue
        children = [points.flat(child) for child in rules.children(state)]
        pending[i] = len(children)
        for child in children:
            parents[child].append(i)
    while queue:
        child = queue.popleft()
        option = -score[child] + (1 if score[child] > 0 else -1)
        for parent in parents[child]:
            if score[parent] != NO_MOVE:
                continue
            if option > 0:
                score[parent] = option
                queue.append(parent)
                continue
            best[parent] = max(best[parent], option)
            pending[parent] -= 1
            if pending[parent] == 0:
                score[parent] = best[parent]
                queue.append(parent)
    assert all(score[i] != NO_MOVE for i, state in enumerate(states) if state is not None)  # no draws
    return score, sum(len(p) for p in parents)


@pytest.fixture(scope="module")
def built():
    return solve()


@pytest.fixture(scope="module")
def retrograde():
    return retrograde_scores()


def test_the_build_gives_the_retrograde_table_slot_for_slot(built, retrograde):
    scores, figures = built
    expected, edges = retrograde
    assert list(scores) == expected
    assert (figures["states"], figures["edges"], figures["draws"]) == (29_040, edges, 0)
    assert figures["reachable_from_start"] == 23_246 < figures["states"]


def reachable_slots(points: Points) -> set[int]:
    """The slots of every state a game from the start can reach (a forward walk of the rules)."""
    rules, start = rules_for(HH), HH.start_position().state
    seen, frontier = {points.flat(start)}, [start]
    while frontier:
        state = frontier.pop()
        if rules.outcome(state) is None:
            for child in rules.children(state):
                if points.flat(child) not in seen:
                    seen.add(points.flat(child))
                    frontier.append(child)
    return seen


def test_a_position_no_game_from_the_start_reaches_is_in_the_saved_table(built, retrograde, tmp_path):
    solution = load_solution(tmp_path)
    assert list(solution.scores) == list(built[0])  # the file holds what the build made
    assert read_header(table_path(tmp_path, HH, None))["arrays"]["scores"]["shape"] == Points().shape
    reachable = reachable_slots(solution.points)
    assert len(reachable) == built[1]["reachable_from_start"]
    # A custom start: the hare behind the hounds, where the start's games never put it.
    position = Position.from_text("hare-and-hounds - hounds b1 a2,b2,c2 0 0 0")
    assert solution.index(position) not in reachable
    assert solution.score(position) == retrograde[0][solution.index(position)] != NO_MOVE


def test_a_solution_saved_under_other_rules_is_built_again(tmp_path, capsys):
    path = table_path(tmp_path, HH, None)
    saved = load_solution(tmp_path)
    assert saved.header["rules"] == rules_fingerprint() == read_header(path)["rules"]
    stale = dict(saved.header, rules="3f2a9c0d1b7e4a65", build_seconds=-1.0)  # an older build's SHA-256 prefix
    data = array(SCORE_TYPE[0], saved.scores).tobytes()  # little-endian machines (the CI's)
    write_table(path, {k: v for k, v in stale.items() if k not in ("arrays", "data_start", "format_version")},
                {"scores": (SCORE_TYPE[1], Points().shape, data)})
    assert read_header(path)["build_seconds"] == -1.0
    again = load_solution(tmp_path)
    assert again.header["build_seconds"] >= 0 and read_header(path)["rules"] == rules_fingerprint()
    assert list(again.scores) == list(saved.scores) and capsys.readouterr().err == ""  # quietly: not damage


def test_a_saved_solution_whose_scores_are_damaged_is_built_again_with_a_warning(tmp_path, capsys):
    saved = load_solution(tmp_path)  # saved without fsync: its reader checks the scores' CRC-32 instead
    path = table_path(tmp_path, HH, None)
    header = read_header(path)
    data = bytearray(path.read_bytes())
    data[header["data_start"] + header["arrays"]["scores"]["offset"] + 1000] ^= 0x40  # one bit of a score
    path.write_bytes(bytes(data))
    again = load_solution(tmp_path)
    assert "fail their checksum" in capsys.readouterr().err
    assert list(again.scores) == list(saved.scores)
    assert load_solution(tmp_path).header["scores_crc32"] == read_header(path)["scores_crc32"]
    assert capsys.readouterr().err == ""  # written again whole
