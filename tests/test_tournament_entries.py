"""Journal lines as typed records (tournaments/entries.py): a line another version wrote or a hand
edit broke is refused by its file, line and field, in the report and in `run`; a journal of the
first version's format still reads, summarizes and replays; what is written is the journal's
format of before; the worker's messages cross the pipe checked. No game is played here."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from tournament_support import foxgeese_here

from foxgeese.protocol.record import GameRecord, MoveRecord, SeatRecord
from foxgeese.tournaments.config import parse_config
from foxgeese.tournaments.entries import GameEntry, SprtStop, encode_line
from foxgeese.tournaments.errors import JournalError
from foxgeese.tournaments.html_report import html_report
from foxgeese.tournaments.journal import JournalWriter, read_journal, scan_journal
from foxgeese.tournaments.messages import Done, Events, decode_from_worker, encode
from foxgeese.tournaments.replay import replay_data
from foxgeese.tournaments.report import load_results
from foxgeese.tournaments.runner import prepare_directory

CONFIG = """\
name: typed
variants: [{id: standard}]
players:
  - {name: a, spec: "random:seed=1"}
  - {name: b, spec: "random:seed=2"}
games_per_pairing: 2
time_control: 2+0.1
seed: 1
"""
START = "standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2,e2,a3,b3,c3,d3,e3,f3,g3 0 0 0"


def directory(tmp_path: Path) -> tuple[Path, Path]:
    """A tournament directory with its tournament.json (r0001 a-b, r0002 b-a) and no game yet."""
    path = tmp_path / "typed.yaml"
    path.write_text(CONFIG)
    out = tmp_path / "out"
    out.mkdir()
    prepare_directory(parse_config(CONFIG, path), out)
    return path, out


def record(game_id: str) -> GameRecord:
    """A record as the referee writes it: the fox's first move, then the geese lose on time."""
    bots = {"fox": SeatRecord("a", ["python"], stderr="/tmp/a.log"), "geese": SeatRecord("b", ["python"])}
    return GameRecord(game_id, "standard", {}, START, bots, "2+0.1",
                      moves=[MoveRecord("d4-d5", "fox", 3, 1, 2097, {"depth": 1})], winner="fox",
                      termination="time-forfeit", reason="geese's clock ran out", plies=1, final="x")


def entry(game_id: str = "r0001", twin: str = "r0002", predator: str = "a", prey: str = "b") -> GameEntry:
    return GameEntry(id=game_id, twin=twin, variant="standard", options={}, predator=predator, prey=prey,
                     opening=[], winner="fox", predator_score=1.0, termination="time-forfeit",
                     reason="geese's clock ran out", plies=1, forfeit=prey, record=record(game_id), seed=7)


def test_a_bad_line_is_named_by_file_line_and_field_in_report_and_run(tmp_path: Path) -> None:
    config, out = directory(tmp_path)
    with JournalWriter(out) as journal:
        journal.append(entry())
        journal.append(entry("r0002", "r0001", "b", "a"))
    path = out / "journal.jsonl"
    good, second = path.read_bytes().splitlines(keepends=True)
    broken = json.loads(second)
    broken["record"]["moves"][0]["think_ms"] = "slow"
    retyped = good.replace(b'"predator_score":1.0', b'"predator_score":"1"')
    path.write_bytes(good + json.dumps(broken).encode() + b"\n" + retyped)
    with pytest.raises(JournalError) as refused:
        read_journal(out)
    assert str(refused.value) == (
        f"{path}: lines 2, 3 are damaged (line 2: record.moves[0].think_ms: expected int, not 'slow'; "
        f"line 3: predator_score: expected float, not '1'); `foxgeese tournament repair {out}` keeps the 1 "
        "good lines and drops the damaged ones")
    report = foxgeese_here("tournament", "report", str(out))
    assert report.returncode == 0 and "Traceback" not in report.stderr
    assert report.stderr.splitlines()[:2] == [
        f"foxgeese: {path}: line 2 left out: damaged (record.moves[0].think_ms: expected int, not 'slow')",
        f"foxgeese: {path}: line 3 left out: damaged (predator_score: expected float, not '1')"]
    run = foxgeese_here("tournament", "run", str(config), "--out", str(out), "--quiet")
    assert run.returncode == 2 and run.stderr == f"foxgeese: {refused.value}\n"  # before any worker starts


