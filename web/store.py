"""What `foxgeese serve` keeps across restarts: games, uploaded records and analyses, in one SQLite file.

One `GameStore` owns the connection (standard library `sqlite3`, WAL journal, one lock: the
referee threads save moves while the event loop reads). The file lives in the user's data folder
(`$XDG_DATA_HOME/foxgeese/serve.sqlite3`, else `~/.local/share/foxgeese/...`) unless `--data PATH`
names another. Opening the store marks the games a previous server left running as `interrupted`:
their server is gone, so they cannot go on. Each table is bounded by a row count and the whole
file by the bytes of its stored JSON, and the uploaded records (anyone's, checked by
web/records.py before they come here) by their own bytes too; the oldest rows go first.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from foxgeese.engine import words

DATA_FILE = "serve.sqlite3"
MAX_GAMES = 5000
MAX_RECORDS = 1000
MAX_RECORD_BYTES = 32 << 20  # uploads are anyone's: their table has its own byte bound
MAX_ANALYSES = 2000
MAX_BYTES = 256 << 20

# `size` (the bytes of `data`) comes before `data`, so reading it never reads a long row's overflow pages.
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL, variant TEXT NOT NULL,
    status TEXT NOT NULL, winner TEXT NOT NULL DEFAULT '', result TEXT NOT NULL DEFAULT '',
    players TEXT NOT NULL DEFAULT '', size INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS games_created ON games(created);
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY, created REAL NOT NULL, size INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS records_created ON records(created);
CREATE TABLE IF NOT EXISTS analyses (
    key TEXT PRIMARY KEY, created REAL NOT NULL, size INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS analyses_created ON analyses(created);
"""
TABLES = {"games": ("id", MAX_GAMES), "records": ("id", MAX_RECORDS), "analyses": ("key", MAX_ANALYSES)}


