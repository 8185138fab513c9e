"""``mjtable table-check``: the conformance sequence passes against the reference simulator and fails, naming the
step and what was wrong, against a simulator given a firmware bug; in-process (every bug) and as two processes
on a pty (the command as a firmware author runs it)."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from firmware_bridge.check import STEPS, check_board
from firmware_bridge.simulator import BUGS, SimulatedMcu
from firmware_bridge.transport import memory_pair


@asynccontextmanager
async def in_memory_board(bugs: tuple[str, ...] = ()) -> AsyncIterator[Any]:
    host, device = memory_pair()
    sim = SimulatedMcu(device, rng=random.Random(5), build_s=0.05, boot_s=0.01)
    sim.bugs.update(bugs)
    task = asyncio.create_task(sim.run())
    await asyncio.sleep(0.05)  # booted
    try:
        yield host
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_the_reference_simulator_passes_every_step() -> None:
    lines: list[dict[str, Any]] = []
    async with in_memory_board() as host:
        summary = await check_board(host, lines.append)
    assert [x["step"] for x in lines] == [name for name, _ in STEPS]
    assert all(x["ok"] for x in lines), [x for x in lines if not x["ok"]]
    assert summary["ok"] and summary["passed"] == len(STEPS) and summary["failed"] == []


@pytest.mark.parametrize(("bug", "step", "says"), [
    ("no_reply_cache", "roll_dice_exactly_once", "answer repeats from the reply cache"),
    ("wrong_build_id", "build", "BUILD_DONE build_id"),
    ("ignore_unknown", "unknown_command", "expected NACK UNKNOWN_COMMAND, no reply"),
])
async def test_a_firmware_bug_fails_its_step_with_a_clear_report(bug: str, step: str, says: str) -> None:
    lines: list[dict[str, Any]] = []
    async with in_memory_board((bug,)) as host:
        summary = await check_board(host, lines.append)
    failed = [x for x in lines if not x["ok"]]
    assert [x["step"] for x in failed] == [step]
    assert says in failed[0]["detail"]
    assert not summary["ok"] and summary["failed"] == [step] and summary["passed"] == len(STEPS) - 1


def test_every_bug_is_covered() -> None:
    assert set(BUGS) == {"no_reply_cache", "wrong_build_id", "ignore_unknown"}


async def _run(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "mjtable.cli", *args,
                                                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)


@pytest.mark.parametrize("bug", [None, "no_reply_cache"])
async def test_table_check_against_table_sim_on_a_pty(bug: str | None) -> None:
    sim = await _run("table-sim", "--fast", "--seed", "2")
    assert sim.stdout is not None and sim.stdin is not None
    try:
        async with asyncio.timeout(20):
            pty = json.loads(await sim.stdout.readline())["pty"]
            if bug is not None:  # injected through the simulator's control channel
                sim.stdin.write(json.dumps({"op": "bug", "name": bug}).encode() + b"\n")
                await sim.stdin.drain()
                assert json.loads(await sim.stdout.readline()) == {"ok": True, "op": "bug"}
        check = await _run("table-check", "--port", pty)
        async with asyncio.timeout(60):
            out, _ = await check.communicate()
        lines = [json.loads(x) for x in out.decode().splitlines()]
        summary = lines[-1]
        assert summary["event"] == "summary" and summary["port"] == pty
        if bug is None:
            assert check.returncode == 0 and summary["ok"] and summary["passed"] == len(STEPS)
        else:
            assert check.returncode == 1 and summary["failed"] == ["roll_dice_exactly_once"]
            bad = next(x for x in lines if x.get("step") == "roll_dice_exactly_once")
            assert bad["ok"] is False and "NACK STALE_SEQ" in bad["detail"]
    finally:
        sim.terminate()
        await sim.wait()


async def test_an_absent_port_exits_2_with_the_reason() -> None:
    check = await _run("table-check", "--port", "/dev/mjtable-no-such-port")
    out, _ = await check.communicate()
    assert check.returncode == 2
    assert json.loads(out)["event"] == "error" and "mjtable-no-such-port" in json.loads(out)["error"]
