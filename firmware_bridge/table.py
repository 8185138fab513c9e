"""``TableController``: what the service needs from an automatic table, whatever drives it.

Two implementations:

* :class:`firmware_bridge.session.TableLink`: a board that speaks serial protocol v1 (``docs/serial-protocol.md``);
* :class:`firmware_bridge.panel.PanelTable`: a closed table controller driven through its own control panel
  (optocouplers on the buttons, opto-isolated inputs from its lamps; ``docs/wiring.md``).

The service (:mod:`mjtable.service.mcu`) uses nothing else.  Both deliver the same typed events
(``firmware_bridge.events``: ``LinkUp``, ``Fault``, ``BuildProgress``, ``BuildDone`` ...) and raise the same
exceptions (``BuildFailedError`` when a fault aborts a build, ``McuNackError`` when a command is refused,
``RequestTimeoutError``, ``LinkLostError``).  Everything runs on the loop that entered the context manager.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from types import TracebackType
from typing import Protocol, Self

from firmware_bridge.commands import TileSet, WallLayout
from firmware_bridge.events import BuildResult, TableEvent, TableStatus


class TableController(Protocol):
    """One automatic table, owned by one asyncio loop: ``async with table:``, then commands and ``events()``."""

    #: whether ``roll_dice`` returns the values (a v1 board) or only throws (a panel: the referee enters them)
    reads_dice: bool

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None: ...

    def events(self) -> AsyncIterator[TableEvent]:
        """Every table event in order until the table is closed (one consumer)."""
        ...

    async def status(self) -> TableStatus:
        """The table's state (``state``: idle, building, built, raised, fault, estop)."""
        ...

    async def shuffle_and_build(self, tile_set: int = TileSet.MCR_144,
                                layout: WallLayout = WallLayout.STANDARD) -> BuildResult:
        """Shuffle and build the walls; returns when they are built.  ``BuildFailedError`` when a fault (or a
        timeout, on a panel) aborts it."""
        ...

    async def raise_walls(self) -> None:
        """Lift the built walls to the table top."""
        ...

    async def roll_dice(self) -> tuple[int, int] | None:
        """Throw the dice: their values, or None when the table cannot tell them (the referee enters them)."""
        ...

    async def stop(self) -> None:
        """Stop motion; a running build raises ``BuildAbortedError``."""
        ...

    async def set_seat_lights(self, seats: Iterable[int]) -> None:
        """Light the lamps of ``seats`` (0..3); a table without seat lamps ignores it."""
        ...

    async def clear_fault(self) -> None:
        """Acknowledge the active fault so a new build may start; ``McuNackError`` (FAULT_ACTIVE) when it
        persists."""
        ...


__all__ = ["TableController"]


async def queued_events(queue: asyncio.Queue[TableEvent | None]) -> AsyncIterator[TableEvent]:
    """A link's events from its queue, in order, until the ``None`` the link puts when it closes (put back, so
    a later consumer also ends).  One consumer at a time; runs on the link's event loop."""
    while True:
        ev = await queue.get()
        if ev is None:
            queue.put_nowait(None)
            return
        yield ev
