"""Every bad input a user can type ends in one `foxgeese: …` line and a non-zero exit (issue 13).

The commands run in-process through the real `foxgeese` group (click's CliRunner), so the
one-line usage layer is what is tested; the cases that need a real game or a real tournament
start real bots.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from foxgeese.main import main

POSITION = "standard geese=13,sideways=0 geese d4 a3,b3,c3,d3,e3,f3,g3,a4,b4,c4,e4,f4,g4 0 0 0"
RANDOM_SEATS = ("--fox", "random", "--geese", "random")
SMALL_PLAYERS = "variants: [{id: standard}]\nplayers: [{name: a, spec: random}, {name: b, spec: random}]\n"
ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """Runs `foxgeese ARGS` in-process; (exit status, stdout, stderr)."""
    runner = CliRunner()
    if cwd is None:
        result = runner.invoke(main, list(args), prog_name="foxgeese")
    else:
        with runner.isolated_filesystem(temp_dir=cwd):
            result = runner.invoke(main, list(args), prog_name="foxgeese")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result.exit_code, result.stdout, result.stderr


def one_line_error(*args: str) -> str:
    """The single stderr line of a refused command (asserting there is exactly one)."""
    status, _, err = run(*args)
    assert status != 0, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("foxgeese: "), err
    assert lines[0].isprintable(), lines[0]
    return lines[0]


# ----------------------------------------------------------------------- position and move text


@pytest.mark.parametrize("command", ["legal", "show"])
@pytest.mark.parametrize("position,words", [
    (POSITION.replace(" d4 ", " d² "), "bad point 'd²'"),
    (POSITION[:-1] + "²", "ply counter must be a whole number, not '²'"),
    (POSITION[:-1] + "9" * 5000, "ply counter must be a whole number of at most 18 digits"),
])
def test_position_text_with_unicode_digits_or_huge_counters(command, position, words):
    assert words in one_line_error(command, "standard", "--position", position)


@pytest.mark.parametrize("move", ["d٤-d٥", "d0004-d05", "d04-d5", "d4-d5_"])
def test_move_text_is_read_in_ascii_digits_without_leading_zeros(move):
    assert f"ply 1: bad move {move!r}" in one_line_error("legal", "standard", move)


def test_control_characters_in_echoed_text_are_escaped():
    line = one_line_error("legal", "standard", "d4\n-d5\x1b[31m")
    assert "bad move 'd4\\n-d5\\x1b[31m'" in line


# ----------------------------------------------------------------------- show and records


def test_show_with_a_very_long_name():
    assert "(5000 characters): File name too long" in one_line_error("show", "x" * 5000)


def test_show_of_a_missing_file_says_so():
    line = one_line_error("show", "nosuch.json")
    assert line == ("foxgeese: 'nosuch.json' is neither a variant (standard, hare-and-hounds, great-cross) "
                    "nor a record file")


@pytest.mark.parametrize("content,words", [
    ("5", "holds a JSON number"), ("null", "holds a JSON null"), ("[]", "holds a JSON array"),
    ('{"start": 5, "moves": []}', "'start' is a JSON number"), ('{"start": "x"}', "'moves' is missing"),
    ("[" * 100_000, "JSON nested too deep"), ("{", "not valid JSON"), ('{"start": NaN}', "NaN is not a JSON number"),
    (f'{{"start": "{POSITION}", "moves": [7]}}', "every entry of 'moves' must be move text"),
    ('{"start": "standard", "moves": []}', "start: position text has 1 tokens"),
])
def test_show_of_a_file_that_is_no_record(tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert words in one_line_error("show", str(path))


def test_show_of_a_record_then_moves_plays_the_moves(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"start": POSITION, "moves": ["a4-a5"]}))  # the geese's move; the fox is on d4
    status, out, err = run("show", str(path), "g4-g5")
    assert status == 2 and "ply 2: g4-g5: no fox on g4" in err  # MOVES go on from the record's end
    status, out, err = run("show", str(path), "d4-d5", "--all")
    assert status == 0, err
    assert "ply 1: a4-a5\n" in out and "ply 2: d4-d5  (after the record)" in out


def test_show_position_of_another_variant_is_refused():
    line = one_line_error("show", "hare-and-hounds", "--position", POSITION)
    assert "--position is a position of standard (geese=13,sideways=0), not of hare-and-hounds" in line


def test_game_over_says_who_won_and_what_happened_to_whom():
    status, out, _ = run("legal", "standard", "--position",
                         "standard geese=13,sideways=0 fox e7 b4,a5,b5,c5,d5,e5,f5,g5,d6,e6,c7,d7 0 0 84")
    assert status == 0 and out.strip() == "game over: geese win, fox trapped (the fox is to move and has no legal move)"


def test_geese_count_is_one_name_in_every_command():
    assert run("perft", "standard", "1", "--geese-count", "15")[0] == 0
    assert "--geese-count must be a whole number" in one_line_error("legal", "standard", "--geese-count", "1٥")
    line = one_line_error("play", "standard", "--fox", "random", "--geese", "15")
    assert "--geese takes a player SPEC" in line and "the number of geese is --geese-count 15" in line


# ----------------------------------------------------------------------- play options


@pytest.mark.parametrize("args,words", [
    (("--tc", "100000000000000000000+0"), "base seconds must be from 0 to 2147483.647, not 1e+20"),
    (("--tc", "move=1e20"), "per-move seconds must be from 0 to 2147483.647"),
    (("--tc", "move=nan"), "per-move seconds must be a decimal number"),
    (("--heartbeat", "inf"), "--heartbeat must be a decimal number like 0.5, not 'inf'"),
    (("--heartbeat", "1e12"), "--heartbeat must be from 0.01 to 3600, not 1e+12"),
    (("--heartbeat", "nan"), "--heartbeat must be a decimal number like 0.5, not 'nan'"),
    (("--bind", "tcp://127.0.0.1:99999"), "give tcp://HOST:PORT with a port from 0 to 65535"),
    (("--bind", "inproc://x"), "inproc:// reaches only this process"),
    (("--max-plies", "99999999999999999999"), "--max-plies must be a whole number of at most 18 digits"),
    (("--opening", "d4-d9"), "--opening: ply 1: d4-d9"),
])
def test_play_options_are_checked_before_any_bot_starts(args, words):
    assert words in one_line_error("play", "standard", *RANDOM_SEATS, *args)


@pytest.mark.parametrize("spec,words", [
    ("minimax:depth=1e400", "option depth must be a finite number, not '1e400'"),
    ("random:seed=abc", "option seed of random must be a whole number, not 'abc'"),
    ("mcts:c=nan", "option c of mcts must be a number, not 'nan'"),
    ("minimax:depth=2.5", "option depth of minimax must be a whole number, not 2.5"),
    ("random:seed=٣", "option seed of random must be a whole number, not '٣'"),
])
def test_player_options_are_checked_against_their_types(spec, words):
    assert words in one_line_error("play", "standard", "--fox", spec, "--geese", "random")


def test_log_dir_under_a_regular_file(tmp_path):
    (tmp_path / "afile").write_text("")
    line = one_line_error("play", "standard", *RANDOM_SEATS, "--log-dir", str(tmp_path / "afile" / "x"))
    assert "--log-dir" in line and "Not a directory" in line


@pytest.mark.parametrize("args,words", [
    (("play", "standard"), "foxgeese: play: standard needs --fox and --geese SPEC"),
    (("tournament", "report", "/nonexistent"), "foxgeese: tournament report: invalid value for 'DIRECTORY'"),
    (("legal", "standard", "--nosuch"), "foxgeese: legal: no such option '--nosuch' (see 'foxgeese legal --help')"),
    (("nosuch",), "foxgeese: no such command 'nosuch' (see 'foxgeese --help')"),
    (("perft", "standard"), "foxgeese: perft: missing argument 'DEPTH'"),
])
def test_usage_errors_are_one_line(args, words):
    assert one_line_error(*args).startswith(words)


# ----------------------------------------------------------------------- tournament files


def _config(tmp_path: Path, text: str | bytes) -> str:
    path = tmp_path / "t.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


def _laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for letter in "bcdefghi":
        previous = chr(ord(letter) - 1)
        lines.append(f"{letter}: &{letter} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text,words", [
    (b"name: x\n\xff\xfe: 1\n", "not UTF-8 text (byte 8)"),
    ("name: s\n" + SMALL_PLAYERS + "seed: " + "9" * 5000 + "\n", ":4: the number '9999"),
    ("name: s\n" + SMALL_PLAYERS + "max_plies: " + "9" * 5000 + "\n", "has more than 18 digits"),
    ("name: s\nvariants: [{id: standard, options: {geese: " + "9" * 5000 + "}}]\n", "has more than 18 digits"),
    ("name: s\n" + SMALL_PLAYERS + "games_per_pairing: 1000000000000\n",
     "games_per_pairing: got the number 1000000000000, above 1000000"),
    ("name: s\nvariants: [{id: standard}]\nplayers: [{name: a, spec: random}, {name: b, spec: random}, "
     "{name: c, spec: random}]\ngames_per_pairing: 400000\n", "this config schedules 1200000 games"),
    ("name: s\n" + SMALL_PLAYERS + "time_control: 100000000000000000000+0\n", "time_control: base seconds must be"),
    (_laughs(), "the file expands to more than 20000 values"),
    ("a: &a [*a]\n", "a YAML alias refers to a value that contains it"),
    ("name: s\n" + SMALL_PLAYERS + "".join(f"k{i}: 1\n" for i in range(50_000)), "larger than 256 KB"),
    ("name: s\n" + SMALL_PLAYERS + "".join(f"k{i}: 1\n" for i in range(5_000)), "a mapping of 5003 keys"),
    ("[" * 50_000, "nested too deep"),
    ("name: s\n" + SMALL_PLAYERS + "sprt: {elo0: .nan, elo1: 5}\n",
     "sprt.elo0: got the number nan, not a finite number"),
])
def test_tournament_yaml_limits(tmp_path, text, words):
    status, _, err = run("tournament", "run", _config(tmp_path, text), "--out", str(tmp_path / "out"))
    assert status == 2 and words in err, err
    assert err.count("\n") == 1 and err.startswith("foxgeese: ")


def test_many_problems_are_listed_up_to_a_cap(tmp_path):
    text = "name: s\n" + SMALL_PLAYERS + "".join(f"k{i}: 1\n" for i in range(200))
    status, _, err = run("tournament", "run", _config(tmp_path, text), "--out", str(tmp_path / "out"))
    lines = err.splitlines()
    assert status == 2 and len(lines) == 21 and lines[-1].endswith("and 180 more problems")


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, Path]:
    """A finished two-game tournament of real random bots (hare and hounds, 4 plies a game)."""
    folder = tmp_path_factory.mktemp("finished")
    config = folder / "small.yaml"
    config.write_text("name: small\nvariants: [{id: hare-and-hounds}]\n"
                      "players: [{name: a, spec: 'random:seed=1'}, {name: b, spec: 'random:seed=2'}]\nmax_plies: 4\n")
    done = subprocess.run([sys.executable, "-m", "foxgeese", "tournament", "run", str(config), "--out",
                           str(folder / "out")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "r0001 hare-and-hounds a (hare) vs b (hounds): " in done.stdout  # who had which side
    return config, folder / "out"


def test_rerunning_a_finished_tournament_says_nothing_was_played(finished):
    config, out = finished
    status, out_text, err = run("tournament", "run", str(config), "--out", str(out))
    assert status == 0 and "nothing to play: all 2 games of" in " ".join(out_text.split()), err


@pytest.mark.parametrize("damage,words", [
    (lambda out: (out / "tournament.json").write_text("[]"), "tournament.json is not a JSON object"),
    (lambda out: (out / "tournament.json").write_text('{"config_hash": "x", "scheduled": 2, "schedule": [], '
                                                      '"config": {"name": "small", "variants": []}}'),
     "config has no 'players'"),
    (lambda out: (out / "tournament.json").write_text("[" * 100_000), "JSON nested too deep"),
])
@pytest.mark.parametrize("command", ["run", "report"])
def test_damaged_tournament_files_are_named(finished, tmp_path, damage, words, command):
    config, out = finished
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(out), str(copy)], check=True)
    damage(copy)
    args = ("run", str(config), "--out", str(copy)) if command == "run" else ("report", str(copy))
    assert words in one_line_error("tournament", *args)


def test_a_journal_game_line_without_its_keys_is_damage_not_a_key_error(finished, tmp_path):
    config, out = finished
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(out), str(copy)], check=True)
    journal = copy / "journal.jsonl"
    journal.write_text('{"type":"game"}\n' + journal.read_text())
    assert "journal.jsonl: line 1 is damaged" in one_line_error("tournament", "run", str(config), "--out", str(copy))
    status, _, err = run("tournament", "report", str(copy))  # the report reads the good lines and says so
    assert status == 0 and "line 1 left out: damaged" in err


# ----------------------------------------------------------------------- rough edges


def test_play_exit_status_names_the_outcome_and_board_draws_every_move(tmp_path):
    scripted = ROOT / "tests" / "bots" / "scripted_bot.py"
    cheat = f"cmd:{sys.executable} {scripted} --mode illegal --after 1"
    done = subprocess.run([sys.executable, "-m", "foxgeese", "play", "standard", "--fox", "random:seed=1",
                           "--geese", cheat, "--board", "--log-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 4, done.stderr  # illegal move
    assert done.stdout.count("F fox, G geese;") == 2  # the start and after the fox's move
    assert "result: fox wins by illegal-move" in done.stdout
    fine = subprocess.run([sys.executable, "-m", "foxgeese", "play", "standard", *RANDOM_SEATS, "--max-plies", "2",
                           "-q"], capture_output=True, text=True, timeout=60)
    assert fine.returncode == 0 and fine.stdout.startswith("result: draw by max-plies"), fine.stderr


def test_every_referee_ending_has_a_documented_exit_status():
    from foxgeese.engine import Termination
    from foxgeese.protocol.cli import EXIT_STATUS, exit_status, play
    from foxgeese.protocol.record import GameRecord, RefereeTermination

    def status(termination: str) -> int:
        return exit_status(GameRecord("g", "standard", {}, "", {}, "10+0", termination=termination))

    assert {status(item.value) for item in Termination} == {0}
    assert status("resignation") == status("max-plies") == 0
    statuses = {item.value: status(item.value) for item in RefereeTermination}
    assert statuses == {"time-forfeit": 3, "illegal-move": 4, "protocol-error": 5, "crash": 6, "no-show": 7,
                        "resignation": 0, "max-plies": 0, "adjudicated": 0}
    help_text = " ".join((play.help or "").split())
    for code in EXIT_STATUS.values():
        assert f"{code} " in help_text


def test_bot_check_shows_both_ends_of_a_long_stderr(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("import sys\nprint(\"Error: Cannot find module 'zeromq'\", file=sys.stderr)\n"
                   "for i in range(40): print(f'    at frame {i}', file=sys.stderr)\nsys.exit(1)\n")
    done = subprocess.run([sys.executable, "-m", "foxgeese", "bot", "check", sys.executable, str(bot)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "bot output: Error: Cannot find module 'zeromq'" in done.stdout
    assert "bot output: ... 16 lines skipped ..." in done.stdout and "at frame 39" in done.stdout


@pytest.mark.parametrize("script", sorted(path.name for path in (ROOT / "benchmarks").glob("*.py")))
def test_benchmarks_answer_help_without_running(script):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("usage:"), done.stderr


def test_book_shows_progress(tmp_path):
    status, _, err = run("tournament", "book", "standard", "--random", "fox", "--plies", "2", "--count", "10",
                         "--player", "random", "--out", str(tmp_path / "b.txt"))
    assert status == 0 and "1/10 openings" in err and "10/10 openings" in err


def test_the_human_prompt_says_the_opponents_move_and_how_to_answer():
    import io

    from foxgeese.engine import Clock, Game, Side, get_variant
    from foxgeese.players.human import HumanPlayer

    game = Game(get_variant("standard"))
    game.push(game.parse_move("d4-d5"))
    out = io.StringIO()
    player = HumanPlayer(stdin=io.StringIO("a3-a4\nb3-b4\n"), stdout=out)
    player.new_game(game.variant, Side.PREY)
    game.push(player.choose(game, Clock()).move)
    game.push(game.parse_move("d5-d6"))
    player.choose(game, Clock())
    shown = out.getvalue()
    assert shown.startswith("fox played d4-d5\n")
    assert shown.count("'moves' lists the legal moves, 'quit' resigns") == 1  # the hint, once
    assert "fox played d5-d6\n" in shown and shown.count("your move> ") == 2


@pytest.mark.parametrize("args", [(), ("tournament",), ("bot",)])
def test_a_group_alone_shows_its_help(args):
    status, _, err = run(*args)
    assert status == 2 and err.startswith("Usage: foxgeese") and "Commands:" in err


@pytest.mark.parametrize("endpoint", ["garbage", "tcp://127.0.0.1:99999", "tcp://127.0.0.1", "ipc://"])
def test_a_bot_refuses_an_endpoint_it_could_not_reach(endpoint):
    line = one_line_error("bot", "random", "--connect", endpoint, "--token", "x")
    assert "expected tcp://HOST:PORT (port 1-65535) or ipc://PATH" in line
