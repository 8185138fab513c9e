"""The crash-proof journal: every accepted event appended and fsynced to JSONL, with a SQLite index.

File format (one JSON object per line, UTF-8)::

    {"rec": "event", "n": 17, "event": {...event JSON...}}
    {"rec": "rejection", "n": 17, "event": {...}, "reason": "out_of_turn", "message": "..."}

``n`` is the engine's ``seq`` after an accepted event (the first line, ``session_start``, is 1); a rejection
carries the ``seq`` it was rejected at.  ``state = fold(events)``: :func:`fold` replays the accepted events
through :func:`controller.engine.step.step`.  A line cut short by a crash (no trailing newline or bad JSON at
the end) is dropped when the journal is reopened, and the file is truncated back to the last whole line.

The SQLite index (``<journal>.idx.sqlite``) maps event ids to line offsets so duplicates are refused across
the whole session and a record can be found without reading the file; it is rebuilt from the JSONL when it
does not match (the JSONL is the source of truth).  Called from one thread (the shell's loop or a CLI).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.engine.effects import Effect, Rejected
from controller.engine.events import Event, SessionStart, event_from_json
from controller.engine.state import GameState
from controller.engine.step import start_session, step


class JournalError(RuntimeError):
    """The journal cannot be used (not a journal, wrong first record, an event the engine now rejects)."""


@dataclass(frozen=True, slots=True)
class Record:
    rec: str
    n: int
    event: dict[str, Any]
    reason: str | None = None
    message: str | None = None


def read_records(path: Path) -> tuple[list[Record], int]:
    """All whole records and the byte length of the valid prefix (a torn last line is left out)."""
    records: list[Record] = []
    good = 0
    if not path.exists():
        return records, 0
    with path.open("rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break
        line = data[pos:end]
        try:
            obj = json.loads(line)
            records.append(Record(obj["rec"], int(obj["n"]), obj["event"], obj.get("reason"), obj.get("message")))
        except (ValueError, KeyError, TypeError):
            break
        pos = end + 1
        good = pos
    return records, good


class Journal:
    """Append-only JSONL journal + SQLite index for one table session."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        records, good = read_records(self.path)
        if self.path.exists() and self.path.stat().st_size != good:
            with self.path.open("r+b") as f:
                f.truncate(good)
                f.flush()
                os.fsync(f.fileno())
        self.records = records
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._offset = good
        self._db = sqlite3.connect(str(self.path) + ".idx.sqlite")
        self._db.execute("CREATE TABLE IF NOT EXISTS records (line INTEGER PRIMARY KEY, rec TEXT NOT NULL, "
                         "n INTEGER NOT NULL, id TEXT, type TEXT, at_s REAL, offset INTEGER NOT NULL)")
        self._db.execute("CREATE UNIQUE INDEX IF NOT EXISTS accepted_ids ON records(id) WHERE rec = 'event'")
        (count,) = self._db.execute("SELECT COUNT(*) FROM records").fetchone()
        if count != len(records):
            self._reindex(records)

    def _reindex(self, records: list[Record]) -> None:
        self._db.execute("DELETE FROM records")
        offset = 0
        for i, r in enumerate(records):
            self._db.execute("INSERT INTO records VALUES (?,?,?,?,?,?,?)",
                             (i, r.rec, r.n, r.event.get("id"), r.event.get("type"), r.event.get("at_s"), offset))
            offset += len(_line(r)) + 1
        self._db.commit()

    def close(self) -> None:
        os.close(self._fd)
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def has_id(self, event_id: str) -> bool:
        """True if an event with this id was accepted (any time in the session)."""
        row = self._db.execute("SELECT 1 FROM records WHERE rec = 'event' AND id = ?", (event_id,)).fetchone()
        return row is not None

    def append(self, record: Record) -> None:
        """Write one record and fsync it before returning (then index it)."""
        data = (_line(record) + "\n").encode()
        os.write(self._fd, data)
        os.fsync(self._fd)
        self._db.execute("INSERT INTO records VALUES (?,?,?,?,?,?,?)",
                         (len(self.records), record.rec, record.n, record.event.get("id"), record.event.get("type"),
                          record.event.get("at_s"), self._offset))
        self._db.commit()
        self._offset += len(data)
        self.records.append(record)

    def events(self) -> Iterator[Event]:
        for r in self.records:
            if r.rec == "event":
                yield event_from_json(r.event)

    def rejections(self) -> list[Record]:
        return [r for r in self.records if r.rec == "rejection"]


def _line(r: Record) -> str:
    obj: dict[str, Any] = {"rec": r.rec, "n": r.n, "event": r.event}
    if r.reason is not None:
        obj["reason"] = r.reason
        obj["message"] = r.message
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def fold(events: Iterator[Event] | list[Event]) -> GameState:
    """Rebuild the state from accepted events (the first must be ``session_start``)."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, SessionStart):
        raise JournalError("a journal starts with a session_start event")
    state, _ = start_session(first)
    for ev in it:
        new, fx = step(state, ev)
        if fx and isinstance(fx[0], Rejected):
            raise JournalError(f"journaled event {ev.id} is rejected on replay: {fx[0].reason}")
        state = new
    return state


class JournaledTable:
    """The engine plus its journal: ``submit`` steps an event and fsyncs it BEFORE returning the effects.

    Open an existing journal to resume: the state is folded from it.  ``start`` (a ``SessionStart``) is used
    only when the journal is new.  Not thread-safe: call from one thread or loop.
    """

    def __init__(self, path: str | os.PathLike[str], start: SessionStart | None = None) -> None:
        self.journal = Journal(path)
        self.resumed = bool(self.journal.records)
        self.startup_effects: tuple[Effect, ...] = ()
        if self.resumed:
            self.state = fold(list(self.journal.events()))
        else:
            if start is None:
                raise JournalError(f"{path} is empty and no session_start was given")
            self.state, self.startup_effects = start_session(start)
            self.journal.append(Record("event", self.state.seq, start.to_json()))

    def submit(self, event: Event) -> tuple[Effect, ...]:
        """Step one event; accepted events and rejections are both journaled (fsynced) before returning."""
        if self.journal.has_id(event.id):
            rej = Rejected(event_id=event.id, reason="duplicate_id", message=f"event id {event.id!r} already applied")
            self.journal.append(Record("rejection", self.state.seq, event.to_json(), rej.reason, rej.message))
            return (rej,)
        new, fx = step(self.state, event)
        if fx and isinstance(fx[0], Rejected):
            self.journal.append(Record("rejection", self.state.seq, event.to_json(), fx[0].reason, fx[0].message))
            return fx
        self.journal.append(Record("event", new.seq, event.to_json()))
        self.state = new
        return fx

    def close(self) -> None:
        self.journal.close()
