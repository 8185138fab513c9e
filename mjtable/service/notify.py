"""systemd service notification (sd_notify) without a dependency: datagrams to ``$NOTIFY_SOCKET``.

``READY=1`` once the service is up, ``WATCHDOG=1`` at half the ``$WATCHDOG_USEC`` interval, ``STATUS=...``
for ``systemctl status``, ``STOPPING=1`` on shutdown.  Outside systemd (no ``$NOTIFY_SOCKET``) every call is
a no-op.  Called from the service's asyncio loop; ``send`` never blocks (datagram socket, non-blocking).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Mapping
from typing import Protocol

LOGGER = logging.getLogger(__name__)


class Notifier(Protocol):
    """Where service-manager notifications go (real: :class:`SystemdNotifier`; fake: :class:`RecordingNotifier`)."""

    @property
    def watchdog_interval_s(self) -> float | None:
        """How often to send ``WATCHDOG=1`` (half of systemd's WatchdogSec), None when no watchdog."""
        ...

    def send(self, **fields: str) -> bool:
        """Send ``KEY=value`` lines, e.g. ``send(READY="1", STATUS="playing")``; True when delivered."""
        ...


class SystemdNotifier:
    """sd_notify over the AF_UNIX datagram socket named in the environment (``@`` = abstract namespace).

    Args:
        environ: the process environment (``os.environ`` by default; tests pass their own).
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = env.get("NOTIFY_SOCKET", "")
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        self._watchdog_s: float | None = None
        if usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self._watchdog_s = int(usec) / 1e6 / 2
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.setblocking(False)

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    @property
    def watchdog_interval_s(self) -> float | None:
        return self._watchdog_s

    def send(self, **fields: str) -> bool:
        if self._sock is None:
            return False
        payload = "\n".join(f"{k}={v}" for k, v in fields.items()).encode()
        addr = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            self._sock.sendto(payload, addr)
        except OSError as exc:
            LOGGER.warning("sd_notify to %s failed: %s", self.address, exc)
            return False
        return True

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None


class RecordingNotifier:
    """A fake notifier for tests and the demo: keeps every message."""

    def __init__(self, watchdog_interval_s: float | None = None) -> None:
        self.messages: list[dict[str, str]] = []
        self._watchdog_s = watchdog_interval_s

    @property
    def watchdog_interval_s(self) -> float | None:
        return self._watchdog_s

    def send(self, **fields: str) -> bool:
        self.messages.append(dict(fields))
        return True
