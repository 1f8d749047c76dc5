"""The journal through the command line: a finished tournament rerun plays nothing and says so,
a raised games_per_pairing extends it, damaged lines and games of another tournament are named,
`report` reads what is good and `repair` keeps it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tournament_support import BOT, comparable, foxgeese_here

from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.journal import read_identity, read_journal
from foxgeese.tournaments.runner import Runner


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return foxgeese_here("tournament", *args)


def play(path: Path, out: Path) -> None:
    """A run in this process, where the test does not read what `run` prints."""
    Runner(load_config(path), out).run()


def small_config(tmp_path: Path, games: int = 2, seed: int = 1) -> Path:
    path = tmp_path / "j.yaml"
    players = "".join(f'  - {{name: p{n}, command: ["{sys.executable}", "{BOT}", "--seed", "{n}"]}}\n' for n in (1, 2))
    path.write_text(f"name: j\nvariants: [{{id: standard}}]\nplayers:\n{players}games_per_pairing: {games}\n"
                    f"time_control: 5+0.1\nseed: {seed}\nmax_plies: 60\n")
    return path


def test_rerun_says_nothing_was_played_and_a_raised_games_per_pairing_extends(tmp_path: Path) -> None:
    path, out = small_config(tmp_path), tmp_path / "out"
    play(path, out)
    first = read_journal(out)
    again = run_cli("run", str(path), "--out", str(out), "--quiet")
    assert again.returncode == 0, again.stderr
    assert (f"nothing to play: all 2 games of {out} are in its journal; raise games_per_pairing to extend "
            "the tournament") in again.stdout.splitlines()
    assert read_journal(out) == first
    old_hash = read_identity(out)["config_hash"]

    small_config(tmp_path, games=6)
    grown = run_cli("run", str(path), "--out", str(out), "--quiet")
    assert grown.returncode == 0, grown.stderr
    assert "extended by 4 games (games_per_pairing raised)" in grown.stdout and "6 of 6 games played" in grown.stdout
    assert read_journal(out)[:2] == first  # the old games stay, the new ones follow
    identity = read_identity(out)
    assert identity["scheduled"] == 6 and identity["extends"] == [old_hash]
    fresh = tmp_path / "fresh"
    play(path, fresh)
    assert comparable(out) == comparable(fresh)  # as if it had been planned that long

    small_config(tmp_path, games=4)
    shrunk = run_cli("run", str(path), "--out", str(out))
    assert shrunk.returncode == 2 and "Traceback" not in shrunk.stderr
    assert "games_per_pairing can grow, to extend a tournament, but not shrink below 6" in shrunk.stderr


def test_games_of_another_tournament_are_refused_by_name_and_repair_drops_them(tmp_path: Path) -> None:
    path, out = small_config(tmp_path), tmp_path / "out"
    play(path, out)
    (out / "tournament.json").unlink()
    small_config(tmp_path, seed=2)  # same players and (empty) openings: only the hash tells
    refused = run_cli("run", str(path), "--out", str(out), "--quiet")
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert "the journal holds games of another tournament: game r0001 was played under config hash" in refused.stderr
    assert f"`foxgeese tournament repair {out}` drops them" in refused.stderr
    report = run_cli("report", str(out))
    assert report.returncode == 0 and "0 of 2 games played" in report.stdout
    assert f"foxgeese: {out}/journal.jsonl: line 1 left out: game r0001 was played under" in report.stderr
    repaired = run_cli("repair", str(out))
    assert repaired.returncode == 0, repaired.stderr
    assert repaired.stdout.startswith(f"{out}: kept 0 lines, dropped lines 1, 2 (saved in {out}/journal.dropped-")
    play(path, out)
    now = read_identity(out)["config_hash"]
    assert [(entry.id, entry.config_hash) for entry in read_journal(out)] == [("r0001", now), ("r0002", now)]


def test_a_damaged_line_is_named_report_reads_the_rest_and_repair_keeps_it(tmp_path: Path) -> None:
    path, out = small_config(tmp_path), tmp_path / "out"
    play(path, out)
    journal = out / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b'{"type":"game"}\n' + lines[1] + b"garbage\n" + lines[0])
    refused = run_cli("run", str(path), "--out", str(out))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert (f"foxgeese: {journal}: lines 1, 3 are damaged (line 1: no 'id'; line 3: not a JSON object); "
            f"`foxgeese tournament repair {out}` keeps the 2 good lines and drops the damaged ones") in refused.stderr
    report = run_cli("report", str(out), "--json")
    assert report.returncode == 0 and json.loads(report.stdout)["played"] == 2
    assert report.stderr.splitlines()[:2] == [f"foxgeese: {out}/journal.jsonl: line 1 left out: damaged (no 'id')",
                                              f"foxgeese: {out}/journal.jsonl: line 3 left out: damaged "
                                              "(not a JSON object)"]
    repaired = run_cli("repair", str(out))
    assert repaired.returncode == 0 and "kept 2 lines, dropped lines 1, 3" in repaired.stdout
    saved = next(out.glob("journal.dropped-*.txt")).read_bytes()
    assert saved == b'{"type":"game"}\ngarbage\n'
    assert [entry.id for entry in read_journal(out)] == ["r0002", "r0001"]
    sound = run_cli("repair", str(out))
    assert sound.stdout.strip() == f"{out}: the journal is sound (2 lines); nothing to repair"


def test_a_player_entry_can_sandbox_its_bot_without_changing_the_tournament(tmp_path: Path) -> None:
    from foxgeese.tournaments.runner import bot_configs

    path = small_config(tmp_path)
    plain = load_config(path)
    path.write_text(path.read_text().replace('"--seed", "1"]}', '"--seed", "1"], sandbox: true}'))
    boxed = load_config(path)
    assert [p.sandbox for p in boxed.config.players] == [True, False]
    assert boxed.config.config_hash() == plain.config.config_hash()  # same games, confined differently
    assert bot_configs(boxed)["p1"].sandbox and not bot_configs(boxed)["p2"].sandbox
    out = tmp_path / "out"
    Runner(boxed, out).run()
    games = read_journal(out)
    assert len(games) == 2 and all(game.termination not in ("crash", "no-show") for game in games), games


@pytest.mark.parametrize("body", ["[]", '{"schedule": [], "config_hash": "x", "scheduled": 0}'])
def test_a_damaged_tournament_json_is_one_line_in_report_and_run(tmp_path: Path, body: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "tournament.json").write_text(body)
    for args in (("report", str(out)), ("run", str(small_config(tmp_path)), "--out", str(out))):
        done = run_cli(*args)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
        assert done.stderr.startswith(f"foxgeese: {out}/tournament.json: damaged ("), done.stderr
