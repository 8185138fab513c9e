"""A table service driven through both entry paths of a seat's press: a fake GPIO panel
(``mjtable.service.parts.GpioPart``) and buttons wired to the table MCU, simulated in process (real codec and link,
``mjtable.service.mcu.McuPart``).  Every press is waited for until the engine stepped it (its own
``ButtonPressed``, not just any step).  Used by the tests of what a press may publish (Sichuan 定缺) and of what
it declares (riichi 不聽)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any, Self

from controller.engine.events import ButtonPressed, Event
from firmware_bridge.commands import Button
from firmware_bridge.session import LinkTiming, TableLink
from firmware_bridge.simulator import SimulatedMcu
from firmware_bridge.transport import Transport, memory_pair
from hw.fake import FakeBackend, FakeClock
from mjtable.config import DEFAULT_PINOUT, Config
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.service import Injected, TableService, build_service
from mjtable.service.notify import RecordingNotifier


class PanelTable:
    """The service for ``cfg`` publishing to ``broker``; ``build_s``: how long the simulated MCU takes to build a
    wall; ``injected``: more of :class:`mjtable.service.Injected` (a clock, a wall reader).  ``async with`` runs it
    until :meth:`ready` (what a subclass waits for after start-up, named by ``ready_what``)."""

    ready_what = "the panel and the MCU link"

    def __init__(self, cfg: Config, broker: MemoryBroker, *, build_s: float, **injected: Any) -> None:
        self.gpio = FakeBackend(FakeClock())
        self.sim: SimulatedMcu | None = None
        self._build_s = build_s
        self._sims: list[asyncio.Task[None]] = []
        self.service: TableService = build_service(cfg, Injected(
            notifier=RecordingNotifier(), publisher=FakePublisher(broker), gpio_backend=self.gpio,
            mcu_link=self._link, link_timing=LinkTiming(connect_timeout_s=5.0), **injected))
        self.presses: list[int] = []  # the seat of every button press the engine stepped, in order
        self.service.listeners.append(lambda ev, st, fx: self._took(ev))
        self._run: asyncio.Task[None] | None = None

    def ready(self) -> bool:
        """Whether the table is where the test starts (after the service is up)."""
        return (self.service.gpio is not None and self.service.gpio.panel is not None
                and self.service.mcu is not None and self.service.mcu.link is not None)

    def _link(self) -> TableLink:
        host, device = memory_pair()
        self.sim = SimulatedMcu(device, rng=random.Random(4), build_s=self._build_s, boot_s=0.01)
        self._sims.append(asyncio.get_running_loop().create_task(self.sim.run()))

        async def factory() -> Transport:
            return host

        return TableLink(factory, timing=LinkTiming(connect_timeout_s=5.0))

    def _took(self, ev: Event) -> None:
        if isinstance(ev, ButtonPressed):
            self.presses.append(ev.seat)

    async def __aenter__(self) -> Self:
        self._run = asyncio.create_task(self.service.run())
        await self.service.ready.wait()
        await self._until(self.ready, self.ready_what)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.service.stop()
        assert self._run is not None
        await self._run
        self.service.table.close()
        for task in self._sims:
            task.cancel()
        await asyncio.gather(*self._sims, return_exceptions=True)

    async def _until(self, pred: Callable[[], bool], what: str) -> None:
        for _ in range(1000):
            if pred():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}")

    async def panel(self, seat: int, button: str) -> None:
        """A press on the seat's GPIO panel (``mjtable.service.parts.GpioPart``)."""
        pins = DEFAULT_PINOUT.seats[seat]
        n = self.presses.count(seat) + 1
        await asyncio.to_thread(self.gpio.press, pins.call if button == "call" else pins.pass_ready, 0.1)
        await self._until(lambda: self.presses.count(seat) >= n, f"seat {seat}'s {button} from the panel")

    async def mcu(self, seat: int, button: Button) -> None:
        """A press on a button wired to the table MCU (``mjtable.service.mcu.McuPart``)."""
        assert self.sim is not None
        n = self.presses.count(seat) + 1
        self.sim.press_button(seat, button)
        await self._until(lambda: self.presses.count(seat) >= n, f"seat {seat}'s {button.name} from the MCU")
