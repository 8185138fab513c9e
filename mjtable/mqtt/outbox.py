"""A persistent outbox: every message a table publishes is written here first and removed once it is safe, so
a table that loses its broker -- or is restarted -- delivers everything later, in order.

"Safe" depends on the message.  Most leave when the broker acknowledged them (PUBACK).  Event-stream messages
published with a ``hold`` (``(game, seq, event id)``) stay after the PUBACK (``broker_acked``) until the
RECORDER acknowledges their ``seq`` end to end (:meth:`Outbox.recorder_ack`): a broker that crashes before
saving loses messages it had already acknowledged (issue 19.2), and the table resends them.

The same file keeps a ledger of published event ids with their envelope ``seq`` (written in the same transaction
as the message): a resumed table continues the seq (:meth:`Outbox.last_seq`) and never publishes an event id
twice under two seqs (:meth:`Outbox.seq_of`); and a small key/value ``meta`` table (e.g. the last journal
record whose publications are in the outbox).  The ledger stays small over a long session: a row goes once the
recorder has acknowledged its seq AND it is at or below the game's floor (:meth:`Outbox.mark_published`: every
row up to it whose id is of the caller's prunable form belongs to journal records a resumed table will not
publish again); the newest row of each game and ids outside that form (hand results, the game end: re-offered
whenever the state shows them) stay.  Rows still needed after a SIGKILL -- unacknowledged, or of the journal
record being published -- are never pruned; deleted rows' pages are reused, so the file stops growing.

SQLite file (WAL) or ``:memory:``; all methods lock, so the caller's thread and paho's network thread may
both use one instance.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from mjtable.mqtt.sqlite_store import open_store

#: (game id, envelope seq, event id) of an event-stream message the recorder must acknowledge
Hold = tuple[str, int, str]


@dataclass(frozen=True, slots=True)
class OutboxItem:
    """One message waiting for an acknowledgement; ``rowid`` orders them; ``seq`` is set for held events."""

    rowid: int
    topic: str
    payload: bytes
    qos: int
    retain: bool
    game: str | None = None
    seq: int | None = None


_COLUMNS = "rowid, topic, payload, qos, retain, game, seq"


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
        columns = {str(r[1]) for r in self._db.execute("PRAGMA table_info(outbox)")}
        for name, decl in (("game", "TEXT"), ("seq", "INTEGER"), ("broker_acked", "INTEGER NOT NULL DEFAULT 0")):
            if name not in columns:  # an outbox written before end-to-end acks
                self._db.execute(f"ALTER TABLE outbox ADD COLUMN {name} {decl}")
        self._db.execute("CREATE TABLE IF NOT EXISTS published (game TEXT NOT NULL, event_id TEXT NOT NULL, "
                         "seq INTEGER NOT NULL, PRIMARY KEY (game, event_id))")
        self._db.execute("CREATE INDEX IF NOT EXISTS published_seq ON published (game, seq)")
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")

    def put(self, topic: str, payload: bytes, qos: int, retain: bool, hold: Hold | None = None) -> int:
        """Store one message (and, with ``hold``, its event id and seq in the ledger); returns its rowid."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute("INSERT INTO outbox (topic, payload, qos, retain, game, seq) VALUES "
                                       "(?, ?, ?, ?, ?, ?)", (topic, payload, qos, int(retain),
                                                              hold[0] if hold else None, hold[1] if hold else None))
                if hold is not None:
                    self._db.execute("INSERT OR IGNORE INTO published VALUES (?, ?, ?)", (hold[0], hold[2], hold[1]))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            assert cur.lastrowid is not None
            return int(cur.lastrowid)

    def ack(self, rowid: int) -> None:
        """The broker acknowledged a message: forget it, unless it is held for the recorder."""
        with self._lock:
            self._db.execute("DELETE FROM outbox WHERE rowid = ? AND game IS NULL", (rowid,))
            self._db.execute("UPDATE outbox SET broker_acked = 1 WHERE rowid = ?", (rowid,))

    def recorder_ack(self, game: str, seq: int) -> int:
        """The recorder holds every event of ``game`` up to ``seq``: forget those, and prune the ledger rows up to
        ``seq`` that are also at or below the game's floor (keeping the newest); returns how many messages went."""
        with self._lock:
            cur = self._db.execute("DELETE FROM outbox WHERE game = ? AND seq <= ?", (game, seq))
            floor = self._db.execute("SELECT value FROM meta WHERE key = ?", (_floor_key(game),)).fetchone()
            ids = self._db.execute("SELECT value FROM meta WHERE key = ?", (_prunable_key(game),)).fetchone()
            if floor is not None and ids is not None:  # one statement: a crash keeps every row or prunes them all
                self._db.execute("DELETE FROM published WHERE game = ? AND seq <= ? AND event_id GLOB ? AND seq < "
                                 "(SELECT MAX(seq) FROM published WHERE game = ?)",
                                 (game, min(seq, int(floor[0])), str(ids[0]), game))
            return int(cur.rowcount)

    def mark_published(self, game: str, meta: dict[str, str], prunable: str) -> None:
        """Every event of ``game`` published so far whose id matches the SQLite GLOB ``prunable`` belongs to journal
        records that a resumed table will not publish again: store the caller's ``meta`` (its journal mark), the
        game's ledger floor (the highest seq now in the ledger) and ``prunable`` in one transaction.  Only rows at
        or below the floor whose id matches are ever pruned (ids a table may offer again whenever its state shows
        them, e.g. a hand result, must not match)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for key, value in {**meta, _prunable_key(game): prunable}.items():
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
                self._db.execute("INSERT OR REPLACE INTO meta SELECT ?, CAST(MAX(seq) AS TEXT) FROM published "
                                 "WHERE game = ? HAVING MAX(seq) IS NOT NULL", (_floor_key(game), game))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def pending(self) -> list[OutboxItem]:
        """Every message the broker has not acknowledged, oldest first."""
        return self._select("broker_acked = 0", ())

    def held(self, game: str | None = None, after_seq: int = 0) -> list[OutboxItem]:
        """Event messages the broker acknowledged but the recorder has not (of ``game``, seq > ``after_seq``)."""
        if game is None:
            return self._select("broker_acked = 1 AND game IS NOT NULL", ())
        return self._select("broker_acked = 1 AND game = ? AND seq > ?", (game, after_seq))

    def _select(self, where: str, args: tuple[object, ...]) -> list[OutboxItem]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM outbox WHERE {where} ORDER BY rowid", args).fetchall()
        return [OutboxItem(int(r[0]), str(r[1]), bytes(r[2]), int(r[3]), bool(r[4]),
                           None if r[5] is None else str(r[5]), None if r[6] is None else int(r[6])) for r in rows]

    def held_games(self) -> list[str]:
        """Games with events the broker acknowledged and the recorder has not."""
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT game FROM outbox WHERE broker_acked = 1 AND game IS NOT NULL")
            return [str(r[0]) for r in rows.fetchall()]

    def held_count(self) -> int:
        """Events waiting for the recorder's acknowledgement (whether or not the broker has them)."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM outbox WHERE game IS NOT NULL").fetchone()[0])

    # -- the ledger of published event ids ------------------------------------------------------------
    def seq_of(self, game: str, event_id: str) -> int | None:
        """The seq an event id was published under, or None if it never was."""
        with self._lock:
            row = self._db.execute("SELECT seq FROM published WHERE game = ? AND event_id = ?",
                                   (game, event_id)).fetchone()
        return None if row is None else int(row[0])

    def last_seq(self, game: str) -> int:
        """The highest envelope seq published in ``game`` (0 before the first event)."""
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM published WHERE game = ?", (game,)).fetchone()
        return int(row[0] or 0)

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def __len__(self) -> int:
        """Messages the broker has not acknowledged yet."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM outbox WHERE broker_acked = 0").fetchone()[0])

    def checkpoint(self) -> None:
        """Move the write-ahead log into the file and truncate it (a file store; no-op in memory)."""
        with self._lock:
            if self.path is not None:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        """Checkpoint and close (any thread; no method may be called after)."""
        self.checkpoint()
        with self._lock:
            self._db.close()


def glob_literal(text: str) -> str:
    """``text`` as a literal in an SQLite GLOB pattern (``*``, ``?`` and ``[`` bracketed)."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _prunable_key(game: str) -> str:
    """The ``meta`` key of the GLOB of a game's prunable event ids (see :meth:`Outbox.mark_published`)."""
    return f"ledger_prunable:{game}"


def _floor_key(game: str) -> str:
    """The ``meta`` key of a game's ledger floor (see :meth:`Outbox.mark_published`)."""
    return f"ledger_floor:{game}"
