"""Structured logs: one JSON object per line on stderr (journald keeps them; ``journalctl -o cat | jq``).

Each line: ``{"ts": ISO-8601 UTC, "level": "info", "logger": "mjtable.service", "msg": "...", ...extra}``.
Extra keys come from ``logger.info("msg", extra={"part": "camera"})``.  Exceptions add ``"exc"``.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
from typing import Any, TextIO

_STANDARD = frozenset(vars(logging.LogRecord("x", 0, "x", 0, "x", None, None)).keys()) | {"message", "asctime"}


class JsonLineFormatter(logging.Formatter):
    """Formats a record as one JSON line."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                doc[key] = value if isinstance(value, str | int | float | bool | type(None)) else repr(value)
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, ensure_ascii=False)


def setup_logging(level: str = "info", stream: TextIO | None = None) -> logging.Handler:
    """Send every log record of this process to ``stream`` (stderr) as JSON lines; returns the handler."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonLineFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        if isinstance(old.formatter, JsonLineFormatter):
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler
