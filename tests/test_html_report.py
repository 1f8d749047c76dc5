"""The HTML tournament report and `foxgeese show DIR GAME_ID`, on a real small tournament."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from foxgeese.engine.outcome import RULE_MEANINGS, ending_meaning
from foxgeese.main import main
from foxgeese.tournaments.config import load_config
from foxgeese.tournaments.html_report import html_report
from foxgeese.tournaments.journal import read_journal
from foxgeese.tournaments.report import game_entries, load_results
from foxgeese.tournaments.runner import Runner

BOT = Path(__file__).parent / "bots" / "tournament_bot.py"
LEGEND = re.compile(r"[FH] (fox|hare), [GD] (geese|hounds); \w+ to move$")  # under each board drawn


def _rule_endings(directory: Path, variant: str) -> set[str]:
    """The rule endings (captured, trapped, ...) of the variant's games in the tournament's journal."""
    return {game.termination for game in game_entries(read_journal(directory))
            if game.variant == variant and game.termination in RULE_MEANINGS}


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two variants, a minimax, a random player and a bot that plays an illegal move (forfeits)."""
    folder = tmp_path_factory.mktemp("tournament")
    illegal = json.dumps([sys.executable, str(BOT), "--mode", "illegal"])
    config = folder / "t.yaml"
    config.write_text(
        "name: webtest\nvariants:\n  - id: standard\n  - id: hare-and-hounds\nplayers:\n"
        "  - name: mm1\n    spec: minimax:depth=1\n  - name: rnd\n    spec: random:seed=3\n"
        f"  - name: illegal\n    command: {illegal}\n"
        "games_per_pairing: 2\ntime_control: move=0.5\nconcurrency: 2\nseed: 2\nopening_plies: 2\nmax_plies: 120\n")
    Runner(load_config(config), folder / "out").run()
    return folder / "out"


def foxgeese(*args: str) -> Result:
    """The command line in this process (click's runner): exit code, stdout and stderr apart."""
    return CliRunner().invoke(main, list(args))


def embedded_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="fg-data">(.*?)</script>', page, re.S)
    return json.loads(found.group(1).replace("<\\/", "</"))


def test_the_report_holds_every_section_and_every_game_replays(tournament: Path) -> None:
    journal = read_journal(tournament)
    games = game_entries(journal)
    page, replayable = html_report(load_results(tournament), journal)
    assert replayable == len(games) == 12
    for heading in ("Standings", "Elo with 95% intervals", "standard: 6 games", "hare-and-hounds: 6 games",
                    "Likelihood of superiority", "Head to head over twin pairs", "Accuracy against perfect play",
                    "Endings and forfeits per bot", "Games"):
        assert f"{heading}</h2>" in page
    # the pairs' table holds every pair of players (each met in 2 twin pairs), accuracy names its tables
    assert "mm1 − rnd" in page  # in config order
    # each Elo says what it measures: the standings' fit, the head to head's pair score
    assert "Bradley-Terry fit over all games" in page and "SPRT bounds are in this unit" in page
    assert "judged by: hare-and-hounds" in page and "hare advantage (" in page
    assert "<th>as fox</th><th>as geese</th>" in page and "<th>as hare</th><th>as hounds</th>" in page
    assert "illegal-move" in page
    # each ending named is said in words, under the crosstable and the endings per bot
    for ending in _rule_endings(tournament, "standard"):
        assert f"{ending}: {ending_meaning(ending)}" in page
    assert "illegal-move: the loser sent an illegal move" in page
    assert page.count('class="elo-row"') == 3
    # Self-contained: no address outside the page.
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:|//)', page)
    data = embedded_data(page)
    by_id = {game.id: game for game in games}
    for replay in data["games"]:
        record = by_id[replay["id"]].record
        assert len(replay["plies"]) == len(record.moves) + 1
        assert replay["plies"][-1]["position"] == record.final
        assert replay["board"] in data["boards"]
        assert all(set(ply["clocks"]) == set(replay["sides"]) for ply in replay["plies"])
    assert any(ply.get("info") for replay in data["games"] for ply in replay["plies"])  # minimax's info


