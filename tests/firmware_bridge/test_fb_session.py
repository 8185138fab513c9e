"""Session behaviour over the in-memory transport: backoff schedule, lost events, closing, JSON events."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from firmware_bridge.commands import (
    COMMANDS_BY_NAME,
    Button,
    CommandSpec,
    FaultCode,
    LidPart,
    McuState,
    NackReason,
    Severity,
)
from firmware_bridge.events import (
    BuildAbortedError,
    ButtonEvent,
    EventsLost,
    Fault,
    LidEvent,
    LinkLostError,
    LinkUp,
    McuNackError,
    McuReset,
)
from firmware_bridge.port import TablePort
from firmware_bridge.session import LinkState, TableLink
from firmware_bridge.simulator import SimulatedMcu
from firmware_bridge.testing import simulated_table
from firmware_bridge.transport import Transport, TransportClosedError, memory_pair
from tests.firmware_bridge.fb_helpers import FAST, EventLog, until


async def test_reconnect_backoff_is_capped_exponential_with_full_jitter() -> None:
    host, device = memory_pair()
    sim = SimulatedMcu(device, rng=random.Random(3), build_s=0.2, boot_s=0.0)
    sim_task = asyncio.ensure_future(sim.run())
    failures = 7
    calls = 0
    slept: list[float] = []

    async def factory() -> Transport:
        nonlocal calls
        calls += 1
        if calls <= failures:
            raise TransportClosedError("no such port")
        return host

    async def fake_sleep(delay_s: float) -> None:
        slept.append(delay_s)
        await asyncio.sleep(0)

    link = TableLink(factory, timing=FAST, rng=random.Random(42), sleep=fake_sleep)
    async with link:
        assert link.state == LinkState.READY
        oracle = random.Random(42)
        expected = [oracle.uniform(0.0, min(FAST.backoff_cap_s, FAST.backoff_base_s * 2**k))
                    for k in range(1, failures + 1)]
        assert slept == expected == link.backoff_log
        assert max(slept) <= FAST.backoff_cap_s
    sim_task.cancel()
    await asyncio.gather(sim_task, return_exceptions=True)


async def test_events_lost_for_good_are_reported_once_then_delivery_resumes() -> None:
    host, device = memory_pair()
    sim = SimulatedMcu(device, rng=random.Random(3), build_s=0.2, boot_s=0.0)
    sim_task = asyncio.ensure_future(sim.run())
    used = False

    async def factory() -> Transport:
        nonlocal used
        if used:
            raise TransportClosedError("single use")
        used = True
        return host

    async with TableLink(factory, timing=FAST) as link:
        log = EventLog(link)
        sim.tx.drop_next = 70  # more than the MCU's ring of 64 events
        for _ in range(35):
            sim.press_button(2, Button.PASS)  # 70 events, all dropped on the wire
        sim.set_lid(LidPart.DOOR, True)
        [lost] = await log.wait_for(EventsLost)
        await log.wait_for(ButtonEvent, count=1)
        delivered = [e for e in log.events if not isinstance(e, LinkUp)]
        assert delivered[0] == lost
        # BOOT was seq 1 (before the handshake); seqs 2..71 dropped; the ring (64) still holds 9..72
        assert (lost.first, lost.last) == (2, 8)
        await log.wait_for(ButtonEvent, count=63)
        await log.wait_for(LidEvent)
        assert len(log.of(ButtonEvent)) == 63  # 9..71, each once, in order
        assert [e.pressed for e in log.of(ButtonEvent)] == [False] + [True, False] * 31
        assert delivered[-1] == lost or isinstance(delivered[-1], ButtonEvent | LidEvent)
        assert log.events[-1].to_json() == {"type": "lid", "part": "door", "open": True}
        assert len(log.of(EventsLost)) == 1
        await log.close()
    sim_task.cancel()
    await asyncio.gather(sim_task, return_exceptions=True)


async def test_reset_noticed_by_heartbeat_when_boot_event_is_lost() -> None:
    host, device = memory_pair()
    sim = SimulatedMcu(device, rng=random.Random(3), build_s=0.2, boot_s=0.0)
    sim_task = asyncio.ensure_future(sim.run())

    async def factory() -> Transport:
        return host

    async with TableLink(factory, timing=FAST) as link:
        log = EventLog(link)
        await link.set_seat_lights([3])
        sim.tx.drop_next = 1  # the BOOT event
        sim.reset()
        [reset] = await log.wait_for(McuReset)
        assert reset.reason in ("noticed by heartbeat", "watchdog")
        await until(lambda: sim.table.lights == 0b1000)  # lamps re-applied after the re-handshake
        assert len(log.of(McuReset)) == 1
        await log.close()
    sim_task.cancel()
    await asyncio.gather(sim_task, return_exceptions=True)


async def test_no_table_raises_link_lost_and_leaves_nothing_running() -> None:
    async def factory() -> Transport:
        raise TransportClosedError("no port")

    async def fake_sleep(delay_s: float) -> None:
        await asyncio.sleep(0.001)

    link = TableLink(factory, timing=FAST.__class__(connect_timeout_s=0.2), sleep=fake_sleep)
    with pytest.raises(LinkLostError):
        await link.__aenter__()
    assert link.state == LinkState.CLOSED
    assert link._tasks == {}
    with pytest.raises(LinkLostError):
        await link.roll_dice()


async def test_events_are_json_ready() -> None:
    ev = Fault(FaultCode.MOTOR_OVERCURRENT, Severity.CRITICAL, 0, 17)
    assert json.loads(json.dumps(ev.to_json())) == {
        "type": "fault", "code": "motor_overcurrent", "severity": "critical", "detail": 0, "build_id": 17}


async def test_simulated_table_implements_the_port_and_stops_cleanly() -> None:
    async with simulated_table(build_s=5.0, seed=2, timing=FAST) as (link, sim):
        port: TablePort = link
        build = asyncio.ensure_future(port.shuffle_and_build(tile_set=108))
        await until(lambda: sim.table.state == McuState.BUILDING)
        await port.stop()
        with pytest.raises(BuildAbortedError):
            await build
        assert (await port.status()).state == "idle"


async def test_emergency_stop_latches_until_reset() -> None:
    async with simulated_table(seed=3, timing=FAST) as (link, _sim):
        log = EventLog(link)
        await link.emergency_stop()
        with pytest.raises(McuNackError) as nack:
            await link.roll_dice()
        assert nack.value.reason == NackReason.ESTOP_ACTIVE
        await link.reset()
        [reset] = await log.wait_for(McuReset)
        assert reset.expected
        assert (await link.status()).state == "idle"
        assert 1 <= (await link.roll_dice())[0] <= 6
        await log.close()


async def test_unknown_command_and_bad_arguments_are_refused_clearly() -> None:
    async with simulated_table(seed=4, timing=FAST) as (link, _sim):
        with pytest.raises(McuNackError) as nack:
            await link.request("SEAT_LIGHTS", lights=0xFF)
        assert nack.value.reason == NackReason.BAD_ARGUMENT
        with pytest.raises(ValueError, match="not idempotent"):
            await link.request("ROLL_DICE")
        with pytest.raises(ValueError, match="seat"):
            await link.set_seat_lights([4])
        with pytest.raises(ValueError):
            await link.select_tile_set(tile_set=140)


async def test_mcu_refuses_unknown_commands_and_bad_payloads() -> None:
    async with simulated_table(seed=5, timing=FAST) as (link, _sim):
        with pytest.raises(McuNackError) as nack:
            await link._transact(CommandSpec(0x7E, "FUTURE", True, 0.25, (), (), "not in v1"), {})
        assert nack.value.reason == NackReason.UNKNOWN_COMMAND
        short = CommandSpec(COMMANDS_BY_NAME["SEAT_LIGHTS"].ident, "SEAT_LIGHTS", True, 0.25, (), (), "no payload")
        with pytest.raises(McuNackError) as nack:
            await link._transact(short, {})
        assert nack.value.reason == NackReason.BAD_LENGTH
        assert link.state == LinkState.READY
