"""``PanelTable`` against the simulated closed table on the fake GPIO backend: the same events and exceptions as
the serial link, faults (jam, no ready, stuck button, stuck lift, fault lamp at start) and clearing them through
``clear_fault``.  Short simulated delays (tens of ms); real time on a wall clock."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest

from firmware_bridge.commands import FaultCode, NackReason, Severity, WallLayout
from firmware_bridge.events import (
    BuildDone,
    BuildFailedError,
    BuildProgress,
    Fault,
    LinkLostError,
    LinkUp,
    McuNackError,
    TableEvent,
)
from firmware_bridge.panel import PanelTable
from firmware_bridge.panel_config import EXAMPLE_PANEL, PanelButtonPin, PanelSignalPin, PanelTableConfig
from firmware_bridge.panel_sim import simulated_closed_table
from firmware_bridge.table import TableController
from hw.backend import GpioError, PinInUseError, Pull
from hw.closed_table import ClosedTableTiming, SimulatedClosedTable
from hw.fake import FakeBackend, WallClock

FAST = dataclasses.replace(
    EXAMPLE_PANEL,
    buttons=tuple(dataclasses.replace(b, press_s=0.04) for b in EXAMPLE_PANEL.buttons),
    debounce_s=0.005, start_timeout_s=0.5, build_timeout_s=0.6, raise_timeout_s=0.4, clear_timeout_s=0.5)
TIMING = ClosedTableTiming(build_s=0.12, raise_s=0.03, start_delay_s=0.01, min_press_s=0.02)


@dataclass
class Rig:
    backend: FakeBackend
    sim: SimulatedClosedTable
    table: PanelTable
    events: list[TableEvent]


@asynccontextmanager
async def rig(config: PanelTableConfig = FAST, faults: tuple[str, ...] = ()) -> AsyncIterator[Rig]:
    backend = FakeBackend(WallClock())
    sim = simulated_closed_table(backend, config, TIMING, random.Random(3)).start(asyncio.get_running_loop())
    for f in faults:
        sim.inject(f)
    events: list[TableEvent] = []
    async with PanelTable(backend, config) as table:

        async def collect() -> None:
            async for ev in table.events():
                events.append(ev)

        task = asyncio.create_task(collect())
        try:
            yield Rig(backend, sim, table, events)
        finally:
            await table.aclose()
            await task
    sim.close()
    assert backend.owner(17) is None  # every pin released


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_whole_cycle_gives_the_serial_links_events() -> None:
    async with rig() as r:
        table: TableController = r.table  # the same interface as TableLink
        assert table.reads_dice is False
        result = await table.shuffle_and_build(tile_set=136)
        assert (result.build_id, result.tiles) == (1, 136)
        assert (await table.status()).state == "built"
        await table.raise_walls()
        assert r.sim.state == "raised" and (await table.status()).state == "raised"
        assert await table.roll_dice() is None  # thrown; the referee enters the values
        await settle()
        assert r.sim.dice_throws == 1 and r.sim.dice is not None
        second = await table.shuffle_and_build(tile_set=144)
        assert second.build_id == 2
        await settle()
    kinds = [type(e) for e in r.events]
    assert kinds == [LinkUp, BuildProgress, BuildProgress, BuildDone, BuildProgress, BuildProgress, BuildDone]
    assert r.events[3] == BuildDone(1, 136, result.duration_s)
    assert r.sim.stats.presses == {"build": 2, "raise": 1, "dice": 1}
    # each press held the contact press_s: high then low on the build output
    assert [lvl for _, lvl in r.backend.history[17]] == [0, 1, 0, 1, 0]


async def test_jam_is_a_fault_event_and_a_failed_build_then_cleared_through_clear_fault() -> None:
    async with rig(faults=("jam",)) as r:
        with pytest.raises(BuildFailedError) as err:
            await r.table.shuffle_and_build()
        fault = err.value.fault
        assert (fault.code, fault.severity, fault.build_id) == (FaultCode.JAM, Severity.ERROR, 1)
        assert r.sim.lamps["fault"] and (await r.table.status()).fault == "jam"
        with pytest.raises(McuNackError) as nack:  # as a v1 board NACKs a build while a fault is active
            await r.table.shuffle_and_build()
        assert nack.value.reason == NackReason.FAULT_ACTIVE
        await r.table.clear_fault()
        assert not r.sim.lamps["fault"] and r.sim.stats.presses["reset"] == 1
        assert (await r.table.status()).state == "idle"
        assert (await r.table.shuffle_and_build()).build_id == 2  # the retried build
        await settle()
    faults = [e for e in r.events if isinstance(e, Fault)]
    assert faults == [fault]


async def test_no_ready_within_the_timeout_becomes_a_lift_timeout_fault() -> None:
    async with rig(faults=("no_ready",)) as r:
        with pytest.raises(BuildFailedError) as err:
            await r.table.shuffle_and_build()
        assert err.value.fault.code == FaultCode.LIFT_TIMEOUT
        assert err.value.fault.detail == int(FAST.build_timeout_s)
        await r.table.clear_fault()
        await r.table.shuffle_and_build()
        await settle()
    assert [e.code for e in r.events if isinstance(e, Fault)] == [FaultCode.LIFT_TIMEOUT]


async def test_a_stuck_button_is_a_sensor_fault_naming_its_pin() -> None:
    async with rig(faults=("stuck:build",)) as r:
        with pytest.raises(BuildFailedError) as err:
            await r.table.shuffle_and_build()
        assert (err.value.fault.code, err.value.fault.detail) == (FaultCode.SENSOR_FAULT, 17)
        assert r.sim.stuck == {"build"}
        await r.table.clear_fault()  # the reset press frees the contact (an attendant at the table)
        await settle()
        assert r.sim.stuck == set()
        assert (await r.table.shuffle_and_build()).build_id == 2


async def test_a_lift_that_never_stops_is_a_lift_timeout_and_raise_is_refused() -> None:
    async with rig(faults=("lift_stuck",)) as r:
        await r.table.shuffle_and_build()
        with pytest.raises(McuNackError) as nack:
            await r.table.raise_walls()
        assert nack.value.reason == NackReason.FAULT_ACTIVE
        await settle()
        assert [e.code for e in r.events if isinstance(e, Fault)] == [FaultCode.LIFT_TIMEOUT]
        await r.table.clear_fault()
        await settle()
        assert not r.sim.lamps["motor"]


async def test_raise_before_a_build_and_a_pre_dealt_layout_are_refused() -> None:
    async with rig() as r:
        with pytest.raises(McuNackError) as nack:
            await r.table.raise_walls()
        assert nack.value.reason == NackReason.NOT_READY
        with pytest.raises(McuNackError) as bad:
            await r.table.shuffle_and_build(layout=WallLayout.PRE_DEALT)
        assert bad.value.reason == NackReason.BAD_ARGUMENT
        assert r.sim.stats.builds == 0


async def test_fault_lamp_lit_at_start_is_reported_and_a_lamp_that_stays_lit_is_not_cleared() -> None:
    backend = FakeBackend(WallClock())
    backend.hold(10, 0)  # the fault lamp pulls its input low: lit before the service starts
    no_reset = dataclasses.replace(FAST, buttons=tuple(b for b in FAST.buttons if b.name != "reset"))
    async with PanelTable(backend, no_reset) as table:
        events = table.events()
        assert isinstance(await anext(events), LinkUp)
        fault = await anext(events)
        assert isinstance(fault, Fault) and fault.code == FaultCode.JAM
        with pytest.raises(McuNackError):
            await table.clear_fault()  # nothing can put the lamp out from here
        backend.hold(10, 1)  # someone cleared it at the table
        await table.clear_fault()
        assert (await table.status()).fault is None


async def test_polarity_active_low_outputs_and_active_high_inputs() -> None:
    cfg = PanelTableConfig(model="inverted", buttons=(PanelButtonPin("build", 17, 0.04, active_high=False),),
                           signals=(PanelSignalPin("ready", 23, active_low=False),),
                           debounce_s=0.005, build_timeout_s=0.5)
    async with rig(cfg) as r:
        assert r.backend.history[17][0][1] == 1  # released = high for an active-low output
        await r.table.shuffle_and_build()
        assert r.backend.read(23) == 1  # lit = high
        assert [lvl for _, lvl in r.backend.history[17]] == [1, 0, 1]


async def test_a_press_shorter_than_the_table_takes_is_ignored_and_times_out() -> None:
    cfg = dataclasses.replace(FAST, buttons=(PanelButtonPin("build", 17, 0.005), *FAST.buttons[1:]))
    async with rig(cfg) as r:
        with pytest.raises(BuildFailedError) as err:
            await r.table.shuffle_and_build()
        assert err.value.fault.code == FaultCode.SENSOR_FAULT
        assert r.sim.stats.ignored == 1


async def test_a_taken_pin_fails_on_enter_and_releases_the_rest() -> None:
    backend = FakeBackend(WallClock())
    backend.setup_input(24, pull=Pull.UP, owner="someone")
    with pytest.raises(PinInUseError):
        async with PanelTable(backend, FAST):
            pass
    assert backend.owner(17) is None and backend.owner(23) is None and backend.owner(24) == "someone"


def test_config_refuses_missing_build_or_ready_and_shared_pins() -> None:
    with pytest.raises(ValueError, match="build"):
        PanelTableConfig(model="x", buttons=(), signals=(PanelSignalPin("ready", 23),))
    with pytest.raises(ValueError, match="share a GPIO"):
        PanelTableConfig(model="x", buttons=(PanelButtonPin("build", 23),), signals=(PanelSignalPin("ready", 23),))
    with pytest.raises(ValueError, match="unknown panel button"):
        PanelTableConfig(model="x", buttons=(PanelButtonPin("build", 17), PanelButtonPin("shuffle", 18)),
                         signals=(PanelSignalPin("ready", 23),))


def test_sim_refuses_unknown_faults() -> None:
    sim = simulated_closed_table(FakeBackend(), FAST)
    with pytest.raises(ValueError):
        sim.inject("fire")
    with pytest.raises(ValueError):
        sim.inject("stuck:start")


class _DaemonGone(FakeBackend):
    """A backend whose daemon went away after setup: every write fails."""

    broken = False

    def write(self, pin: int, level: int) -> None:
        if self.broken:
            raise GpioError("pigpiod connection lost")
        super().write(pin, level)


async def test_a_gpio_failure_while_pressing_is_a_lost_link_and_a_closed_table_refuses() -> None:
    backend = _DaemonGone(WallClock())
    table = PanelTable(backend, FAST)
    async with table:
        backend.broken = True
        with pytest.raises(LinkLostError, match="pigpiod connection lost"):
            await table.roll_dice()
    with pytest.raises(LinkLostError):
        await table.stop()
    with pytest.raises(LinkLostError):
        await table.shuffle_and_build()
