"""Where the recorder keeps messages it cannot store (poison messages): set aside, never fatal, never lost.

:class:`RejectedLog` appends one JSON line per rejected message to a file: ``ts_s`` (unix seconds), ``topic``,
``reason``, ``bytes`` (payload length), ``sha256`` and ``payload_b64`` (the payload, at most
:data:`KEEP_BYTES` of it, so a flood of huge payloads cannot fill the disk).  ``path=None`` keeps them in memory
(tests).  Thread-safe: paho's network thread appends while another thread reads ``count``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from pathlib import Path
from typing import Any

KEEP_BYTES = 64 * 1024


class RejectedLog:
    """Append-only log of rejected messages (see module doc)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.count = 0
        self.kept: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def put(self, topic: str, payload: bytes, reason: str) -> dict[str, Any]:
        """Set one message aside; returns the entry written."""
        entry = {"ts_s": time.time(), "topic": topic[:512], "reason": reason[:500], "bytes": len(payload),
                 "sha256": hashlib.sha256(payload).hexdigest(),
                 "payload_b64": base64.b64encode(payload[:KEEP_BYTES]).decode()}
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self._lock:
            self.count += 1
            if self.path is None:
                self.kept.append(entry)
            else:
                with self.path.open("a", encoding="utf-8") as f:
                    f.write(line)
        return entry

    def entries(self) -> list[dict[str, Any]]:
        """Every entry set aside (read back from the file when there is one)."""
        if self.path is None:
            with self._lock:
                return list(self.kept)
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line]
