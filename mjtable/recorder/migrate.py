"""Schema migrations of the record store: versioned SQL files in ``mjtable/recorder/migrations``.

Each file is ``NNNN_name.sql`` (portable SQL: the same text runs on SQLite and PostgreSQL, statements end with
``;``).  The table ``schema_migrations`` holds the versions applied.  :func:`migrate` applies the missing ones in
order, each with its own row, inside one transaction that also holds a lock, so two recorders starting at the
same moment on one PostgreSQL neither race nor apply a file twice (PostgreSQL: a transaction-scoped advisory
lock; SQLite: ``BEGIN IMMEDIATE``).  A database that has a version this code does not know is refused: it was
written by a newer mjtable.  Blocking; call it from the thread that owns the connection.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any

#: advisory lock key of the migration step (PostgreSQL), any constant that no other code uses
PG_LOCK_KEY = 20_2611_25
_NAME_RE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


class MigrationError(RuntimeError):
    """A migration failed, or the database is newer than this code."""


@dataclass(frozen=True, slots=True)
class Migration:
    """One versioned SQL file."""

    version: int
    name: str
    statements: tuple[str, ...]


def split_statements(sql: str) -> tuple[str, ...]:
    """The statements of a migration file: ``--`` comment lines dropped, split at ``;`` (no ``;`` in literals)."""
    body = "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith("--"))
    return tuple(s.strip() for s in body.split(";") if s.strip())


def migrations() -> list[Migration]:
    """Every migration shipped with this package, by version."""
    found = []
    for entry in resources.files("mjtable.recorder").joinpath("migrations").iterdir():
        m = _NAME_RE.match(entry.name)
        if m is None:
            continue
        found.append(Migration(int(m.group(1)), m.group(2), split_statements(entry.read_text(encoding="utf-8"))))
    found.sort(key=lambda mig: mig.version)
    versions = [mig.version for mig in found]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"two migration files share a version: {versions}")
    return found


_CREATE = ("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
           "applied_s DOUBLE PRECISION NOT NULL)")


def applied_versions(conn: Any) -> set[int] | None:
    """The versions in ``schema_migrations`` (None when the table does not exist or cannot be read)."""
    try:
        return {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations").fetchall()}
    except Exception:
        return None


def migrate(conn: Any, dialect: str, *, read_only: bool = False) -> list[int]:
    """Bring the schema up to date; returns the versions applied now (empty when it already was).

    A database that is already up to date is only read (no DDL, no lock), so a reader whose user may only
    ``SELECT`` can open it.  ``read_only``: never change the schema; MigrationError if it is not up to date.

    Args:
        conn: an open ``sqlite3`` connection (autocommit, ``isolation_level=None``) or a ``psycopg`` connection
            (autocommit).
        dialect: ``"sqlite"`` or ``"postgresql"``.
    """
    ph = "?" if dialect == "sqlite" else "%s"
    wanted = migrations()
    have = applied_versions(conn)
    if have is not None:
        unknown = have - {m.version for m in wanted}
        if unknown:
            raise MigrationError(f"the database has schema version(s) {sorted(unknown)} that this mjtable does not "
                                 "know: it was written by a newer version; upgrade mjtable")
        if have >= {m.version for m in wanted}:
            return []
    if read_only:
        raise MigrationError(f"the database schema is not up to date (has {sorted(have or [])}, needs "
                             f"{[m.version for m in wanted]}): run the recorder once to migrate it")
    if dialect == "sqlite":
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = _apply(conn, ph, wanted)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return done
    with conn.transaction():
        conn.execute(f"SELECT pg_advisory_xact_lock({PG_LOCK_KEY})")
        return _apply(conn, ph, wanted)


def _apply(conn: Any, ph: str, wanted: list[Migration]) -> list[int]:
    conn.execute(_CREATE)
    have = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations").fetchall()}
    unknown = have - {m.version for m in wanted}
    if unknown:
        raise MigrationError(f"the database has schema version(s) {sorted(unknown)} that this mjtable does not "
                             "know: it was written by a newer version; upgrade mjtable")
    done = []
    for mig in wanted:
        if mig.version in have:
            continue
        for stmt in mig.statements:
            try:
                conn.execute(stmt)
            except Exception as exc:
                raise MigrationError(f"migration {mig.version:04d}_{mig.name} failed at {stmt[:60]!r}: {exc}") \
                    from exc
        conn.execute(f"INSERT INTO schema_migrations (version, name, applied_s) VALUES ({ph}, {ph}, {ph})",
                     (mig.version, mig.name, time.time()))
        done.append(mig.version)
    return done


def schema_version(conn: Any) -> int:
    """The highest applied version (0 for a database without the migration table)."""
    try:
        row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    except Exception:
        return 0
    return int(row[0] or 0)
