"""Real tournaments: real bot processes over real ZeroMQ, a runner killed with SIGKILL and resumed,
faulty bots recorded as forfeits, an SPRT that stops a match and stays stopped."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil
import pytest
from tournament_support import comparable, foxgeese_here, relative_config

from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.entries import SprtStop
from foxgeese.tournaments.errors import ConfigChangedError
from foxgeese.tournaments.failures import failure_lines
from foxgeese.tournaments.journal import read_identity, read_journal
from foxgeese.tournaments.report import game_entries, load_results, summarize
from foxgeese.tournaments.runner import Runner, RunState
from foxgeese.tournaments.schedule import make_schedule

BOT = Path(__file__).parent / "bots" / "tournament_bot.py"


def bot(name: str, *args: str) -> str:
    command = json.dumps([sys.executable, str(BOT), *args])
    return f"  - name: {name}\n    command: {command}\n"


def config_file(tmp_path: Path, players: str, extra: str = "", name: str = "t") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nvariants:\n  - id: standard\nplayers:\n{players}{extra}")
    return path


def run_cli(*args: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "foxgeese", "tournament", *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_crashing_hanging_and_illegal_bots_forfeit_and_the_rest_is_normal(tmp_path: Path) -> None:
    players = (bot("a", "--seed", "1") + bot("b", "--seed", "2") + bot("crash", "--mode", "crash")
               + bot("hang", "--mode", "hang") + bot("illegal", "--mode", "illegal"))
    path = config_file(tmp_path, players, "games_per_pairing: 2\ntime_control: move=0.5\nconcurrency: 2\n"
                                          "opening_plies: 1\nmax_plies: 150\n")
    out = tmp_path / "out"
    # A hung bot gets 1 s (not the default 5 s) to answer `new_game` before the referee restarts it.
    Runner(load_config(path), out, referee_options={"ready_timeout_s": 1.0}).run()
    games = {game.id: game for game in game_entries(read_journal(out))}
    assert len(games) == 20
    expected = {"crash": "crash", "hang": "time-forfeit", "illegal": "illegal-move"}
    for game in games.values():
        faulty = [name for name in (game.predator, game.prey) if name in expected]
        if not faulty:
            assert game.termination in ("captured", "trapped", "immobilized", "max-plies")
            assert game.forfeit is None and game.plies > 3
            continue
        # The first faulty bot to move loses by its own fault, whoever the opponent is.
        mover = game.predator if game.predator in expected else game.prey
        if len(faulty) == 2:
            opening_moves = len(game.opening)  # the predator moves first in standard
            mover = game.predator if opening_moves % 2 == 0 else game.prey
        assert game.forfeit == mover, game
        assert game.termination == expected[mover], game
        assert game.record.termination == expected[mover]
    results = load_results(out)
    assert results["standings"]["crash"]["forfeits"] == {"crash": 6}
    assert results["standings"]["hang"]["forfeits"] == {"time-forfeit": 6}
    assert results["standings"]["illegal"]["forfeits"] == {"illegal-move": 6}
    assert results["standings"]["a"]["forfeits"] == {} and results["standings"]["a"]["score"] >= 6
    assert sum(results["variants"][0]["terminations"].values()) == 20


def _hash_config(tmp_path: Path, name: str) -> Path:
    """12 games: the kill below lands after the fifth, with most still to play."""
    players = bot("p1", "--seed", "1") + bot("p2", "--seed", "2") + bot("p3", "--seed", "3")
    return config_file(tmp_path, players, "games_per_pairing: 4\ntime_control: 5+0.1\nconcurrency: 2\n"
                                          "seed: 4\nopening_plies: 2\nmax_plies: 120\n", name=name)


def _summary(directory: Path) -> dict[str, tuple[str, str, str, str, int]]:
    return {g.id: (g.predator, g.prey, g.winner, g.termination, g.plies)
            for g in game_entries(read_journal(directory))}


def test_sigkill_mid_tournament_then_resume_plays_every_game_exactly_once(tmp_path: Path, short_tmp: str) -> None:
    scratch = short_tmp  # the referees' TMPDIR
    path = _hash_config(tmp_path, "k")
    scheduled = len(make_schedule(load_config(path).config))
    killed = tmp_path / "killed"
    # A runner and its workers killed with SIGKILL cannot remove their referees' private folders (socket, empty logs);
    # the resumed runner's referees do. The scratch TMPDIR shows it, away from the machine's /tmp.
    runner = subprocess.Popen([sys.executable, "-m", "foxgeese", "tournament", "run", str(path), "--out",
                               str(killed), "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env={**os.environ, "TMPDIR": scratch})
    journal = killed / "journal.jsonl"
    deadline = time.monotonic() + 60
    bots: list[psutil.Process] = []
    workers: set[int] = set()
    try:
        while time.monotonic() < deadline:
            lines = journal.read_bytes().count(b"\n") if journal.exists() else 0
            if lines >= 5:
                break
            assert runner.poll() is None, runner.stderr.read() if runner.stderr else ""
            time.sleep(0.01)
        workers = {child.pid for child in psutil.Process(runner.pid).children()}
        bots = psutil.Process(runner.pid).children(recursive=True)
        runner.send_signal(signal.SIGKILL)
        runner.wait(10)
    finally:
        for child in bots:  # the bots the killed runner left behind
            try:
                child.kill()
            except psutil.NoSuchProcess:
                pass
    psutil.wait_procs(bots, timeout=10)
    before = read_journal(killed)
    assert 5 <= len(before) < scheduled, "the kill must land mid-tournament"
    partial = foxgeese_here("tournament", "report", str(killed))
    assert partial.returncode == 0, partial.stderr
    assert f"{len(before)} of {scheduled} games played" in partial.stdout
    with open(journal, "ab") as handle:  # as if the kill had hit in the middle of a write
        handle.write(b'{"id":"r0099","predator":"p1"')
    left = os.listdir(scratch)
    # The referees ran in the runner's worker processes, one private folder each.
    assert left and all(name.split("-")[2] in {str(pid) for pid in workers} for name in left), (left, workers)
    resumed = run_cli("run", str(path), "--out", str(killed), "--quiet", env={**os.environ, "TMPDIR": scratch})
    assert resumed.returncode == 0, resumed.stderr
    assert os.listdir(scratch) == []  # the killed runner's folders are gone, and so are the new ones
    entries = read_journal(killed)
    counts = Counter(entry.id for entry in entries)
    assert sorted(counts) == [game.id for game in make_schedule(load_config(path).config)]
    assert set(counts.values()) == {1}
    assert entries[: len(before)] == before  # nothing journaled before the kill was replayed

    fresh = tmp_path / "fresh"  # the same tournament uninterrupted, in this process
    Runner(load_config(path), fresh).run()
    assert _summary(killed) == _summary(fresh)
    a, b = load_results(killed), load_results(fresh)
    # `run` reports from the journal it resumed plus the games it added, not from a second read.
    assert json.loads((killed / "results.json").read_text()) == json.loads(json.dumps(a))
    assert a["standings"] == b["standings"] and a["variants"] == b["variants"]
    for name, rating in a["ratings"]["players"].items():
        assert rating["elo"] == pytest.approx(b["ratings"]["players"][name]["elo"], abs=1e-6)
    # The report command reads the same directory and writes the machine-readable files.
    report = foxgeese_here("tournament", "report", str(killed), "--json")
    assert report.returncode == 0 and json.loads(report.stdout)["played"] == scheduled
    assert (killed / "results.csv").read_text().startswith("player,elo,ci95,games,score")


def test_a_changed_config_is_refused_naming_the_keys(tmp_path: Path) -> None:
    players = bot("p1", "--seed", "1") + bot("p2", "--seed", "2")
    path = config_file(tmp_path, players, "games_per_pairing: 2\ntime_control: 5+0.1\nseed: 1\n")
    out = tmp_path / "out"
    first = foxgeese_here("tournament", "run", str(path), "--out", str(out))
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].startswith("[1/2] r0001 standard p1 (fox) vs p2 (geese): ") and lines[1].startswith("[2/2] r0002 ")
    assert "t: 2 of 2 games played" in first.stdout and "Standings" in first.stdout
    path.write_text(path.read_text().replace("seed: 1", "seed: 2").replace("--seed\", \"2", "--seed\", \"3"))
    with pytest.raises(ConfigChangedError, match=r"changed: players\[1\].command\[3\], seed"):
        Runner(load_config(path), out).run()
    refused = foxgeese_here("tournament", "run", str(path), "--out", str(out))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "changed: players[1].command[3], seed" in refused.stderr


def test_a_resume_plays_the_stored_schedule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once tournament.json is written, its schedule is what the journal's ids mean."""
    from foxgeese.files import write_json_atomic

    players = bot("p1", "--seed", "1") + bot("p2", "--seed", "2")
    path = config_file(tmp_path, players, "games_per_pairing: 2\ntime_control: 5+0.1\nopening_plies: 1\n")
    out = tmp_path / "out"
    out.mkdir()
    from foxgeese.tournaments.runner import prepare_directory

    loaded = load_config(path)
    written, drawn = prepare_directory(loaded, out)
    identity = read_identity(out)
    assert identity == written and identity["schedule"] == [game.to_json() for game in drawn]
    assert drawn == make_schedule(loaded.config)
    for game in identity["schedule"]:
        game["opening"] = ["d4-d5"]  # stands in for a schedule drawn by another version
    write_json_atomic(out / "tournament.json", identity)

    def no_draw(config):
        raise AssertionError("a directory with a stored schedule must not draw one from the seed")

    monkeypatch.setattr("foxgeese.tournaments.runner.make_schedule", no_draw)
    runner = Runner(loaded, out)
    started = []
    runner.on_start = lambda state: started.append((state.scheduled, state.games_done, len(runner.schedule)))
    runner.run()
    assert started == [(2, 0, 2)]  # told once, before any game, with the stored schedule's size
    assert [game.opening for game in game_entries(read_journal(out))] == [["d4-d5"], ["d4-d5"]]


