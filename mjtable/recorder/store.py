"""Where the recorder keeps events: SQLite (default: one table, the demo) or PostgreSQL (a venue, a league).

Both stores run the same SQL text (written with ``?`` placeholders; PostgreSQL gets ``%s``) over a schema that
:mod:`mjtable.recorder.migrate` keeps up to date from the versioned files in ``migrations/``.  Idempotent by
``(table, event id)``: storing a duplicate is a no-op (``ON CONFLICT DO NOTHING``), so several recorders (an
MQTT 5 shared subscription) and redeliveries store every event exactly once.  :meth:`SqlEventStore.add_events`
stores a batch in one transaction (``executemany``; psycopg pipelines it), which is what lets a recorder keep up
with a venue.  One connection, guarded by a lock: any thread may call any method.  PostgreSQL needs the
optional extra ``mjtable[postgres]`` (psycopg 3).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from mjtable.recorder.migrate import MigrationError, migrate

LOGGER = logging.getLogger(__name__)
T = TypeVar("T")


class StoreError(RuntimeError):
    """A database URL we cannot open, or a database that fails (after one reconnect)."""


class EventStore(Protocol):
    """Recorder storage.  Real: :class:`SqlEventStore` (SQLite file or PostgreSQL server); tests use the same
    class on a temporary SQLite file and on a throwaway PostgreSQL cluster."""

    def add_event(self, event: dict[str, Any]) -> bool:
        """Store one validated ``mjtable.event/1`` envelope; False if it was a duplicate."""
        ...

    def add_events(self, events: Sequence[dict[str, Any]], payloads: Sequence[str] | None = None) -> int:
        """Store validated envelopes in one transaction; returns how many were new (the rest were duplicates).
        ``payloads``: each envelope's JSON text as received (stored as is; encoded from the envelope when None)."""
        ...

    def set_status(self, table: str, status: str, ts_s: float) -> None: ...

    def add_record(self, record: dict[str, Any]) -> bool:
        """Store a complete game record (``mjtable.engine_record/1``) by (table, game); False if already stored."""
        ...

    def records(self) -> list[dict[str, Any]]: ...

    def events(self, table: str | None = None, game: str | None = None,
               types: Sequence[str] | None = None) -> list[dict[str, Any]]: ...

    def statuses(self) -> dict[str, str]: ...

    def close(self) -> None: ...


# -- the queries, one text for both databases ---------------------------------------------------------------
INSERT_EVENT = ("INSERT INTO events (table_id, event_id, game_id, seq, type, ts_s, payload, received_s, stored_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, event_id) DO NOTHING")
UPSERT_STATUS = ("INSERT INTO table_status (table_id, status, ts_s) VALUES (?, ?, ?) ON CONFLICT (table_id) "
                 "DO UPDATE SET status = excluded.status, ts_s = excluded.ts_s")
INSERT_RECORD = ("INSERT INTO game_records (table_id, game_id, rules, payload, received_s) VALUES (?, ?, ?, ?, ?) "
                 "ON CONFLICT (table_id, game_id) DO NOTHING")
SELECT_RECORDS = "SELECT payload FROM game_records ORDER BY table_id, game_id"
SELECT_STATUSES = "SELECT table_id, status FROM table_status"
COUNT_EVENTS = "SELECT COUNT(*) FROM events"
COUNT_BY_RECORDER = "SELECT stored_by, COUNT(*) FROM events GROUP BY stored_by"


def events_query(table: str | None, game: str | None, types: Sequence[str] | None) -> tuple[str, list[Any]]:
    """``SELECT payload FROM events`` filtered by table, game and event types, in game and seq order."""
    where: list[str] = []
    args: list[Any] = []
    if table is not None:
        where.append("table_id = ?")
        args.append(table)
    if game is not None:
        where.append("game_id = ?")
        args.append(game)
    if types is not None:
        where.append("type IN (" + ", ".join("?" for _ in types) + ")" if types else "1 = 0")
        args.extend(types)
    sql = "SELECT payload FROM events" + (" WHERE " + " AND ".join(where) if where else "")
    return sql + " ORDER BY game_id, seq", args


def event_row(event: dict[str, Any], stored_by: str | None, received_s: float,
              payload: str | None = None) -> tuple[Any, ...]:
    """The ``events`` row of an envelope; ``payload`` is its JSON text (encoded from ``event`` when None)."""
    if payload is None:
        payload = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    return (event["table"], event["id"], event.get("game"), event.get("seq"), event["type"], event.get("ts_s"),
            payload, received_s, stored_by)


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***`` (for logs and JSON lines)."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    creds, _, host = rest.rpartition("@")
    user, colon, _ = creds.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}@{host}"


