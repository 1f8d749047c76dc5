"""Fuzzing every parser a user or a bot reaches (the wire codec too): each either accepts the input or raises its own
named error (never KeyError, RecursionError, OverflowError, a bare ValueError...), and what the
command line prints for a refused input is one printable `foxgeese: …` line."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import msgpack
import msgspec
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from foxgeese.engine import InvalidMoveError, InvalidPositionError, Move, Position
from foxgeese.engine.userinput import NumberError, parse_float, parse_int, shown
from foxgeese.main import main
from foxgeese.players.registry import PlayerSpecError, make_player
from foxgeese.protocol import codec, messages
from foxgeese.protocol.botconfig import BotConfig, BotSpecError
from foxgeese.protocol.record import GameRecord, RecordError
from foxgeese.protocol.timecontrol import MAX_CLOCK_MS, TimeControl, TimeControlError
from foxgeese.tournaments.config import parse_config
from foxgeese.tournaments.errors import ConfigError

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
POSITION = "standard geese=13,sideways=0 geese d4 a3,b3,c3,d3,e3,f3,g3,a4,b4,c4,e4,f4,g4 0 0 0"

# Text a careless or hostile user types: any characters, and the ones that break naive parsers
# (Unicode digits, control characters, signs, exponents, huge digit runs) much more often.
TRICKY = st.sampled_from(["²", "٤", "0", "9" * 30, "\n", "\x1b[31m", "\x00", "-", "+", "e400", "nan", "inf", "_",
                          ".", ",", "=", ":", "x", " ", "d4", "-d5", "1e20", "１", "ⅷ", "\u202e"])
TEXT = st.one_of(st.text(max_size=40), st.lists(st.one_of(TRICKY, st.text(max_size=3)), max_size=12).map("".join))


def mutated(tokens: list[str]) -> st.SearchStrategy[str]:
    """`tokens` joined by spaces with some of them replaced by tricky text."""
    return st.lists(st.one_of(st.none(), TEXT), min_size=len(tokens), max_size=len(tokens)).map(
        lambda replacements: " ".join(token if new is None else new for token, new in zip(tokens, replacements)))


@FUZZ
@given(st.one_of(TEXT, mutated(["d4", "-", "d5"]).map(lambda text: text.replace(" ", ""))))
def test_move_text(text):
    try:
        move = Move.parse(text)
    except InvalidMoveError as error:
        assert str(error).isprintable()
    else:
        assert Move.parse(str(move)) == move


@FUZZ
@given(st.one_of(TEXT, mutated(POSITION.split())))
def test_position_text(text):
    try:
        position = Position.from_text(text)
    except InvalidPositionError as error:
        assert str(error).isprintable() and len(str(error)) < 400
    else:
        assert Position.from_text(position.text()) == position


@FUZZ
@given(TEXT)
def test_time_control_text(text):
    for candidate in (text, f"{text}+0", f"move={text}", f"10+{text}"):
        try:
            control = TimeControl.parse(candidate)
        except TimeControlError as error:
            assert str(error).isprintable()
        else:
            assert max(control.to_wire().values()) <= MAX_CLOCK_MS
            assert TimeControl.parse(control.text()) == control


@FUZZ
@given(TEXT, st.sampled_from(["random", "minimax", "mcts", "solver", "human", "nosuch"]),
       st.sampled_from(["seed", "depth", "c", "time", "playouts", "nodes", "epsilon", "implicit", "x"]))
def test_player_specs(value, name, key):
    for spec in (value, f"{name}:{key}={value}", f"cmd:{value}"):
        try:
            BotConfig.from_spec(spec)
        except BotSpecError as error:
            assert str(error).isprintable()
        if spec.startswith("cmd:"):
            continue
        try:
            make_player(spec)
        except PlayerSpecError as error:
            assert str(error).isprintable()


@FUZZ
@given(TEXT, st.one_of(st.none(), st.integers(-10, 10)), st.one_of(st.none(), st.integers(-10, 10**6)))
def test_bounded_numbers(text, low, high):
    try:
        value = parse_int(text, "n", low, high)
    except NumberError:
        pass
    else:
        assert (low is None or value >= low) and (high is None or value <= high)
    try:
        number = parse_float(text, "x", low, high)
    except NumberError:
        pass
    else:
        assert math.isfinite(number) and (low is None or number >= low) and (high is None or number <= high)


@FUZZ
@given(st.text())
def test_shown_text_is_one_short_printable_line(text):
    quoted = shown(text)
    assert quoted.isprintable() and len(quoted) < 4 * 60 + 40


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), TEXT),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(TEXT, children, max_size=4)),
    max_leaves=20,
)
RECORD_KEYS = ["format", "game_id", "variant", "options", "start", "bots", "time_control", "moves", "winner",
               "termination", "plies", "final", "seed", "start_clocks"]
RECORDISH = st.fixed_dictionaries({}, optional={key: JSON_VALUES for key in RECORD_KEYS}).map(
    lambda data: {**data, "format": data.get("format", 1)})


@FUZZ
@given(st.one_of(JSON_VALUES.map(json.dumps), RECORDISH.map(json.dumps), TEXT,
                 st.integers(1, 200).map(lambda depth: "[" * depth * 500)))
def test_record_json(text):
    try:
        GameRecord.from_json(text)
    except RecordError as error:
        assert str(error).isprintable()


def _show(content: str) -> tuple[int, str]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.json"
        path.write_text(content)
        result = CliRunner().invoke(main, ["show", str(path)], prog_name="foxgeese")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result.exit_code, result.stderr


SHOWABLE = st.fixed_dictionaries({}, optional={
    "start": st.one_of(JSON_VALUES, mutated(POSITION.split())),
    "moves": st.one_of(JSON_VALUES, st.lists(st.one_of(st.sampled_from(["a4-a5", "d4-d5"]), JSON_VALUES),
                                             max_size=4)),
})


@FUZZ
@given(st.one_of(SHOWABLE.map(json.dumps), JSON_VALUES.map(json.dumps), TEXT))
def test_show_of_any_file_is_a_board_or_one_line(content):
    status, err = _show(content)
    assert status in (0, 2)
    if status:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("foxgeese: ") and lines[0].isprintable(), err


CONFIG_VALUES = st.one_of(JSON_VALUES, TEXT, st.integers(-10**30, 10**30))
CONFIGISH = st.fixed_dictionaries(
    {"name": st.one_of(st.just("t"), CONFIG_VALUES)},
    optional={
        "variants": st.one_of(CONFIG_VALUES, st.lists(st.fixed_dictionaries(
            {"id": st.one_of(st.sampled_from(["standard", "great-cross", "hare-and-hounds"]), CONFIG_VALUES)},
            optional={"options": st.one_of(CONFIG_VALUES, st.dictionaries(st.sampled_from(["geese", "sideways", "x"]),
                                                                         CONFIG_VALUES, max_size=2))}), max_size=2)),
        "players": st.one_of(CONFIG_VALUES, st.lists(st.fixed_dictionaries(
            {"name": st.one_of(st.text(min_size=1, max_size=5), CONFIG_VALUES)},
            optional={"spec": st.one_of(st.sampled_from(["random", "minimax:depth=2"]), CONFIG_VALUES),
                      "command": CONFIG_VALUES}), max_size=3)),
        "games_per_pairing": CONFIG_VALUES, "time_control": CONFIG_VALUES, "seed": CONFIG_VALUES,
        "max_plies": CONFIG_VALUES, "format": CONFIG_VALUES, "sprt": CONFIG_VALUES, "concurrency": CONFIG_VALUES,
    },
)


@FUZZ
@given(st.one_of(CONFIGISH.map(lambda data: yaml.safe_dump(data, allow_unicode=True)), TEXT,
                 st.binary(max_size=60)))
def test_tournament_yaml(text):
    try:
        parse_config(text, Path("fuzz.yaml"))
    except ConfigError as error:
        assert error.problems and all(isinstance(problem, str) for problem in error.problems)


@FUZZ
@given(st.lists(TEXT, max_size=4), st.sampled_from(["legal", "show", "perft"]),
       st.sampled_from([[], ["--position", POSITION], ["--geese-count"], ["--sideways"], ["--nosuch"]]))
def test_engine_commands_with_any_arguments(words, command, options):
    variant = ["hare-and-hounds"] if command != "perft" else ["hare-and-hounds", "2"]
    result = CliRunner().invoke(main, [command, *variant, *options, *words], prog_name="foxgeese")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code in (0, 2)
    if result.exit_code:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("foxgeese: ") and lines[0].isprintable(), result.stderr


MSGPACK_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**64 - 1), st.floats(), st.text(max_size=20),
              st.binary(max_size=20)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.one_of(st.text(max_size=8), st.integers(-9, 9)), children,
                                               max_size=5)),
    max_leaves=20,
)
def field_values(kind: msgspec.inspect.Type) -> st.SearchStrategy:
    """Values for one field of a bot message's class: inside its bounds, just outside them, and of every other kind."""
    if isinstance(kind, msgspec.inspect.UnionType):  # a turn's `list[str] | Raw`
        kind = kind.types[0]
    if isinstance(kind, msgspec.inspect.IntType):
        low, high = kind.ge if kind.ge is not None else -2**63, kind.le if kind.le is not None else 2**63 - 1
        near = st.integers(max(low - 2, -2**63), low + 2) | st.integers(high - 2, min(high + 2, 2**64 - 1))  # packable
        inside = st.integers(low, min(high, low + 1000))
    elif isinstance(kind, msgspec.inspect.StrType):
        size = kind.max_length or 1000
        inside = st.text(max_size=min(size, 30))
        near = st.integers(size - 1, size + 1).map(lambda length: "x" * length)
    elif isinstance(kind, msgspec.inspect.ListType):
        size = kind.max_length or 1000
        inside = st.lists(st.text(max_size=10), max_size=min(size, 5))
        near = st.integers(size, size + 1).map(lambda length: ["a"] * length)
    elif isinstance(kind, msgspec.inspect.BoolType):
        inside = near = st.booleans()
    else:  # info
        inside = st.dictionaries(st.sampled_from(INFO_FIELDS), MSGPACK_VALUES, max_size=4)
        near = st.dictionaries(st.sampled_from(INFO_FIELDS), st.integers(-2**63, 2**63 - 1) |
                               st.lists(st.text(max_size=3), max_size=3), max_size=4)
    return inside | near | MSGPACK_VALUES


