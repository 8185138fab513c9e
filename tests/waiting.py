"""Polling for the tests that wait on another thread or process (a broker, a recorder, a service)."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(pred: Callable[[], bool], timeout_s: float = 30.0, poll_s: float = 0.05) -> bool:
    """True as soon as ``pred()`` holds, polled every ``poll_s`` seconds; after ``timeout_s`` seconds, the last
    ``pred()``.  Any thread."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(poll_s)
    return pred()
