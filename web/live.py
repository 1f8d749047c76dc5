"""The live view of a tournament: follows the runner's event stream, `DIR/events.jsonl`.

The runner appends one JSON object per line (docs/tournaments.md: tournament_started,
game_started, move, game_ended, standings, tournament_ended). `TournamentFeed.poll` reads what
was added since the last call (a line still being written waits for its newline) and folds it
into the state the page shows: the games in progress with their boards, the standings, the games
that ended. Finished games are replayed from the journal, which holds their records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from foxgeese.engine import Game, Move, Position
from foxgeese.engine.svg import board_svg
from foxgeese.protocol.record import GameRecord
from foxgeese.tournaments.entries import GameEntry
from foxgeese.tournaments.errors import TournamentError
from foxgeese.tournaments.journal import scan_journal
from foxgeese.tournaments.report import game_entries, good_entries, summarize
from foxgeese.tournaments.standings import Standings

EVENTS = "events.jsonl"
RECENT_RESULTS = 200


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
        self.live: dict[str, dict[str, Any]] = {}
        self.ended: list[dict[str, Any]] = []
        self.standings: list[dict[str, Any]] = []
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
            try:
                event = json.loads(line)
                if isinstance(event, dict):
                    self.apply(event)
                    changed = True
            except (ValueError, KeyError, TypeError):  # a line this version cannot read: skip it
                continue
        if changed:
            self.problem = ""
            self.version += 1
        return changed

    def apply(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "tournament_started":
            self.name = str(event.get("name", self.name))
            self.players = list(event.get("players", []))
            self.games_total = int(event.get("games_total", 0))
            self.games_done = int(event.get("games_done", 0))
            self.live.clear()  # a new runner (a resume): games it did not finish will start again
            self.finished = False
        elif kind == "game_started":
            game = Game.from_position(Position.from_text(event["start"]))
            for text in event.get("opening", []):  # opening moves come with the start, not as `move`s
                game.push(game.parse_move(text))
            last = str(game.moves[-1]) if game.moves else None
            self.live[event["game_id"]] = {
                "id": event["game_id"], "variant": str(game.position.variant), "seats": event.get("seats", {}),
                "position": game.position.text(), "last": last, "ply": len(game.moves),
                "clocks": {}, "think_ms": None, "opening": list(event.get("opening", [])),
            }
        elif kind == "move":
            playing = self.live.get(event.get("game_id", ""))
            if playing is not None:
                playing.update(position=event["position"], last=event.get("move"), ply=event.get("ply", 0),
                            clocks=event.get("clocks") or {}, think_ms=event.get("think_ms"),
                            side=event.get("side"))
        elif kind == "game_ended":
            ended = self.live.pop(event.get("game_id", ""), None) or {"seats": {}}
            self.games_done += 1
            self.ended.insert(0, {"id": event.get("game_id"), "seats": ended.get("seats", {}),
                                  "winner": event.get("winner"), "termination": event.get("termination"),
                                  "reason": event.get("reason", ""), "plies": event.get("plies")})
            del self.ended[RECENT_RESULTS:]
        elif kind == "standings":
            self.standings = list(event.get("rows", []))
            self.games_done = int(event.get("games_done", self.games_done))
        elif kind == "tournament_ended":
            self.finished = True
            # `games_played` counts this runner's games only (a resumed run played the rest before):
            # the tournament's count is `games_done`, the same as its standings'.
            self.games_done = int(event.get("games_done", self.games_done))

    def view(self) -> dict[str, Any]:
        """The message the live page draws: every board in progress as SVG. Before the first
        event (a runner that has not started, or a folder from a runner without events) the
        journal tells the games played and the standings."""
        if not self.version:
            self._from_journal()
        games = []
        for game in self.live.values():
            try:
                position = Position.from_text(game["position"])
                last = Move.parse(game["last"]) if game.get("last") else None
                svg = board_svg(position, last_move=last)
            except ValueError:
                svg = ""
            games.append({key: game.get(key) for key in ("id", "variant", "seats", "ply", "clocks", "think_ms",
                                                         "last", "side")}
                         | {"svg": svg, "turn": game["position"].split()[2]})
        return {"type": "tournament", "name": self.name, "players": self.players, "games_total": self.games_total,
                "games_done": self.games_done, "live": games, "ended": self.ended, "standings": self.standings,
                "finished": self.finished, "problem": self.problem}

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
        self.ended = [{"id": game.id, "seats": game.seats(), "winner": game.winner, "termination": game.termination,
                       "reason": game.reason, "plies": game.plies} for game in reversed(entries)][:RECENT_RESULTS]
        standings = Standings([player["name"] for player in identity["config"]["players"]])
        for game in entries:
            standings.add(game)
        self.standings = msgspec.to_builtins(standings.rows())

    def record(self, game_id: str) -> GameRecord | None:
        """A finished game's record, from the journal."""
        for entry in scan_journal(self.directory).entries:  # good lines; a damaged one is skipped
            if isinstance(entry, GameEntry) and entry.id == game_id and entry.record is not None:
                return entry.record
        return None
