"""The MCU part against firmware_bridge's in-process SimulatedMcu (real codec, real TableLink, memory transport)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from controller.engine.effects import McuCommand
from controller.engine.events import DiceRolled, LinkChanged, McuFault, TableBuilt
from firmware_bridge.commands import FaultCode, Severity
from firmware_bridge.session import LinkTiming, TableLink
from firmware_bridge.simulator import SimulatedMcu
from firmware_bridge.transport import Transport, memory_pair
from mjtable.service.health import Health
from mjtable.service.mcu import McuPart

FACES = tuple(f"{n}m" for n in range(1, 10)) * 16


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.emitted: list[tuple[type[Any], dict[str, Any]]] = []
        self.health = Health(tmp / "h.json", clock=lambda: 0.0)
        self.sim: SimulatedMcu | None = None
        self.tasks: list[asyncio.Task[None]] = []

    def emit(self, cls: type[Any], **fields: Any) -> None:
        self.emitted.append((cls, fields))

    def link(self) -> TableLink:
        host, device = memory_pair()
        self.sim = SimulatedMcu(device, rng=random.Random(4), build_s=0.05, boot_s=0.01)
        self.tasks.append(asyncio.get_running_loop().create_task(self.sim.run()))

        async def factory() -> Transport:
            return host

        return TableLink(factory, timing=LinkTiming(connect_timeout_s=5.0))

    async def until(self, cls: type[Any], n: int = 1) -> list[dict[str, Any]]:
        for _ in range(500):
            got = [f for c, f in self.emitted if c is cls]
            if len(got) >= n:
                return got
            await asyncio.sleep(0.01)
        raise AssertionError(f"no {cls.__name__} in {self.emitted}")


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    r = Rig(tmp_path)
    yield r
    for t in r.tasks:
        t.cancel()
    await asyncio.gather(*r.tasks, return_exceptions=True)


async def test_build_and_dice_become_engine_events(rig: Rig) -> None:
    part = McuPart(rig.link, rig.emit, rig.health, wall_reader=lambda build_id: FACES)
    task = asyncio.create_task(part.run())
    rig.tasks.append(task)
    await rig.until(LinkChanged)
    assert rig.health.parts["mcu"] == "ok"
    part.execute(McuCommand(name="shuffle_and_build", args={"tile_set": 144}))
    (built,) = await rig.until(TableBuilt)
    assert built == {"tiles": FACES, "dice": ()}
    part.execute(McuCommand(name="roll_dice", args={"throw": 1}))
    part.execute(McuCommand(name="roll_dice", args={"throw": 2}))
    rolls = await rig.until(DiceRolled, 2)
    assert all(1 <= d <= 6 for r in rolls for d in r["dice"]) and rolls[0]["source"] == "mcu"
    assert rig.sim is not None
    rig.sim.inject_fault(FaultCode.OVER_TEMPERATURE, Severity.WARNING, 900)
    (fault,) = await rig.until(McuFault)
    assert fault["code"] == "over_temperature"
    await part.aclose()


async def test_no_mcu_configured_is_off_and_a_command_is_a_fault(rig: Rig) -> None:
    part = McuPart(None, rig.emit, rig.health, link_wait_s=0.01)
    task = asyncio.create_task(part.run())
    rig.tasks.append(task)
    await asyncio.sleep(0)
    assert rig.health.parts["mcu"].startswith("off: no serial port")
    part.execute(McuCommand(name="shuffle_and_build", args={"tile_set": 144}))
    (fault,) = await rig.until(McuFault)
    assert fault["code"] == "no_mcu" and "not connected" in fault["message"]


async def test_absent_port_is_down_with_the_reason_and_keeps_retrying(rig: Rig, tmp_path: Path) -> None:
    from mjtable.service.mcu import serial_link_factory

    factory = serial_link_factory(str(tmp_path / "no-such-tty"), 115200, LinkTiming(connect_timeout_s=0.2))
    part = McuPart(factory, rig.emit, rig.health, retry_s=0.01, describe="/dev/absent")
    task = asyncio.create_task(part.run())
    rig.tasks.append(task)
    for _ in range(300):
        if rig.health.parts["mcu"].startswith("down: /dev/absent"):
            break
        await asyncio.sleep(0.01)
    assert rig.health.parts["mcu"].startswith("down: /dev/absent"), rig.health.parts["mcu"]
