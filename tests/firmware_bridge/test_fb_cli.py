"""``mjtable table-sim`` as a separate process: pty path on stdout, faults injected through stdin JSON lines."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.events import BuildFailedError, DiceRolled, LinkDown, LinkLostError, McuReset, McuResetError
from firmware_bridge.session import TableLink
from firmware_bridge.transport import Transport, TransportClosedError, TransportFactory, serial_factory
from tests.firmware_bridge.fb_helpers import FAST, EventLog


class SimProcess:
    def __init__(self, proc: asyncio.subprocess.Process, info: dict[str, Any]) -> None:
        self.proc = proc
        self.info = info

    async def control(self, cmd: dict[str, Any] | str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        line = cmd if isinstance(cmd, str) else json.dumps(cmd)
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()
        async with asyncio.timeout(10):
            reply: dict[str, Any] = json.loads(await self.proc.stdout.readline())
        return reply


@pytest.fixture
async def sim_process() -> AsyncIterator[SimProcess]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mjtable.cli", "table-sim", "--pty", "--fast", "--seed", "11",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    async with asyncio.timeout(20):
        info = json.loads(await proc.stdout.readline())
    try:
        yield SimProcess(proc, info)
    finally:
        if proc.returncode is None:
            proc.terminate()
            async with asyncio.timeout(10):
                await proc.wait()


async def test_reset_mid_shuffle_in_a_separate_process(sim_process: SimProcess) -> None:
    assert sim_process.info["pty"].startswith("/dev/")
    async with TableLink(serial_factory(sim_process.info["pty"]), timing=FAST) as link:
        log = EventLog(link)
        assert (await link.shuffle_and_build(tile_set=144)).tiles == 144
        assert await sim_process.control({"op": "reset_during_build"}) == {"ok": True, "op": "reset_during_build"}
        with pytest.raises(McuResetError):
            await link.shuffle_and_build(tile_set=144)
        [reset] = await log.wait_for(McuReset)
        assert reset.interrupted == "SHUFFLE_AND_BUILD" and reset.boot == reset.previous_boot + 1
        await sim_process.control({"op": "jam"})
        with pytest.raises(BuildFailedError):
            await link.shuffle_and_build(tile_set=144)
        await link.clear_fault()
        dice = await link.roll_dice()
        status = await sim_process.control({"op": "status"})
        assert status["boot"] == reset.boot and status["state"] == "idle" and all(1 <= d <= 6 for d in dice)
        assert len(log.of(McuReset)) == 1
        await log.close()


async def test_bad_control_lines_get_a_clear_error(sim_process: SimProcess) -> None:
    assert (await sim_process.control("not json"))["ok"] is False
    assert "unknown op" in (await sim_process.control({"op": "explode"}))["error"]
    assert "seat" in (await sim_process.control({"op": "button", "seat": 9}))["error"]
    assert (await sim_process.control({"op": "rates", "corrupt": 2}))["ok"] is False
    assert "unknown command" in (await sim_process.control({"op": "drop_reply", "command": "FLY"}))["error"]
    assert (await sim_process.control({"op": "status"}))["ok"] is True


def the_first_open_only(url: str) -> TransportFactory:
    """Open ``url`` once; later opens fail as a vanished device does.

    The kernel hands a freed pty number to the next process that asks (another test worker's simulator), so
    reopening the dead simulator's path could reach a live, foreign one.  A USB serial adapter that is pulled
    fails to open instead; this factory models that.
    """
    opened = False
    first = serial_factory(url)

    async def factory() -> Transport:
        nonlocal opened
        if opened:
            raise TransportClosedError(f"cannot open {url}: the device is gone")
        opened = True
        return await first()

    return factory


async def test_simulator_killed_link_goes_down(sim_process: SimProcess) -> None:
    timing = dataclasses.replace(FAST, ready_wait_s=0.3)
    async with TableLink(the_first_open_only(sim_process.info["pty"]), timing=timing) as link:
        log = EventLog(link)
        sim_process.proc.kill()
        await sim_process.proc.wait()
        await log.wait_for(LinkDown)
        with pytest.raises(LinkLostError):
            await link.roll_dice()
        await log.close()


async def test_control_socket(tmp_path: Path) -> None:
    sock = tmp_path / "sim.sock"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mjtable.cli", "table-sim", "--fast", "--control-socket", str(sock),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    try:
        async with asyncio.timeout(20):
            info = json.loads(await proc.stdout.readline())
        assert info["control_socket"] == str(sock)
        async with TableLink(serial_factory(info["pty"]), timing=FAST) as link:
            log = EventLog(link)
            reader, writer = await asyncio.open_unix_connection(str(sock))
            writer.write(b'{"op": "button", "seat": 2, "button": "dice"}\nnonsense\n')
            await writer.drain()
            async with asyncio.timeout(10):
                assert json.loads(await reader.readline()) == {"ok": True, "op": "button"}
                assert json.loads(await reader.readline())["ok"] is False
            writer.close()
            [rolled] = await log.wait_for(DiceRolled)
            assert rolled.seat == 2 and all(1 <= d <= 6 for d in rolled.dice)
            await log.close()
    finally:
        proc.terminate()
        async with asyncio.timeout(10):
            assert await proc.wait() == 0
    assert not sock.exists()
