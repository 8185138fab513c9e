"""Choose and open a GPIO backend by name (the composition root calls this once, from the config)."""

from __future__ import annotations

from hw.backend import PinBackend
from hw.fake import FakeBackend, WallClock

BACKENDS = ("pigpio", "lgpio", "fake")


def open_backend(name: str, *, host: str = "127.0.0.1", port: int = 8888, chip: int = 0) -> PinBackend:
    """Open the named backend.  Raises :class:`BackendUnavailableError` with the fix when it cannot run here."""
    if name == "fake":
        return FakeBackend(WallClock())
    if name == "pigpio":
        from hw.pigpio_backend import PigpioBackend

        return PigpioBackend(host, port)
    if name == "lgpio":
        from hw.lgpio_backend import LgpioBackend

        return LgpioBackend(chip)
    raise ValueError(f"unknown GPIO backend {name!r}; choose one of {', '.join(BACKENDS)}")
