"""The registered remote bots of `foxgeese serve`: names and the SHA-256 of their tokens, in the server's SQLite file.

A token is `secrets.token_urlsafe(32)` (256 random bits), shown once by `register` and never kept:
the table holds its SHA-256 only. A hash of that much randomness cannot be turned back into the
token, so a slow password hash (scrypt) would add nothing but a cost to every request. A request's
token is hashed and looked up; the stored hash is compared with `secrets.compare_digest`.
The table lives beside the games (web/store.py's file) under its own connection: `foxgeese botapi
register` writes it while the server runs, and the server reads it on every request, so a new or
revoked token counts at once.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import threading
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS remote_bots (
    name TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, created REAL NOT NULL);
"""
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,39}$")
MAX_TOKEN_CHARS = 200  # a longer Authorization header is no token of this server (not hashed)


class BotApiError(ValueError):
    """A request of the Bot API or its registry that cannot be done (the words say why and what would work)."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class BotRegistry:
    """The `remote_bots` table: one connection, one lock, usable from any thread."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.connection = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None,
                                          timeout=10.0)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.executescript(SCHEMA)

    def close(self) -> None:
        with self.lock:
            self.connection.close()

    def register(self, name: str) -> str:
        """A new bot `name` and its token (the only time it is shown); BotApiError if the name is bad or taken."""
        if not NAME.match(name):
            raise BotApiError(f"bot name {name[:60]!r}: use 1-40 letters, digits, '_', '.', '-', starting "
                              "with a letter")
        token = secrets.token_urlsafe(32)
        with self.lock:
            try:
                self.connection.execute("INSERT INTO remote_bots (name, token_hash, created) VALUES (?, ?, ?)",
                                        (name, token_hash(token), time.time()))
            except sqlite3.IntegrityError:
                raise BotApiError(f"a bot named {name!r} is registered already: pick another name, or "
                                  f"revoke it first (foxgeese botapi revoke {name})") from None
        return token

    def revoke(self, name: str) -> bool:
        """Forgets `name` and its token (its open streams end at their next beat); False if it was not registered."""
        with self.lock:
            return self.connection.execute("DELETE FROM remote_bots WHERE name = ?", (name,)).rowcount > 0

    def name_for(self, token: str) -> str | None:
        """The bot whose token this is, else None."""
        if not token or len(token) > MAX_TOKEN_CHARS:
            return None
        wanted = token_hash(token)
        with self.lock:
            row = self.connection.execute("SELECT name, token_hash FROM remote_bots WHERE token_hash = ?",
                                          (wanted,)).fetchone()
        if row is None or not secrets.compare_digest(str(row[1]), wanted):
            return None
        return str(row[0])

    def exists(self, name: str) -> bool:
        with self.lock:
            return self.connection.execute("SELECT 1 FROM remote_bots WHERE name = ?", (name,)).fetchone() is not None

    def names(self) -> list[str]:
        with self.lock:
            return [str(row[0]) for row in self.connection.execute("SELECT name FROM remote_bots ORDER BY name")]
