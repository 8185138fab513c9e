"""Helpers for the recorder tests: a ``mjtable recorder`` process and polling."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from typing import Any

from tests.waiting import wait_until


class RecorderProcess:
    """``python -m mjtable.cli recorder ...`` as a child process; its JSON lines are read on a thread."""

    def __init__(self, broker: str, db: str, client_id: str, *extra: str) -> None:
        self.argv = [sys.executable, "-m", "mjtable.cli", "recorder", "--broker", broker, "--db", db,
                     "--client-id", client_id, "--stats-every-s", "0.2", *extra]
        self.lines: list[dict[str, Any]] = []
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> RecorderProcess:
        self.lines = []
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                self.lines.append(json.loads(line))
            except json.JSONDecodeError:
                continue

    def wait_connected(self, timeout_s: float = 30.0) -> bool:
        return wait_until(lambda: any(d.get("event") == "recorder_stats" and d.get("connected")
                                      for d in list(self.lines)), timeout_s)

    def last_stats(self) -> dict[str, Any]:
        stats = [d for d in list(self.lines) if d.get("event") == "recorder_stats"]
        return stats[-1] if stats else {}

    def kill(self) -> None:
        """SIGKILL: no goodbye to the broker, nothing flushed."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> int:
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return int(self.proc.returncode)
