"""`foxgeese play` as a user runs it, and several referees at once as tournaments run them."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from click.testing import CliRunner

from foxgeese.engine import Side, get_variant
from foxgeese.main import main
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.record import load_record
from foxgeese.protocol.referee import Referee

SCRIPTED = str(Path(__file__).parent / "bots" / "scripted_bot.py")


def foxgeese(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "foxgeese", *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def test_play_prints_moves_and_result_and_writes_a_replayable_record(tmp_path):
    record_path = tmp_path / "game.json"
    bot = f"cmd:{sys.executable} {SCRIPTED} --seed 4"
    result = foxgeese("play", "standard", "--fox", bot, "--geese", bot, "--geese-count", "15", "--sideways",
                      "--tc", "5+0.1", "--opening", "d4-d5", "--max-plies", "9", "--record", str(record_path),
                      "--log-dir", str(tmp_path / "logs"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("standard (geese=15,sideways=1) 5+0.1: fox ")
    assert lines[1].split()[:3] == ["1.", "fox", "d4-d5"]  # the opening is printed too
    assert sum(1 for line in lines if line.strip()[:1].isdigit()) == 9
    assert lines[-2] == "result: draw by max-plies after 9 plies: stopped after 9 plies"
    record = load_record(record_path)
    assert record.options == {"geese": 15, "sideways": True} and record.plies == 9
    assert all(Path(path).is_file() for path in json.loads(record_path.read_text())["stderr"].values())
    shown = foxgeese("show", str(record_path), "--all")
    assert shown.returncode == 0, shown.stderr
    assert [f"ply {n}: {move.move}" for n, move in enumerate(record.moves, 1)] == [
        line for line in shown.stdout.splitlines() if line.startswith("ply ")]


def test_play_trace_shows_every_message(tmp_path):
    bot = f"cmd:{sys.executable} {SCRIPTED} --seed 4"
    result = foxgeese("play", "hare-and-hounds", "--hare", bot, "--hounds", bot, "--trace", "--quiet",
                      "--log-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    kinds = [json.loads(line.split(": ", 1)[1])["type"] for line in result.stderr.splitlines()]
    assert kinds.count("hello") == 2 and kinds.count("game_over") == 2 and kinds[-2:] == ["quit", "quit"]
    assert kinds.count("turn") == kinds.count("move") > 0
    assert result.stdout.startswith("result: ")


def test_play_user_errors_are_one_line(tmp_path):
    cases = [
        (["standard", "--fox", "random", "--geese", "nosuchplayer"], "unknown player 'nosuchplayer'"),
        (["standard", "--fox", "random", "--geese", "cmd:/no/such/bot"], "does not exist"),
        (["standard", "--fox", "random", "--geese", "random", "--tc", "fast"], "accepted forms"),
        (["standard", "--fox", "random", "--geese", "random", "--geese-count", "14"], "13, 15 or 17"),
        (["nosuch", "--fox", "random", "--geese", "random"], "unknown variant"),
        (["standard", "--fox", "random", "--geese", "random", "--bind", "tcp://0.0.0.0:5999"], "--bind-public"),
        (["standard", "--fox", "random", "--geese", "random", "--opening", "d4-d5 a1-a2"], "--opening"),
        (["hare-and-hounds", "--fox", "random", "--geese", "random"], "--hare and --hounds"),
        (["standard", "--fox", "random"], "needs --geese"),
        (["standard", "--fox", "random", "--geese", "random", "--record", "/no/such/dir/g.json"], "no such folder"),
    ]
    runner = CliRunner()  # in-process: these fail before any bot starts
    for args, words in cases:
        result = runner.invoke(main, ["play", *args, "--log-dir", str(tmp_path)])
        assert result.exit_code == 2 and isinstance(result.exception, SystemExit), args
        assert words in result.stderr.strip().splitlines()[-1], (args, result.stderr)
        assert result.stdout == "", args
    assert foxgeese("play", *cases[0][0]).stderr.strip().splitlines() == [
        "foxgeese: unknown player 'nosuchplayer' in 'nosuchplayer'; valid: random, human, minimax, minimax-py, mcts, "
        "solver, learned, or cmd:COMMAND LINE for an external bot"]


def test_referees_in_threads_play_at_the_same_time(tmp_path):
    bot = BotConfig("s", [sys.executable, SCRIPTED])
    results: dict[int, list[str]] = {}

    def run(index: int) -> None:
        with Referee(log_dir=str(tmp_path / str(index))) as referee:
            results[index] = [
                referee.play_game(get_variant("hare-and-hounds"), {Side.PREDATOR: bot, Side.PREY: bot}, "5+0.1",
                                  game_id=f"r{index}-{n}").termination
                for n in range(3)
            ]

    threads = [threading.Thread(target=run, args=(index,)) for index in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(results) == [0, 1, 2]
    rule_endings = {"captured", "escaped", "stalling", "fifty-moves", "repetition", "trapped", "immobilized"}
    assert all(set(terminations) <= rule_endings for terminations in results.values()), results


def test_a_human_seat_reads_the_terminal(tmp_path):
    record_path = tmp_path / "human.json"
    result = subprocess.run(
        [sys.executable, "-m", "foxgeese", "play", "hare-and-hounds", "--hare", "random:seed=1", "--hounds", "human",
         "--record", str(record_path), "--log-dir", str(tmp_path)],
        input="b1-b2\nquit\n", capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("your move>") == 2  # the human bot wrote its prompts to our stdout
    record = load_record(record_path)
    assert (record.moves[0].move, record.moves[0].side) == ("b1-b2", "hounds")
    assert record.time_control == "900+0"  # the default with a human seat
    assert record.winner == "hare" and record.plies == 2


def test_a_failed_bot_is_shown_with_its_log_and_its_last_lines(tmp_path):
    crasher = tmp_path / "crasher.py"
    crasher.write_text('import sys\nprint("about to fail", file=sys.stderr)\nraise RuntimeError("boom in my bot")\n')
    run = foxgeese("play", "hare-and-hounds", "--hare", f"cmd:{sys.executable} {crasher}", "--hounds", "random",
                   "--tc", "5+0", "--quiet", "--log-dir", str(tmp_path / "logs"))
    lines = run.stdout.splitlines()
    assert lines[0].startswith("result: hounds win by no-show"), run.stdout
    (log,) = [path for path in (tmp_path / "logs").glob("*.stderr") if not path.name.startswith("random")]
    assert lines[1] == f"hare log: {log}", run.stdout
    assert lines[2] == "  | about to fail" and lines[-1] == "  | RuntimeError: boom in my bot", run.stdout
