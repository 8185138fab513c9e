"""GPIO for the table panel: a ``PinBackend`` protocol (pigpio, lgpio, fake), debounced devices, the panel.

Choose the backend once, in the composition root::

    backend = open_backend("fake")            # or "pigpio" (Pi 3/4), "lgpio" (Pi 5)
    panel = TablePanel(backend, pinout)
    async with panel:
        async for press in panel.presses(): ...
"""

from __future__ import annotations

from hw.backend import (
    BackendUnavailableError,
    GpioError,
    InvalidPinError,
    PinBackend,
    PinEdge,
    PinInUseError,
    Pull,
)
from hw.devices import Button, ButtonChange, Buzzer, Debouncer, Led
from hw.factory import BACKENDS, open_backend
from hw.fake import FakeBackend, FakeClock, WallClock
from hw.panel import PanelPinout, SeatPinout, SeatPress, TablePanel

__all__ = [
    "BACKENDS",
    "BackendUnavailableError",
    "Button",
    "ButtonChange",
    "Buzzer",
    "Debouncer",
    "FakeBackend",
    "FakeClock",
    "GpioError",
    "InvalidPinError",
    "Led",
    "PanelPinout",
    "PinBackend",
    "PinEdge",
    "PinInUseError",
    "Pull",
    "SeatPinout",
    "SeatPress",
    "TablePanel",
    "WallClock",
    "open_backend",
]
