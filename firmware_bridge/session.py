"""``TableLink``: the host side of protocol v1 - seqs, pending futures, retries, heartbeat, reconnect.

Example::

    async with TableLink(serial_factory("/dev/ttyAMA0")) as table:
        result = await table.shuffle_and_build(tile_set=144)
        dice = await table.roll_dice()
        async for ev in table.events():
            ...

Rules it keeps: a request's future is registered before the frame is written; replies are matched by seq; only
idempotent commands are retransmitted (same seq); a non-idempotent command whose reply is lost is settled by
STATUS (``last_seq``) and sent again under a new seq only when the MCU provably did not run it; every wait races
the link loss.  Events reach ``events()`` in MCU order, exactly once (gaps are filled by EVENTS_REPLAY); an MCU
restart is reported once as ``McuReset``.  Everything runs on the loop that entered the context manager; the
public coroutines must be awaited from that loop.  Owns the tasks ``table.supervisor``, ``table.rx`` and
``table.replay``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

from firmware_bridge.commands import COMMANDS_BY_NAME, TileSet, WallLayout
from firmware_bridge.event_map import table_status
from firmware_bridge.events import BuildAbortedError, BuildResult, RequestTimeoutError, TableStatus
from firmware_bridge.link import LinkCore, LinkState, LinkTiming

__all__ = ["LinkState", "LinkTiming", "TableLink"]


class TableLink(LinkCore):
    """One table MCU link, owned by one asyncio loop (constructor arguments: see :class:`LinkCore`).
    Implements :class:`firmware_bridge.table.TableController`."""

    #: ROLL_DICE's ACK carries the dice values
    reads_dice = True

    # ------------------------------------------------------------------ public API
    async def status(self) -> TableStatus:
        """The table's STATUS."""
        return table_status(await self.request("STATUS"))

    async def select_tile_set(self, tile_set: int = TileSet.MCR_144, layout: WallLayout = WallLayout.STANDARD) -> None:
        """Select the tile set (144, 136 or 108) and layout; re-applied automatically after an MCU reset."""
        args = {"tile_set": int(TileSet(tile_set)), "layout": int(layout)}
        await self.request("SELECT_TILE_SET", **args)
        self._config["SELECT_TILE_SET"] = args

    async def shuffle_and_build(self, tile_set: int = TileSet.MCR_144,
                                layout: WallLayout = WallLayout.STANDARD) -> BuildResult:
        """Shuffle and build the walls; returns when BUILD_DONE arrives (about 60 s on a real table).

        Raises:
            BuildFailedError: a fault aborted the build.  McuResetError: the MCU restarted.
            McuNackError: refused (BUSY, FAULT_ACTIVE, LID_OPEN ...).  LinkLostError, RequestTimeoutError.
        """
        await self.select_tile_set(tile_set, layout)
        seqs: list[int] = []
        loop = asyncio.get_running_loop()

        def register(seq: int) -> None:
            seqs.append(seq)
            self._builds[seq] = loop.create_future()

        try:
            ack = await self._once("SHUFFLE_AND_BUILD", {"tile_set": int(tile_set)}, register,
                                   lambda status, seq: {"build_id": seq, "expected_ms": 90_000})
            fut = self._builds[ack["build_id"]]
            try:
                async with asyncio.timeout(ack["expected_ms"] / 1000 * 1.5 + self.timing.build_margin_s):
                    return await fut
            except TimeoutError:
                raise RequestTimeoutError("SHUFFLE_AND_BUILD (BUILD_DONE)", ack["build_id"], 1) from None
        finally:
            for seq in seqs:
                leftover = self._builds.pop(seq, None)
                if leftover is not None and leftover.done() and not leftover.cancelled():
                    leftover.exception()  # retrieved: no "never retrieved" warning

    async def raise_walls(self) -> None:
        """Lift the built walls to the table top (idempotent)."""
        await self.request("RAISE_WALLS")

    async def roll_dice(self) -> tuple[int, int]:
        """Spin the dice; returns the two values (1..6).  Never rolls twice for one call."""
        r = await self._once("ROLL_DICE", {}, None, lambda status, seq: {"dice1": status["dice1"],
                                                                         "dice2": status["dice2"]})
        return r["dice1"], r["dice2"]

    async def stop(self) -> None:
        """Stop motion; a running build is abandoned (its ``shuffle_and_build`` raises ``BuildAbortedError``)."""
        await self.request("STOP")
        self._fail_builds("stopped")

    async def emergency_stop(self) -> None:
        """Cut motor power now and latch ESTOP (cleared by ``reset()`` only)."""
        await self.request("EMERGENCY_STOP")
        self._fail_builds("emergency stop")

    def _fail_builds(self, why: str) -> None:
        for fut in self._builds.values():
            if not fut.done():
                fut.set_exception(BuildAbortedError(f"build abandoned: {why}"))

    async def set_seat_lights(self, seats: Iterable[int]) -> None:
        """Light the lamps of ``seats`` (0..3), others off; re-applied after an MCU reset."""
        mask = 0
        for s in seats:
            if not 0 <= s <= 3:
                raise ValueError(f"seat {s} outside 0..3")
            mask |= 1 << s
        await self.request("SEAT_LIGHTS", lights=mask)
        self._config["SEAT_LIGHTS"] = {"lights": mask}

    async def clear_fault(self) -> None:
        """Acknowledge an ERROR fault so a new build may start."""
        await self.request("CLEAR_FAULT")

    async def reset(self) -> None:
        """Reboot the MCU; the resulting ``McuReset`` event has ``expected=True``."""
        await self._wait_ready()
        self._reset_requested = True
        with contextlib.suppress(RequestTimeoutError):
            await self._transact(COMMANDS_BY_NAME["RESET"], {})


