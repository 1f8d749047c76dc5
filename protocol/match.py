"""One game in progress for the referee: seating, the turn loop, dispatch during a game, the record.

The Referee (referee.py) owns the socket, the poll loop and the bot pool; a Match drives them through
the referee's underscore methods (`_wait`, `_send`, `_ping`, `_acquire`, `_start`, `_retire`), which
are the seam between the two modules. Internal to foxgeese.protocol: use `Referee.play_game`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from foxgeese import __version__
from foxgeese.engine import Game, IllegalMoveError, InvalidMoveError, Side
from foxgeese.protocol import codec
from foxgeese.protocol.botconfig import BotConfig
from foxgeese.protocol.codec import ProtocolError, require
from foxgeese.protocol.record import DRAW, GameRecord, MoveRecord, RefereeTermination, SeatRecord, utc_now
from foxgeese.protocol.timecontrol import ChessClock, TimeControl

if TYPE_CHECKING:
    from foxgeese.protocol.referee import Referee, _Bot

REFEREE_NAME = f"foxgeese-referee {__version__}"

RULE_REASONS = {
    "captured": "fewer than four {prey} remain",
    "escaped": "the {predator} stands on a lower row than every hound",
    "stalling": "ten hound moves in a row did not raise a row",
    "fifty-moves": "100 plies without a capture or a forward {prey} step",
    "repetition": "the same position occurred for the third time",
    "trapped": "the {predator} is to move and has no legal move",
    "immobilized": "the {prey} are to move and have no legal move",
}


class Ending(Exception):
    """Raised inside the game loop to stop it: the game is decided (never escapes play_game)."""

    def __init__(self, winner: str, termination: str, reason: str, offender: _Bot | None = None):
        super().__init__(reason)
        self.winner, self.termination, self.reason, self.offender = winner, termination, reason, offender


class Match:
    """One game in progress: seats, clock, request ids, and what dispatch found out meanwhile."""

    def __init__(self, referee: Referee, variant: Any, game: Game, seats: dict[Side, BotConfig],
                 control: TimeControl, game_id: str, max_plies: int | None, seed: int = 0) -> None:
        self.referee, self.variant, self.game, self.seats = referee, variant, game, seats
        self.control, self.game_id, self.max_plies, self.seed = control, game_id, max_plies, seed
        self.names = {side: variant.side_name(side) for side in (Side.PREDATOR, Side.PREY)}
        self.clock = ChessClock(control, list(self.names.values()), referee.lag_margin_ms)
        self.bot_of: dict[Side, _Bot] = {}
        self.bots: list[_Bot] = []
        self.told: set[_Bot] = set()  # bots sent this game's new_game
        self.phase = "hello"
        self.pending: Ending | None = None
        self.mover: _Bot | None = None
        self.request_id = 0
        self.move_texts: list[str] = [str(move) for move in game.moves]
        self.on_move: Callable[[GameRecord, MoveRecord], None] | None = None
        self.unrecorded: tuple[str, str, float, dict[str, Any], int, float | None] | None = None
        start = variant.start_position()
        self.record = GameRecord(
            game_id=game_id, variant=variant.id, options=dict(variant.options), start=start.text(),
            bots={}, time_control=control.text(), referee=REFEREE_NAME, started=utc_now(), seed=seed,
        )
        for text in self.move_texts:
            self.record.moves.append(MoveRecord(text, book=True))

    # ------------------------------------------------------------------ phases

    def run(self) -> None:
        try:
            self._seat()
            self.phase = "play"
            self._play()
        except Ending as ending:
            self._finish(ending)

    def _side_of(self, bot: _Bot) -> Side:
        return Side.PREDATOR if self.bot_of.get(Side.PREDATOR) is bot else Side.PREY

    def _other_name(self, bot: _Bot) -> str:
        return self.names[self._side_of(bot).other]

    def _seat(self) -> None:
        """Gets both bots connected and `ready`, restarting once a reused bot that does not answer."""
        referee = self.referee
        for side in (Side.PREDATOR, Side.PREY):
            bot = referee._acquire(self.seats[side], list(self.bot_of.values()))
            self.bot_of[side] = bot
        self.bots = list(self.bot_of.values())
        reused = {bot for bot in self.bots if bot.identity is not None}
        for bot in self.bots:
            bot.ready_for = ""
        for attempt in (1, 2):
            self.phase = "hello"
            self._await_hellos()
            self._check_variants()
            self.phase = "ready"
            for side, bot in self.bot_of.items():
                if bot in self.told:
                    continue  # ready already (a retry only concerns the other seat)
                if bot in reused:
                    referee._ping(bot)
                self._tell_new_game(side, bot)
            deadline = time.monotonic() + referee.ready_timeout_s
            referee._wait(lambda: self.pending is not None or all(b.ready_for for b in self.bots), deadline)
            if self.pending is not None:
                raise self.pending
            late = [side for side, bot in self.bot_of.items() if not bot.ready_for]
            if not late:
                break
            if attempt == 1 and all(self.bot_of[side] in reused for side in late):
                for side in late:  # hung or dead since its last game: start it afresh
                    old = self.bot_of[side]
                    self.bot_of[side] = referee._start(old.config, replacing=old)
                self.bots = list(self.bot_of.values())
                continue
            self._no_show({side: f"no 'ready' within {referee.ready_timeout_s:g}s" for side in late})
        self._record_seats()

    def _record_seats(self) -> None:
        """Writes who sits where into the record, once per side: after seating, or at a no-show."""
        for side, bot in self.bot_of.items():
            if self.names[side] in self.record.bots:
                continue
            hello = bot.hello or {}
            self.record.bots[self.names[side]] = SeatRecord(
                name=bot.config.name, command=list(bot.config.command), version=hello.get("version", ""),
                author=hello.get("author", ""), bot_name=hello.get("name", ""), stderr=bot.stderr_path,
                rtt_ms=None if bot.rtt_ms is None else round(bot.rtt_ms, 3),
            )

    def _tell_new_game(self, side: Side, bot: _Bot) -> None:
        self.told.add(bot)
        self.referee._send(bot, codec.NEW_GAME, game_id=self.game_id, variant=self.variant.id,
                           options=dict(self.variant.options), side=self.names[side],
                           time_control=self.control.to_wire(), start=self.record.start, seed=self.seed)

    def _await_hellos(self) -> None:
        referee = self.referee
        waiting = [bot for bot in self.bots if bot.identity is None]
        if not waiting:
            return

        def deadline_of(bot: _Bot) -> float:
            limit = referee.join_timeout_s if bot.config.is_remote else referee.hello_timeout_s
            return bot.launched_at + limit if bot.launched_at >= 0 else 0.0

        def failed(bot: _Bot, now: float) -> bool:
            return bot.identity is None and (not bot.alive() or now >= deadline_of(bot))

        def settled() -> bool:
            now = time.monotonic()
            return all(bot.identity is not None or failed(bot, now) for bot in waiting) or any(
                failed(bot, now) for bot in waiting)

        referee._wait(settled, max(deadline_of(bot) for bot in waiting))
        now = time.monotonic()
        missing = {}
        for side, bot in self.bot_of.items():
            if bot.identity is None and failed(bot, now):
                if bot.refusal:
                    why = bot.refusal
                elif not bot.alive():
                    why = f"{bot.exit_text()} before saying hello"
                else:
                    why = "no hello within " + (f"{referee.join_timeout_s:g}s" if bot.config.is_remote
                                                else f"{referee.hello_timeout_s:g}s")
                missing[side] = why
        if missing:
            self._no_show(missing)

    def _check_variants(self) -> None:
        wrong = {}
        for side, bot in self.bot_of.items():
            variants = (bot.hello or {}).get("variants", [])
            if variants and self.variant.id not in variants:
                wrong[side] = f"plays only {', '.join(variants)}, not {self.variant.id}"
        if wrong:
            self._no_show(wrong)

    def _no_show(self, why: dict[Side, str]) -> None:
        reason = "; ".join(f"{self.names[side]} ({self.bot_of[side].config.name}): {text}"
                           for side, text in why.items())
        winner = DRAW if len(why) == 2 else self.names[next(iter(why)).other]
        raise Ending(winner, RefereeTermination.NO_SHOW.value, reason)

    # -------------------------------------------------------------- the game

    def _play(self) -> None:
        referee, game, clock, names = self.referee, self.game, self.clock, self.names
        send, wait = referee._send, referee._wait
        increment_ms, per_move_ms = self.control.increment_ms, self.control.per_move_ms
        move_text = referee._move_text
        predator, prey = names[Side.PREDATOR], names[Side.PREY]
        while True:
            moves = game.legal_moves()  # [] exactly when the game is over: one generation per ply
            if not moves:
                outcome = game.outcome()
                if outcome is None:  # cannot happen by the rules; never hang on it
                    raise Ending(DRAW, RefereeTermination.MAX_PLIES.value, "no legal move and no rule ending")
                raise Ending(outcome.winner.value, outcome.termination.value, self._rule_reason(outcome))
            if self.max_plies is not None and len(game.moves) >= self.max_plies:
                raise Ending(DRAW, RefereeTermination.MAX_PLIES.value, f"stopped after {self.max_plies} plies")
            side = game.position.turn
            name = names[side]
            bot = self.bot_of[side]
            try:  # move texts are cached (str(move) was the hot path's biggest cost); map/zip run in C
                texts = list(map(move_text.__getitem__, moves))
            except KeyError:
                move_text.update((move, str(move)) for move in moves if move not in move_text)
                texts = list(map(move_text.__getitem__, moves))
            legal = dict(zip(texts, moves))
            self.request_id += 1
            self.mover, bot.reply = bot, None
            send(bot, codec.TURN, game_id=self.game_id, request_id=self.request_id,
                 position=game.position.text(), moves=self.move_texts, legal=texts,
                 clocks={predator: clock.on_turn_ms(predator), prey: clock.on_turn_ms(prey)},
                 increment_ms=increment_ms, per_move_ms=per_move_ms)
            sent = time.monotonic()
            if self.unrecorded is not None:  # the last move's bookkeeping, done while this bot thinks
                self._record_last()
            budget_ms = clock.budget_ms(name)
            wait(lambda: bot.reply is not None or self.pending is not None, sent + budget_ms / 1000)
            if self.pending is not None:
                raise self.pending
            reply = bot.reply
            elapsed_ms = ((bot.reply_at if reply is not None else time.monotonic()) - sent) * 1000
            if reply is None or not clock.charge(name, elapsed_ms):
                bot.suspect = True
                raise Ending(names[side.other], RefereeTermination.TIME_FORFEIT.value,
                              f"{name} took over {budget_ms} ms (clock plus {referee.lag_margin_ms} ms lag margin)",
                              offender=bot)
            if reply["type"] == codec.RESIGN:
                raise Ending(names[side.other], RefereeTermination.RESIGNATION.value, f"{name} resigned")
            text = move_name = reply["move"]
            move = legal.get(text)
            if move is None:  # not canonical text of a legal move: the engine reads it, or says why not
                try:
                    move = game.parse_move(text)
                except (InvalidMoveError, IllegalMoveError) as error:
                    raise Ending(names[side.other], RefereeTermination.ILLEGAL_MOVE.value,
                                  f"{name} played {text!r}: {getattr(error, 'reason', error)}",
                                  offender=bot) from None
                move_name = str(move)
            game.push(move)
            self.move_texts.append(move_name)
            self.unrecorded = (move_name, name, elapsed_ms, reply, clock.left_ms[name], bot.rtt_ms)

    def _record_last(self) -> None:
        """Splits the measured time into thinking and transport, and appends the move's entry.

        The bot's own `think_ms` decides when it sent one; otherwise its last ping round trip is
        taken as the transport part.
        """
        move_name, name, elapsed_ms, reply, left_ms, rtt_ms = self.unrecorded
        self.unrecorded = None
        elapsed = round(elapsed_ms)
        think = reply.get("think_ms")
        if think.__class__ is not int or not 0 <= think <= elapsed:
            think = elapsed - min(elapsed, round(rtt_ms or 0))
        entry = MoveRecord(move_name, name, think, elapsed - think, left_ms, reply.get("info") or {})
        self.record.moves.append(entry)
        if self.on_move is not None:
            self.on_move(self.record, entry)

    def _rule_reason(self, outcome: Any) -> str:
        predator, prey = self.names[Side.PREDATOR], self.names[Side.PREY]
        return RULE_REASONS.get(outcome.termination.value, "").format(predator=predator, prey=prey)

    # --------------------------------------------------------------- dispatch

    def on_message(self, bot: _Bot, message: dict[str, Any], now: float) -> None:
        kind = message["type"]
        try:
            if kind not in (codec.READY, codec.MOVE, codec.RESIGN):
                raise ProtocolError(f"unexpected '{kind}' message during a game")
            game_id = require(message, "game_id", str)
            if game_id in bot.past_games:
                return
            if game_id != self.game_id:
                raise ProtocolError(f"'{kind}' names game {game_id!r}, the game is {self.game_id!r}")
            if kind == codec.READY:
                if self.phase != "ready" or bot.ready_for:
                    raise ProtocolError("'ready' was not asked for")
                bot.ready_for = game_id
                return
            request_id = require(message, "request_id", int)
            if kind == codec.RESIGN and bot is not self.mover:
                self._end_soon(Ending(self._other_name(bot), RefereeTermination.RESIGNATION.value,
                                       f"{self.names[self._side_of(bot)]} resigned"))
                return
            if bot is not self.mover or bot.reply is not None:
                raise ProtocolError(f"'{kind}' when it is not this bot's turn")
            if request_id != self.request_id:
                raise ProtocolError(f"'{kind}' answers request {request_id}, the request is {self.request_id}")
            if kind == codec.MOVE:
                require(message, "move", str)
                if "think_ms" in message:
                    require(message, "think_ms", int)
                if "info" in message:
                    message["info"] = codec.check_info(message["info"])
            bot.reply, bot.reply_at = message, now
        except ProtocolError as error:
            self.on_fault(bot, str(error))

    def on_fault(self, bot: _Bot, reason: str) -> None:
        bot.suspect = True
        self._end_soon(Ending(self._other_name(bot), RefereeTermination.PROTOCOL_ERROR.value,
                               f"{self.names[self._side_of(bot)]}: {reason}", offender=bot))

    def _end_soon(self, ending: Ending) -> None:
        if self.pending is None:
            self.pending = ending

    def check_processes(self) -> None:
        if self.phase != "play":
            return
        for side, bot in self.bot_of.items():
            if not bot.alive():
                self._end_soon(Ending(self.names[side.other], RefereeTermination.CRASH.value,
                                       f"{self.names[side]} ({bot.config.name}) {bot.exit_text()}", offender=bot))

    # ----------------------------------------------------------------- ending

    def _finish(self, ending: Ending) -> None:
        referee, record = self.referee, self.record
        if self.unrecorded is not None:
            self._record_last()
        record.winner, record.termination, record.reason = ending.winner, ending.termination, ending.reason
        record.plies = len(self.game.moves)
        record.final = self.game.position.text()
        record.ended = utc_now()
        self._record_seats()  # a no-show ends the game before seating wrote them
        if ending.offender is not None and ending.termination == RefereeTermination.PROTOCOL_ERROR.value:
            referee._send(ending.offender, codec.ERROR, reason=ending.reason)
        for bot in self.bots:
            if bot.identity is not None and bot not in self.told:
                # It never got new_game; tell it about the game before its end, so game_over is not a riddle.
                self._tell_new_game(self._side_of(bot), bot)
            referee._send(bot, codec.GAME_OVER, game_id=self.game_id, winner=record.winner,
                          termination=record.termination, reason=record.reason)
            bot.past_games.add(self.game_id)
            bot.reply, bot.ready_for = None, ""
            if not bot.alive() or bot.identity is None:
                referee._retire(bot)  # reaped (or no longer awaited) now; the next game starts a fresh one
