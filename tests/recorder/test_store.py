"""The record store on SQLite and on a real PostgreSQL server: one behaviour, one SQL text, migrations."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest

from mjtable.recorder.migrate import migrations, split_statements
from mjtable.recorder.store import SqlEventStore, StoreError, redact_url
from mjtable.recorder.writer import BatchWriter, Inbound


def _ev(i: int, table: str = "T1", game: str = "g1", type_: str = "discard") -> dict[str, Any]:
    return {"schema": "mjtable.event/1", "table": table, "game": game, "id": f"{game}:{i}", "seq": i,
            "ts_s": 1000.0 + i, "type": type_, "data": {"seat": i % 4, "tile": "5p"}}


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'records.db'}"
    return str(request.getfixturevalue("postgres_url"))


def test_same_behaviour_on_both_stores(store_url: str) -> None:
    store = SqlEventStore(store_url, stored_by="rec-a")
    try:
        assert store.migrated == [m.version for m in migrations()] == [1, 2]
        events = [_ev(i) for i in range(1, 301)]
        assert store.add_events(events[:200]) == 200
        assert store.add_events(events) == 100  # the first 200 are duplicates: nothing stored twice
        assert store.add_events([events[0], events[0], _ev(301)]) == 1  # duplicates inside one batch too
        assert store.add_events([]) == 0
        assert store.add_event(events[5]) is False and store.add_event(_ev(302)) is True
        assert store.count() == 302
        assert [e["seq"] for e in store.events(table="T1", game="g1")] == list(range(1, 303))
        assert store.events()[0] == events[0]  # the envelope round-trips unchanged
        store.add_events([_ev(1, game="g2", type_="hand_result"), _ev(2, table="T2", game="g3", type_="game_end")])
        assert [e["type"] for e in store.events(types=["hand_result", "game_end"])] == ["hand_result", "game_end"]
        assert store.events(types=[]) == [] and store.events(table="T9") == []
        store.set_status("T1", "online", 1.0)
        store.set_status("T1", "offline", 2.0)
        store.set_status("T2", "online", 2.0)
        assert store.statuses() == {"T1": "offline", "T2": "online"}
        record = {"schema": "mjtable.engine_record/1", "table": "T1", "game": "g1", "rules": "mcr-2006",
                  "events": [{"type": "session_start"}]}
        assert store.add_record(record) is True and store.add_record(record) is False
        assert store.records() == [record]
        assert store.count_by_recorder() == {"rec-a": 304}
    finally:
        store.close()
    again = SqlEventStore(store_url)  # reopening applies no migration and keeps everything
    try:
        assert again.migrated == [] and again.count() == 304
    finally:
        again.close()


def test_a_database_from_before_migrations_is_adopted(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE events (table_id TEXT NOT NULL, event_id TEXT NOT NULL, game_id TEXT, seq BIGINT, "
                "type TEXT NOT NULL, ts_s DOUBLE PRECISION, payload TEXT NOT NULL, received_s DOUBLE PRECISION, "
                "PRIMARY KEY (table_id, event_id))")
    old.execute("INSERT INTO events VALUES ('T1', 'g:1', 'g', 1, 'discard', 1.0, '{\"id\": \"g:1\"}', 2.0)")
    old.commit()
    old.close()
    store = SqlEventStore(str(path), stored_by="new")
    try:
        assert store.migrated == [1, 2]
        assert store.count() == 1 and store.count_by_recorder() == {None: 1}
        assert store.add_event(_ev(2, game="g")) and store.count_by_recorder() == {None: 1, "new": 1}
    finally:
        store.close()


def test_a_database_from_a_newer_version_is_refused(store_url: str) -> None:
    SqlEventStore(store_url).close()
    if store_url.startswith("sqlite"):
        conn: Any = sqlite3.connect(store_url.removeprefix("sqlite:///"), isolation_level=None)
        conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', 0)")
    else:
        conn = psycopg.connect(store_url, autocommit=True)
        conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', 0)")
    conn.close()
    with pytest.raises(StoreError, match=r"\[999\].*newer"):
        SqlEventStore(store_url)


def test_recorders_starting_together_migrate_once(postgres_url: str) -> None:
    stores: list[SqlEventStore] = []
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def open_store() -> None:
        start.wait()
        try:
            stores.append(SqlEventStore(postgres_url))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        assert sorted(v for s in stores for v in s.migrated) == [1, 2]  # one store applied them, once
        with psycopg.connect(postgres_url) as conn:
            assert conn.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall() == [(1,), (2,)]
    finally:
        for s in stores:
            s.close()


def test_postgres_store_reconnects_after_losing_its_connection(postgres_url: str) -> None:
    store = SqlEventStore(postgres_url)
    try:
        assert store.add_event(_ev(1))
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        assert store.add_events([_ev(1), _ev(2)]) == 1
        assert store.count() == 2
    finally:
        store.close()


def test_bad_urls_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"sqlite:///path\.db"):
        SqlEventStore("sqlite://relative.db")
    with pytest.raises(StoreError, match=r"cannot connect to postgresql://mjt:\*\*\*@127.0.0.1:1/x"):
        SqlEventStore("postgresql://mjt:secret@127.0.0.1:1/x")
    assert redact_url("postgresql://u:pw@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert redact_url("postgresql://u@h/db") == "postgresql://u@h/db"
    assert redact_url("sqlite:///a.db") == "sqlite:///a.db"


def test_migration_files_split_into_statements() -> None:
    assert split_statements("-- note; with a semicolon\nCREATE TABLE a (x INT);\n\nCREATE INDEX i ON a (x);\n") == (
        "CREATE TABLE a (x INT)", "CREATE INDEX i ON a (x)")
    for mig in migrations():
        assert mig.statements and all(";" not in s for s in mig.statements)


class _FlakySink:
    """A recorder stand-in whose database fails the first ``failures`` commits."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.committed: list[dict[str, Any]] = []
        self.acked: list[int] = []

    def collect(self, messages: Any) -> list[dict[str, Any]]:
        return [{"mid": m.mid} for m in messages]

    def commit(self, events: Any) -> None:
        if self.failures:
            self.failures -= 1
            raise StoreError("database is down")
        self.committed += list(events)

    def ack(self, mid: int, qos: int) -> None:
        assert any(e["mid"] == mid for e in self.committed), "acknowledged before it was stored"
        self.acked.append(mid)