def test_a_torn_last_line_is_cut_but_a_whole_line_of_the_wrong_shape_is_damage(tmp_path: Path) -> None:
    with JournalWriter(tmp_path) as journal:
        journal.append(entry())
    path = tmp_path / "journal.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole + whole[:40])  # a write cut short
    assert [line.id for line in read_journal(tmp_path, repair=True)] == ["r0001"]  # type: ignore[union-attr]
    assert path.read_bytes() == whole
    path.write_bytes(whole + b'{"type": "game", "id": "r0002"}\n')  # complete, and not an entry
    scan = scan_journal(tmp_path)
    assert not scan.torn and scan.damaged == [2] and scan.problems == {2: "no 'twin'"}
    path.write_bytes(whole + b'{"type": "verdict"}\n')
    assert scan_journal(tmp_path).problems == {2: "unknown type 'verdict'"}


def first_version_line(game_id: str, twin: str, predator: str, prey: str, winner: str, score: float) -> bytes:
    """A game line as the first journal (commit 9f55d17) wrote it: sorted keys, no seed, config hash
    or worker, and a record of that day (no seed, start_clocks, referee_ms or rtt_ms)."""
    seat = {"name": "", "command": ["python", "bot.py"], "version": "1", "author": "x", "bot_name": "b", "stderr": None}
    line = {
        "type": "game", "id": game_id, "twin": twin, "variant": "standard", "options": {}, "predator": predator,
        "prey": prey, "opening": [], "winner": winner, "predator_score": score, "termination": "captured",
        "reason": "fewer than four geese remain", "plies": 1, "forfeit": None,
        "record": {"game_id": game_id, "variant": "standard", "options": {}, "start": START,
                   "bots": {"fox": {**seat, "name": predator}, "geese": {**seat, "name": prey}},
                   "time_control": "2+0.1", "moves": [{"move": "d4-d5", "side": "fox", "think_ms": 1,
                                                       "transport_ms": 0, "clock_ms": 2000, "info": {}, "book": False}],
                   "winner": winner, "termination": "captured", "reason": "", "plies": 1, "started": "",
                   "ended": "", "referee": "foxgeese 0.1.0", "final": START, "format": 1,
                   "stderr": {"fox": None, "geese": None}},
    }
    return json.dumps(line, sort_keys=True).encode() + b"\n"


def test_a_journal_of_the_first_versions_format_reads_summarizes_and_replays(tmp_path: Path) -> None:
    _, out = directory(tmp_path)
    stop = b'{"after_games": 2, "decision": "H1", "first_player": "a", "llr": 3.1, "lower": -2.9, "pairs": 1, ' \
           b'"type": "sprt_stop", "upper": 2.9}\n'
    (out / "journal.jsonl").write_bytes(first_version_line("r0001", "r0002", "a", "b", "fox", 1.0)
                                        + first_version_line("r0002", "r0001", "b", "a", "geese", 0.0) + stop)
    lines = read_journal(out)
    assert [type(line) for line in lines] == [GameEntry, GameEntry, SprtStop]
    first = lines[0]
    assert isinstance(first, GameEntry) and first.record is not None
    assert (first.seed, first.config_hash, first.worker, first.tables) == (None, None, None, None)
    assert first.record.seed is None and first.record.start_clocks == {} and first.record.moves[0].referee_ms == 0.0
    results = load_results(out)
    assert results["played"] == 2 and results["complete"]
    assert results["standings"]["a"] == {"games": 2, "score": 2.0, "wins": 2, "draws": 0, "losses": 0,
                                         "forfeits": {}, "adjudicated": 0}
    assert replay_data(first.record)["plies"][1]["move"] == "d4-d5"
    page, replayable = html_report(results, lines)
    assert replayable == 2 and "r0002" in page


def test_what_is_written_is_the_journals_format_of_before(tmp_path: Path) -> None:
    """The field names the worker's dict had, `forfeit` always there, the unset optional fields left
    out, and the record as `GameRecord.to_dict` gives it (its `stderr` map too)."""
    written = json.loads(encode_line(entry()))
    assert set(written) == {"type", "id", "twin", "variant", "options", "predator", "prey", "opening", "winner",
                            "predator_score", "termination", "reason", "plies", "forfeit", "record", "seed"}
    assert written["record"] == record("r0001").to_dict() and written["record"]["stderr"] == {"fox": "/tmp/a.log",
                                                                                              "geese": None}
    bare = json.loads(encode_line(msgspec.structs.replace(entry(), forfeit=None, record=None, seed=None)))
    assert bare["forfeit"] is None and "record" not in bare and "seed" not in bare


def test_the_workers_messages_cross_the_pipe_checked() -> None:
    done = Done(entry(), pids=[11, 12], moves=['{"event":"move"}'])
    assert decode_from_worker(encode(done)) == done
    assert decode_from_worker(encode(Events(["m"], None))) == Events(["m"])
    with pytest.raises(msgspec.ValidationError, match="type"):
        decode_from_worker(msgspec.msgpack.encode({"type": "finished", "entry": {}}))
