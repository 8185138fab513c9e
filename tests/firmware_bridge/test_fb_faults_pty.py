"""Bridge <-> simulator through a real pseudo-terminal and pyserial: one test per fault, with its recovery."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator

import pytest

from firmware_bridge.commands import Button, FaultCode, LidPart, NackReason, Severity
from firmware_bridge.events import (
    BuildDone,
    BuildFailedError,
    BuildProgress,
    ButtonEvent,
    Fault,
    LidEvent,
    LinkDown,
    LinkUp,
    McuNackError,
    McuReset,
    McuResetError,
)
from firmware_bridge.session import LinkState, TableLink
from firmware_bridge.transport import serial_factory
from tests.firmware_bridge.fb_helpers import FAST, EventLog, Rig, make_rig, until


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    """The simulated MCU on a real pty and a READY ``TableLink`` on pyserial, with an ``EventLog``."""
    async with make_rig() as r:
        yield r


async def test_happy_hand(rig: Rig) -> None:
    result = await rig.link.shuffle_and_build(tile_set=136)
    assert result.tiles == 136
    await rig.link.raise_walls()
    d1, d2 = await rig.link.roll_dice()
    assert (d1, d2) == rig.sim.table.dice and 1 <= d1 <= 6 and 1 <= d2 <= 6
    progress = [e.percent for e in rig.log.of(BuildProgress) if e.build_id == result.build_id]
    assert progress == list(range(10, 101, 10))
    await rig.log.wait_for(BuildDone)
    status = await rig.link.status()
    assert status.state == "raised" and status.tile_set == 136


async def test_lost_reply_of_idempotent_command_is_retransmitted_with_the_same_seq(rig: Rig) -> None:
    rig.sim.tx.drop_next = 1
    await rig.link.set_seat_lights([0, 2])
    assert rig.sim.table.lights == 0b0101
    assert rig.sim.executed["SEAT_LIGHTS"] == 1  # second copy answered from the reply cache
    assert rig.sim.stats["cache_hits"] == 1


async def test_lost_request_of_dice_roll_is_sent_again_under_a_new_seq(rig: Rig) -> None:
    rig.sim.rx.drop_next = 1
    dice = await rig.link.roll_dice()
    assert dice == rig.sim.table.dice
    assert rig.sim.executed["ROLL_DICE"] == 1


async def test_lost_reply_of_dice_roll_is_settled_by_status_not_by_rolling_again(rig: Rig) -> None:
    rig.sim.tx.drop_next = 1
    dice = await rig.link.roll_dice()
    assert dice == rig.sim.table.dice
    assert rig.sim.executed["ROLL_DICE"] == 1


async def test_lost_ack_of_shuffle_is_settled_by_status_and_the_build_completes(rig: Rig) -> None:
    rig.sim.faults.drop_reply_to = "SHUFFLE_AND_BUILD"
    result = await rig.link.shuffle_and_build(tile_set=144)
    assert result.tiles == 144
    assert rig.sim.executed["SHUFFLE_AND_BUILD"] == 1


async def test_delayed_old_request_is_refused_as_stale(rig: Rig) -> None:
    rig.sim.rx.delay_next, rig.sim.rx.delay_s = 1, 0.6
    await rig.link.roll_dice()
    await until(lambda: rig.sim.stats["stale"] == 1)
    assert rig.sim.executed["ROLL_DICE"] == 1


async def test_duplicated_frames_deliver_each_event_once(rig: Rig) -> None:
    rig.sim.tx.duplicate_rate = 1.0
    result = await rig.link.shuffle_and_build()
    rig.sim.press_button(1, Button.CALL)
    await rig.log.wait_for(ButtonEvent, count=2)
    progress = [e.percent for e in rig.log.of(BuildProgress) if e.build_id == result.build_id]
    assert progress == list(range(10, 101, 10))
    assert len(rig.log.of(BuildDone)) == 1
    assert [(e.seat, e.button, e.pressed) for e in rig.log.of(ButtonEvent)] == [(1, Button.CALL, True),
                                                                                (1, Button.CALL, False)]


async def test_corrupted_frames_are_dropped_and_commands_complete() -> None:
    # 10 % of frames corrupted each way; 11 transmissions per idempotent command: P(fail) ~ 0.19^11 per command
    async with make_rig(timing=dataclasses.replace(FAST, retries=10)) as rig:
        rig.sim.tx.corrupt_rate = rig.sim.rx.corrupt_rate = 0.1
        for i in range(20):
            await rig.link.set_seat_lights([i % 4])
            assert (await rig.link.status()).lights == 1 << (i % 4)
        dice = await rig.link.roll_dice()
        assert dice == rig.sim.table.dice and rig.sim.executed["ROLL_DICE"] == 1
        assert rig.link._decoder.rejected + rig.sim._decoder.rejected > 0  # corruption really happened


async def test_delayed_event_is_delivered_in_order(rig: Rig) -> None:
    rig.sim.tx.delay_next, rig.sim.tx.delay_s = 1, 0.15
    rig.sim.press_button(3, Button.READY)  # the "pressed" event is held back; "released" overtakes it
    rig.sim.set_lid(LidPart.LID, True)
    await rig.log.wait_for(LidEvent)
    kinds = [(type(e).__name__, getattr(e, "pressed", None)) for e in rig.log.events if not isinstance(e, LinkUp)]
    assert kinds == [("ButtonEvent", True), ("ButtonEvent", False), ("LidEvent", None)]


async def test_reset_in_the_middle_of_a_shuffle(rig: Rig) -> None:
    boot = rig.link.boot
    rig.sim.faults.reset_during_build = True
    with pytest.raises(McuResetError):
        await rig.link.shuffle_and_build(tile_set=108)
    [reset] = await rig.log.wait_for(McuReset)
    assert (reset.previous_boot, reset.boot, reset.interrupted, reset.expected) == (
        boot, rig.sim.boot_counter, "SHUFFLE_AND_BUILD", False)
    await until(lambda: rig.link.state == LinkState.READY and rig.sim.table.tile_set == 108)  # re-handshaken
    result = await rig.link.shuffle_and_build(tile_set=108)
    assert result.tiles == 108
    assert len(rig.log.of(McuReset)) == 1  # exactly one clear fault event
    assert rig.log.of(LinkDown) == []


async def test_reset_while_a_command_is_outstanding(rig: Rig) -> None:
    rig.sim.faults.reset_on_command = "ROLL_DICE"
    with pytest.raises(McuResetError):
        await rig.link.roll_dice()
    [reset] = await rig.log.wait_for(McuReset)
    assert reset.interrupted == "ROLL_DICE"
    assert rig.sim.executed["ROLL_DICE"] == 0
    assert await rig.link.roll_dice() == rig.sim.table.dice


async def test_requested_reset_is_reported_as_expected(rig: Rig) -> None:
    await rig.link.reset()
    [reset] = await rig.log.wait_for(McuReset)
    assert reset.expected and reset.reason == "reset_command"


async def test_jam_aborts_the_build_until_cleared(rig: Rig) -> None:
    rig.sim.faults.fail_next_build = FaultCode.JAM
    with pytest.raises(BuildFailedError) as info:
        await rig.link.shuffle_and_build()
    assert info.value.fault.code == FaultCode.JAM and info.value.fault.severity == Severity.ERROR
    [fault] = await rig.log.wait_for(Fault)
    assert fault == info.value.fault
    with pytest.raises(McuNackError) as nack:
        await rig.link.shuffle_and_build()
    assert nack.value.reason == NackReason.FAULT_ACTIVE
    await rig.link.clear_fault()
    assert (await rig.link.shuffle_and_build()).tiles == 144


async def test_critical_motor_overcurrent_refuses_builds_until_reset(rig: Rig) -> None:
    """CRITICAL: motors disabled until a person has looked at the table and the host sends RESET
    (docs/serial-protocol.md, Severity).  Injected through the simulator's control channel."""
    reply = rig.sim.apply_control({"op": "fault", "code": "motor_overcurrent", "severity": "critical"})
    assert reply["ok"]
    [fault] = await rig.log.wait_for(Fault)
    assert (fault.code, fault.severity) == (FaultCode.MOTOR_OVERCURRENT, Severity.CRITICAL)
    for _ in range(2):  # refused every time, not just once
        with pytest.raises(McuNackError) as nack:
            await rig.link.shuffle_and_build(tile_set=144)
        assert nack.value.reason == NackReason.FAULT_ACTIVE and nack.value.detail == FaultCode.MOTOR_OVERCURRENT
    assert rig.sim.executed["SHUFFLE_AND_BUILD"] == 0
    status = await rig.link.status()
    assert status.state == "fault" and status.fault == "motor_overcurrent"
    with pytest.raises(McuNackError) as refused:  # CLEAR_FAULT acknowledges ERROR faults only
        await rig.link.clear_fault()
    assert refused.value.reason == NackReason.FAULT_ACTIVE
    await rig.link.reset()
    [reset] = await rig.log.wait_for(McuReset)
    assert reset.expected and reset.reason == "reset_command"
    await until(lambda: rig.link.state == LinkState.READY)
    assert (await rig.link.shuffle_and_build(tile_set=144)).tiles == 144
    assert rig.sim.executed["SHUFFLE_AND_BUILD"] == 1


