"""``TablePort``: what the controller and the service need from a table MCU link.

``firmware_bridge.session.TableLink`` implements it over a real serial port or pty; the fake for tests and the
demo is the same ``TableLink`` over an in-memory transport to the simulator (``firmware_bridge.testing``).
All coroutines run on the loop that owns the link.  The subset the service drives (and that a closed table's
panel adapter implements too) is :class:`firmware_bridge.table.TableController`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Protocol

from firmware_bridge.commands import TileSet, WallLayout
from firmware_bridge.events import BuildResult, TableEvent, TableStatus
from firmware_bridge.session import LinkState


class TablePort(Protocol):
    """The table MCU as the rest of mjtable sees it (see ``TableLink`` for semantics and exceptions)."""

    @property
    def state(self) -> LinkState: ...

    @property
    def boot(self) -> int | None: ...

    def events(self) -> AsyncIterator[TableEvent]: ...

    async def status(self) -> TableStatus: ...

    async def select_tile_set(self, tile_set: int = TileSet.MCR_144,
                              layout: WallLayout = WallLayout.STANDARD) -> None: ...

    async def shuffle_and_build(self, tile_set: int = TileSet.MCR_144,
                                layout: WallLayout = WallLayout.STANDARD) -> BuildResult: ...

    async def raise_walls(self) -> None: ...

    async def roll_dice(self) -> tuple[int, int]: ...

    async def stop(self) -> None: ...

    async def emergency_stop(self) -> None: ...

    async def set_seat_lights(self, seats: Iterable[int]) -> None: ...

    async def clear_fault(self) -> None: ...

    async def reset(self) -> None: ...
