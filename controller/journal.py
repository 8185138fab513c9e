"""The crash-proof journal: every accepted event appended and fsynced to JSONL, with a SQLite index.

File format (one JSON object per line, UTF-8)::

    {"event":{...event JSON...},"n":17,"rec":"event","crc":"1c291ca3"}
    {"event":{...},"message":"...","n":17,"reason":"out_of_turn","rec":"rejection","crc":"0a6e33f1"}

``crc`` is the CRC-32 (8 lowercase hex digits) of the line's bytes without it: the line with
``,"crc":"XXXXXXXX"`` removed (see :func:`encode_line`).  Journals written before checksums (no ``crc`` on the
first lines) are still read; once a line carries a checksum every later line must carry one.

``n`` is the engine's ``seq`` after an accepted event (the first line, ``session_start``, is 1); a rejection
carries the ``seq`` it was rejected at.  ``state = fold(events)``: :func:`fold` replays the accepted events
through :func:`controller.engine.step.step`.  Only the LAST line may be bad (cut short by a crash: no trailing
newline, bad JSON or a wrong checksum): it is copied to ``<journal>.torn-<offset>`` and the file is truncated back to
the last good line when the journal is opened for writing.  A bad line anywhere else, or an accepted event id that
appears twice, raises :class:`JournalCorruptError` naming the line: nothing is cut, and ``mjtable journal
check|repair`` (:mod:`controller.journal_tool`) lets an operator keep every good record.

The SQLite index (``<journal>.idx.sqlite``) maps event ids to line offsets so duplicates are refused across
the whole session and a record can be found without reading the file; it is rebuilt from the JSONL when it
does not match or is not a database (the JSONL is the source of truth).  Called from one thread (the shell's
loop or a CLI).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.engine.effects import Effect, Rejected
from controller.engine.events import Event, SessionStart, event_from_json
from controller.engine.state import GameState
from controller.engine.step import start_session, step

LOGGER = logging.getLogger(__name__)


class JournalError(RuntimeError):
    """The journal cannot be used (not a journal, wrong first record, an event the engine now rejects)."""


@dataclass(frozen=True, slots=True)
class Record:
    rec: str
    n: int
    event: dict[str, Any]
    reason: str | None = None
    message: str | None = None


class JournalCorruptError(JournalError):
    """A bad line that is not the last one (or a duplicated event): ``line`` is 1-based."""

    def __init__(self, path: Path, line: int, problem: str, detail: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        super().__init__(f"{path} line {line}: {detail}; nothing was cut: run 'mjtable journal check {path}' "
                         f"and 'mjtable journal repair {path}' to keep every good record")


_CRC_SUFFIX = re.compile(rb',"crc":"([0-9a-f]{8})"}$')


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a journal as found on disk: ``no`` is 1-based, ``start``/``end`` are byte offsets (``end``
    after the newline).  ``record`` is None and ``problem`` says why when the line is bad."""

    no: int
    start: int
    end: int
    raw: bytes
    record: Record | None
    checksummed: bool
    problem: str | None = None
    detail: str | None = None


def encode_line(record: Record) -> bytes:
    """The journal line of ``record`` (without the newline): canonical JSON with its CRC-32 appended."""
    body = _line(record).encode()
    return body[:-1] + b',"crc":"%08x"}' % zlib.crc32(body)


def parse_line(no: int, start: int, raw: bytes, *, need_crc: bool) -> Line:
    """Check and decode one line (``raw`` without its newline)."""
    end = start + len(raw) + 1
    match = _CRC_SUFFIX.search(raw)
    if match is not None:
        body = raw[:match.start()] + b"}"
        if zlib.crc32(body) != int(match.group(1), 16):
            return Line(no, start, end, raw, None, True, "checksum", "checksum mismatch (the line was altered)")
    elif need_crc:
        return Line(no, start, end, raw, None, False, "checksum", "no checksum after checksummed lines")
    try:
        obj = json.loads(raw)
        rec = Record(str(obj["rec"]), int(obj["n"]), dict(obj["event"]), obj.get("reason"), obj.get("message"))
        if rec.rec not in ("event", "rejection"):
            raise ValueError(f"unknown record kind {rec.rec!r}")
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        return Line(no, start, end, raw, None, match is not None, "json", f"not a journal record ({exc})")
    return Line(no, start, end, raw, rec, match is not None)


def scan_lines(data: bytes) -> list[Line]:
    """Every line of a journal's bytes, checked (checksum, JSON, duplicate accepted event ids); a trailing
    piece without a newline is returned as a bad last line (problem ``torn``)."""
    lines: list[Line] = []
    seen: dict[str, int] = {}
    need_crc = False
    pos = 0
    no = 0
    while pos < len(data):
        no += 1
        nl = data.find(b"\n", pos)
        if nl < 0:
            lines.append(Line(no, pos, len(data), data[pos:], None, False, "torn", "no newline (cut short)"))
            break
        line = parse_line(no, pos, data[pos:nl], need_crc=need_crc)
        need_crc = need_crc or line.checksummed
        rec = line.record
        if rec is not None and rec.rec == "event":
            event_id = str(rec.event.get("id"))
            if event_id in seen:
                line = Line(line.no, line.start, line.end, line.raw, None, line.checksummed, "duplicate",
                            f"duplicate of line {seen[event_id]} (accepted event {event_id!r} twice)")
            else:
                seen[event_id] = no
        lines.append(line)
        pos = nl + 1
    return lines