async def test_wrong_tile_count_reports_the_count(rig: Rig) -> None:
    rig.sim.faults.fail_next_build = FaultCode.WRONG_TILE_COUNT
    with pytest.raises(BuildFailedError) as info:
        await rig.link.shuffle_and_build(tile_set=144)
    assert info.value.fault.code == FaultCode.WRONG_TILE_COUNT and info.value.fault.detail == 143


async def test_lift_timeout(rig: Rig) -> None:
    await rig.link.shuffle_and_build()
    rig.sim.faults.lift_timeout = True
    with pytest.raises(McuNackError) as nack:
        await rig.link.raise_walls()
    assert nack.value.reason == NackReason.FAULT_ACTIVE and nack.value.detail == FaultCode.LIFT_TIMEOUT
    [fault] = await rig.log.wait_for(Fault)
    assert fault.code == FaultCode.LIFT_TIMEOUT


async def test_over_temperature_warning_does_not_stop_the_build(rig: Rig) -> None:
    task = asyncio.ensure_future(rig.link.shuffle_and_build())
    await rig.log.wait_for(BuildProgress)
    rig.sim.inject_fault(FaultCode.OVER_TEMPERATURE, Severity.WARNING, 650)
    assert (await task).tiles == 144
    [fault] = await rig.log.wait_for(Fault)
    assert (fault.code, fault.severity, fault.detail) == (FaultCode.OVER_TEMPERATURE, Severity.WARNING, 650)


