"""The referee's small parts: time controls, clocks, bot SPECs, records, endpoints, security."""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from foxgeese.protocol import codec
from foxgeese.protocol.botconfig import BotConfig, BotSpecError
from foxgeese.protocol.codec import ProtocolError, decode
from foxgeese.protocol.record import GameRecord, MoveRecord, RecordError, SeatRecord, load_record, utc_now
from foxgeese.protocol.referee import Referee, RefereeConfigError
from foxgeese.protocol.timecontrol import ChessClock, TimeControl, TimeControlError

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ time controls

@pytest.mark.parametrize("text,expected", [
    ("10+0.1", TimeControl(base_ms=10000, increment_ms=100)),
    (" 60 + 0 ", TimeControl(base_ms=60000)),
    ("0.5+.25", TimeControl(base_ms=500, increment_ms=250)),
    ("move=0.5", TimeControl(per_move_ms=500)),
    ("MOVE=2", TimeControl(per_move_ms=2000)),
])
def test_time_control_forms(text, expected):
    assert TimeControl.parse(text) == expected
    assert TimeControl.parse(expected.text()) == expected


@pytest.mark.parametrize("text", ["10", "", "0+0", "move=0", "10+-1", "move=", "fast", "1+2+3", "move=1+1"])
def test_bad_time_controls_name_the_accepted_forms(text):
    with pytest.raises(TimeControlError, match=r"'BASE\+INC'.*'move=SECONDS'") as error:
        TimeControl.parse(text)
    assert isinstance(error.value, ValueError)


@given(st.integers(1, 10**7), st.integers(0, 10**5))
def test_fischer_text_round_trips(base, increment):
    control = TimeControl(base_ms=base, increment_ms=increment)
    assert TimeControl.parse(control.text()) == control


def test_fischer_clock_charges_and_adds_the_increment():
    clock = ChessClock(TimeControl(base_ms=1000, increment_ms=100), ["fox", "geese"], lag_margin_ms=50)
    assert clock.budget_ms("fox") == 1050
    assert clock.charge("fox", 300.2)
    assert clock.left_ms == {"fox": 799, "geese": 1000}  # whole milliseconds, rounded against the mover
    assert clock.charge("geese", 1040)  # late but inside the lag margin: the clock reads 0, then +inc
    assert clock.left_ms["geese"] == 100
    assert not clock.charge("geese", 151)
    assert clock.left_ms["geese"] == 0


def test_per_move_clock_starts_every_turn_full():
    clock = ChessClock(TimeControl(per_move_ms=500), ["hare", "hounds"], lag_margin_ms=20)
    assert clock.charge("hare", 400) and clock.left_ms["hare"] == 100
    assert clock.on_turn_ms("hare") == 500 and clock.budget_ms("hare") == 520
    assert not clock.charge("hounds", 521)


# --------------------------------------------------------------------- bot specs

def test_builtin_spec_becomes_a_foxgeese_bot_command():
    config = BotConfig.from_spec("random:seed=7")
    assert config.command == (sys.executable, "-m", "foxgeese", "bot", "random", "--option", "seed=7")
    assert config.name == "random:seed=7" and not config.interactive and not config.is_remote
    assert BotConfig.from_spec("random", name="r").name == "r"


def test_human_spec_is_interactive_and_remote_spec_launches_nothing():
    assert BotConfig.from_spec("human").interactive
    remote = BotConfig.from_spec("remote", name="far")
    assert remote.is_remote and remote.command == () and remote.name == "far"


def test_cmd_spec_is_split_by_shell_rules():
    config = BotConfig.from_spec(f"cmd:{sys.executable} 'my bot.py' --level 3")
    assert config.command == (sys.executable, "my bot.py", "--level", "3")
    assert config.name == Path(sys.executable).name


@pytest.mark.parametrize("spec,words", [
    ("cmd:no-such-program-xyz --x", "'no-such-program-xyz' not found on PATH"),
    ("cmd:./no/such/file", "does not exist or is not executable"),
    ("cmd:", "no command"),
    ("cmd:python 'unclosed", "bad command line"),
    ("", "empty player spec"),
    ("two words", "expected NAME[:key=value,...]"),
    ("random:seed", "options are key=value"),
    ("nosuchplayer", "unknown player 'nosuchplayer'"),
    ("random:depth=3", "unknown option 'depth' for random"),
    ("minimax:depth=abc", "option depth of minimax must be a whole number"),
    ("minimax:depth=3,depth=4", "option 'depth' given twice"),
])
def test_bad_specs_are_one_line_errors_before_anything_starts(spec, words):
    with pytest.raises(BotSpecError) as error:
        BotConfig.from_spec(spec)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_configs_are_values():
    a = BotConfig("a", ["x", "y"], env={"K": "1", "J": "2"})
    assert a == BotConfig("a", ("x", "y"), env={"J": "2", "K": "1"})
    assert hash(a) == hash(BotConfig("a", ["x", "y"], env={"J": "2", "K": "1"}))
    assert a.environment() == {"J": "2", "K": "1"}


