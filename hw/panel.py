"""The table's player panel: per seat a call button, a pass/ready button and a turn LED, plus one buzzer.

``TablePanel`` is the only object the service talks to.  Backend threads stop here: every raw edge is handed
to the asyncio loop with ``loop.call_soon_threadsafe``; debouncing and event delivery run on the loop, and
presses come out of ``async for press in panel.presses()`` in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from types import TracebackType

from hw.backend import PinBackend, PinEdge
from hw.devices import Button, Buzzer, Led

LOGGER = logging.getLogger(__name__)

#: The two physical buttons of a seat.  ``pass`` doubles as *ready* between hands (the engine decides).
SEAT_BUTTONS = ("call", "pass")


@dataclass(frozen=True, slots=True)
class SeatPinout:
    """BCM pins of one seat."""

    call: int
    pass_ready: int
    led: int


@dataclass(frozen=True, slots=True)
class PanelPinout:
    """Every pin of the panel.  ``buzzer=None``: no buzzer fitted.  ``buzzer_hz=None``: an active buzzer."""

    seats: tuple[SeatPinout, ...]
    buzzer: int | None = None
    buzzer_hz: float | None = 2000.0
    bounce_s: float = 0.02


@dataclass(frozen=True, slots=True)
class SeatPress:
    """A debounced press of a seat button; ``t_s`` on the backend clock."""

    seat: int
    button: str
    t_s: float


class TablePanel:
    """Buttons, LEDs and buzzer of one table.  Construct, then ``async with panel:`` on the service loop.

    Args:
        backend: the pin backend (owned by the caller, who closes it).
        pinout: pins from the config file.
    Raises:
        hw.backend.PinInUseError: two devices share a pin (nothing stays reserved).
    """

    def __init__(self, backend: PinBackend, pinout: PanelPinout) -> None:
        self.backend = backend
        self._buttons: dict[int, tuple[int, str, Button]] = {}
        self.leds: list[Led] = []
        self.buzzer: Buzzer | None = None
        self._queue: asyncio.Queue[SeatPress] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        created: list[Button | Led | Buzzer] = []
        try:
            for seat, pins in enumerate(pinout.seats):
                for button, pin in (("call", pins.call), ("pass", pins.pass_ready)):
                    b = Button(backend, pin, name=f"seat{seat}.{button}", bounce_s=pinout.bounce_s)
                    created.append(b)
                    self._buttons[pin] = (seat, button, b)
                led = Led(backend, pins.led, name=f"seat{seat}.led")
                created.append(led)
                self.leds.append(led)
            if pinout.buzzer is not None:
                self.buzzer = Buzzer(backend, pinout.buzzer, frequency_hz=pinout.buzzer_hz)
                created.append(self.buzzer)
        except BaseException:
            for dev in created:
                dev.close()
            raise
        self._buzz_task: asyncio.Task[None] | None = None

    def pin_of(self, seat: int, button: str) -> int:
        """The BCM pin of a seat's button (``call`` or ``pass``)."""
        for pin, (s, b, _) in self._buttons.items():
            if s == seat and b == button:
                return pin
        raise KeyError(f"no {button!r} button at seat {seat}")

    async def __aenter__(self) -> TablePanel:
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        for pin in self._buttons:
            self.backend.watch(pin, self._from_backend_thread)
        return self

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._buzz_task is not None:
            self._buzz_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._buzz_task
        self.close()

    def close(self) -> None:
        """Turn everything off and release every pin (idempotent)."""
        for _, _, button in self._buttons.values():
            button.close()
        self._buttons.clear()
        for led in self.leds:
            led.set(False)
            led.close()
        self.leds.clear()
        if self.buzzer is not None:
            self.buzzer.close()
            self.buzzer = None

    def _from_backend_thread(self, edge: PinEdge) -> None:
        """Watch callback: runs on the backend's thread; only hands the edge over."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._on_edge, edge)

    def _on_edge(self, edge: PinEdge) -> None:
        """Runs on the loop: debounce and queue presses."""
        entry = self._buttons.get(edge.pin)
        if entry is None or self._queue is None:
            return
        seat, button, device = entry
        for change in device.process(edge):
            if change.pressed:
                self._queue.put_nowait(SeatPress(seat, button, change.t_s))

    async def presses(self) -> AsyncIterator[SeatPress]:
        """Debounced presses, in order, forever (loop thread)."""
        if self._queue is None:
            raise RuntimeError("use 'async with panel:' before reading presses")
        while True:
            yield await self._queue.get()

    async def next_press(self) -> SeatPress:
        if self._queue is None:
            raise RuntimeError("use 'async with panel:' before reading presses")
        return await self._queue.get()

    def set_led(self, seat: int, on: bool) -> None:
        """Turn a seat's turn LED on or off (loop thread)."""
        if not 0 <= seat < len(self.leds):
            raise ValueError(f"no LED for seat {seat}")
        self.leds[seat].set(on)

    def buzz(self, duration_s: float) -> None:
        """Sound the buzzer for ``duration_s`` seconds without blocking (loop thread); no-op without one."""
        if self.buzzer is None:
            return
        if self._buzz_task is not None:
            self._buzz_task.cancel()
        self._buzz_task = asyncio.get_running_loop().create_task(self._buzz(duration_s), name="panel.buzz")

    async def _buzz(self, duration_s: float) -> None:
        if self.buzzer is None:
            return
        self.buzzer.set(True)
        try:
            await asyncio.sleep(duration_s)
        finally:
            if self.buzzer is not None:
                self.buzzer.set(False)
