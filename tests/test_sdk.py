"""The bot SDK against a scripted referee: a real ROUTER socket in the test sends exact sequences."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

import msgspec
import psutil
import pytest
import zmq

from foxgeese.engine import Clock, Game, Position, Side, get_variant
from foxgeese.players.base import Choice
from foxgeese.protocol import codec, messages
from foxgeese.protocol.codec import decode
from foxgeese.protocol.sdk import BotConfigError, RefusedError, run_bot

HH_START = get_variant("hare-and-hounds").start_position().text()
STD17 = get_variant("standard", geese=17, sideways=True)
TIMEOUT_MS = 5000


class ScriptedReferee:
    """A ROUTER the test drives by hand; `recv` fails the test if the bot stays silent."""

    def __init__(self, tmp_path) -> None:
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.endpoint = f"ipc://{tmp_path}/ref.sock"
        self.socket.bind(self.endpoint)
        self.identity: bytes | None = None

    def recv(self) -> dict[str, Any]:
        assert self.socket.poll(TIMEOUT_MS), "the bot sent nothing"
        identity, payload = self.socket.recv_multipart()
        self.identity = identity
        return decode(payload)

    def recv_bytes(self) -> bytes:
        assert self.socket.poll(TIMEOUT_MS), "the bot sent nothing"
        self.identity, payload = self.socket.recv_multipart()
        return payload

    def send(self, message_type: str, **fields: Any) -> None:
        assert self.identity is not None
        self.socket.send_multipart([self.identity, codec.encode(message_type, **fields)])

    def silent(self, ms: int = 100) -> bool:
        return not self.socket.poll(ms)

    def close(self) -> None:
        self.socket.close()
        self.context.term()


@pytest.fixture
def referee(tmp_path):
    ref = ScriptedReferee(tmp_path)
    yield ref
    ref.close()


def start(target, **kwargs) -> tuple[threading.Thread, dict[str, Any]]:
    """Runs run_bot in a thread; the result dict gets `games` or `error`."""
    result: dict[str, Any] = {}

    def body() -> None:
        try:
            result["games"] = run_bot(target, **kwargs)
        except Exception as error:  # handed to the test
            result["error"] = error

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, result


def turn_fields(game: Game, game_id: str, request_id: int, clocks: dict[str, int]) -> dict[str, Any]:
    return dict(game_id=game_id, request_id=request_id, position=game.position.text(),
                moves=[str(m) for m in game.moves], legal=[str(m) for m in game.legal_moves()], clocks=clocks,
                increment_ms=100, per_move_ms=0)


def test_function_bot_exact_sequence_over_two_games(referee):
    seen: list[tuple[str, Clock]] = []

    def first_move(position: Position, clock: Clock) -> str:
        seen.append((position.text(), clock))
        return str(position.legal_moves()[0])

    thread, result = start(first_move, name="fn-bot", author="me", version="1.2",
                           variants=["hare-and-hounds"], endpoint=referee.endpoint, token="tok")
    assert referee.recv() == {"v": 2, "type": "hello", "token": "tok", "name": "fn-bot", "author": "me",
                              "version": "1.2", "variants": ["hare-and-hounds"]}
    referee.send("welcome", referee="test", bot_id="b1")
    assert referee.silent()
    for number in (1, 2):
        game_id = f"g{number}"
        referee.send("new_game", game_id=game_id, variant="hare-and-hounds", options={}, side="hounds",
                     time_control={"base_ms": 1000, "increment_ms": 100, "per_move_ms": 0}, start=HH_START, seed=1)
        assert referee.recv() == {"v": 2, "type": "ready", "game_id": game_id}
        game = Game(get_variant("hare-and-hounds"))
        referee.send("turn", **turn_fields(game, game_id, 7 * number, {"hare": 900, "hounds": 800}))
        reply = referee.recv()
        assert reply == {"v": 2, "type": "move", "game_id": game_id, "request_id": 7 * number,
                         "move": str(game.legal_moves()[0])}
        referee.send("ping", id=41 + number)
        assert referee.recv() == {"v": 2, "type": "pong", "id": 41 + number}
        referee.send("game_over", game_id=game_id, winner="hare", termination="escaped", reason="",
                     last_move=reply["move"], position="")
    referee.send("quit")
    thread.join(5)
    assert not thread.is_alive() and result == {"games": 2}
    assert seen[0] == (HH_START, Clock(remaining_ms=800, opponent_ms=900, increment_ms=100, per_move_ms=None))


class RecordingPlayer:
    """A Player-shaped object that records what the SDK hands it."""

    variants = ("standard",)

    def __init__(self) -> None:
        self.new_games: list[tuple[Any, Side]] = []
        self.histories: list[list[str]] = []
        self.clocks: list[Clock] = []

    def new_game(self, variant: Any, side: Side) -> None:
        self.new_games.append((variant, side))

    def choose(self, game: Game, clock: Clock) -> Choice:
        self.histories.append([str(m) for m in game.moves])
        self.clocks.append(clock)
        move = game.legal_moves()[-1]
        return Choice(move, {"score": 12, "depth": 3, "nodes": 99, "pv": [str(move)], "junk": 1, "mate": True})


def test_player_sees_history_side_and_info_is_cleaned(referee):
    player = RecordingPlayer()
    thread, result = start(player, name="p", endpoint=referee.endpoint, token="t")
    hello = referee.recv()
    assert hello["variants"] == ["standard"]  # taken from the player's own `variants`
    referee.send("new_game", game_id="x", variant="standard", options={"geese": 17, "sideways": True},
                 side="geese", time_control={"base_ms": 0, "increment_ms": 0, "per_move_ms": 300},
                 start=STD17.start_position().text(), seed=1)
    assert referee.recv()["type"] == "ready"
    variant, side = player.new_games[0]
    assert (variant.id, variant.option_dict, side) == ("standard", {"geese": 17, "sideways": True}, Side.PREY)
    game = Game(STD17)
    for text in ("d4-d5", "d3-d4", "d5-e5"):
        game.push(game.parse_move(text))
    referee.send("turn", **{**turn_fields(game, "x", 3, {"fox": 300, "geese": 250}), "per_move_ms": 300})
    reply = referee.recv()
    assert player.histories == [["d4-d5", "d3-d4", "d5-e5"]]
    assert player.clocks == [Clock(remaining_ms=250, opponent_ms=300, increment_ms=100, per_move_ms=300)]
    assert reply["move"] == str(game.legal_moves()[-1])
    assert reply["info"] == {"score": 12, "depth": 3, "nodes": 99, "pv": [reply["move"]]}
    game.push(game.parse_move(reply["move"]))
    game.push(game.legal_moves()[0])
    referee.send("turn", **turn_fields(game, "x", 4, {"fox": 300, "geese": 200}))
    assert referee.recv()["request_id"] == 4
    assert player.histories[1] == [str(m) for m in game.moves]
    referee.send("quit")
    thread.join(5)
    assert result == {"games": 0}


def test_turn_for_an_unknown_game_is_resigned_and_unknown_messages_ignored(referee):
    thread, result = start(lambda p, c: str(p.legal_moves()[0]), name="f", endpoint=referee.endpoint, token="")
    referee.recv()
    referee.send("surprise", data=1)
    referee.send("turn", game_id="nope", request_id=5, position=HH_START, moves=[], legal=["b1-b2"], clocks={},
                 increment_ms=0, per_move_ms=0)
    assert referee.recv() == {"v": 2, "type": "resign", "game_id": "nope", "request_id": 5}
    referee.send("quit")
    thread.join(5)
    assert result == {"games": 0}


def test_refused_raises_with_the_reason(referee):
    thread, result = start(lambda p, c: "x", name="f", endpoint=referee.endpoint, token="bad")
    referee.recv()
    referee.send("refused", reason="wrong token")
    thread.join(5)
    assert isinstance(result["error"], RefusedError) and "wrong token" in str(result["error"])


def test_no_endpoint_is_a_named_error(monkeypatch):
    monkeypatch.delenv(codec.ENV_ENDPOINT, raising=False)
    with pytest.raises(BotConfigError, match="FOXGEESE_ENDPOINT"):
        run_bot(lambda p, c: "x", name="f")


def test_endpoint_and_token_come_from_the_environment(referee, monkeypatch):
    monkeypatch.setenv(codec.ENV_ENDPOINT, referee.endpoint)
    monkeypatch.setenv(codec.ENV_TOKEN, "env-token")
    thread, result = start(lambda p, c: "x", name="f")
    assert referee.recv()["token"] == "env-token"
    referee.send("quit")
    thread.join(5)
    assert result == {"games": 0}


def test_bot_process_exits_when_its_parent_dies(referee):
    """`foxgeese bot random` under a shell that dies: the orphan notices and exits by itself."""
    shell = subprocess.Popen(
        ["sh", "-c", f'"{sys.executable}" -m foxgeese bot random --connect {referee.endpoint} --token t & '
                     'echo $!; read line'],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True,
    )
    bot = psutil.Process(int(shell.stdout.readline()))
    assert referee.recv()["type"] == "hello"  # the bot has recorded its parent by now
    shell.stdin.close()  # the shell reads EOF and exits; the bot is re-parented
    shell.wait(5)
    try:
        bot.wait(timeout=5)
    except psutil.TimeoutExpired:
        bot.kill()
        pytest.fail("the orphaned bot kept running")


class CarelessPlayer:
    """Breaks the Player contract by leaving its move pushed on the game it was given."""

    def __init__(self) -> None:
        self.histories: list[list[str]] = []

    def choose(self, game: Game, clock: Clock) -> Choice:
        self.histories.append([str(m) for m in game.moves])
        move = game.legal_moves()[0]
        game.push(move)
        return Choice(move)


def test_a_game_left_modified_by_the_player_is_rebuilt(referee):
    player = CarelessPlayer()
    thread, result = start(player, name="c", endpoint=referee.endpoint, token="")
    referee.recv()
    referee.send("new_game", game_id="g", variant="hare-and-hounds", options={}, side="hounds",
                 time_control={"base_ms": 1000, "increment_ms": 0, "per_move_ms": 0}, start=HH_START, seed=1)
    referee.recv()
    game = Game(get_variant("hare-and-hounds"))
    for _ in range(2):
        referee.send("turn", **turn_fields(game, "g", len(game.moves), {}))
        game.push(game.parse_move(referee.recv()["move"]))
        game.push(game.legal_moves()[0])  # the hare's reply
    referee.send("quit")
    thread.join(5)
    assert result == {"games": 0}
    assert player.histories == [[], [str(m) for m in game.moves[:2]]]


def test_new_game_for_an_unknown_variant_gets_no_ready_and_the_bot_goes_on(referee):
    thread, result = start(lambda p, c: str(p.legal_moves()[0]), name="f", endpoint=referee.endpoint, token="")
    referee.recv()
    referee.send("new_game", game_id="bad", variant="checkers", options={}, side="fox",
                 time_control={"base_ms": 1000, "increment_ms": 0, "per_move_ms": 0}, start="x", seed=1)
    referee.send("turn", game_id="g")  # malformed: no request_id to answer; ignored
    referee.send("ping", id=9)
    assert referee.recv() == {"v": 2, "type": "pong", "id": 9}  # nothing came before the pong
    referee.send("quit")
    thread.join(5)
    assert result == {"games": 0}


def test_a_player_that_chooses_no_move_resigns(referee):
    thread, result = start(lambda position, clock: None, name="quitter", endpoint=referee.endpoint, token="")
    referee.recv()
    referee.send("new_game", game_id="g1", variant="hare-and-hounds", options={}, side="hounds",
                 time_control={"base_ms": 1000, "increment_ms": 0, "per_move_ms": 0}, start=HH_START, seed=1)
    assert referee.recv()["type"] == "ready"
    referee.send("turn", **turn_fields(Game(get_variant("hare-and-hounds")), "g1", 3, {"hare": 1000, "hounds": 1000}))
    assert referee.recv() == {"v": 2, "type": "resign", "game_id": "g1", "request_id": 3}
    referee.send("quit")
    thread.join(5)
    assert result == {"games": 0}


def test_moves_that_do_not_lead_to_the_position_sent_give_way_to_the_position(referee, capsys):
    seen: list[tuple[str, list[str]]] = []

    class Watcher:
        def choose(self, game: Game, clock: Clock) -> Choice:
            seen.append((game.position.text(), [str(m) for m in game.moves]))
            return Choice(game.legal_moves()[0])

    thread, result = start(Watcher(), name="w", endpoint=referee.endpoint, token="")
    referee.recv()
    referee.send("new_game", game_id="g", variant="hare-and-hounds", options={}, side="hounds",
                 time_control={"base_ms": 1000, "increment_ms": 0, "per_move_ms": 0}, start=HH_START, seed=1)
    referee.recv()
    told, real = Game(get_variant("hare-and-hounds")), Game(get_variant("hare-and-hounds"))
    for text in ("b1-b2", "b5-a4"):
        told.push(told.parse_move(text))
    for text in ("a2-a3", "b5-c4"):
        real.push(real.parse_move(text))
    referee.send("turn", **{**turn_fields(told, "g", 2, {}), "position": real.position.text()})
    reply = referee.recv()
    referee.send("quit")
    thread.join(5)
    assert result == {"games": 0}
    assert seen == [(real.position.text(), [])]  # the position sent, without the history that disagrees
    assert reply["move"] in [str(m) for m in real.position.legal_moves()]
    assert "cannot replay the move list" in capsys.readouterr().err


class FirstMovePlayer:
    """Plays the first legal move, without info: the SDK packs its reply from parts."""

    def choose(self, game: Game, clock: Clock) -> Choice:
        return Choice(game.legal_moves()[0])


def test_a_move_reply_is_a_typed_move_that_passes_the_referee_s_checks(referee):
    thread, result = start(FirstMovePlayer(), name="first", endpoint=referee.endpoint, token="t")
    referee.recv()  # hello
    game = Game(get_variant("hare-and-hounds"))
    referee.send("new_game", game_id="g-é", variant="hare-and-hounds", options={}, side="hounds",
                 time_control={"base_ms": 1000, "increment_ms": 0, "per_move_ms": 0}, start=HH_START, seed=1)
    assert referee.recv() == {"v": 2, "type": "ready", "game_id": "g-é"}
    for request_id in (1, 2**40):  # a fixint and a uint64
        referee.send("turn", **turn_fields(game, "g-é", request_id, {"hare": 900, "hounds": 800}))
        move = str(game.legal_moves()[0])
        reply = referee.recv_bytes()
        expected = {"v": 2, "type": "move", "game_id": "g-é", "request_id": request_id, "move": move}
        assert messages.to_fields(codec.decode_bot(reply)) == expected
        assert msgspec.to_builtins(msgspec.msgpack.decode(reply, type=messages.Move)) == expected
    referee.send("quit")
    thread.join(5)
    assert not thread.is_alive()
