"""The table-MCU part of the service: runs a :class:`firmware_bridge.table.TableController` (the serial
``TableLink`` to a protocol-v1 board, or the GPIO ``PanelTable`` of a closed table), turns its events into engine
events and executes the engine's ``McuCommand`` effects.

Runs on the service loop.  A missing or silent MCU never stops the service: the part reports ``down: ...``
in the health, keeps reconnecting with capped back-off, and the referee can enter dice by hand.  A command
that fails (NACK, fault, reset, link lost) becomes an ``McuFault`` event so the engine pauses the hand for
the referee instead of waiting forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

from controller.engine.effects import McuCommand
from controller.engine.events import ButtonPressed, DiceRolled, Event, LinkChanged, McuFault, TableBuilt
from firmware_bridge import events as mcu_events
from firmware_bridge.commands import NackReason
from firmware_bridge.events import BridgeError, BuildFailedError, BuildResult, McuNackError, McuResetError
from firmware_bridge.panel import PanelTable
from firmware_bridge.panel_config import PanelTableConfig
from firmware_bridge.session import LinkTiming, TableLink
from firmware_bridge.table import TableController
from firmware_bridge.transport import serial_factory
from hw.backend import GpioError, PinBackend
from mjtable.service.health import Health

LOGGER = logging.getLogger(__name__)

#: emit(EventClass, **fields): the runner stamps ``id`` and ``at_s``, queues the event for the engine and returns it.
Emit = Callable[..., Any]


class WallReader(Protocol):
    """The faces of a freshly built wall in physical order (full information: a table with a tile reader, or the
    demo's simulated table); None when unknown.  Real tables without a reader have none (partial information)."""

    def __call__(self, build_id: int) -> tuple[str, ...] | None: ...


class LinkFactory(Protocol):
    """Makes a fresh table controller (the serial link or the panel adapter) for each (re)connect."""

    def __call__(self) -> TableController: ...


def serial_link_factory(port: str, baud: int, timing: LinkTiming | None = None) -> LinkFactory:
    """Links over a real serial port or pty (``/dev/mjtable-mcu``, ``/dev/pts/N``)."""

    def make() -> TableController:
        return TableLink(serial_factory(port, baud), timing=timing)

    return make


def panel_link_factory(config: PanelTableConfig, open_backend: Callable[[], PinBackend],
                       *, close_backend: bool = True) -> LinkFactory:
    """Adapters for a closed table's control panel (``[panel]``); ``open_backend`` gives the GPIO backend of each
    connection (closed with the adapter when ``close_backend``; the demo shares its fake one)."""

    def make() -> TableController:
        return PanelTable(open_backend(), config, close_backend=close_backend)

    return make


class McuPart:
    """Owns the link for the life of the service.

    Args:
        link_factory: makes a fresh ``TableController`` (None: no table configured; the part stays ``off``).
        emit: queue an engine event (see :data:`Emit`).
        wall_reader: faces of each built wall (None: partial information, ``TableBuilt.tiles`` is None).
        health: where the part's state is reported.
        retry_s: pause between attempts to reach an absent MCU, seconds.
        link_wait_s: how long a command waits for the link to come up before it becomes an ``McuFault``.
    """

    def __init__(self, link_factory: LinkFactory | None, emit: Emit, health: Health, *, retry_s: float = 2.0,
                 describe: str = "", wall_reader: WallReader | None = None, link_wait_s: float = 15.0) -> None:
        self._factory = link_factory
        self._emit = emit
        self._health = health
        self._retry_s = retry_s
        self._describe = describe
        self._wall_reader = wall_reader
        self._link_wait_s = link_wait_s
        self._up = asyncio.Event()
        self._reported_boots: set[int] = set()  # MCU restarts already reported (McuReset event or McuResetError)
        self.in_flight: dict[str, int] = {}  # command name -> how many are running
        self.link: TableController | None = None
        self._jobs: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        """Connect, forward events, reconnect; returns only when cancelled (service loop)."""
        if self._factory is None:
            self._health.set("mcu", "off: no serial port configured (dice by referee)")
            await asyncio.Event().wait()
            return
        while True:
            try:
                link = self._factory()  # a panel opens its GPIO backend here
                async with link:
                    self.link = link
                    self._up.set()
                    self._health.set("mcu", "ok")
                    async for ev in link.events():
                        self._forward(ev)
            except (BridgeError, GpioError) as exc:  # GpioError: a panel's pins or backend
                self._health.set("mcu", f"down: {self._describe or 'table MCU'}: {exc}")
            finally:
                self.link = None
                self._up.clear()
            await asyncio.sleep(self._retry_s)

    def _forward(self, ev: mcu_events.TableEvent) -> None:
        if isinstance(ev, mcu_events.LinkUp):
            self._health.set("mcu", "ok")
            self._emit(LinkChanged, up=True)
        elif isinstance(ev, mcu_events.LinkDown):
            self._health.set("mcu", f"down: link lost ({ev.reason}); reconnecting")
            self._emit(LinkChanged, up=False)
        elif isinstance(ev, mcu_events.Fault):
            self._emit(McuFault, code=_name(ev.code), message=f"{_name(ev.severity)} fault, detail {ev.detail}")
        elif isinstance(ev, mcu_events.McuReset) and not ev.expected:
            self._report_reset(ev.boot, f"table MCU restarted ({ev.reason}); "
                                        f"interrupted: {ev.interrupted or 'nothing'}")
        elif isinstance(ev, mcu_events.EventsLost):
            self._emit(McuFault, code="events_lost", message=f"MCU events {ev.first}..{ev.last} lost")
        elif isinstance(ev, mcu_events.DiceRolled):
            self._emit(DiceRolled, dice=tuple(ev.dice), source="mcu")
        elif isinstance(ev, mcu_events.ButtonEvent) and ev.pressed:
            button = _name(ev.button)
            if button in ("call", "pass", "ready"):
                self._emit(ButtonPressed, seat=ev.seat, button=button)
        else:
            LOGGER.debug("table event %s", ev.to_json())

    def _report_reset(self, boot: int, message: str) -> None:
        """One restart of the MCU is ONE fault for the engine, however many ways the bridge reports it (the
        ``McuReset`` event and the ``McuResetError`` of the command it interrupted carry the same boot)."""
        if boot in self._reported_boots:
            LOGGER.info("MCU restart (boot %d) already reported: %s", boot, message)
            return
        self._reported_boots.add(boot)
        self._emit(McuFault, code="mcu_reset", message=message)

    async def clear_fault(self) -> None:
        """Send CLEAR_FAULT to the table (the referee fixed a jam, a miscount, a stuck lift ...): through the
        link's ``clear_fault`` (``firmware_bridge.port.TablePort``; any link the service uses implements it).
        Raises ``BridgeError`` (e.g. ``McuNackError`` FAULT_ACTIVE: still too hot, or a CRITICAL fault that needs
        RESET) or when no link came up within ``link_wait_s``."""
        if self.link is None and self._factory is not None:  # e.g. reconnecting after an MCU reset
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._up.wait(), self._link_wait_s)
        link = self.link
        if link is None:
            raise BridgeError("the table MCU is not connected")
        await link.clear_fault()

    def busy(self, name: str) -> bool:
        """Whether an engine command of this name is still running (e.g. a build)."""
        return self.in_flight.get(name, 0) > 0

    def execute(self, cmd: McuCommand) -> None:
        """Start an engine ``McuCommand`` without blocking the loop (a build takes about a minute)."""
        task = asyncio.get_running_loop().create_task(self._execute(cmd), name=f"mcu.{cmd.name}")
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    async def _execute(self, cmd: McuCommand) -> None:
        if self.link is None and self._factory is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._up.wait(), self._link_wait_s)
        link = self.link
        if link is None:
            self._emit(McuFault, code="no_mcu", message=f"cannot {cmd.name}: the table MCU is not connected")
            return
        self.in_flight[cmd.name] = self.in_flight.get(cmd.name, 0) + 1
        try:
            await self._run_command(link, cmd.name, cmd.args)
        except McuResetError as exc:
            self._report_reset(exc.boot, f"table MCU restarted during {exc.command}; the {cmd.name} was lost")
        except BuildFailedError as exc:
            self._emit(McuFault, code="build_failed", message=str(exc))
        except BridgeError as exc:
            self._emit(McuFault, code="command_failed", message=f"{cmd.name}: {exc}")
        finally:
            self.in_flight[cmd.name] -= 1

    async def _run_command(self, link: TableController, name: str, args: dict[str, Any]) -> None:
        if name == "shuffle_and_build":
            result = await self._build(link, int(args.get("tile_set", 144)))
            with contextlib.suppress(BridgeError):
                await link.raise_walls()
            faces = self._wall_reader(result.build_id) if self._wall_reader is not None else None
            self._emit(TableBuilt, tiles=faces, dice=())
        elif name == "roll_dice":  # args["throw"] numbers the throw (1 = dealer's, 2 = second): one roll each
            dice = await link.roll_dice()
            if dice is None:  # a panel table threw them but cannot read them: the referee enters the values
                LOGGER.info("dice thrown by the table; waiting for the referee to enter them")
            else:
                self._emit(DiceRolled, dice=dice, source="mcu")
        elif name == "raise_walls":
            await link.raise_walls()
        elif name == "stop":
            await link.stop()
        elif name == "set_seat_lights":
            await link.set_seat_lights(list(args.get("seats", [])))
        elif name == "clear_fault":
            await link.clear_fault()
        else:
            LOGGER.warning("unknown MCU command %s %s ignored", name, args)

    async def _build(self, link: TableController, tile_set: int) -> BuildResult:
        """Shuffle and build; a table still busy with a build (ordered before a service restart) is waited for
        and then asked again, so a resumed service never acts on a half-known wall."""
        for _ in range(3):
            try:
                return await link.shuffle_and_build(tile_set=tile_set)
            except McuNackError as exc:
                if exc.reason != NackReason.BUSY:
                    raise
                LOGGER.info("table busy with an earlier build: waiting for it, then building again")
                for _ in range(int(self._link_wait_s / 0.2)):
                    if (await link.status()).state != "building":
                        break
                    await asyncio.sleep(0.2)
        return await link.shuffle_and_build(tile_set=tile_set)

    async def aclose(self) -> None:
        for task in list(self._jobs):
            task.cancel()
        await asyncio.gather(*self._jobs, return_exceptions=True)


def _name(value: object) -> str:
    name = getattr(value, "name", None)
    return str(name).lower() if name is not None else str(value)


__all__ = ["Emit", "Event", "LinkFactory", "McuPart", "panel_link_factory", "serial_link_factory"]
