"""The GPIO part on the pigpio backend against a fake pigpiod: presses arrive from pigpio's thread, and a
daemon that goes away is noticed and reported while the service keeps running."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from controller.engine.events import ButtonPressed
from hw.panel import TablePanel
from mjtable.config import DEFAULT_PINOUT
from mjtable.service.health import Health
from mjtable.service.parts import GpioPart
from tests.hw.fake_pigpiod import FakePigpiod


async def test_pigpio_panel_presses_then_daemon_lost() -> None:
    pytest.importorskip("pigpio")
    from hw.pigpio_backend import PigpioBackend

    daemon = FakePigpiod()
    health = Health(None, clock=lambda: 0.0)
    emitted: list[dict[str, Any]] = []

    def open_panel() -> TablePanel:
        return TablePanel(PigpioBackend("127.0.0.1", daemon.port), DEFAULT_PINOUT)

    part = GpioPart(open_panel, lambda cls, **f: emitted.append({"cls": cls, **f}), health, lambda: "claims",
                    retry_s=60.0, probe_s=0.05)
    task = asyncio.create_task(part.run())
    try:
        for _ in range(500):
            if health.parts["gpio"] == "ok":
                break
            await asyncio.sleep(0.01)
        pin = DEFAULT_PINOUT.seats[2].call
        await asyncio.to_thread(daemon.set_input, pin, 0, 50_000)
        await asyncio.to_thread(daemon.set_input, pin, 1, 80_000)
        for _ in range(500):
            if emitted:
                break
            await asyncio.sleep(0.01)
        assert emitted == [{"cls": ButtonPressed, "seat": 2, "button": "call"}]
        part.set_led(2, True)
        assert daemon.level(DEFAULT_PINOUT.seats[2].led) == 1
        daemon.close()
        for _ in range(500):
            if health.parts["gpio"].startswith("down"):
                break
            await asyncio.sleep(0.01)
        assert health.parts["gpio"].startswith("down: lost the pigpio daemon"), health.parts["gpio"]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        daemon.close()
