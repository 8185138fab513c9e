"""The complete game record of a live-engine game (``mjtable.engine_record/1``): every accepted engine input
event in order, wall faces and concealed information included.

Public topics never carry concealed tiles, so the event stream a recorder sees cannot rebuild a riichi game's
tenhou/mjai export.  The table therefore publishes this record ONCE, at the game end, retained on its
referee-only topic ``mjtable/v1/table/<id>/referee/record`` (``TableChannel.publish_record``); only the
``referee`` and ``recorder`` roles may read it (deploy/mosquitto ACL), so recorder credentials are as secret as a
referee's.  The recorder stores it by ``(table, game)`` and ``mjtable recorder --export DIR`` turns riichi records
into tenhou.net/6 JSON and mjai JSON lines (:mod:`mjtable.recorder.riichi_live`).  A journal file
(``controller.journal``) gives the same record: :func:`record_from_journal`.  Pure; thread-safe.

Document::

    {"schema": "mjtable.engine_record/1", "table": "T1", "game": "T1-1795000000", "rules": "riichi-hkma-2025",
     "players": ["A", "B", "C", "D"], "events": [{"type": "session_start", ...}, {"type": "table_built", ...}, ...]}
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

SCHEMA = "mjtable.engine_record/1"
MAX_RECORD_BYTES = 16 * 1024 * 1024  # a long session with camera observations stays far below


class RecordError(ValueError):
    """Not a usable engine record."""


def engine_record(events: Sequence[dict[str, Any]], *, table: str, game: str) -> dict[str, Any]:
    """The record of ``events`` (accepted engine input events, ``session_start`` first)."""
    first = events[0] if events else {}
    doc = {"schema": SCHEMA, "table": table, "game": game, "rules": str(first.get("rules", "")),
           "players": [str(p) for p in first.get("players", [])], "events": list(events)}
    return check_record(doc)


def check_record(doc: Any) -> dict[str, Any]:
    """Return ``doc`` if it is an engine record (JSON Schema ``mjtable/schemas/engine_record.json``), else raise
    :class:`RecordError` naming the problem."""
    from mjtable import schemas

    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise RecordError(f"not an {SCHEMA} document")
    try:
        schemas.validate("engine_record", doc)
    except schemas.PayloadError as exc:
        raise RecordError(str(exc)) from exc
    return doc


def record_from_journal(path: Path, *, table: str | None = None, game: str | None = None) -> dict[str, Any]:
    """The record of an engine journal (accepted events only; a torn last line is ignored)."""
    from controller.journal import read_records

    records, _ = read_records(path)
    events = [r.event for r in records if r.rec == "event"]
    if not events:
        raise RecordError(f"{path}: no journaled events")
    tid = table or str(events[0].get("table_id") or path.stem)
    return engine_record(events, table=tid, game=game or f"{tid}-{path.stem}")
