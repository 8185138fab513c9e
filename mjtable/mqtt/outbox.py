"""A persistent outbox: every message a table publishes is written here first and removed once the broker
acknowledged it (PUBACK), so a table that loses its broker -- or is restarted -- delivers everything later,
in order.

SQLite file (WAL) or ``:memory:``; all methods lock, so the caller's thread and paho's network thread may
both use one instance.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from mjtable.mqtt.sqlite_store import open_store


@dataclass(frozen=True, slots=True)
class OutboxItem:
    """One message waiting for the broker's acknowledgement; ``rowid`` orders them."""

    rowid: int
    topic: str
    payload: bytes
    qos: int
    retain: bool


class Outbox:
    """Append-ordered message store.

    Args:
        path: SQLite file, or ``None`` for an in-memory outbox (lost with the process).
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = open_store(path, schema="CREATE TABLE IF NOT EXISTS outbox (rowid INTEGER PRIMARY KEY "
                              "AUTOINCREMENT, topic TEXT NOT NULL, payload BLOB NOT NULL, qos INTEGER NOT NULL, "
                              "retain INTEGER NOT NULL)")

    def put(self, topic: str, payload: bytes, qos: int, retain: bool) -> int:
        """Store one message; returns its rowid (increasing)."""
        with self._lock:
            cur = self._db.execute("INSERT INTO outbox (topic, payload, qos, retain) VALUES (?, ?, ?, ?)",
                                   (topic, payload, qos, int(retain)))
            assert cur.lastrowid is not None
            return int(cur.lastrowid)

    def ack(self, rowid: int) -> None:
        """Forget a message the broker acknowledged."""
        with self._lock:
            self._db.execute("DELETE FROM outbox WHERE rowid = ?", (rowid,))

    def pending(self) -> list[OutboxItem]:
        """Every unacknowledged message, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT rowid, topic, payload, qos, retain FROM outbox ORDER BY rowid").fetchall()
        return [OutboxItem(int(r[0]), str(r[1]), bytes(r[2]), int(r[3]), bool(r[4])) for r in rows]

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