INFO_FIELDS = sorted(messages.Info.__struct_fields__)


def fields_of(cls: type) -> dict[str, msgspec.inspect.Type]:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return {field.name: field.type for field in info.fields if field.name != "v"}


def message_maps(cls: type[messages.Message]) -> st.SearchStrategy:
    """Maps of `cls`'s type with any of its fields, of its kinds and of others."""
    return st.fixed_dictionaries(
        {"type": st.just(cls.kind()), "v": st.sampled_from(codec.SUPPORTED_VERSIONS) | MSGPACK_VALUES},
        optional={name: field_values(kind) for name, kind in fields_of(cls).items()})


# Both directions: the SDK decodes the referee's messages with the same words.
MESSAGES = st.sampled_from(messages.BOT_MESSAGE_TYPES + messages.REFEREE_MESSAGE_TYPES).flatmap(message_maps)


MESSAGEISH = st.fixed_dictionaries({}, optional={
    "v": MSGPACK_VALUES, "type": st.one_of(st.sampled_from(["hello", "move", "ready", "resign", "pong"]),
                                           MSGPACK_VALUES),
    "token": MSGPACK_VALUES, "game_id": MSGPACK_VALUES, "request_id": MSGPACK_VALUES, "move": MSGPACK_VALUES,
    "info": st.one_of(MSGPACK_VALUES, st.dictionaries(st.sampled_from(["score", "mate", "depth", "pv", "nodes"]),
                                                      MSGPACK_VALUES, max_size=4)),
})