async def test_silent_mcu_link_goes_down_and_comes_back_without_losing_events(rig: Rig) -> None:
    rig.sim.faults.silent_until_s = rig.sim.clock() + 1.5
    with pytest.raises(Exception):  # noqa: B017 - LinkLostError or RequestTimeoutError, both fine here
        await rig.link.set_seat_lights([1])
    await rig.log.wait_for(LinkDown)
    rig.sim.faults.silent_until_s = 0.0
    rig.sim.press_button(0, Button.DICE)  # sent while the host is away: must arrive after the reconnect
    await rig.log.wait_for(LinkUp, count=2)
    await rig.log.wait_for(ButtonEvent, count=2)
    assert rig.log.of(McuReset) == []
    await rig.link.set_seat_lights([1])
    assert rig.sim.table.lights == 0b10
    assert len(rig.log.of(ButtonEvent)) == 2


async def test_port_gone_then_back(rig: Rig) -> None:
    """The port reports an error (USB unplugged); the supervisor reconnects with backoff."""
    transport = rig.link._transport
    assert transport is not None
    await transport.close()
    await rig.log.wait_for(LinkDown)
    await rig.log.wait_for(LinkUp, count=2)
    assert await rig.link.roll_dice() == rig.sim.table.dice


async def test_host_restart_starts_clean_on_a_running_table(rig: Rig) -> None:
    """The Pi service restarts (new TableLink, seq from 1 again) while the MCU keeps running."""
    for _ in range(3):
        await rig.link.roll_dice()
    rig.sim.press_button(0, Button.CALL)
    await rig.log.wait_for(ButtonEvent, count=2)
    await rig.link.aclose()
    async with TableLink(serial_factory(rig.path), timing=FAST) as fresh:
        log = EventLog(fresh)
        assert fresh.boot == rig.sim.boot_counter
        assert await fresh.roll_dice() == rig.sim.table.dice  # seq 2 < MCU's newest seq: HELLO reset the floor
        assert rig.sim.executed["ROLL_DICE"] == 4 and rig.sim.stats["stale"] == 0
        rig.sim.set_lid(LidPart.LID, True)
        await log.wait_for(LidEvent)
        assert log.of(ButtonEvent) == []  # events from before this host started are not replayed as new
        await log.close()
