"""The arena's tables, in the server's own SQLite file, and the transactions that make it safe to kill.

The unit of work is a twin pair: two games of one opening with the roles swapped, played by one
worker. A pair row is `queued`, then `claimed` by a worker (one transaction), then `done` when both
its games are committed with it (one transaction: the two game rows, keyed `p<pair>.<slot>`, and the
pair's status; a second commit of the same pair is refused by the key and by the status check). A
`kill -9` between the claim and the commit leaves the pair `claimed`: `recover()`, run when the
arena opens, puts it back in the queue, so it is played again, once. A worker taken out of
rotation has its games voided and their pairs queued again as new pairs (`replaces`), for others.

Every write is one `BEGIN IMMEDIATE` transaction under the object's lock (the server's threads
share one connection); the CLI opens its own connection to the same file (WAL: readers and one
writer at a time, a busy writer waited for).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS arena_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS arena_bots (
    name TEXT PRIMARY KEY, spec TEXT NOT NULL, kind TEXT NOT NULL, variants TEXT NOT NULL,
    rung INTEGER NOT NULL DEFAULT 0, retired INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS arena_tests (
    id INTEGER PRIMARY KEY AUTOINCREMENT, first TEXT NOT NULL, second TEXT NOT NULL, variant TEXT NOT NULL,
    kind TEXT NOT NULL, elo0 REAL, elo1 REAL, alpha REAL, beta REAL, pairs INTEGER,
    priority REAL NOT NULL, tc TEXT NOT NULL, status TEXT NOT NULL, verdict TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL, ended REAL);
CREATE TABLE IF NOT EXISTS arena_pairs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, test INTEGER, variant TEXT NOT NULL, first TEXT NOT NULL,
    second TEXT NOT NULL, opening TEXT NOT NULL, seed INTEGER NOT NULL, tc TEXT NOT NULL,
    status TEXT NOT NULL, worker TEXT, claimed REAL, created REAL NOT NULL, replaces INTEGER);
CREATE INDEX IF NOT EXISTS arena_pairs_status ON arena_pairs(status);
CREATE TABLE IF NOT EXISTS arena_games (
    id TEXT PRIMARY KEY, pair INTEGER NOT NULL, slot INTEGER NOT NULL, test INTEGER, variant TEXT NOT NULL,
    predator TEXT NOT NULL, prey TEXT NOT NULL, winner TEXT NOT NULL, predator_score REAL NOT NULL,
    termination TEXT NOT NULL, reason TEXT NOT NULL, plies INTEGER NOT NULL, forfeit TEXT,
    worker TEXT NOT NULL, judged TEXT NOT NULL, void INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL,
    data TEXT NOT NULL, UNIQUE (pair, slot));
CREATE INDEX IF NOT EXISTS arena_games_pair ON arena_games(pair);
CREATE TABLE IF NOT EXISTS arena_workers (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, place TEXT NOT NULL, status TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '', started REAL NOT NULL, seen REAL NOT NULL);
CREATE TABLE IF NOT EXISTS arena_lines (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, text TEXT NOT NULL);
"""
GAME_COLUMNS = ("id", "pair", "slot", "test", "variant", "predator", "prey", "winner", "predator_score",
                "termination", "reason", "plies", "forfeit", "worker", "judged", "void", "created")
MAX_LINES = 2000


class ArenaError(ValueError):
    """A request the arena refuses (a name taken, a bot unknown): its text is the user's line."""


@dataclass(frozen=True)
class Pair:
    """A claimed pair of games, as a worker needs it."""

    id: int
    test: int | None
    variant: str
    first: str
    second: str
    opening: tuple[str, ...]
    seed: int
    tc: str


