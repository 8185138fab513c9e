"""``PanelTable``: drive a closed automatic table through its own control panel, behind the same interface as the
serial link (:class:`firmware_bridge.table.TableController`).

The Pi presses the table's buttons (*build*, *raise*, *dice*, *stop*, *reset*) through optocouplers and reads its
lamps (*ready*: walls built, *motor*: running, *fault*) through opto-isolators (``docs/wiring.md``).  What the
panel tells is turned into the serial link's events and exceptions:

=====================================  =========================================================================
panel                                  becomes
=====================================  =========================================================================
*build* pressed                        ``BuildProgress(0 %)``; the build id counts builds since start
*ready* lamp lights                    ``BuildProgress(100 %)``, ``BuildDone``; ``shuffle_and_build`` returns
*fault* lamp lights                    ``Fault(config.fault_code, ERROR)``; a running build raises
                                       ``BuildFailedError``
no *motor* within ``start_timeout_s``  ``Fault(SENSOR_FAULT, ERROR, detail = the button's GPIO)``: the table did
                                       not take the press (stuck or broken button)
no *ready* within ``build_timeout_s``  ``Fault(LIFT_TIMEOUT, ERROR, detail = the timeout in s)``
motor still running after *raise* +    ``Fault(LIFT_TIMEOUT, ERROR, detail = the timeout in s)``
``raise_timeout_s``
a command while a fault is active      ``McuNackError(FAULT_ACTIVE)``, as a v1 board NACKs it
=====================================  =========================================================================

What a panel cannot tell: the dice values (``roll_dice`` throws and returns None: the referee enters the values),
the tile count (``BuildDone.tiles`` is the tile set asked for), temperature and the lid.

Threads: the backend reports edges on its own thread; they are handed to the loop with
``loop.call_soon_threadsafe`` and debounced there.  Everything else runs on the loop that entered
``async with``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable
from types import TracebackType
from typing import Self

from firmware_bridge.commands import FaultCode, NackReason, Severity, TileSet, WallLayout
from firmware_bridge.events import (
    BuildAbortedError,
    BuildDone,
    BuildFailedError,
    BuildProgress,
    BuildResult,
    Fault,
    LinkLostError,
    LinkUp,
    McuNackError,
    TableEvent,
    TableStatus,
)
from firmware_bridge.panel_config import PanelButtonPin, PanelTableConfig
from firmware_bridge.table import queued_events
from hw.backend import GpioError, PinBackend, PinEdge
from hw.devices import Button

LOGGER = logging.getLogger(__name__)


class PanelTable:
    """A closed table on GPIO pins.  Construct, then ``async with table:`` on the service loop.

    Args:
        backend: the pin backend (owned by the caller, who closes it).
        config: the model's pin map and timeouts.
        clock: monotonic seconds (build durations).
        close_backend: close ``backend`` when the table is closed (the service opens one per connection).
    Raises (on enter):
        hw.backend.GpioError: a pin is taken or the backend fails (nothing stays reserved).
    """

    reads_dice = False

    def __init__(self, backend: PinBackend, config: PanelTableConfig, *,
                 clock: Callable[[], float] = time.monotonic, close_backend: bool = False) -> None:
        self.backend = backend
        self._close_backend = close_backend
        self.config = config
        self._clock = clock
        self._inputs: dict[int, tuple[str, Button]] = {}
        self._outputs: list[PanelButtonPin] = []
        self._press_locks: dict[str, asyncio.Lock] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._events: asyncio.Queue[TableEvent | None] = asyncio.Queue()
        self._change = asyncio.Event()  #: set (and replaced) at every signal change or fault
        self.active: dict[str, bool] = {}  #: debounced state of each signal (True: lamp lit)
        self.rises: dict[str, int] = {}  #: how many times each signal became active
        self._state = "idle"
        self._fault: Fault | None = None
        self._build_id = 0
        self._build: asyncio.Future[BuildResult] | None = None
        self._tile_set = int(TileSet.MCR_144)
        self._lights = 0
        self._closed = False

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> Self:
        if self._closed or self._loop is not None:
            raise RuntimeError("PanelTable is not reentrant or reusable")
        self._loop = asyncio.get_running_loop()
        try:
            for b in self.config.buttons:
                self.backend.setup_output(b.pin, initial=self._level(b, pressed=False), owner=f"panel.{b.name}")
                self._outputs.append(b)
                self._press_locks[b.name] = asyncio.Lock()
            for s in self.config.signals:
                device = Button(self.backend, s.pin, name=f"panel.{s.name}", bounce_s=self.config.debounce_s,
                                active_low=s.active_low)
                self._inputs[s.pin] = (s.name, device)
                self.active[s.name] = device.is_pressed
                self.rises[s.name] = 0
            for pin in self._inputs:
                self.backend.watch(pin, self._from_backend_thread)
        except BaseException:
            self._closed = True
            self._release()
            if self._close_backend:
                with contextlib.suppress(Exception):
                    self.backend.close()
            raise
        self._put(LinkUp(0, f"panel {self.config.model}", 0))
        if self.active.get("fault"):
            self._raise_fault(self.config.fault_code, 1, "fault lamp lit at start")
        elif self.active.get("ready"):
            self._state = "built"
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Release every button, free the pins, fail a running build and end ``events()``.  Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._fail_build(LinkLostError("panel closed"))
        self._release()
        if self._close_backend:
            with contextlib.suppress(Exception):
                self.backend.close()
        self._events.put_nowait(None)

    def _release(self) -> None:
        for b in self._outputs:
            with contextlib.suppress(Exception):
                self.backend.write(b.pin, self._level(b, pressed=False))
            with contextlib.suppress(Exception):
                self.backend.release(b.pin)
        self._outputs.clear()
        for _, device in self._inputs.values():
            with contextlib.suppress(Exception):
                device.close()
        self._inputs.clear()

    def events(self) -> AsyncIterator[TableEvent]:
        """Every table event in order until the table is closed.  One consumer only."""
        return queued_events(self._events)

    def _put(self, ev: TableEvent) -> None:
        self._events.put_nowait(ev)

    # ------------------------------------------------------------------ inputs
    def _from_backend_thread(self, edge: PinEdge) -> None:
        """Watch callback (backend thread): hand the edge to the loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed() and not self._closed:
            loop.call_soon_threadsafe(self._on_edge, edge)

    def _on_edge(self, edge: PinEdge) -> None:
        entry = self._inputs.get(edge.pin)
        if entry is None:
            return
        name, device = entry
        for change in device.process(edge):
            self._on_signal(name, change.pressed)

    def _on_signal(self, name: str, active: bool) -> None:
        if self.active.get(name) == active:
            return
        self.active[name] = active
        LOGGER.debug("panel signal %s %s", name, "on" if active else "off")
        if active:
            self.rises[name] = self.rises.get(name, 0) + 1
            if name == "fault":
                self._raise_fault(self.config.fault_code, 0, "fault lamp lit")
        self._wake()

    def _wake(self) -> None:
        """Wake every ``_wait_for`` to look again (loop thread)."""
        change, self._change = self._change, asyncio.Event()
        change.set()

    async def _wait_for(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until ``predicate()`` holds (re-checked at every signal change); False after ``timeout_s``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not predicate():
            left = deadline - loop.time()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self._change.wait(), left)
            except TimeoutError:
                return predicate()
        return True

    # ------------------------------------------------------------------ faults
    def _raise_fault(self, code: FaultCode, detail: int, why: str) -> Fault:
        """A fault of severity ERROR: latch it, report it, abort the running build."""
        fault = Fault(code, Severity.ERROR, detail, self._build_id if self._state == "building" else 0)
        LOGGER.warning("panel table %s fault: %s (%s)", self.config.model, code.name.lower(), why)
        self._fault = fault
        self._state = "fault"
        self._put(fault)
        self._fail_build(BuildFailedError(fault))
        self._wake()
        return fault

    def _fail_build(self, exc: BaseException) -> None:
        build = self._build
        if build is not None and not build.done():
            build.set_exception(exc)

    def _check_can_move(self, command: str) -> None:
        if self._closed:
            raise LinkLostError("panel closed")
        if self._fault is not None:
            raise McuNackError(command, NackReason.FAULT_ACTIVE, int(self._fault.code))
        if self._state == "building":
            raise McuNackError(command, NackReason.BUSY, 0)

    # ------------------------------------------------------------------ presses
    @staticmethod
    def _level(b: PanelButtonPin, *, pressed: bool) -> int:
        return int(pressed == b.active_high)

    async def press(self, name: str) -> bool:
        """Press button ``name`` for its ``press_s``; False when the model has no such button."""
        if self._closed:
            raise LinkLostError("panel closed")
        b = self.config.button(name)
        if b is None:
            return False
        async with self._press_locks[name]:
            try:
                self.backend.write(b.pin, self._level(b, pressed=True))
                try:
                    await asyncio.sleep(b.press_s)
                finally:
                    if not self._closed:
                        self.backend.write(b.pin, self._level(b, pressed=False))
            except GpioError as exc:  # e.g. pigpiod gone: the table is out of reach, as a lost serial link
                raise LinkLostError(f"GPIO: {exc}") from exc
        return True

    async def _expect_motor(self, button: str, since: int) -> None:
        """After a press: the motor must start within ``start_timeout_s`` (when a motor signal is wired)."""
        if self.config.signal("motor") is None:
            return
        ok = await self._wait_for(lambda: self.rises["motor"] > since or self._fault is not None,
                                  self.config.start_timeout_s)
        if not ok and self._fault is None:
            b = self.config.button(button)
            self._raise_fault(FaultCode.SENSOR_FAULT, b.pin if b else 0,
                              f"no motor within {self.config.start_timeout_s} s of the {button} press")

    # ------------------------------------------------------------------ TableController
    async def status(self) -> TableStatus:
        """The adapter's view of the table (temperature, dice and lid are unknown on a panel: 0)."""
        return TableStatus(state=self._state, tile_set=self._tile_set, layout="standard",
                           build_percent=100 if self._state in ("built", "raised") else 0, dice=(0, 0),
                           last_seq=self._build_id, last_command=0,
                           fault=self._fault.code.name.lower() if self._fault is not None else None,
                           temperature_c=0.0, lid_open=False, lights=self._lights)

    async def shuffle_and_build(self, tile_set: int = TileSet.MCR_144,
                                layout: WallLayout = WallLayout.STANDARD) -> BuildResult:
        """Press *build* and wait for the *ready* lamp (``build_timeout_s``).

        Raises:
            BuildFailedError: the fault lamp lit, the motor never started, or no *ready* in time.
            McuNackError: FAULT_ACTIVE / BUSY, or BAD_ARGUMENT for a pre-dealt layout (a panel cannot ask it).
            LinkLostError: the adapter was closed meanwhile.
        """
        self._check_can_move("SHUFFLE_AND_BUILD")
        if layout != WallLayout.STANDARD:
            raise McuNackError("SHUFFLE_AND_BUILD", NackReason.BAD_ARGUMENT, int(layout))
        self._tile_set = int(TileSet(tile_set))
        self._build_id += 1
        build_id = self._build_id
        build: asyncio.Future[BuildResult] = asyncio.get_running_loop().create_future()
        self._build = build
        self._state = "building"
        started = self._clock()
        ready_before, motor_before = self.rises["ready"], self.rises.get("motor", 0)
        self._put(BuildProgress(build_id, 0, "shuffling"))
        try:
            await self.press("build")
            await self._expect_motor("build", motor_before)
            if self._fault is None:
                ok = await self._wait_for(lambda: self.rises["ready"] > ready_before or self._fault is not None,
                                          self.config.build_timeout_s)
                if self._fault is None and not ok:
                    self._raise_fault(FaultCode.LIFT_TIMEOUT, int(self.config.build_timeout_s),
                                      f"no ready lamp within {self.config.build_timeout_s} s of the build press")
            if not build.done():
                duration_s = self._clock() - started
                self._state = "built"
                self._put(BuildProgress(build_id, 100, "pushing"))
                self._put(BuildDone(build_id, self._tile_set, duration_s))
                build.set_result(BuildResult(build_id, self._tile_set, duration_s))
            return await build
        finally:
            if self._build is build:
                self._build = None

    async def raise_walls(self) -> None:
        """Press *raise* (when the model has one) and wait for the lift to finish; idempotent like RAISE_WALLS."""
        if self._state == "raised":
            return
        self._check_can_move("RAISE_WALLS")
        if self._state != "built":
            raise McuNackError("RAISE_WALLS", NackReason.NOT_READY, 0)
        motor_before = self.rises.get("motor", 0)
        if await self.press("raise") and self.config.signal("motor") is not None:
            await self._expect_motor("raise", motor_before)
            if self._fault is None:
                ok = await self._wait_for(lambda: not self.active["motor"] or self._fault is not None,
                                          self.config.raise_timeout_s)
                if not ok and self._fault is None:
                    self._raise_fault(FaultCode.LIFT_TIMEOUT, int(self.config.raise_timeout_s),
                                      f"motor still running {self.config.raise_timeout_s} s after the raise press")
            if self._fault is not None:
                raise McuNackError("RAISE_WALLS", NackReason.FAULT_ACTIVE, int(self._fault.code))
        self._state = "raised"

    async def roll_dice(self) -> tuple[int, int] | None:
        """Press *dice* (when wired); the values are not known here: the referee enters them.  Returns None."""
        self._check_can_move("ROLL_DICE")
        await self.press("dice")
        return None

    async def stop(self) -> None:
        """Press *stop* (when wired); a running build raises ``BuildAbortedError``."""
        await self.press("stop")
        self._fail_build(BuildAbortedError("build abandoned: stopped"))
        if self._state == "building":
            self._state = "idle"

    async def set_seat_lights(self, seats: Iterable[int]) -> None:
        """A closed table's seat lamps are not wired to the Pi: remembered for ``status`` only."""
        mask = 0
        for s in seats:
            if not 0 <= s <= 3:
                raise ValueError(f"seat {s} outside 0..3")
            mask |= 1 << s
        self._lights = mask

    async def clear_fault(self) -> None:
        """Clear the active fault (the lamp's or a timeout's): press *reset* (when wired) to bring the controller
        back to a known state and wait up to ``clear_timeout_s`` for the fault lamp to go out.  Raises
        ``McuNackError(FAULT_ACTIVE)`` while it stays lit.  No fault: nothing happens (as CLEAR_FAULT ACKs)."""
        if self._closed:
            raise LinkLostError("panel closed")
        if self._fault is None:
            return
        await self.press("reset")
        if self.config.signal("fault") is not None and not await self._wait_for(
                lambda: not self.active["fault"], self.config.clear_timeout_s):
            raise McuNackError("CLEAR_FAULT", NackReason.FAULT_ACTIVE, int(self._fault.code))
        LOGGER.info("panel table %s: fault %s cleared", self.config.model, self._fault.code.name.lower())
        self._fault = None
        self._state = "built" if self.active.get("ready") else "idle"


__all__ = ["PanelTable"]
