"""Issue 19 point 5: one ERROR fault from the MCU must not wedge the table.  For each fault kind of the simulator
(jam, wrong tile count, motor overcurrent, sensor fault, lift timeout, over-temperature) the referee sees the fault,
clears it with a ``clear_fault`` command over MQTT (the service sends CLEAR_FAULT through the link's
``clear_fault``), and the engine builds again.  Before: the host never sent CLEAR_FAULT; every build was refused.

The service runs for real (engine, journal, MCU part, MQTT part) with the simulator on an in-memory transport and the
in-memory broker (the MQTT path is covered against mosquitto elsewhere)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from controller.engine.state import Phase
from firmware_bridge.commands import FaultCode, Severity
from firmware_bridge.session import LinkTiming, TableLink
from firmware_bridge.simulator import SimulatedMcu
from firmware_bridge.transport import Transport, memory_pair
from mjtable.config import parse_config
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.topics import TableTopics
from mjtable.service import Injected, TableService, build_service
from mjtable.service.notify import RecordingNotifier

FACES = tuple(t for t in (f"{n}{s}" for s in "mps" for n in range(1, 10)) for _ in range(4)) + tuple(
    f"{n}z" for n in range(1, 8) for _ in range(4)) + tuple(f"{n}f" for n in range(1, 9))


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.broker = MemoryBroker()
        self.sim: SimulatedMcu | None = None
        self.tasks: list[asyncio.Task[Any]] = []
        cfg = parse_config({"table": {"id": "F1", "data_dir": str(tmp / "data"), "rules": "mcr-2006"},
                            "serial": {"port": ""}, "camera": {"source": "none"}, "gpio": {"backend": "none"}})
        self.service: TableService = build_service(cfg, Injected(
            notifier=RecordingNotifier(60.0), publisher=FakePublisher(self.broker, "table-F1"), mcu_link=self.link,
            wall_reader=lambda build_id: FACES, link_timing=LinkTiming(connect_timeout_s=5.0)))
        self.referee = FakePublisher(self.broker, "referee1")
        self.topics = TableTopics("F1")
        self.n = 0

    def link(self) -> TableLink:
        host, device = memory_pair()
        self.sim = SimulatedMcu(device, rng=random.Random(4), build_s=0.05, boot_s=0.01)
        self.tasks.append(asyncio.get_running_loop().create_task(self.sim.run()))

        async def factory() -> Transport:
            return host

        return TableLink(factory, timing=LinkTiming(connect_timeout_s=5.0))

    def command(self, command: str) -> str:
        self.n += 1
        cid = f"c{self.n}"
        doc = {"schema": "mjtable.command/1", "id": cid, "command": command}
        self.referee.publish(f"{self.topics.command}/referee1", json.dumps(doc).encode())
        return cid

    def answer(self, cid: str) -> dict[str, Any] | None:
        for m in self.broker.messages(self.topics.command_result):
            doc = json.loads(m.payload)
            if doc["command_id"] == cid:
                return dict(doc)
        return None

    async def until(self, pred: Any, what: str) -> None:
        for _ in range(1000):
            if pred():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}; phase {self.service.state.phase}, "
                             f"paused {self.service.state.paused}")


def _faulted(rig: Rig) -> bool:
    st = rig.service.state
    return st.paused and any(a.open and a.kind == "mcu_fault" for a in st.alerts)


def _built(rig: Rig) -> bool:
    st = rig.service.state
    return not st.paused and st.phase not in (Phase.BUILDING, Phase.HAND_OVER)


FAULTS = ["jam", "wrong_tile_count", "motor_overcurrent", "sensor_fault", "lift_timeout", "over_temperature"]


@pytest.mark.parametrize("kind", FAULTS)
async def test_each_fault_kind_is_seen_cleared_by_the_referee_and_the_build_retried(tmp_path: Path,
                                                                                      kind: str) -> None:
    rig = Rig(tmp_path)
    run = asyncio.create_task(rig.service.run())
    try:
        await rig.until(lambda: rig.sim is not None and rig.service.ready.is_set(), "the service")
        assert rig.sim is not None
        sim = rig.sim
        if kind == "lift_timeout":
            sim.faults.lift_timeout = True
        elif kind == "over_temperature":
            sim.build_s = 2.0  # long enough to overheat in the middle of it
        else:
            sim.faults.fail_next_build = FaultCode[kind.upper()]
        await rig.until(lambda: sim.table.state.name in ("BUILDING", "FAULT"), "a build")
        if kind == "over_temperature":
            sim.inject_fault(FaultCode.OVER_TEMPERATURE, Severity.ERROR, 900)
        await rig.until(lambda: _faulted(rig), "the fault to pause the table")
        public = [json.loads(m.payload) for m in rig.broker.messages(rig.topics.events)]
        assert any(e["type"] == "mcu_fault" for e in public)  # everyone sees that the table stopped
        if kind == "over_temperature":  # still hot: the table refuses, and the referee is told why
            cid = rig.command("clear_fault")
            await rig.until(lambda: rig.answer(cid) is not None, "the answer")
            answer = rig.answer(cid)
            assert answer is not None and not answer["ok"] and "refused" in str(answer["error"])
            assert rig.service.state.paused
            sim.table.temperature_dc = 400  # it cooled down
        sim.build_s = 0.05
        cid = rig.command("clear_fault")
        await rig.until(lambda: rig.answer(cid) is not None, "the answer")
        assert rig.answer(cid) == {**(rig.answer(cid) or {}), "ok": True}
        await rig.until(lambda: _built(rig), "the build after the clear")  # the engine retried the build
        assert sim.table.fault == 0
    finally:
        rig.service.stop()
        await asyncio.wait_for(run, 30)
        for t in rig.tasks:
            t.cancel()
        await asyncio.gather(*rig.tasks, return_exceptions=True)
        rig.service.table.close()