# ----------------------------------------------------------------------- records

def sample_record() -> GameRecord:
    return GameRecord(
        game_id="g1", variant="standard", options={"geese": 13, "sideways": False},
        start="standard geese=13,sideways=0 fox d4 c1,d1,e1,c2,d2,e2,a3,b3,c3,d3,e3,f3,g3 0 0 0",
        bots={"fox": SeatRecord("a", ["a"], "1", "me", "a", "/tmp/a.stderr"), "geese": SeatRecord("b")},
        time_control="10+0.1", moves=[MoveRecord("d4-d5", "fox", 12, 1, 9988, {"depth": 2})],
        winner="fox", termination="time-forfeit", reason="geese took over 50 ms", plies=1,
        started="2026-01-01T00:00:00.000Z", ended="2026-01-01T00:00:01.000Z", referee="r",
    )


def test_record_round_trips_and_keeps_the_replay_keys(tmp_path):
    record = sample_record()
    assert GameRecord.from_json(record.to_json()) == record
    path = tmp_path / "r.json"
    record.save(path)
    assert load_record(path) == record
    data = record.to_dict()
    assert data["moves"][0]["move"] == "d4-d5" and data["variant"] == "standard"
    assert data["stderr"] == {"fox": "/tmp/a.stderr", "geese": None} and data["format"] == 1
    assert record.result_line() == "fox wins by time-forfeit after 1 ply: geese took over 50 ms"


def test_record_times_are_iso_utc_with_milliseconds():
    for _ in range(3):  # the first call formats its second, the next ones reuse it (or a new second)
        before = datetime.now(UTC)
        text = utc_now()
        after = datetime.now(UTC)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", text), text
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
        assert before.replace(microsecond=before.microsecond // 1000 * 1000) <= stamp <= after


@pytest.mark.parametrize("text,words", [("[]", "JSON object"), ("{", "not valid JSON"), ('{"format": 99}', "format 99"),
                                        ('{"format": 1, "game_id": "x"}', "record: missing keys 'variant'")])
def test_bad_records_are_record_errors(text, words):
    with pytest.raises(RecordError, match=words):
        GameRecord.from_json(text)


# ---------------------------------------------------------------- endpoints, security

def test_default_bind_is_local():
    with Referee() as referee:
        assert referee.endpoint.startswith("ipc://")
    with Referee(endpoint="tcp://127.0.0.1:*") as referee:
        assert re.fullmatch(r"tcp://127\.0\.0\.1:\d+", referee.endpoint)
        assert referee.connect_endpoint == referee.endpoint


@pytest.mark.parametrize("endpoint", ["tcp://0.0.0.0:*", "tcp://*:*", "tcp://10.1.2.3:5555"])
def test_a_routable_bind_needs_bind_public(endpoint):
    with pytest.raises(RefereeConfigError, match="bind_public"):
        Referee(endpoint=endpoint)


def test_bind_public_launches_local_bots_on_loopback():
    with Referee(endpoint="tcp://0.0.0.0:*", bind_public=True) as referee:
        assert referee.connect_endpoint.startswith("tcp://127.0.0.1:")
        assert len(referee.token) >= 20  # what a remote bot must present


def test_decode_refuses_oversized_and_non_map_messages():
    big = msgpack.packb({"v": 2, "type": "move", "pad": "x" * codec.MAX_MESSAGE_BYTES})
    with pytest.raises(ProtocolError, match="cap"):
        decode(big)
    for bad in (msgpack.packb([1, 2]), b"\xc1", msgpack.packb({"v": 1}), msgpack.packb({1: 2})):
        with pytest.raises(ProtocolError):
            decode(bad)
    assert decode(codec.encode(codec.PING, id=3)) == {"v": 2, "type": "ping", "id": 3}


def test_nothing_on_the_wire_side_uses_pickle():
    sources = list((ROOT / "protocol").glob("*.py")) + list((ROOT / "tests" / "bots").glob("*.py"))
    assert sources
    for source in sources:
        text = source.read_text()
        assert not re.search(r"\bpickle\b|recv_pyobj|send_pyobj|\bmarshal\b", text), source
