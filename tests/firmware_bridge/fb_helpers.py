"""Test helpers: the simulated MCU on a real pseudo-terminal, the bridge on pyserial, an event recorder."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from firmware_bridge.events import TableEvent
from firmware_bridge.session import LinkTiming, TableLink
from firmware_bridge.simulator import SimulatedMcu
from firmware_bridge.transport import PtyMaster, serial_factory

#: Fast policy for tests: 0.1 s per transmission, heartbeat every 0.1 s, silence noticed in about 1.3 s.
FAST = LinkTiming(heartbeat_s=0.1, heartbeat_misses=2, retries=5, timeout_scale=0.4, backoff_base_s=0.01,
                  backoff_cap_s=0.1, ready_wait_s=5.0, connect_timeout_s=5.0, build_margin_s=5.0)
#: generous bound for "eventually" waits; never a timing assertion
WAIT_S = 10.0
E = TypeVar("E")


class EventLog:
    """Consumes ``link.events()`` in the background and keeps every event, in order."""

    def __init__(self, link: TableLink) -> None:
        self.events: list[TableEvent] = []
        self._changed = asyncio.Event()
        self._task = asyncio.ensure_future(self._consume(link))

    async def _consume(self, link: TableLink) -> None:
        async for ev in link.events():
            self.events.append(ev)
            self._changed.set()

    def of(self, cls: type[E]) -> list[E]:
        """Recorded events of type ``cls``."""
        return [e for e in self.events if isinstance(e, cls)]

    async def wait_for(self, cls: type[E], pred: Callable[[E], bool] = lambda e: True, count: int = 1) -> list[E]:
        """Wait (up to WAIT_S) until ``count`` events of ``cls`` match ``pred``; return the matches."""
        async with asyncio.timeout(WAIT_S):
            while True:
                found = [e for e in self.of(cls) if pred(e)]
                if len(found) >= count:
                    return found
                self._changed.clear()
                await self._changed.wait()

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


@dataclass
class Rig:
    """The simulator, the bridge talking to it through a pty and pyserial, and the recorded events."""

    sim: SimulatedMcu
    link: TableLink
    log: EventLog
    path: str


@contextlib.asynccontextmanager
async def make_rig(timing: LinkTiming = FAST, **sim_kwargs: Any) -> AsyncIterator[Rig]:
    """A simulator on a fresh pty (fast: 0.2 s builds, 0.02 s boots) and a connected ``TableLink``."""
    pty = PtyMaster()
    kwargs: dict[str, Any] = {"rng": random.Random(7), "build_s": 0.2, "boot_s": 0.02, **sim_kwargs}
    sim = SimulatedMcu(pty, **kwargs)
    sim_task = asyncio.ensure_future(sim.run())
    link = TableLink(serial_factory(pty.path), timing=timing, rng=random.Random(1))
    try:
        await link.__aenter__()
        log = EventLog(link)
        try:
            yield Rig(sim, link, log, pty.path)
        finally:
            await log.close()
    finally:
        await link.aclose()
        sim_task.cancel()
        await asyncio.gather(sim_task, return_exceptions=True)
        await pty.close()


async def until(pred: Callable[[], Any]) -> None:
    """Poll ``pred`` every 10 ms until true, up to WAIT_S (a condition wait, not a timing assertion)."""
    async with asyncio.timeout(WAIT_S):
        while not pred():
            await asyncio.sleep(0.01)
