"""Opening the small SQLite stores the MQTT side keeps on disk (outbox, spectator delay queue).

One connection per store, shared between the caller's thread and paho's network thread, so it is opened with
``check_same_thread=False`` and autocommit; the store guards it with its own lock.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


def open_store(path: Path | None, *, schema: str, synchronous: str = "NORMAL",
               timeout_s: float = 5.0) -> sqlite3.Connection:
    """Open ``path`` (WAL, creating its folder) or ``:memory:`` when None, and create ``schema`` if missing.

    Args:
        path: SQLite file, or None for an in-memory store that dies with the process.
        schema: a ``CREATE TABLE IF NOT EXISTS ...`` statement.
        synchronous: SQLite ``synchronous`` pragma for a file store (``NORMAL`` or ``FULL``).
        timeout_s: how long a write waits for another connection's lock, seconds.
    """
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False, isolation_level=None,
                         timeout=timeout_s)
    if path is not None:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute(schema)
    return db