class SqlEventStore:
    """SQLite or PostgreSQL event store.

    Args:
        url: ``sqlite:///relative.db``, ``sqlite:////abs/path.db``, a plain file path, ``:memory:``, or
            ``postgresql://user[:password]@host:port/db``.
        stored_by: this recorder's name, written beside each event it stores first (several recorders).
        read_only: never migrate (readers such as ``mjtable standings``, whose database user may only SELECT);
            StoreError if the schema is not up to date.
    """

    def __init__(self, url: str, *, stored_by: str | None = None, read_only: bool = False) -> None:
        self.url = url
        self.stored_by = stored_by
        self._lock = threading.Lock()
        self._conn: Any
        self.dialect = "postgresql" if is_postgres_url(url) else "sqlite"
        if self.dialect == "postgresql":
            try:
                import psycopg  # noqa: F401
            except ImportError as exc:
                raise StoreError("PostgreSQL needs psycopg: pip install 'mjtable[postgres]'") from exc
        else:
            if url.startswith("sqlite://") and not url.startswith("sqlite:///"):
                raise StoreError(f"bad sqlite URL {url!r}: use sqlite:///path.db")
            self._path = url.removeprefix("sqlite:///")
            if self._path != ":memory:":
                Path(self._path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = self._connect()
        try:
            self.migrated = migrate(self._conn, self.dialect, read_only=read_only)
        except MigrationError as exc:
            self._conn.close()
            raise StoreError(str(exc)) from exc

    def _connect(self) -> Any:
        if self.dialect == "postgresql":
            import psycopg

            try:
                return psycopg.connect(self.url, autocommit=True, connect_timeout=10)
            except psycopg.Error as exc:
                raise StoreError(f"cannot connect to {redact_url(self.url)}: {exc}") from exc
        conn = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _q(self, sql: str) -> str:
        return sql if self.dialect == "sqlite" else sql.replace("?", "%s")

    def _run(self, work: Callable[[Any], T]) -> T:
        """Run ``work(conn)`` under the lock; on a lost PostgreSQL connection reconnect once and retry (every
        write is idempotent, so a retry after an unknown outcome stores nothing twice)."""
        with self._lock:
            try:
                return work(self._conn)
            except sqlite3.Error as exc:
                raise StoreError(f"sqlite: {exc}") from exc
            except Exception as exc:
                if self.dialect != "postgresql" or not _is_connection_error(exc):
                    raise
                LOGGER.warning("lost PostgreSQL (%s); reconnecting", exc)
                self._conn.close()
                self._conn = self._connect()
                return work(self._conn)

    # -- writes ---------------------------------------------------------------------------------------------
    def add_event(self, event: dict[str, Any]) -> bool:
        row = event_row(event, self.stored_by, time.time())
        return self._run(lambda c: bool(c.execute(self._q(INSERT_EVENT), row).rowcount == 1))

    def add_events(self, events: Sequence[dict[str, Any]], payloads: Sequence[str] | None = None) -> int:
        if not events:
            return 0
        now = time.time()
        if payloads is None:
            rows = [event_row(e, self.stored_by, now) for e in events]
        else:  # the recorder's path: the JSON text as received, not encoded a second time
            rows = [event_row(e, self.stored_by, now, p) for e, p in zip(events, payloads, strict=True)]
        return self._run(lambda c: self._insert_many(c, rows))

    def _insert_many(self, conn: Any, rows: list[tuple[Any, ...]]) -> int:
        if self.dialect == "sqlite":
            conn.execute("BEGIN")
            try:
                cur = conn.executemany(INSERT_EVENT, rows)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return int(cur.rowcount)
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(self._q(INSERT_EVENT), rows)
            return int(cur.rowcount)

    def set_status(self, table: str, status: str, ts_s: float) -> None:
        self._run(lambda c: c.execute(self._q(UPSERT_STATUS), (table, status, ts_s)))

    def add_record(self, record: dict[str, Any]) -> bool:
        row = (record["table"], record["game"], record.get("rules"),
               json.dumps(record, separators=(",", ":"), ensure_ascii=False), time.time())
        return self._run(lambda c: bool(c.execute(self._q(INSERT_RECORD), row).rowcount == 1))

    # -- reads ----------------------------------------------------------------------------------------------
    def records(self) -> list[dict[str, Any]]:
        """Every stored complete game record, by table and game id."""
        rows = self._run(lambda c: c.execute(SELECT_RECORDS).fetchall())
        return [json.loads(r[0]) for r in rows]

    def events(self, table: str | None = None, game: str | None = None,
               types: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Stored envelopes, optionally of one table, one game, some event types; by game and seq."""
        sql, args = events_query(table, game, types)
        rows = self._run(lambda c: c.execute(self._q(sql), args).fetchall())
        return [json.loads(r[0]) for r in rows]

    def count(self) -> int:
        return int(self._run(lambda c: c.execute(COUNT_EVENTS).fetchone()[0]))

    def count_by_recorder(self) -> dict[str | None, int]:
        """Events per ``stored_by`` (which recorder stored each first)."""
        rows: Iterable[Any] = self._run(lambda c: c.execute(COUNT_BY_RECORDER).fetchall())
        return {r[0]: int(r[1]) for r in rows}

    def statuses(self) -> dict[str, str]:
        rows = self._run(lambda c: c.execute(SELECT_STATUSES).fetchall())
        return {str(r[0]): str(r[1]) for r in rows}

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _is_connection_error(exc: Exception) -> bool:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - dialect postgresql implies psycopg
        return False
    return isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)