def test_writer_acknowledges_only_what_is_stored_and_retries_a_failed_batch() -> None:
    sink = _FlakySink(failures=2)
    writer = BatchWriter(sink, sink.ack, max_batch=50, retry_s=0.01)
    for mid in range(1, 121):
        writer.put(Inbound("t", b"", mid, 1))
    writer.start()
    deadline = time.monotonic() + 30
    while len(sink.acked) < 120 and time.monotonic() < deadline:
        time.sleep(0.01)
    writer.stop()
    assert writer.failures == 2
    assert sink.acked == list(range(1, 121))  # every message, once, in arrival order, each after its commit
    assert [e["mid"] for e in sink.committed] == list(range(1, 121))


class _CollectFailsSink(_FlakySink):
    """``collect`` writes status and records at once: its database can fail too (the first ``failures`` calls)."""

    def __init__(self, failures: int) -> None:
        super().__init__(0)
        self.collect_failures = failures

    def collect(self, messages: Any) -> list[dict[str, Any]]:
        if self.collect_failures:
            self.collect_failures -= 1
            raise StoreError("database is down")
        return super().collect(messages)


def test_writer_retries_a_batch_whose_status_or_record_write_failed() -> None:
    sink = _CollectFailsSink(failures=2)
    writer = BatchWriter(sink, sink.ack, max_batch=50, retry_s=0.01)
    for mid in range(1, 31):
        writer.put(Inbound("t", b"", mid, 1))
    writer.start()
    deadline = time.monotonic() + 30
    while len(sink.acked) < 30 and time.monotonic() < deadline:
        time.sleep(0.01)
    writer.stop()
    assert writer.failures == 2  # the writer thread lived through both failures
    assert sink.acked == list(range(1, 31))


def test_writer_stopped_while_the_database_is_down_acknowledges_nothing() -> None:
    sink = _FlakySink(failures=10**6)
    writer = BatchWriter(sink, sink.ack, max_batch=50, retry_s=0.01).start()
    for mid in range(1, 11):
        writer.put(Inbound("t", b"", mid, 1))
    deadline = time.monotonic() + 30
    while writer.failures < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    writer.stop()
    assert writer.failures >= 3 and sink.acked == [] and sink.committed == []


def test_the_test_cluster_runs_unprivileged_on_loopback(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        data_dir = conn.execute("SHOW data_directory").fetchone()
        listen = conn.execute("SHOW listen_addresses").fetchone()
    # initdb and the server never run as root, even when the tests do
    assert listen is not None and listen[0] == "127.0.0.1"
    assert data_dir is not None and Path(data_dir[0]).stat().st_uid != 0


def test_a_select_only_reader_opens_a_migrated_database(postgres_url: str) -> None:
    with pytest.raises(StoreError, match="not up to date"):
        SqlEventStore(postgres_url, read_only=True)  # nothing migrated yet: a reader does not create tables
    writer = SqlEventStore(postgres_url)
    writer.add_event(_ev(1))
    writer.close()
    role = f"organiser_{uuid.uuid4().hex[:8]}"  # roles are cluster-wide: one of its own per test
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    reader_url = postgres_url.replace("postgresql://mjt@", f"postgresql://{role}@")
    reader = SqlEventStore(reader_url, read_only=True)
    try:
        assert reader.migrated == [] and [e["id"] for e in reader.events()] == ["g1:1"]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            reader.add_event(_ev(2))
    finally:
        reader.close()
    again = SqlEventStore(reader_url)  # up to date: even a writer's open only reads the versions
    assert again.migrated == []
    again.close()


def test_an_event_the_database_cannot_hold_is_set_aside_not_retried_forever(store_url: str) -> None:
    """Valid JSON and a valid envelope, yet not storable: a lone UTF-16 surrogate (``\\ud800``, JSON allows the
    escape; UTF-8 cannot encode it) or a NUL in an id (PostgreSQL text refuses it).  Such an event must go to the
    rejected log with the batch's good events stored; before, the whole batch's commit raised and the writer
    retried it for ever (nothing after it was stored or acknowledged)."""
    from mjtable.recorder.recorder import Recorder
    from mjtable.recorder.rejected import RejectedLog

    store = SqlEventStore(store_url, stored_by="t")
    rejected = RejectedLog(None)
    rec = Recorder(store, "127.0.0.1", 1, rejected=rejected)  # never started: the writer's calls, in order
    topic = "mjtable/v1/table/T1/events"
    good = json.dumps(_ev(1)).encode()
    surrogate = good.replace(b'"5p"', b'"\\ud800"').replace(b'g1:1', b'g1:2')
    nul_id = good.replace(b'g1:1', b'g1:\\u0000')
    batch = [Inbound(topic, p, mid, 1) for mid, p in enumerate((surrogate, good, nul_id), start=1)]
    rec.commit(rec.collect(batch))
    assert [e["id"] for e in store.events()] == ["g1:1"]
    assert rec.stored == 1 and rec.rejected == 2 and rejected.count == 2
    assert all("cannot be stored" in e["reason"] for e in rejected.entries())
    store.close()
