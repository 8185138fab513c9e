"""An MCU reset in the middle of a shuffle, through the real simulator on a pty and the real service:
exactly one fault reaches the engine, the clocks pause, the referee gets an alert, and after the referee's
*resume* the service asks the table again and the rebuild works."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.engine.state import Phase
from mjtable.config import parse_config
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.service import Injected, build_service
from mjtable.service.notify import RecordingNotifier


@pytest.fixture
def table_sim() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "table-sim", "--fast", "--build-s", "0.6",
                             "--seed", "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    yield proc
    proc.terminate()
    proc.wait(10)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


def control(proc: subprocess.Popen[bytes], cmd: dict[str, object]) -> dict[str, object]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(cmd) + "\n").encode())
    proc.stdin.flush()
    reply: dict[str, object] = json.loads(proc.stdout.readline())
    return reply


async def test_reset_mid_shuffle_is_one_fault_then_rebuild(table_sim: subprocess.Popen[bytes], tmp_path: Path) -> None:
    assert table_sim.stdout is not None
    pty = json.loads(table_sim.stdout.readline())["pty"]
    assert control(table_sim, {"op": "reset_during_build"})["ok"] is True
    cfg = parse_config({"table": {"id": "R1", "data_dir": str(tmp_path)}, "serial": {"port": pty},
                        "camera": {"source": "none"}, "gpio": {"backend": "none"}})
    service = build_service(cfg, Injected(notifier=RecordingNotifier(), publisher=FakePublisher(MemoryBroker())))
    run = asyncio.create_task(service.run())

    async def until(pred: object, timeout_s: float = 20.0) -> None:
        async def wait() -> None:
            while not pred():  # type: ignore[operator]
                service.changed.clear()
                await service.changed.wait()
        await asyncio.wait_for(wait(), timeout_s)

    try:
        await until(lambda: service.state.paused)
        await asyncio.sleep(1.0)  # both reports of the reset (event + failed build) have arrived by now
        st = service.state
        faults = [a for a in st.alerts if a.kind == "mcu_fault"]
        assert len(faults) == 1 and "restarted" in faults[0].message
        assert st.phase is Phase.BUILDING and st.paused
        service.emit_json({"type": "referee", "id": "cmd:resume-1", "at_s": service.clock(), "command": "resume"})
        await until(lambda: service.state.phase is not Phase.BUILDING)
        assert service.state.hand is not None  # the rebuilt wall started a hand
        assert len([a for a in service.state.alerts if a.kind == "mcu_fault"]) == 1
    finally:
        service.stop()
        await run
        service.table.close()
    journal = [json.loads(x) for x in (tmp_path / "R1.journal.jsonl").read_text().splitlines()]
    types = [r["event"]["type"] for r in journal if r["rec"] == "event"]
    assert types.count("mcu_fault") == 1
    assert types.index("mcu_fault") < types.index("referee") < types.index("table_built")