def map_with_repeats(pairs: list[tuple[str, object]]) -> bytes:
    """A msgpack map of `pairs` as given, keys repeated or not (packb cannot write a key twice)."""
    return bytes([0x80 | len(pairs)]) + b"".join(msgpack.packb(key) + msgpack.packb(value, use_bin_type=True)
                                                  for key, value in pairs)


# A message's own fields, some of them more than once (msgspec reads one of a key's values, msgpack another).
REPEATING = MESSAGEISH.flatmap(lambda message: st.lists(st.sampled_from(sorted(message.items()) or [("v", 2)]),
                                                        min_size=1, max_size=3).map(
    lambda repeats: map_with_repeats([*message.items(), *repeats][:15])))

@FUZZ
@given(st.one_of(st.binary(max_size=80), MSGPACK_VALUES.map(lambda value: msgpack.packb(value, use_bin_type=True)),
                 MESSAGEISH.map(lambda value: msgpack.packb(value, use_bin_type=True)),
                 MESSAGES.map(lambda value: msgpack.packb(value, use_bin_type=True)), REPEATING))
@example(data=b"\x81\xa4type\xa1\x00")  # a type of "\x00": once echoed raw in an error
# A key twice, msgspec's error about one value and msgpack's map holding the other: once a crash.
@example(data=map_with_repeats([("type", "move"), ("v", 2), ("game_id", "g"), ("request_id", 1),
                                ("move", "b1-b2"), ("info", {"pv": [1]}), ("info", {})]))
@example(data=map_with_repeats([("type", "move"), ("v", 2), ("game_id", "g"), ("type", "pong")]))
def test_wire_messages(data):
    """What a bot sends: decoded as its class (every field of its kind, inside its bounds, nothing else
    kept), or refused with a ProtocolError in the protocol's words (never msgspec's or Python's)."""
    try:
        decoded = codec.decode_bot(data)
    except codec.ProtocolError as error:
        text = str(error)
        assert text.isprintable() and "NoneType" not in text and "`" not in text
        assert "Expected" not in text and "Object" not in text
    else:
        assert isinstance(decoded, messages.BOT_MESSAGE_TYPES)
        message = codec.decode(data)
        fields = messages.to_fields(decoded)
        assert set(fields) <= set(message)  # what it holds was sent; nothing else is kept
        for name, value in fields.items():
            if name != "info":
                assert message[name] == value and value.__class__ is message[name].__class__
        assert msgspec.msgpack.decode(messages.encode(decoded), type=decoded.__class__) == decoded
    try:
        codec.decode_referee(data)  # the SDK's reading: the same words
    except codec.ProtocolError as error:
        assert str(error).isprintable() and "NoneType" not in str(error) and "`" not in str(error)
