"""The arena with real parts: local worker processes, built-in bots, a `cmd:` bot in the bubblewrap
sandbox, a ladder and an SPRT played to their end; a worker whose results lie, and one on which a
bot crashes, taken out with their games replayed by the others. One arena per module fixture."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.executors import Slot
from foxgeese.tournaments.messages import PlayerDef, Where, WorkerSetup
from foxgeese.web.arena import health
from foxgeese.web.arena.db import ArenaDB
from foxgeese.web.arena.routes import queue_test
from foxgeese.web.arena.service import Arena

ROOT = Path(__file__).resolve().parent.parent
PYBOT = f"cmd:{sys.executable} {ROOT / 'examples' / 'bots' / 'python' / 'bot.py'}"
RUNGS = (("random", "random"), ("minimax-1", "minimax:depth=1"), ("pybot", PYBOT))
WAIT_S = 240.0
pytestmark = pytest.mark.timeout(600)  # worker processes and their bots, on a shared machine


def make_arena(path: Path, cls: type[Arena] = Arena, **options: Any) -> Arena:
    settings: dict[str, Any] = {"workers": 2, "rungs": RUNGS, "tc": "10+0.1", "log_dir": path / "logs",
                                "variants": ("hare-and-hounds",)}
    settings.update(options)
    return cls(ArenaDB(path / "arena.sqlite3"), **settings)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    """An arena whose SPRT (minimax-1 against random) has ended and whose ladder has met every bot."""
    arena = make_arena(tmp_path_factory.mktemp("arena"))
    arena.start()
    queue_test(arena, "minimax-1", "random", "hare-and-hounds", "sprt", elo0=0, elo1=150, alpha=0.05, beta=0.05,
               pairs=0, priority=1.0)
    try:
        def finished() -> bool:
            test = arena.db.test(1)
            rows = arena.standings("hare-and-hounds").rows
            return test is not None and test["status"] == "done" and all(row.pairs >= 2 for row in rows)

        assert arena.wait_until(finished, WAIT_S), (arena.db.tests(), arena.db.lines())
        yield arena
    finally:
        arena.stop()
        arena.db.close()


def test_an_sprt_ends_and_says_why(played: Arena) -> None:
    test = played.db.test(1)
    assert test is not None and test["status"] == "done"
    assert "H1 accepted" in test["verdict"] and "reached the upper bound of [-2.94, 2.94]" in test["verdict"]
    assert any(line["text"].startswith("test 1: minimax-1 vs random: H1") for line in played.db.lines())
    games = played.db.games(test=1)
    assert games and len(games) % 2 == 0
    assert {g["predator"] for g in games} == {"minimax-1", "random"}  # each pair: both sides of one opening


def test_the_ladder_rates_every_bot_the_sandboxed_one_too(played: Arena) -> None:
    table = played.standings("hare-and-hounds")
    assert {row.name for row in table.rows} == {"random", "minimax-1", "pybot"}
    assert all(row.elo is not None and row.ci95 is not None and row.ci95 > 0 for row in table.rows)
    assert all(row.accuracy() is not None for row in table.rows)  # hare and hounds is solved: every move judged
    ladder_games = played.db.games(ladder=True)
    pybot_game = next(g for g in ladder_games if "pybot" in (g["predator"], g["prey"]))
    record = played.db.record(pybot_game["id"])
    assert record is not None
    seat = next(seat for seat in record["bots"].values() if seat["name"] == "pybot")
    assert seat["bot_name"] == "python-example"  # it spoke: it ran, in the sandbox the worker was set up with
    assert next(player for player in played.setup(99, 0).players if player.name == "pybot").sandbox
    assert not any(g["forfeit"] for g in ladder_games), [g for g in ladder_games if g["forfeit"]]


def test_every_result_carries_its_worker_and_pairs_are_whole(played: Arena) -> None:
    done_before = {p["id"] for p in played.db.rows("SELECT id FROM arena_pairs WHERE status = 'done'")}
    games = played.db.games()  # the arena plays on: read after the pairs, so each done pair's games are here
    workers = {w["id"] for w in played.db.workers()}
    assert {g["worker"] for g in games} <= workers and len(workers) == 2
    by_pair: dict[int, list[dict[str, Any]]] = {}
    for game in games:
        by_pair.setdefault(game["pair"], []).append(game)
    for pair in by_pair.values():
        assert sorted(g["slot"] for g in pair) == [0, 1]
        assert pair[0]["predator"] == pair[1]["prey"] and pair[0]["worker"] == pair[1]["worker"]
    assert done_before <= set(by_pair)
    done_now = {p["id"] for p in played.db.rows("SELECT id FROM arena_pairs WHERE status = 'done'")}
    assert set(by_pair) <= done_now


def test_a_second_commit_of_a_pair_is_refused(played: Arena) -> None:
    game = played.db.games()[0]
    pair = played.db.rows("SELECT * FROM arena_pairs WHERE id = ?", (game["pair"],))[0]
    before = len(played.db.games())
    again = [{**g, "record": played.db.record(g["id"])} for g in played.db.games() if g["pair"] == game["pair"]]
    from foxgeese.web.arena.db import Pair

    claim = Pair(pair["id"], pair["test"], pair["variant"], pair["first"], pair["second"], (), pair["seed"], pair["tc"])
    assert played.db.commit(claim, pair["worker"], again) is False
    assert len(played.db.games()) == before


# ---------------------------------------------------------------- workers taken out of rotation


class LyingSlot(Slot):
    """A worker whose results, from its `honest`-th pair on, claim the predator won what it lost."""

    def __init__(self, slot: Slot, honest_games: int) -> None:
        self.slot = slot
        self.honest_games = honest_games
        self.games = 0

    def where(self) -> Where:
        return self.slot.where()

    @property
    def index(self) -> int:
        return int(getattr(self.slot, "index", 0))

    def play(self, job: Any, emit: Any) -> GameEntry:
        entry = self.slot.play(job, emit)
        self.games += 1
        if self.games > self.honest_games:
            score = entry.predator_score
            entry = msgspec.structs.replace(entry, predator_score=1.0 - score if score != 0.5 else 1.0)
        return entry

    def restart(self, give_up: Any) -> bool:
        return self.slot.restart(give_up)

    def close(self) -> None:
        self.slot.close()


class BadWorkersArena(Arena):
    """Worker 1 lies from its fifth game on; worker 2's copy of `flaky` is broken: the bot exits at
    once there, and only there."""

    def _adopt(self, slot: Slot) -> bool:
        return super()._adopt(LyingSlot(slot, honest_games=4) if slot.where().slot == 1 else slot)

    def setup(self, index: int, generation: int) -> WorkerSetup:
        setup = super().setup(index, generation)
        if index == 2:
            crash = f"cmd:{sys.executable} -c 'import sys; sys.exit(3)'"
            setup.players = [PlayerDef(p.name, spec=crash) if p.name == "flaky" else p for p in setup.players]
        return setup


def test_a_lying_worker_and_a_broken_one_are_taken_out_and_their_games_replayed(tmp_path: Path) -> None:
    arena = make_arena(tmp_path, BadWorkersArena, workers=3, ladder_priority=0,
                       rungs=(("random", "random"), ("flaky", "minimax:depth=1")))
    arena.start()
    try:
        queue_test(arena, "flaky", "random", "hare-and-hounds", "pairs", elo0=0, elo1=0, alpha=0, beta=0,
                   pairs=12, priority=1.0)
        liar, broken, good = (arena.worker_id_of(i) for i in (1, 2, 0))
        assert arena.wait_until(lambda: sum(w["status"] == "out" for w in arena.db.workers()) == 2, WAIT_S), \
            arena.db.lines()
        reasons = {w["id"]: w["reason"] for w in arena.db.workers() if w["status"] == "out"}
        assert set(reasons) == {liar, broken}
        assert "consistency check" in reasons[liar] and "disagrees with its winner" in reasons[liar]
        assert "crashed or lost on time" in reasons[broken]
        lines = [line["text"] for line in arena.db.lines(500)]
        for worker in (liar, broken):
            assert any(line.startswith(f"worker {worker} taken out of rotation") for line in lines), lines
        assert {g["worker"] for g in arena.db.games(void=True) if g["void"]} == {liar, broken}
        assert arena.db.rows("SELECT id FROM arena_pairs WHERE replaces IS NOT NULL"), "their pairs are played again"
        assert arena.wait_until(lambda: (arena.db.test(1) or {}).get("status") == "done", WAIT_S), arena.db.lines()
        pairs = arena.db.rows("SELECT * FROM arena_pairs WHERE test = 1")
        done = [p for p in pairs if p["status"] == "done"]
        assert len(done) == 12 and {p["worker"] for p in done} == {good}
        for pair in pairs:  # every pair the two played is void and played again, unless the test had enough
            if pair["status"] == "void":
                assert pair["worker"] in (liar, broken)
                assert any(other["replaces"] == pair["id"] for other in pairs)
            else:
                assert pair["status"] in ("done", "dropped"), pair
        assert {g["worker"] for g in arena.db.games(test=1)} == {good}
        assert not [g for g in arena.db.games() if g["forfeit"]]
    finally:
        arena.stop()
        arena.db.close()


def test_chi_square_survival_matches_known_values() -> None:
    assert health.chi2_survival(3.841, 1) == pytest.approx(0.05, abs=1e-3)
    assert health.chi2_survival(18.307, 10) == pytest.approx(0.05, abs=1e-3)
    assert health.chi2_survival(0.0, 3) == 1.0
    assert health.binomial_tail(0, 10, 0.3) == pytest.approx(1.0)