def test_a_second_runner_on_the_same_directory_is_refused(tmp_path: Path) -> None:
    from foxgeese.tournaments.journal import DirectoryLock

    path = config_file(tmp_path, bot("p1") + bot("p2", "--seed", "2"), "time_control: 5+0.1\n")
    out = tmp_path / "out"
    out.mkdir()
    with DirectoryLock(out):
        refused = run_cli("run", str(path), "--out", str(out))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"another runner (pid {os.getpid()}) is using this directory" in refused.stderr
    assert not (out / "journal.jsonl").exists()


def test_report_of_a_directory_that_is_no_tournament_is_one_line(tmp_path: Path) -> None:
    done = foxgeese_here("tournament", "report", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    message = f"foxgeese: {tmp_path}: not a tournament directory (no tournament.json)"
    assert done.stderr.strip().splitlines() == [message]


def test_sprt_stops_the_match_and_a_rerun_honours_the_stop(tmp_path: Path) -> None:
    players = bot("strong", "--seed", "1") + bot("cheat", "--mode", "illegal")
    path = config_file(tmp_path, players, "games_per_pairing: 60\ntime_control: 5+0.1\n"
                                          "sprt: {elo0: 0, elo1: 100, alpha: 0.1, beta: 0.1}\n")
    out = tmp_path / "out"
    state = Runner(load_config(path), out).run()
    entries = read_journal(out)
    stops = [entry for entry in entries if isinstance(entry, SprtStop)]
    assert len(stops) == 1 and stops[0].decision == "H1" and state.sprt_stop == stops[0]
    played = len(game_entries(entries))
    assert played < 60
    # The runner's tallies, kept game by game, are what the report computes from the whole journal.
    from_scratch = summarize(read_identity(out), entries)
    assert from_scratch["sprt"]["pairs"] == stops[0].pairs and from_scratch["sprt"]["decision"] == "H1"
    assert from_scratch["sprt"]["llr"] == stops[0].llr
    assert_tallies_match(state, from_scratch)
    state = Runner(load_config(path), out).run()
    assert read_journal(out) == entries  # the stop is honoured: nothing more is played
    assert state.sprt_stop == stops[0] and state.identity == read_identity(out)
    assert_tallies_match(state, from_scratch)  # counted afresh from the journal on resume
    results = load_results(out)
    assert results["sprt"]["decision"] == "H1" and results["sprt"]["stopped"] and results["complete"]


def assert_tallies_match(state: RunState, results: dict[str, Any]) -> None:
    """The runner's standings equal the report's, computed from scratch."""
    assert state.games_done == results["played"]
    rows = {row.name: row for row in state.standings.rows()}
    assert {name: (row.games, row.points) for name, row in rows.items()} == {
        name: (line["games"], line["score"]) for name, line in results["standings"].items()}


def test_relative_bot_paths_start_in_the_config_folder_from_any_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cmd:python bots/bot.py` (and a `cwd`) mean the config's folder, wherever the runner starts."""
    path = relative_config(tmp_path / "cfg")
    monkeypatch.chdir(path.parent)
    Runner(load_config(path.name), tmp_path / "here").run()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    Runner(load_config(path), tmp_path / "there").run()
    games = comparable(tmp_path / "here")
    assert comparable(tmp_path / "there") == games and len(games) == 6
    assert not [game for game in game_entries(read_journal(tmp_path / "there")) if game.forfeit]


def test_a_missing_bot_script_is_a_config_error_naming_the_path_tried(tmp_path: Path) -> None:
    path = relative_config(tmp_path)
    path.write_text(path.read_text().replace("bots/tournament_bot.py", "bots/missing.py"))
    done = foxgeese_here("tournament", "run", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"foxgeese: {path}:4: players[0]: bot 'h1': script 'bots/missing.py' does not exist "
                           f"(looked for {str(tmp_path / 'bots' / 'missing.py')!r})\n")


def test_concurrency_is_a_number_or_auto(tmp_path: Path) -> None:
    path = relative_config(tmp_path)
    for value in ("x", "0", "65"):
        done = foxgeese_here("tournament", "run", str(path), "--out", str(tmp_path / "out"), "--concurrency", value)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (f"foxgeese: tournament run: --concurrency must be a number of game slots from 1 to 64, "
                               f"or auto, not '{value}' (see 'foxgeese tournament run --help')\n")
    path.write_text(path.read_text() + "concurrency: many\n")
    done = foxgeese_here("tournament", "run", str(path))
    assert done.stderr == (f"foxgeese: {path}:11: concurrency: 'many' is not allowed; give a number of game slots "
                           "from 1 to 64, or auto\n")


def test_an_sprt_that_runs_out_of_games_says_why_and_how_to_extend(tmp_path: Path) -> None:
    players = bot("a", "--seed", "1") + bot("b", "--seed", "2")
    path = config_file(tmp_path, players, "games_per_pairing: 4\ntime_control: 5+0.1\nopening_plies: 2\nseed: 3\n"
                                          "max_plies: 40\nsprt: {elo0: 0, elo1: 5}\n")
    out = tmp_path / "out"
    Runner(load_config(path), out).run()
    results = load_results(out)
    assert results["sprt"]["decision"] is None and results["complete"] and not results["sprt"]["stopped"]
    assert results["sprt"]["why_undecided"] == (
        "the game limit was reached: all 4 games (games_per_pairing 4) were played before the LLR crossed a bound; "
        "raise games_per_pairing and run again with the same --out to extend it (the games played count)")
    done = foxgeese_here("tournament", "report", str(out))
    assert "SPRT undecided: the game limit was reached" in done.stdout.replace("\n", " ")


def test_a_crashed_bots_game_line_names_its_log_in_the_output_folder_and_shows_its_last_lines(tmp_path: Path) -> None:
    players = bot("a", "--seed", "1") + bot("crash", "--mode", "crash")
    path = config_file(tmp_path, players, "games_per_pairing: 2\ntime_control: move=0.5\nopening_plies: 0\n")
    out = tmp_path / "out"
    result = run_cli("run", str(path), "--out", str(out))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    crashes = [index for index, line in enumerate(lines) if "(crash, " in line]
    assert len(crashes) == 2, result.stdout  # the crashing bot plays each side once
    for index in crashes:
        side, _, log = lines[index + 1].partition(" log: ")
        assert side in ("fox", "geese") and Path(log).is_file(), lines[index:index + 3]
        assert Path(log).resolve().is_relative_to((out / "logs").resolve())
        assert lines[index + 2].startswith("  | tournament bot: crashing on purpose in game "), lines[index:index + 3]
    end = lines.index("Games lost by a bot's own failure: 2 (each bot's log, and its last lines)")  # the end's list
    assert not any(" log: " in line for index, line in enumerate(lines[:end]) if index - 1 not in crashes)


def test_the_end_of_a_run_lists_each_game_a_bot_lost_by_its_own_failure_with_its_log(tmp_path: Path) -> None:
    """With --quiet too; `tournament report` and the HTML report name the same logs."""
    players = bot("a", "--seed", "1") + bot("crash", "--mode", "crash")
    path = config_file(tmp_path, players, "games_per_pairing: 2\ntime_control: move=0.5\nopening_plies: 0\n")
    out = tmp_path / "out"
    done = foxgeese_here("tournament", "run", str(path), "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("Games lost by a bot's own failure: 2 (each bot's log, and its last lines)")
    failures = load_results(out)["failures"]
    assert [(f["game"], f["bot"], f["termination"]) for f in failures] == [("r0001", "crash", "crash"),
                                                                          ("r0002", "crash", "crash")]
    for number, failure in enumerate(failures):
        game, log, last = lines[start + 1 + 3 * number: start + 4 + 3 * number]
        assert game.startswith(f"{failure['game']} crash ({failure['side']}) crash: {failure['side']} (crash) exited")
        assert log == f"  log: {failure['log']}" and Path(failure["log"]).resolve().is_relative_to(out.resolve())
        assert last == f"  | tournament bot: crashing on purpose in game {failure['game']}"
    assert re.fullmatch(r"2 games played in \d+ s; journal, results.json, results.csv and games.csv in .*",
                        lines[start + 7]), lines[start + 7]
    report = foxgeese_here("tournament", "report", str(out), "--html", str(tmp_path / "r.html"))
    assert done.stdout.splitlines()[start:start + 7] == report.stdout.splitlines()[-7:]
    page = (tmp_path / "r.html").read_text()
    assert "Games lost by a bot's own failure (2)" in page
    assert all(f"<td class=log>{failure['log']}</td>" in page for failure in failures)
    assert '<a href="#game=r0001" title="replay">r0001</a>' in page  # opens the game's replay
    shown = failure_lines(failures, shown=1)  # a long list is cut, and says where the rest is
    assert len(shown) == 5 and shown[-1] == (f"and 1 more: every one is in results.json (`failures`); their logs "
                                             f"are under {Path(failures[0]['log']).parent}")


def test_a_cut_failure_list_names_one_folder_for_relative_and_absolute_logs(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A run resumed elsewhere (Ray once kept relative log paths) mixes both: one folder, no error."""
    monkeypatch.chdir(tmp_path)
    logs = ["out/logs/r0001-fox.log", str(tmp_path / "out" / "logs" / "w0" / "crash-2.stderr")]
    failures = [{"game": f"r000{n + 1}", "bot": "crash", "side": "fox", "termination": "crash",
                 "reason": "exited", "log": log} for n, log in enumerate(logs)]
    shown = failure_lines(failures, shown=1)
    assert shown[-1].endswith(f"their logs are under {tmp_path / 'out' / 'logs'}")