class ArenaDB:
    """The arena's tables: one connection used under one lock, every write one transaction."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.connection = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None,
                                          timeout=30.0)
        self.connection.row_factory = sqlite3.Row
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=FULL")  # a committed game survives a power cut too
        with self.write() as db:
            db.executescript_inside(SCHEMA)
        self.seed = int(self._meta("seed") or self._set_meta("seed", str(secrets.randbelow(2**31))))

    def close(self) -> None:
        with self.lock:
            self.connection.close()

    @contextmanager
    def write(self) -> Iterator[_Tx]:
        """One transaction (BEGIN IMMEDIATE ... COMMIT, ROLLBACK on any error) under the lock."""
        with self.lock:
            self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield _Tx(self.connection)
            except BaseException:
                self.connection.execute("ROLLBACK")
                raise
            self.connection.execute("COMMIT")

    def rows(self, sql: str, values: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(row) for row in self.connection.execute(sql, values).fetchall()]

    def _meta(self, key: str) -> str | None:
        found = self.rows("SELECT value FROM arena_meta WHERE key = ?", (key,))
        return found[0]["value"] if found else None

    def _set_meta(self, key: str, value: str) -> str:
        with self.write() as db:
            db.run("INSERT OR IGNORE INTO arena_meta (key, value) VALUES (?, ?)", (key, value))
        return self._meta(key) or value

    # -- starting ---------------------------------------------------------------------------------

    def recover(self) -> dict[str, int]:
        """What a server stopped any way (kill -9 too) left in flight: claimed pairs go back to the
        queue, its workers are gone. Returns how many of each."""
        with self.write() as db:
            pairs = db.run("UPDATE arena_pairs SET status = 'queued', worker = NULL, claimed = NULL "
                           "WHERE status = 'claimed'").rowcount
            workers = db.run("UPDATE arena_workers SET status = 'gone' WHERE status = 'active'").rowcount
        if pairs:
            self.line(f"restart: {pairs} pair(s) claimed by the previous server's workers are queued again")
        return {"pairs": pairs, "workers": workers}

    # -- bots ------------------------------------------------------------------------------------

    def add_bot(self, name: str, spec: str, kind: str, variants: list[str], rung: bool = False) -> None:
        with self.write() as db:
            if db.run("SELECT 1 FROM arena_bots WHERE name = ?", (name,)).fetchone():
                raise ArenaError(f"a bot named {name!r} is registered already; pick another name "
                                 "(foxgeese arena bot list shows them)")
            db.run("INSERT INTO arena_bots (name, spec, kind, variants, rung, created) VALUES (?, ?, ?, ?, ?, ?)",
                   (name, spec, kind, json.dumps(variants), int(rung), time.time()))

    def retire_bot(self, name: str) -> None:
        with self.write() as db:
            if not db.run("UPDATE arena_bots SET retired = 1 WHERE name = ?", (name,)).rowcount:
                raise ArenaError(f"no bot named {name!r}; foxgeese arena bot list shows them")

    def bots(self, variant: str | None = None, retired: bool = False) -> list[dict[str, Any]]:
        found = self.rows("SELECT * FROM arena_bots ORDER BY created, name")
        for bot in found:
            bot["variants"] = json.loads(bot["variants"])
        return [bot for bot in found if (retired or not bot["retired"])
                and (variant is None or variant in bot["variants"])]

    def bot(self, name: str) -> dict[str, Any] | None:
        return next((bot for bot in self.bots(retired=True) if bot["name"] == name), None)

    def has_bots(self) -> bool:
        return bool(self.rows("SELECT 1 FROM arena_bots LIMIT 1"))

    # -- tests -----------------------------------------------------------------------------------

    def add_test(self, first: str, second: str, variant: str, kind: str, *, elo0: float | None = None,
                 elo1: float | None = None, alpha: float | None = None, beta: float | None = None,
                 pairs: int | None = None, priority: float = 1.0, tc: str) -> int:
        with self.write() as db:
            cursor = db.run("INSERT INTO arena_tests (first, second, variant, kind, elo0, elo1, alpha, beta, pairs, "
                            "priority, tc, status, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)",
                            (first, second, variant, kind, elo0, elo1, alpha, beta, pairs, priority, tc, time.time()))
            return int(cursor.lastrowid or 0)

    def tests(self, status: str | None = None) -> list[dict[str, Any]]:
        if status is None:
            return self.rows("SELECT * FROM arena_tests ORDER BY id DESC")
        return self.rows("SELECT * FROM arena_tests WHERE status = ? ORDER BY id", (status,))

    def test(self, test_id: int) -> dict[str, Any] | None:
        found = self.rows("SELECT * FROM arena_tests WHERE id = ?", (test_id,))
        return found[0] if found else None

    def end_test(self, test_id: int, status: str, verdict: str) -> bool:
        """Ends a running test with its verdict (False: it had ended already); its queued pairs go."""
        with self.write() as db:
            ended = db.run("UPDATE arena_tests SET status = ?, verdict = ?, ended = ? WHERE id = ? "
                           "AND status = 'running'", (status, verdict, time.time(), test_id)).rowcount
            if ended:
                db.run("UPDATE arena_pairs SET status = 'dropped' WHERE test = ? AND status = 'queued'", (test_id,))
        if ended:
            self.line(f"test {test_id}: {verdict}")
        return bool(ended)

    # -- pairs -----------------------------------------------------------------------------------

    def claim_queued(self, worker: str, usable: set[str]) -> Pair | None:
        """Claims the oldest queued pair whose bots are both in `usable` (and whose test runs)."""
        with self.write() as db:
            rows = db.run("SELECT p.* FROM arena_pairs p LEFT JOIN arena_tests t ON t.id = p.test "
                          "WHERE p.status = 'queued' AND (p.test IS NULL OR t.status = 'running') "
                          "ORDER BY p.id").fetchall()
            for row in rows:
                if row["first"] in usable and row["second"] in usable:
                    db.run("UPDATE arena_pairs SET status = 'claimed', worker = ?, claimed = ? WHERE id = ?",
                           (worker, time.time(), row["id"]))
                    return _pair(row)
        return None

    def create_claimed(self, worker: str, test: int | None, variant: str, first: str, second: str,
                       opening: tuple[str, ...], seed: int, tc: str) -> Pair:
        """A new pair, claimed by `worker` in the same transaction."""
        with self.write() as db:
            cursor = db.run("INSERT INTO arena_pairs (test, variant, first, second, opening, seed, tc, status, worker, "
                            "claimed, created) VALUES (?, ?, ?, ?, ?, ?, ?, 'claimed', ?, ?, ?)",
                            (test, variant, first, second, json.dumps(list(opening)), seed, tc, worker,
                             time.time(), time.time()))
            pair_id = int(cursor.lastrowid or 0)
        return Pair(pair_id, test, variant, first, second, opening, seed, tc)

    def release(self, pair_id: int, worker: str) -> None:
        """A pair whose worker was lost mid-game: back to the queue."""
        with self.write() as db:
            db.run("UPDATE arena_pairs SET status = 'queued', worker = NULL, claimed = NULL "
                   "WHERE id = ? AND status = 'claimed' AND worker = ?", (pair_id, worker))

    def commit(self, pair: Pair, worker: str, games: list[dict[str, Any]]) -> bool:
        """Both games of `pair` and its end, in one transaction; False (nothing written) when the
        pair is no longer this worker's claim or a game of it is stored already."""
        now = time.time()
        try:
            with self.write() as db:
                if not db.run("UPDATE arena_pairs SET status = 'done' WHERE id = ? AND status = 'claimed' "
                              "AND worker = ?", (pair.id, worker)).rowcount:
                    raise _Refused
                for game in games:
                    values = {**game, "pair": pair.id, "test": pair.test, "worker": worker, "void": 0,
                              "created": now, "judged": json.dumps(game.get("judged") or {})}
                    db.run(f"INSERT INTO arena_games ({', '.join(GAME_COLUMNS)}, data) VALUES "
                           f"({', '.join('?' * (len(GAME_COLUMNS) + 1))})",
                           (*[values.get(column) for column in GAME_COLUMNS], json.dumps(game["record"])))
        except (_Refused, sqlite3.IntegrityError):
            return False
        return True

    def inflight(self) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM arena_pairs WHERE status = 'claimed'")

    def pair_counts(self) -> dict[str, int]:
        return {row["status"]: row["n"] for row in
                self.rows("SELECT status, count(*) AS n FROM arena_pairs GROUP BY status")}

    # -- games -----------------------------------------------------------------------------------

    def games(self, *, variant: str | None = None, test: int | None = None, ladder: bool = False,
              worker: str | None = None, void: bool = False, limit: int | None = None) -> list[dict[str, Any]]:
        """Game rows without their records, oldest first."""
        where, values = ([] if void else ["void = 0"]), []
        for column, value in (("variant", variant), ("test", test), ("worker", worker)):
            if value is not None:
                where.append(f"{column} = ?")
                values.append(value)
        if ladder:
            where.append("test IS NULL")
        sql = f"SELECT {', '.join(GAME_COLUMNS)} FROM arena_games"
        sql += (" WHERE " + " AND ".join(where)) if where else ""
        sql += " ORDER BY pair, slot"
        if limit is not None:
            sql = f"SELECT * FROM ({sql.replace(' ORDER BY pair, slot', ' ORDER BY pair DESC, slot DESC')} " \
                  f"LIMIT {int(limit)}) ORDER BY pair, slot"
        found = self.rows(sql, tuple(values))
        for game in found:
            game["judged"] = json.loads(game["judged"])
        return found

    def record(self, game_id: str) -> dict[str, Any] | None:
        found = self.rows("SELECT data FROM arena_games WHERE id = ?", (game_id,))
        return json.loads(found[0]["data"]) if found else None

    # -- workers ---------------------------------------------------------------------------------

    def worker_started(self, worker: str, kind: str, place: dict[str, Any]) -> str:
        """Registers a worker as active; returns its status ('out' when an earlier run took it out)."""
        with self.write() as db:
            row = db.run("SELECT status FROM arena_workers WHERE id = ?", (worker,)).fetchone()
            if row is not None and row["status"] == "out":
                return "out"
            db.run("INSERT INTO arena_workers (id, kind, place, status, started, seen) "
                   "VALUES (?, ?, ?, 'active', ?, ?) "
                   "ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, place = excluded.place, status = 'active', "
                   "started = excluded.started, seen = excluded.seen",
                   (worker, kind, json.dumps(place), time.time(), time.time()))
        return "active"

    def worker_stopped(self, worker: str) -> None:
        with self.write() as db:
            db.run("UPDATE arena_workers SET status = 'gone' WHERE id = ? AND status = 'active'", (worker,))

    def workers(self) -> list[dict[str, Any]]:
        found = self.rows("SELECT * FROM arena_workers ORDER BY id")
        for worker in found:
            worker["place"] = json.loads(worker["place"])
        return found

    def take_out(self, worker: str, reason: str) -> int:
        """Takes `worker` out of rotation: its games are voided and their pairs queued again as new
        pairs for the others (one transaction). Returns how many pairs are to be replayed."""
        with self.write() as db:
            db.run("UPDATE arena_workers SET status = 'out', reason = ? WHERE id = ?", (reason, worker))
            pairs = db.run("SELECT * FROM arena_pairs WHERE worker = ? AND status IN ('done', 'claimed')",
                           (worker,)).fetchall()
            db.run("UPDATE arena_games SET void = 1 WHERE worker = ?", (worker,))
            now = time.time()
            for row in pairs:
                db.run("UPDATE arena_pairs SET status = 'void' WHERE id = ?", (row["id"],))
                db.run("INSERT INTO arena_pairs (test, variant, first, second, opening, seed, tc, status, created, "
                       "replaces) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)",
                       (row["test"], row["variant"], row["first"], row["second"], row["opening"], row["seed"],
                        row["tc"], now, row["id"]))
        self.line(f"worker {worker} taken out of rotation: {reason}; its {len(pairs)} pair(s) are played again "
                  "by the other workers")
        return len(pairs)

    # -- the arena's log -----------------------------------------------------------------------------

    def line(self, text: str) -> None:
        with self.write() as db:
            db.run("INSERT INTO arena_lines (at, text) VALUES (?, ?)", (time.time(), text))
            db.run("DELETE FROM arena_lines WHERE id <= (SELECT max(id) FROM arena_lines) - ?", (MAX_LINES,))

    def lines(self, limit: int = 50) -> list[dict[str, Any]]:
        return self.rows("SELECT at, text FROM arena_lines ORDER BY id DESC LIMIT ?", (limit,))


class _Refused(Exception):
    """A commit the pair's state refuses (rolled back)."""


class _Tx:
    """The statements of one transaction."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def run(self, sql: str, values: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        return self.connection.execute(sql, values)

    def executescript_inside(self, script: str) -> None:
        for statement in script.split(";"):
            if statement.strip():
                self.connection.execute(statement)


def _pair(row: sqlite3.Row) -> Pair:
    return Pair(int(row["id"]), row["test"], row["variant"], row["first"], row["second"],
                tuple(json.loads(row["opening"])), int(row["seed"]), row["tc"])
