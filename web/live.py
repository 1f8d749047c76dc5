"""The live view of a tournament: follows the runner's event stream, `DIR/events.jsonl`.

The runner appends one JSON object per line (docs/tournaments.md: tournament_started,
game_started, move, game_ended, standings, tournament_ended). `TournamentFeed.poll` reads what
was added since the last call (a line still being written waits for its newline) and folds it
into the state the page shows: the games in progress with their boards, the standings, the games
that ended. Finished games are replayed from the journal, which holds their records.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from foxgeese.engine import Game, Move, Position
from foxgeese.engine.svg import board_svg
from foxgeese.protocol.record import GameRecord
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.errors import TournamentError
from foxgeese.tournaments.events import (
    Event,
    GameEnded,
    GameStarted,
    MoveMade,
    StandingsNow,
    TournamentEnded,
    TournamentStarted,
    read_event,
)
from foxgeese.tournaments.journal import scan_journal
from foxgeese.tournaments.report import game_entries, good_entries, summarize
from foxgeese.tournaments.standings import Row, Standings

EVENTS = "events.jsonl"
RECENT_RESULTS = 200


class LiveGame(msgspec.Struct):
    """A game in progress as the page shows it: its seats, the position after its last move."""

    id: str
    variant: str
    seats: dict[str, str]
    position: str
    last: str | None
    ply: int
    opening: list[str]
    clocks: dict[str, int] = {}
    think_ms: int | None = None
    side: str | None = None


class Ended(msgspec.Struct):
    """A finished game in the page's list of results."""

    id: str
    seats: dict[str, str]
    winner: str | None
    termination: str | None
    reason: str
    plies: int | None


class TournamentFeed:
    """The state of one tournament directory as its event stream tells it."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / EVENTS
        self._offset = 0
        self._partial = b""
        self.version = 0
        self.name = self.directory.name
        self.players: list[str] = []
        self.games_total = 0
        self.games_done = 0
        self.live: dict[str, LiveGame] = {}
        self.ended: list[Ended] = []
        self.standings: list[Row] = []
        self.finished = False
        self.problem = ""

    def poll(self) -> bool:
        """Reads new events; True when the state changed."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            self.problem = f"waiting for the runner: {self.path} does not exist yet"
            return False
        if size < self._offset:  # the file was replaced: read it again from the start
            self._offset, self._partial = 0, b""
        if size == self._offset:
            return False
        with open(self.path, "rb") as stream:
            stream.seek(self._offset)
            data = self._partial + stream.read(size - self._offset)
        self._offset = size
        *lines, self._partial = data.split(b"\n")
        if not self.version:  # the first events: what the journal showed until now is replaced
            self.ended, self.standings, self.games_done = [], [], 0
        changed = False
        for line in lines:
            event = read_event(line)
            if event is None:  # a kind the page does not follow, or a line this version cannot read
                continue
            try:
                self.apply(event)
            except ValueError:  # a position or move that does not read: skip the event
                continue
            changed = True
        if changed:
            self.problem = ""
            self.version += 1
        return changed

    def apply(self, event: Event) -> None:
        if isinstance(event, TournamentStarted):
            self.name, self.players = event.name, list(event.players)
            self.games_total, self.games_done = event.games_total, event.games_done
            self.live.clear()  # a new runner (a resume): games it did not finish will start again
            self.finished = False
        elif isinstance(event, GameStarted):
            game = Game.from_position(Position.from_text(event.start))
            for text in event.opening:  # opening moves come with the start, not as `move`s
                game.push(game.parse_move(text))
            last = str(game.moves[-1]) if game.moves else None
            self.live[event.game_id] = LiveGame(event.game_id, str(game.position.variant), event.seats,
                                                game.position.text(), last, len(game.moves), list(event.opening))
        elif isinstance(event, MoveMade):
            playing = self.live.get(event.game_id)
            if playing is not None:
                playing.position, playing.last, playing.ply = event.position, event.move, event.ply
                playing.clocks, playing.think_ms, playing.side = event.clocks, event.think_ms, event.side
        elif isinstance(event, GameEnded):
            ended = self.live.pop(event.game_id, None)
            self.games_done += 1
            self.ended.insert(0, Ended(event.game_id, ended.seats if ended is not None else {}, event.winner,
                                       event.termination, event.reason, event.plies))
            del self.ended[RECENT_RESULTS:]
        elif isinstance(event, StandingsNow):
            self.standings = list(event.rows)
            self.games_done = self.games_done if event.games_done is None else event.games_done
        elif isinstance(event, TournamentEnded):
            self.finished = True
            # `games_played` counts this runner's games only (a resumed run played the rest before):
            # the tournament's count is `games_done`, the same as its standings'.
            self.games_done = self.games_done if event.games_done is None else event.games_done

    def view(self) -> dict[str, Any]:
        """The message the live page draws: every board in progress as SVG. Before the first
        event (a runner that has not started, or a folder from a runner without events) the
        journal tells the games played and the standings."""
        if not self.version:
            self._from_journal()
        games = []
        for game in self.live.values():
            try:
                last = Move.parse(game.last) if game.last else None
                svg = board_svg(Position.from_text(game.position), last_move=last)
            except ValueError:
                svg = ""
            games.append({"id": game.id, "variant": game.variant, "seats": game.seats, "ply": game.ply,
                          "clocks": game.clocks, "think_ms": game.think_ms, "last": game.last, "side": game.side,
                          "svg": svg, "turn": game.position.split()[2]})
        return {"type": "tournament", "name": self.name, "players": self.players, "games_total": self.games_total,
                "games_done": self.games_done, "live": games, "ended": msgspec.to_builtins(self.ended),
                "standings": msgspec.to_builtins(self.standings), "finished": self.finished, "problem": self.problem}

    def _from_journal(self) -> None:
        try:
            identity, good = good_entries(self.directory)
            results, entries = summarize(identity, good), game_entries(good)
        except (TournamentError, OSError, ValueError):
            return
        self.name, self.games_total, self.games_done = results["name"], results["scheduled"], results["played"]
        self.problem = (f"no live events yet ({self.path} is not there): these are the games of its journal; "
                        "the page follows the runner as soon as it writes events")
        self.finished = results["complete"]
        self.ended = [Ended(game.id, game.seats(), game.winner, game.termination, game.reason, game.plies)
                      for game in reversed(entries)][:RECENT_RESULTS]
        standings = Standings([player["name"] for player in identity["config"]["players"]])
        for game in entries:
            standings.add(game)
        self.standings = standings.rows()

    def record(self, game_id: str) -> GameRecord | None:
        """A finished game's record, from the journal."""
        for entry in scan_journal(self.directory).entries:  # good lines; a damaged one is skipped
            if isinstance(entry, GameEntry) and entry.id == game_id and entry.record is not None:
                return entry.record
        return None
