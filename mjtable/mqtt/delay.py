"""The spectator broadcast-delay queue, persisted so a table crash loses no delayed copy.

:class:`~mjtable.mqtt.channel.TableChannel` puts every public message for the ``spectator/`` mirror here with
its due time (unix seconds) and publishes it when :meth:`TableChannel.tick` finds it due.  With a file path the
queue lives in SQLite (WAL; it may share the outbox's file, e.g. ``/var/lib/mjtable/outbox.db``: it uses its
own table): a table process that is killed and restarted with the same path releases the copies it had not
released yet, at their original due times (late ones on the first tick), in their original order.  A copy is
deleted only after it was handed to the publisher, whose own outbox then owns it, so a crash between the two
repeats at most that one message (consumers drop duplicates by event id; states and timers are retained
documents).  All methods lock: any thread may call them, though the channel calls them from its one loop.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from mjtable.mqtt.sqlite_store import open_store


@dataclass(frozen=True, slots=True)
class Delayed:
    """One spectator copy waiting for its due time ``due_s`` (unix seconds); ``rowid`` keeps the order."""

    rowid: int
    due_s: float
    topic: str
    payload: bytes
    retain: bool


class SpectatorDelayQueue:
    """FIFO of delayed spectator messages.

    Args:
        path: SQLite file (persistent), or ``None`` for an in-memory queue that dies with the process.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        # synchronous=FULL: a delayed copy must survive a power cut too
        self._db = open_store(path, synchronous="FULL", timeout_s=10.0,
                              schema="CREATE TABLE IF NOT EXISTS spectator_delay (rowid INTEGER PRIMARY KEY "
                              "AUTOINCREMENT, due_s REAL NOT NULL, topic TEXT NOT NULL, payload BLOB NOT NULL, "
                              "retain INTEGER NOT NULL)")

    def put(self, due_s: float, topic: str, payload: bytes, retain: bool) -> int:
        """Store one copy due at ``due_s``; returns its rowid."""
        with self._lock:
            cur = self._db.execute("INSERT INTO spectator_delay (due_s, topic, payload, retain) VALUES (?, ?, ?, ?)",
                                   (due_s, topic, payload, int(retain)))
            assert cur.lastrowid is not None
            return int(cur.lastrowid)

    def due(self, now_s: float, limit: int = 1000) -> list[Delayed]:
        """Up to ``limit`` copies to release now: from the oldest, while due (FIFO: a later copy never
        overtakes an earlier one)."""
        with self._lock:
            rows = self._db.execute("SELECT rowid, due_s, topic, payload, retain FROM spectator_delay "
                                    "ORDER BY rowid LIMIT ?", (limit,)).fetchall()
        out: list[Delayed] = []
        for r in rows:
            if float(r[1]) > now_s:
                break
            out.append(Delayed(int(r[0]), float(r[1]), str(r[2]), bytes(r[3]), bool(r[4])))
        return out

    def done(self, rowid: int) -> None:
        """Forget a copy that was handed to the publisher."""
        with self._lock:
            self._db.execute("DELETE FROM spectator_delay WHERE rowid = ?", (rowid,))

    def pending(self) -> list[Delayed]:
        """Every copy not released yet, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT rowid, due_s, topic, payload, retain FROM spectator_delay ORDER BY rowid").fetchall()
        return [Delayed(int(r[0]), float(r[1]), str(r[2]), bytes(r[3]), bool(r[4])) for r in rows]

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM spectator_delay").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
