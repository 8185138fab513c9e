"""An in-process simulated table for tests and demos: ``SimulatedMcu`` and a READY ``TableLink`` joined in memory.

Example::

    async with simulated_table(build_s=0.2, seed=1) as (table, sim):
        sim.faults.fail_next_build = FaultCode.JAM
        ...

Everything runs on the caller's loop.  For a separate process on a real pty use ``mjtable table-sim --pty``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

from firmware_bridge.session import LinkTiming, TableLink
from firmware_bridge.simulator import SimulatedMcu
from firmware_bridge.transport import Transport, TransportClosedError, memory_pair


@contextlib.asynccontextmanager
async def simulated_table(*, build_s: float = 0.2, boot_s: float = 0.02, seed: int = 0,
                          timing: LinkTiming | None = None) -> AsyncIterator[tuple[TableLink, SimulatedMcu]]:
    """Yield ``(link, sim)``: a connected link and the simulator behind it (build ``build_s`` seconds)."""
    host, device = memory_pair()
    sim = SimulatedMcu(device, rng=random.Random(seed), build_s=build_s, boot_s=boot_s)
    sim_task = asyncio.ensure_future(sim.run())
    opened = False

    async def factory() -> Transport:
        nonlocal opened
        if opened:  # an in-memory pipe cannot be reopened once the link dropped it
            raise TransportClosedError("in-memory table already used")
        opened = True
        return host

    try:
        async with TableLink(factory, timing=timing, rng=random.Random(seed)) as link:
            yield link, sim
    finally:
        sim_task.cancel()
        await asyncio.gather(sim_task, return_exceptions=True)
        await device.close()
