"""Health of the service's parts: which are up, which are off or down and why (degraded mode).

Parts: ``engine``, ``mcu``, ``camera``, ``gpio``, ``mqtt``.  Each is ``ok``, ``off: <why>`` (not configured or
not present) or ``down: <why>`` (configured but failing).  The service keeps playing with any part down
except the engine.  Every change is logged, written atomically to ``<data_dir>/<table>.health.json`` (read
by ``mjtable doctor``) and announced to listeners (MQTT status, systemd STATUS).  Loop thread only.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOGGER = logging.getLogger(__name__)

PARTS = ("engine", "mcu", "camera", "gpio", "mqtt")


class Health:
    """Args: path: the health file (None = do not write); clock: unix seconds."""

    def __init__(self, path: Path | None, clock: Callable[[], float]) -> None:
        self.path = path
        self.clock = clock
        self.parts: dict[str, str] = dict.fromkeys(PARTS, "off: starting")
        self.listeners: list[Callable[[Health], None]] = []

    def set(self, part: str, state: str) -> None:
        """Set ``part`` to ``ok``, ``off: why`` or ``down: why``; notifies listeners on change."""
        if part not in self.parts:
            raise ValueError(f"unknown part {part!r}; parts are {', '.join(PARTS)}")
        if not (state == "ok" or state.startswith(("off: ", "down: "))):
            raise ValueError(f"health state must be 'ok', 'off: ...' or 'down: ...', got {state!r}")
        if self.parts[part] == state:
            return
        self.parts[part] = state
        level = logging.INFO if state == "ok" or state.startswith("off") else logging.WARNING
        LOGGER.log(level, "%s: %s", part, state, extra={"part": part, "state": state})
        self.write()
        for listener in list(self.listeners):
            listener(self)

    @property
    def degraded(self) -> bool:
        return any(v != "ok" for v in self.parts.values())

    def summary(self) -> str:
        """One line for ``systemctl status``."""
        bad = [f"{k} {v}" for k, v in self.parts.items() if v != "ok"]
        return "all parts ok" if not bad else "degraded: " + "; ".join(bad)

    def to_json(self) -> dict[str, Any]:
        return {"schema": "mjtable.health/1", "ts_s": self.clock(), "degraded": self.degraded,
                "parts": dict(self.parts)}

    def write(self) -> None:
        """Atomically replace the health file (tmp + rename); a failure is logged, never raised."""
        if self.path is None:
            return
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(self.to_json()))
            os.replace(tmp, self.path)
        except OSError as exc:
            LOGGER.warning("cannot write %s: %s", self.path, exc)
