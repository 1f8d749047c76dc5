"""`foxgeese arena ...` on a database file: bots, tests, the ladder and the workers listed, and every
mistake one line `foxgeese: ...` with a non-zero status (in this process: no server needed)."""

from __future__ import annotations

from pathlib import Path

from tournament_support import foxgeese_here


def test_bots_and_tests_are_registered_listed_and_each_mistake_is_one_line(tmp_path: Path) -> None:
    data = str(tmp_path / "arena.sqlite3")
    done = foxgeese_here("arena", "bot", "add", "mm2", "minimax:depth=2", "--data", data)
    assert done.returncode == 0 and "registered mm2 (builtin: minimax:depth=2) on the standard ladder" in done.stdout
    added = foxgeese_here("arena", "bot", "add", "rnd", "random", "--variant", "standard", "--data", data)
    assert added.returncode == 0
    listed = foxgeese_here("arena", "bot", "list", "--data", data)
    assert "mm2" in listed.stdout and "minimax:depth=2" in listed.stdout
    queued = foxgeese_here("arena", "test", "add", "mm2", "rnd", "--sprt", "0,20", "--data", data)
    assert queued.returncode == 0 and "queued test 1: mm2 vs rnd (standard); its page is /arena/test/1" in queued.stdout
    assert "sprt [0, 20]" in foxgeese_here("arena", "test", "list", "--data", data).stdout
    assert foxgeese_here("arena", "test", "stop", "1", "--data", data).returncode == 0
    assert "stopped by the operator" in foxgeese_here("arena", "test", "list", "--data", data).stdout
    ladder = foxgeese_here("arena", "ladder", "--data", data)
    assert ladder.returncode == 0 and "no ratings yet: no ladder games yet" in " ".join(ladder.stdout.split())
    for args, words in (
        (("bot", "add", "mm2", "random"), "a bot named 'mm2' is registered already"),
        (("bot", "add", "x/y", "random"), "bot name 'x/y'"),
        (("bot", "add", "zz", "minimax:depht=2"), "SPEC 'minimax:depht=2'"),
        (("bot", "add", "zz", "remote:"), "give remote:NAME"),
        (("test", "add", "mm2", "nobody", "--pairs", "5"), "no bot named 'nobody' in the arena"),
        (("test", "add", "mm2", "rnd"), "give either --sprt ELO0,ELO1 or --pairs N"),
        (("test", "add", "mm2", "rnd", "--sprt", "10,0"), "give elo0 < elo1"),
        (("test", "add", "mm2", "mm2", "--pairs", "3"), "two different bots"),
        (("test", "stop", "1"), "test 1 has ended already"),
        (("bot", "retire", "ghost"), "no bot named 'ghost'"),
    ):
        done = foxgeese_here("arena", *args, "--data", data)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("foxgeese: ") and words in lines[0], \
            (args, done.stderr)
