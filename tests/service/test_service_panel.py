"""The MCU part driving a closed table through ``PanelTable`` (the simulated closed table on the fake GPIO
backend): the engine gets the same events as from the serial link, each panel fault becomes an ``McuFault`` as
the serial faults do, the dice come from the referee (no ``DiceRolled`` from the table), and ``clear_fault`` (the
engine's ``clear_fault`` command) clears the panel fault so the retried build succeeds."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from controller.engine.effects import McuCommand
from controller.engine.events import DiceRolled, LinkChanged, McuFault, TableBuilt
from firmware_bridge.panel_config import EXAMPLE_PANEL
from firmware_bridge.panel_sim import simulated_closed_table
from hw.backend import BackendUnavailableError, PinBackend
from hw.closed_table import ClosedTableTiming, SimulatedClosedTable
from hw.fake import FakeBackend, WallClock
from mjtable.service.health import Health
from mjtable.service.mcu import McuPart, panel_link_factory

FAST = dataclasses.replace(
    EXAMPLE_PANEL, buttons=tuple(dataclasses.replace(b, press_s=0.04) for b in EXAMPLE_PANEL.buttons),
    debounce_s=0.005, start_timeout_s=0.5, build_timeout_s=0.6, raise_timeout_s=0.5, clear_timeout_s=0.5)
TIMING = ClosedTableTiming(build_s=0.1, raise_s=0.03, start_delay_s=0.01, min_press_s=0.02)
FACES = tuple(f"{n}m" for n in range(1, 10)) * 16


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.emitted: list[tuple[type[Any], dict[str, Any]]] = []
        self.health = Health(tmp / "h.json", clock=lambda: 0.0)
        self.backend = FakeBackend(WallClock())
        self.sim: SimulatedClosedTable = simulated_closed_table(self.backend, FAST, TIMING, random.Random(1))
        self.part = McuPart(panel_link_factory(FAST, lambda: self.backend, close_backend=False), self.emit,
                            self.health, wall_reader=lambda build_id: FACES, retry_s=0.05)

    def emit(self, cls: type[Any], **fields: Any) -> None:
        self.emitted.append((cls, fields))

    def of(self, cls: type[Any]) -> list[dict[str, Any]]:
        return [f for c, f in self.emitted if c is cls]

    async def until(self, cls: type[Any], n: int = 1) -> list[dict[str, Any]]:
        for _ in range(500):
            if len(self.of(cls)) >= n:
                return self.of(cls)
            await asyncio.sleep(0.01)
        raise AssertionError(f"no {cls.__name__} in {self.emitted}")

    async def idle(self) -> None:
        """Every command started so far has finished."""
        await asyncio.gather(*self.part._jobs)


@pytest.mark.parametrize(("fault", "code"), [("jam", "jam"), ("no_ready", "lift_timeout"),
                                             ("stuck:build", "sensor_fault")])
async def test_each_panel_fault_reaches_the_engine_and_clear_fault_lets_the_build_retry(
        tmp_path: Path, fault: str, code: str) -> None:
    rig = Rig(tmp_path)
    rig.sim.start(asyncio.get_running_loop())
    task = asyncio.create_task(rig.part.run())
    try:
        await rig.until(LinkChanged)
        assert rig.health.parts["mcu"] == "ok"
        rig.sim.inject(fault)
        rig.part.execute(McuCommand(name="shuffle_and_build", args={"tile_set": 144}))
        faults = await rig.until(McuFault, 2)
        # as from the serial link: the Fault event and the failed build (in either order)
        assert sorted(f["code"] for f in faults) == sorted([code, "build_failed"])
        assert any(f["message"] == "error fault, detail " + str(f["message"].split()[-1]) for f in faults)
        await rig.idle()
        assert rig.part.link is not None
        await rig.part.link.clear_fault()  # the shared interface's clear (the referee's clear goes here)
        rig.part.execute(McuCommand(name="shuffle_and_build", args={"tile_set": 144}))
        (built,) = await rig.until(TableBuilt)
        assert built == {"tiles": FACES, "dice": ()}
        assert rig.sim.state == "raised"
        rig.part.execute(McuCommand(name="roll_dice", args={"throw": 1}))
        await rig.idle()
        assert rig.sim.dice_throws == 1
        assert rig.of(DiceRolled) == []  # the panel cannot read them: the referee enters them
        assert len(rig.of(McuFault)) == 2
    finally:
        await rig.part.aclose()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        rig.sim.close()


async def test_a_missing_gpio_backend_is_a_health_message_not_a_crash(tmp_path: Path) -> None:
    health = Health(tmp_path / "h.json", clock=lambda: 0.0)

    def no_pigpiod() -> PinBackend:
        raise BackendUnavailableError("pigpiod is not running (systemctl start pigpiod)")

    part = McuPart(panel_link_factory(FAST, no_pigpiod), lambda *a, **k: None, health, retry_s=0.05,
                   describe="panel of x")
    task = asyncio.create_task(part.run())
    try:
        for _ in range(200):
            if health.parts.get("mcu", "").startswith("down"):
                break
            await asyncio.sleep(0.01)
        assert health.parts["mcu"] == "down: panel of x: pigpiod is not running (systemctl start pigpiod)"
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
