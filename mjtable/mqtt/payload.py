"""Bounded JSON decoding for every payload that comes from outside (commands, events, records, acks).

``loads_bounded(payload, max_bytes=..., max_depth=...)`` checks the size, then the nesting depth with a linear
scan of the bytes (brackets outside strings), and only then calls ``json.loads``: a 4 KB ``[[[[...`` can never
reach the recursive parser or the schema validator.  Raises :class:`mjtable.schemas.PayloadError` with a
readable reason.  Pure; thread-safe.
"""

from __future__ import annotations

import json
from typing import Any

from mjtable.schemas import PayloadError

#: deepest nesting any mjtable document uses is about 8 (a hand result inside an event); leave room
MAX_DEPTH = 32


def json_depth(payload: bytes) -> int:
    """The deepest nesting of ``[``/``{`` in a JSON text (brackets inside strings do not count)."""
    if payload.count(b"[") + payload.count(b"{") <= 1:
        return payload.count(b"[") + payload.count(b"{")
    depth = deepest = 0
    in_string = escaped = False
    for byte in payload:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def loads_bounded(payload: bytes, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """Decode one UTF-8 JSON payload no larger than ``max_bytes`` and no deeper than ``max_depth``."""
    return loads_bounded_text(payload, max_bytes=max_bytes, max_depth=max_depth)[0]


def loads_bounded_text(payload: bytes, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> tuple[Any, str]:
    """:func:`loads_bounded`, and the payload's text (valid UTF-8 JSON: the recorder stores it as received,
    without encoding the document again)."""
    if len(payload) > max_bytes:
        raise PayloadError(f"payload of {len(payload)} bytes exceeds the {max_bytes}-byte limit")
    if payload.count(b"[") + payload.count(b"{") > max_depth and json_depth(payload) > max_depth:
        raise PayloadError(f"JSON nested deeper than {max_depth} levels")
    try:
        text = payload.decode("utf-8")
        return json.loads(text), text
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise PayloadError(f"not UTF-8 JSON: {exc}") from exc


def unstorable(doc: Any, text: str, columns: tuple[str, ...] = ()) -> str | None:
    """Why a valid JSON document cannot be stored in a database's text columns, or None when it can.

    JSON may escape a lone UTF-16 surrogate (``\\ud800``), which no UTF-8 text (SQLite, PostgreSQL) can hold once
    decoded, and a NUL (``\\u0000``), which PostgreSQL text refuses: in the payload text, kept as received, the
    escapes are harmless, but a document with a lone surrogate cannot be encoded again (exports), and a NUL in a
    value that gets its own column (``columns``: keys of ``doc``) cannot be stored.  Costs one substring search
    for an ordinary payload."""
    if "\\ud" in text or "\\uD" in text:
        try:
            json.dumps(doc, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return "a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape) cannot be stored as UTF-8"
    if "\\u0000" in text:
        for key in columns:
            value = doc.get(key) if isinstance(doc, dict) else None
            if isinstance(value, str) and "\x00" in value:
                return f"a NUL character in {key!r} cannot be stored"
    return None
