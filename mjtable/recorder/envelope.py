"""A fast, exact check of the ``mjtable.event/1`` envelope (``mjtable/schemas/event.json``).

The recorder checks every event it stores; the general JSON Schema validator costs ~120 µs per envelope, more
than everything else a recorder does for an event, and so set the recorder's ceiling.  :func:`is_event_envelope`
accepts exactly what the schema accepts (draft 2020-12 semantics: an integral float is an ``integer``, a
boolean is not a number, ``pattern`` is a regex *search*, lengths count code points) in ~3 µs;
``tests/recorder/test_envelope.py`` checks that against the schema validator on generated documents.  A
document it refuses goes through :func:`mjtable.schemas.validate` for the precise error.  Pure; thread-safe.
"""

from __future__ import annotations

import re
from typing import Any

from mjtable import schemas

_KEYS = frozenset({"schema", "table", "id", "seq", "ts_s", "type", "data", "game"})
_REQUIRED = frozenset({"schema", "table", "id", "seq", "ts_s", "type", "data"})
_TABLE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,47}$")


def _is_integer(x: Any) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer())


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def is_event_envelope(doc: Any) -> bool:
    """True iff ``doc`` matches ``mjtable.event/1``."""
    if not isinstance(doc, dict):
        return False
    keys = doc.keys()
    if not (_REQUIRED <= keys <= _KEYS):
        return False
    table, id_, type_, seq, game = doc["table"], doc["id"], doc["type"], doc["seq"], doc.get("game")
    return (doc["schema"] == "mjtable.event/1" and isinstance(doc["schema"], str)
            and isinstance(table, str) and _TABLE.search(table) is not None
            and isinstance(id_, str) and 1 <= len(id_) <= 128
            and _is_integer(seq) and seq >= 0
            and _is_number(doc["ts_s"])
            and isinstance(type_, str) and _TYPE.search(type_) is not None
            and isinstance(doc["data"], dict)
            and (game is None or (isinstance(game, str) and len(game) <= 128)))


def check_event(doc: Any) -> None:
    """Raise :class:`mjtable.schemas.PayloadError` (the schema validator's message) unless ``doc`` is an event
    envelope."""
    if not is_event_envelope(doc):
        schemas.validate("event", doc)
        raise schemas.PayloadError("mjtable.event/1: not an event envelope")  # pragma: no cover - validate raised
