"""Where the recorder keeps events: SQLite (default) or PostgreSQL (``psycopg``, only if installed).

Idempotent by ``(table, event id)``: storing a duplicate is a no-op.  One connection, guarded by a lock;
``add_event`` may be called from paho's network thread while another thread reads.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Protocol


class StoreError(RuntimeError):
    """A database URL we cannot open."""


class EventStore(Protocol):
    """Recorder storage.  Real: :class:`SqlEventStore`; tests use the same class on a temporary SQLite file."""

    def add_event(self, event: dict[str, Any]) -> bool:
        """Store one validated ``mjtable.event/1`` envelope; False if it was a duplicate."""
        ...

    def set_status(self, table: str, status: str, ts_s: float) -> None: ...

    def add_record(self, record: dict[str, Any]) -> bool:
        """Store a complete game record (``mjtable.engine_record/1``) by (table, game); False if already stored."""
        ...

    def records(self) -> list[dict[str, Any]]: ...

    def events(self, table: str | None = None, game: str | None = None) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS events (table_id TEXT NOT NULL, event_id TEXT NOT NULL, game_id TEXT, "
    "seq BIGINT, type TEXT NOT NULL, ts_s DOUBLE PRECISION, payload TEXT NOT NULL, received_s DOUBLE PRECISION, "
    "PRIMARY KEY (table_id, event_id))",
    "CREATE INDEX IF NOT EXISTS events_game ON events (game_id, seq)",
    "CREATE TABLE IF NOT EXISTS table_status (table_id TEXT PRIMARY KEY, status TEXT NOT NULL, "
    "ts_s DOUBLE PRECISION)",
    "CREATE TABLE IF NOT EXISTS game_records (table_id TEXT NOT NULL, game_id TEXT NOT NULL, rules TEXT, "
    "payload TEXT NOT NULL, received_s DOUBLE PRECISION, PRIMARY KEY (table_id, game_id))",
)


class SqlEventStore:
    """SQLite or PostgreSQL event store.

    Args:
        url: ``sqlite:///relative.db``, ``sqlite:////abs/path.db``, a plain file path, or ``postgresql://...``.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self._lock = threading.Lock()
        self._conn: Any
        if url.startswith(("postgresql://", "postgres://")):
            try:
                import psycopg
            except ImportError as exc:
                raise StoreError("PostgreSQL needs psycopg: pip install 'psycopg[binary]'") from exc
            self._conn = psycopg.connect(url, autocommit=True)
            self._ph = "%s"
            self._insert = ("INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                            "ON CONFLICT (table_id, event_id) DO NOTHING")
            self._upsert = ("INSERT INTO table_status VALUES (%s, %s, %s) ON CONFLICT (table_id) "
                            "DO UPDATE SET status = EXCLUDED.status, ts_s = EXCLUDED.ts_s")
            self._insert_record = ("INSERT INTO game_records VALUES (%s, %s, %s, %s, %s) "
                                   "ON CONFLICT (table_id, game_id) DO NOTHING")
        else:
            path = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else url
            if url.startswith("sqlite://") and not url.startswith("sqlite:///"):
                raise StoreError(f"bad sqlite URL {url!r}: use sqlite:///path.db")
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._ph = "?"
            self._insert = "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            self._upsert = "INSERT OR REPLACE INTO table_status VALUES (?, ?, ?)"
            self._insert_record = "INSERT OR IGNORE INTO game_records VALUES (?, ?, ?, ?, ?)"
        for stmt in _SCHEMA:
            self._conn.execute(stmt)

    def add_event(self, event: dict[str, Any]) -> bool:
        row = (event["table"], event["id"], event.get("game"), event.get("seq"), event["type"], event.get("ts_s"),
               json.dumps(event, separators=(",", ":"), ensure_ascii=False), time.time())
        with self._lock:
            cur = self._conn.execute(self._insert, row)
            return bool(cur.rowcount == 1)

    def set_status(self, table: str, status: str, ts_s: float) -> None:
        with self._lock:
            self._conn.execute(self._upsert, (table, status, ts_s))

    def add_record(self, record: dict[str, Any]) -> bool:
        row = (record["table"], record["game"], record.get("rules"),
               json.dumps(record, separators=(",", ":"), ensure_ascii=False), time.time())
        with self._lock:
            cur = self._conn.execute(self._insert_record, row)
            return bool(cur.rowcount == 1)

    def records(self) -> list[dict[str, Any]]:
        """Every stored complete game record, by table and game id."""
        with self._lock:
            rows = self._conn.execute("SELECT payload FROM game_records ORDER BY table_id, game_id").fetchall()
        return [json.loads(r[0]) for r in rows]

    def events(self, table: str | None = None, game: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT payload FROM events"
        where, args = [], []
        if table is not None:
            where.append(f"table_id = {self._ph}")
            args.append(table)
        if game is not None:
            where.append(f"game_id = {self._ph}")
            args.append(game)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY game_id, seq"
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        return [json.loads(r[0]) for r in rows]

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    def statuses(self) -> dict[str, str]:
        with self._lock:
            rows = self._conn.execute("SELECT table_id, status FROM table_status").fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def close(self) -> None:
        with self._lock:
            self._conn.close()