def read_records(path: Path) -> tuple[list[Record], int]:
    """All records and the byte length of the good prefix (a bad LAST line is left out).

    Raises :class:`JournalCorruptError` for a bad line that is not the last one."""
    if not path.exists():
        return [], 0
    lines = scan_lines(path.read_bytes())
    for line in lines[:-1]:
        if line.record is None:
            raise JournalCorruptError(path, line.no, str(line.problem), str(line.detail))
    if lines and lines[-1].record is None:
        lines = lines[:-1]
    return [line.record for line in lines if line.record is not None], (lines[-1].end if lines else 0)


class Journal:
    """Append-only JSONL journal + SQLite index for one table session."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        records, good = read_records(self.path)
        if self.path.exists() and self.path.stat().st_size != good:
            self._set_aside_tail(good)
        self.records = records
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._offset = good
        self._db = self._open_index()
        if not self._index_matches(records):
            self._reindex(records)

    def _set_aside_tail(self, good: int) -> None:
        """Copy the bad last line (torn by a crash) to ``<journal>.torn-<offset>``, then cut it off."""
        with self.path.open("r+b") as f:
            f.seek(good)
            tail = f.read()
            aside = self.path.with_name(f"{self.path.name}.torn-{good}")
            with aside.open("wb") as out:
                out.write(tail)
                out.flush()
                os.fsync(out.fileno())
            f.truncate(good)
            f.flush()
            os.fsync(f.fileno())
        LOGGER.warning("journal %s: a torn last line (%d bytes) was set aside in %s", self.path, len(tail), aside)

    def _open_index(self) -> sqlite3.Connection:
        """Open (or, when it is not a usable database, recreate) the SQLite index."""
        idx = Path(str(self.path) + ".idx.sqlite")
        for attempt in (1, 2):
            db = sqlite3.connect(str(idx))
            try:
                db.execute("CREATE TABLE IF NOT EXISTS records (line INTEGER PRIMARY KEY, rec TEXT NOT NULL, "
                           "n INTEGER NOT NULL, id TEXT, type TEXT, at_s REAL, offset INTEGER NOT NULL)")
                db.execute("CREATE UNIQUE INDEX IF NOT EXISTS accepted_ids ON records(id) WHERE rec = 'event'")
                db.execute("SELECT COUNT(*) FROM records").fetchone()
                return db
            except sqlite3.DatabaseError as exc:
                db.close()
                if attempt == 2:
                    raise JournalError(f"{idx}: cannot rebuild the journal index: {exc}") from exc
                LOGGER.warning("journal index %s is unusable (%s): rebuilding it from the journal", idx, exc)
                for suffix in ("", "-wal", "-shm", "-journal"):
                    Path(str(idx) + suffix).unlink(missing_ok=True)
        raise AssertionError("unreachable")

    def _index_matches(self, records: list[Record]) -> bool:
        """The index has one row per record and its last row is the last record."""
        (count,) = self._db.execute("SELECT COUNT(*) FROM records").fetchone()
        if count != len(records):
            return False
        if not records:
            return True
        row = self._db.execute("SELECT rec, n, id FROM records WHERE line = ?", (len(records) - 1,)).fetchone()
        last = records[-1]
        return row is not None and tuple(row) == (last.rec, last.n, last.event.get("id"))

    def _reindex(self, records: list[Record]) -> None:
        self._db.execute("DELETE FROM records")
        offset = 0
        for i, r in enumerate(records):
            self._db.execute("INSERT INTO records VALUES (?,?,?,?,?,?,?)",
                             (i, r.rec, r.n, r.event.get("id"), r.event.get("type"), r.event.get("at_s"), offset))
            offset += len(encode_line(r)) + 1
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
        data = encode_line(record) + b"\n"
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


def replay(events: Iterable[Event]) -> Iterator[tuple[Event, GameState | None, GameState]]:
    """Step accepted events as the table stepped them (the first must be ``session_start``): each event with the
    state before it (None for the ``session_start``) and after it.  JournalError when the journal does not start
    with a session or an event is rejected on replay."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, SessionStart):
        raise JournalError("a journal starts with a session_start event")
    state, _ = start_session(first)
    yield first, None, state
    for ev in it:
        new, fx = step(state, ev)
        if fx and isinstance(fx[0], Rejected):
            raise JournalError(f"journaled event {ev.id} is rejected on replay: {fx[0].reason}")
        yield ev, state, new
        state = new


def fold(events: Iterable[Event], on_step: Callable[[GameState], None] | None = None) -> GameState:
    """Rebuild the state from accepted events (:func:`replay`); ``on_step``, if given, sees every state on the way
    (the first one after ``session_start``), e.g. to note who sat where in each hand."""
    state: GameState | None = None
    for _, _, state in replay(events):
        if on_step is not None:
            on_step(state)
    assert state is not None  # replay yields the session_start's state or raises
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