def default_data_path() -> Path:
    """`$XDG_DATA_HOME/foxgeese/serve.sqlite3`, else `~/.local/share/foxgeese/serve.sqlite3`."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "foxgeese" / DATA_FILE


class GameStore:
    """The server's database: one connection, used under one lock from any thread."""

    def __init__(self, path: Path | str, *, max_games: int = MAX_GAMES, max_records: int = MAX_RECORDS,
                 max_analyses: int = MAX_ANALYSES, max_bytes: int = MAX_BYTES,
                 max_record_bytes: int = MAX_RECORD_BYTES) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.limits = {"games": max_games, "records": max_records, "analyses": max_analyses}
        self.max_bytes = max_bytes
        self.max_record_bytes = max_record_bytes
        self.lock = threading.Lock()
        self.connection = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.executescript(SCHEMA)
        self.interrupted = self._mark_interrupted()
        # kept up to date by every write, so a write never sums
        self.table_bytes = {name: int(self.connection.execute(f"SELECT coalesce(sum(size), 0) FROM {name}")
                                      .fetchone()[0]) for name in TABLES}
        self._prune("records")  # a file written with larger bounds

    @property
    def stored_bytes(self) -> int:
        """The bytes of the JSON all tables keep."""
        return sum(self.table_bytes.values())

    def close(self) -> None:
        with self.lock:
            self.connection.close()

    def journal_mode(self) -> str:
        with self.lock:
            return str(self.connection.execute("PRAGMA journal_mode").fetchone()[0])

    # -- games ----------------------------------------------------------------------------------

    def save_game(self, data: dict[str, Any]) -> None:
        """Inserts or replaces one game (`WebGame.snapshot()`): its moves so far, or its end and record."""
        text = json.dumps(data, separators=(",", ":"))
        players = " ".join(str(seat.get("name", "")) for seat in data.get("seats", {}).values())
        now = time.time()
        with self.lock:
            self.table_bytes["games"] += len(text) - self._size("games", data["id"])
            self.connection.execute(
                "INSERT INTO games (id, created, updated, variant, status, winner, result, players, size, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET updated=excluded.updated, "
                "status=excluded.status, winner=excluded.winner, result=excluded.result, players=excluded.players, "
                "size=excluded.size, data=excluded.data",
                (data["id"], data.get("created", now), now, data.get("variant_id", ""), data.get("status", ""),
                 data.get("winner", ""), data.get("result", ""), players, len(text), text))
            self._prune("games")

    def game(self, game_id: str) -> dict[str, Any] | None:
        with self.lock:
            row = self.connection.execute("SELECT data FROM games WHERE id = ?", (game_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def games(self, *, variant: str = "", player: str = "", result: str = "", limit: int = 200) -> list[dict[str, Any]]:
        """The newest games first, filtered: `variant` id, a `player` name (part of it, any case), a
        `result` (a winner's side name, `draw`, `interrupted`, `playing`)."""
        where, values = [], []
        if variant:
            where.append("variant = ?")
            values.append(variant)
        if player:
            where.append("lower(players) LIKE ? ESCAPE '\\'")
            escaped = player.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            values.append(f"%{escaped}%")
        if result in ("interrupted", "playing", "waiting"):
            where.append("status = ?")
            values.append(result)
        elif result:
            where.append("status = 'over' AND winner = ?")
            values.append(result)
        sql = "SELECT data FROM games" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY created DESC LIMIT ?"
        with self.lock:
            rows = self.connection.execute(sql, (*values, max(1, min(limit, 1000)))).fetchall()
        return [json.loads(row[0]) for row in rows]

    def _mark_interrupted(self) -> int:
        """Games a stopped server left waiting or running: they cannot go on, and say so."""
        with self.lock:
            rows = self.connection.execute("SELECT data FROM games WHERE status IN ('waiting', 'playing')").fetchall()
            for (text,) in rows:
                data = json.loads(text)
                data["status"] = "interrupted"
                data["result"] = (f"interrupted: the server stopped after {words.plies(len(data.get('moves', [])))}, "
                                  "before the game ended; "
                                  "it cannot go on")
                new = json.dumps(data, separators=(",", ":"))
                self.connection.execute("UPDATE games SET status = 'interrupted', result = ?, size = ?, data = ? "
                                        "WHERE id = ?", (data["result"], len(new), new, data["id"]))
        return len(rows)

    # -- uploaded records and analyses ------------------------------------------------------------

    def save_record(self, record_id: str, record: dict[str, Any]) -> None:
        self._put("records", record_id, record)

    def record(self, record_id: str) -> dict[str, Any] | None:
        return self._get("records", record_id)

    def save_analysis(self, key: str, analysis: dict[str, Any]) -> None:
        self._put("analyses", key, analysis)

    def analysis(self, key: str) -> dict[str, Any] | None:
        return self._get("analyses", key)

    def _put(self, table: str, key: str, data: dict[str, Any]) -> None:
        column = TABLES[table][0]
        text = json.dumps(data, separators=(",", ":"))
        with self.lock:
            self.table_bytes[table] += len(text) - self._size(table, key)
            self.connection.execute(f"INSERT OR REPLACE INTO {table} ({column}, created, size, data) "
                                    "VALUES (?, ?, ?, ?)", (key, time.time(), len(text), text))
            self._prune(table)

    def _get(self, table: str, key: str) -> dict[str, Any] | None:
        column = TABLES[table][0]
        with self.lock:
            row = self.connection.execute(f"SELECT data FROM {table} WHERE {column} = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def count(self, table: str) -> int:
        with self.lock:
            return self._count(table)

    def _count(self, table: str) -> int:
        return int(self.connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def _size(self, table: str, key: str) -> int:
        row = self.connection.execute(f"SELECT size FROM {table} WHERE {TABLES[table][0]} = ?", (key,)).fetchone()
        return int(row[0]) if row else 0

    def _prune(self, table: str) -> None:
        """Drops the oldest rows of `table` beyond its row limit (uploaded records also beyond
        `max_record_bytes`, the newest always kept), then the oldest of any table while the stored
        JSON passes the byte limit (caller holds the lock, or the store is being opened)."""
        column, _ = TABLES[table]
        beyond = (f"SELECT {column} FROM {table} ORDER BY created DESC LIMIT -1 OFFSET ?", (self.limits[table],))
        self._delete(table, *beyond)
        oldest_first = f"SELECT {column} FROM {table} ORDER BY created LIMIT 1"
        while table == "records" and self.table_bytes[table] > self.max_record_bytes and self._count(table) > 1:
            self._delete(table, oldest_first, ())
        while self.stored_bytes > self.max_bytes:
            oldest = min(((row[0], name) for name in TABLES
                          for row in [self.connection.execute(f"SELECT min(created) FROM {name}").fetchone()]
                          if row[0] is not None), default=None)
            if oldest is None:
                self.table_bytes = dict.fromkeys(TABLES, 0)
                return
            name = oldest[1]
            self._delete(name, f"SELECT {TABLES[name][0]} FROM {name} ORDER BY created LIMIT 1", ())

    def _delete(self, table: str, keys_sql: str, values: tuple[Any, ...]) -> None:
        column = TABLES[table][0]
        freed = self.connection.execute(f"SELECT coalesce(sum(size), 0) FROM {table} WHERE {column} IN ({keys_sql})",
                                        values).fetchone()[0]
        self.connection.execute(f"DELETE FROM {table} WHERE {column} IN ({keys_sql})", values)
        self.table_bytes[table] -= int(freed)