def test_report_html_command_writes_the_file_and_bad_paths_are_one_line(tournament: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = foxgeese("tournament", "report", str(tournament), "--html", str(out))
    assert result.exit_code == 0, result.stderr
    assert "12 games to replay" in result.stderr and out.read_text().startswith("<!doctype html>")
    missing = foxgeese("tournament", "report", str(tournament), "--html", str(tmp_path / "no" / "r.html"))
    assert missing.exit_code == 2 and missing.stderr.strip().splitlines() == [
        f"foxgeese: --html {tmp_path / 'no' / 'r.html'}: no such folder"]


def test_show_opens_a_tournament_game_by_id(tournament: Path) -> None:
    games = sorted(game_entries(read_journal(tournament)), key=lambda g: g.id)
    game = games[0]
    for source in (str(tournament), str(tournament / "journal.jsonl")):
        shown = foxgeese("show", source, game.id)
        assert shown.exit_code == 0, shown.stderr
        lines = shown.stdout.splitlines()
        moves = [line.split()[2] for line in lines if re.match(r"\s*\d+\. ", line)]
        assert moves == [move.move for move in game.record.moves]
        assert lines[-2] == game.record.final and lines[-1].startswith("result: ")
        assert sum(1 for line in lines if LEGEND.match(line)) == 1  # the final board only
    every = foxgeese("show", str(tournament), game.id, "--all")
    assert sum(1 for line in every.stdout.splitlines() if LEGEND.match(line)) == len(game.record.moves) + 1


def test_show_by_id_mistakes_are_one_line(tournament: Path) -> None:
    no_id = foxgeese("show", str(tournament))
    assert no_id.exit_code == 2
    assert no_id.stderr.startswith(
        f"foxgeese: {tournament} holds 12 games; name one: foxgeese show {tournament} GAME_ID")
    unknown = foxgeese("show", str(tournament), "nope")
    assert unknown.exit_code == 2 and len(unknown.stderr.splitlines()) == 1
    assert "no game 'nope' in" in unknown.stderr
    not_record = foxgeese("show", str(tournament / "tournament.json"))  # written by the run, not a record
    assert not_record.exit_code == 2 and "expected a game record" in not_record.stderr


def _tables(text: str) -> list[str]:
    """The report's lines above its list of failed bots' logs (paths, kept whole to be copied)."""
    lines = text.splitlines()
    end = next((i for i, line in enumerate(lines) if line.startswith("Games lost by a bot's own failure")), None)
    return lines[:end]


def _report_at(width: int, results: dict) -> str:
    from foxgeese.terminal import rendered
    from foxgeese.tournaments.report import render

    return rendered(lambda console: render(results, console), width)


def _widened(results: dict, extra: int) -> dict:
    """The same results with `extra` more players (copies of mm1 under long names): a ladder's width."""
    import copy

    wide = copy.deepcopy(results)
    names = [f"minimax-depth{index}-contender" for index in range(extra)]
    for name in names:
        wide["standings"][name] = copy.deepcopy(wide["standings"]["mm1"])
        wide["ratings"]["players"][name] = copy.deepcopy(wide["ratings"]["players"]["mm1"])
        for variant in wide["variants"]:
            line = copy.deepcopy(variant["crosstable"]["mm1"])
            line["opponents"] = {other: copy.deepcopy(next(iter(line["opponents"].values()))) for other in names}
            variant["crosstable"][name] = line
    for row in wide["ratings"]["los"].values():
        row.update({other: 0.5 for other in names})
    wide["ratings"]["los"].update({name: {other: 0.5 for other in [*results["standings"], *names]} for name in names})
    return wide


@pytest.mark.parametrize("extra", [0, 7])
def test_every_table_of_the_report_fits_80_columns_and_names_its_endings(tournament: Path, extra: int) -> None:
    """In a pipe or an 80-column terminal: no line over 80, no header cut (`adjudicat…`), every
    header whole, and each ending named under a crosstable is explained there."""
    results = load_results(tournament)
    if extra:
        results = _widened(results, extra)
    text = _report_at(80, results)
    assert all(len(line) <= 80 for line in _tables(text)), text
    assert "…" not in text, text
    for header in ("adjudicated", "forfeits", "Likelihood of superiority", "Head to head over twin pairs"):
        assert header in text
    assert "illegal-move: the loser sent an illegal move" in text  # under the forfeits table
    for variant in results["variants"]:
        sides = variant["sides"]
        for ending in variant["terminations"]:
            from foxgeese.engine.outcome import ending_meaning

            assert f"  {ending}: {ending_meaning(ending, sides['predator'], sides['prey'])}" in text
    if extra:
        assert "minimax-depth6-contender" in text


def test_the_report_through_a_pipe_is_80_columns(tournament: Path) -> None:
    """`foxgeese tournament report DIR | cat`: rich takes 80 columns when stdout is no terminal."""
    import os
    import subprocess

    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    done = subprocess.run([sys.executable, "-m", "foxgeese", "tournament", "report", str(tournament)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert max(map(len, _tables(done.stdout))) <= 80 and "…" not in done.stdout, done.stdout
    endings = _rule_endings(tournament, "standard")
    assert endings, "the standard games ended by no rule"
    for ending in endings:  # the endings' legend
        assert f"  {ending}: {ending_meaning(ending)}" in done.stdout
