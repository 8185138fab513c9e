"""``TableService``: the one asyncio process of a table — engine, MCU, camera, GPIO, MQTT, systemd.

Every input becomes an engine event on ONE inbox queue, stamped here with a unique ``id`` and ``at_s`` (unix seconds
from the injected clock), so the journal order is the order the engine saw.  The engine is
``controller.shell.EngineShell`` around ``controller.journal.JournaledTable`` (step + fsynced journal; resume = fold);
its ports are implemented in :mod:`mjtable.service.ports` (MCU commands -> ``McuPart``, LEDs/buzzer -> ``GpioPart``,
views and effects -> ``mjtable.mqtt``'s ``TableChannel``, timers -> ``ClockTick`` events on this inbox).

Lifecycle: :meth:`TableService.run` starts every part as a named task, sends ``READY=1`` once the engine has
resumed and the parts are started, pings the watchdog from the loop, and on ``stop()`` (SIGTERM/SIGINT)
sends ``STOPPING=1`` and cancels the parts in reverse order.  A part that fails is reported in the health and
restarted by itself; an engine failure ends ``run`` with an exception (systemd restarts the service).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from controller.engine.effects import Effect, McuCommand, Rejected, SetLed
from controller.engine.events import ClockTick, Event, event_from_json
from controller.engine.state import GameState, Phase
from controller.journal import JournaledTable
from controller.shell import EngineShell
from firmware_bridge.events import BridgeError
from mjtable.service.events_out import public_event
from mjtable.service.health import Health
from mjtable.service.mcu import McuPart
from mjtable.service.notify import Notifier
from mjtable.service.parts import CameraPart, GpioPart, MqttPart
from mjtable.service.ports import (
    InboxTimers,
    ServiceIndicators,
    ServiceMcuPort,
    ServicePublisher,
    hidden_now,
    republish_unconfirmed,
)

LOGGER = logging.getLogger(__name__)

Listener = Callable[[Event, GameState, tuple[Effect, ...]], None]


@dataclass
class _Inbound:
    event: Event
    on_done: Callable[[str | None], None] | None = None


@dataclass
class ServiceStats:
    """Counters for the bench and the demo summary."""

    accepted: int = 0
    rejected: int = 0
    rejections: dict[str, int] = field(default_factory=dict)
    started_s: float = 0.0
    ready_s: float | None = None


class TableService:
    """One table.  Construct with the parts (``mjtable.service.build`` does it from the config), then
    ``await service.run()``.  Everything runs on the loop that calls ``run``.

    Args:
        table: the engine with its journal (already resumed or started).
        mcu, gpio, camera, mqtt: the parts (``mqtt`` None = no publishing at all, e.g. unit tests).
        health: part states; notifier: systemd; clock: unix seconds for ``at_s``.
    """

    def __init__(self, table: JournaledTable, *, mcu: McuPart | None, gpio: GpioPart | None,
                 camera: CameraPart | None, mqtt: MqttPart | None, health: Health, notifier: Notifier,
                 clock: Callable[[], float] = time.time, id_prefix: str | None = None) -> None:
        self.table = table
        self.mcu = mcu
        self.gpio = gpio
        self.camera = camera
        self.mqtt = mqtt
        self.health = health
        self.notifier = notifier
        self.clock = clock
        self.inbox: asyncio.Queue[_Inbound] = asyncio.Queue()
        self.listeners: list[Listener] = []
        self.stats = ServiceStats(started_s=time.monotonic())
        self.changed = asyncio.Event()
        self._prefix = id_prefix or f"{os.getpid():x}{int(time.time() * 1000) % 0xFFFFFF:06x}"
        self._ids = itertools.count(1)
        self._stop = asyncio.Event()
        self._jobs: set[asyncio.Task[None]] = set()
        self.ready = asyncio.Event()
        self.restart_s = 5.0
        health.listeners.append(self._on_health)
        self._timers = InboxTimers(clock, self._fire_tick)
        self.publisher = ServicePublisher(mqtt.channel if mqtt is not None else None, self.changed)
        self.shell = EngineShell(table, clock=_Clock(clock), mcu=ServiceMcuPort(mcu),
                                 indicators=ServiceIndicators(gpio), publisher=self.publisher, timers=self._timers,
                                 id_prefix=self._prefix)

    # --- inputs -------------------------------------------------------------------------------------------
    def emit(self, cls: type[Event], **fields: Any) -> Event:
        """Queue an engine event of type ``cls`` (loop thread); ``id`` and ``at_s`` are stamped here."""
        ev = cls(id=f"{self._prefix}-{next(self._ids)}", at_s=self.clock(), **fields)
        self.inbox.put_nowait(_Inbound(ev))
        return ev

    def emit_json(self, obj: dict[str, Any], on_done: Callable[[str | None], None] | None = None) -> None:
        """Queue an event given as JSON (referee commands); a malformed one is answered, never raised."""
        try:
            ev = event_from_json(obj)
        except ValueError as exc:
            LOGGER.warning("malformed event refused: %s", exc)
            if on_done is not None:
                on_done(str(exc))
            return
        self.inbox.put_nowait(_Inbound(ev, on_done))

    def clear_fault(self, command_id: str, referee: str | None, answer: Callable[[str | None], None]) -> None:
        """The referee fixed the table and clears its fault (loop thread): CLEAR_FAULT to the MCU, then a journaled
        ``resume`` of the engine (which re-issues the build or the dice the fault interrupted)."""
        task = asyncio.get_running_loop().create_task(self._clear_fault(command_id, referee, answer),
                                                      name="service.clear_fault")
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    async def _clear_fault(self, command_id: str, referee: str | None, answer: Callable[[str | None], None]) -> None:
        if self.mcu is None:
            answer("this table has no MCU to clear")
            return
        try:
            await self.mcu.clear_fault()
        except BridgeError as exc:
            LOGGER.warning("the table refused CLEAR_FAULT: %s", exc)
            answer(f"the table refused to clear the fault: {exc}")
            return
        LOGGER.info("table fault cleared by %s", referee or "the referee", extra={"referee": referee})
        if self.table.state.paused:
            self.emit_json({"type": "referee", "id": f"cmd:{command_id}", "at_s": self.clock(), "command": "resume",
                            "reason": f"table fault cleared by {referee or 'the referee'}"}, answer)
        else:
            self._reissue_table_work()
            answer(None)

    def submit_nowait(self, event: Event) -> None:
        """Queue a fully formed event (the demo's operator entries)."""
        self.inbox.put_nowait(_Inbound(event))

    @property
    def state(self) -> GameState:
        return self.table.state

    def phase(self) -> str:
        return str(self.table.state.phase)

    # --- lifecycle ----------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask ``run`` to finish (signal handlers call this; loop thread)."""
        self._stop.set()

    async def run(self) -> None:
        """Run until :meth:`stop`; raises if the engine loop fails."""
        self.health.set("engine", "ok")
        tasks: list[asyncio.Task[None]] = []
        try:
            async with asyncio.TaskGroup() as tg:
                for name, part in (("mqtt", self.mqtt), ("mcu", self.mcu), ("gpio", self.gpio),
                                   ("camera", self.camera)):
                    if part is not None:
                        tasks.append(tg.create_task(self._supervise(name, part.run),
                                                    name=f"service.{name}"))
                await self._resume()
                tasks.append(tg.create_task(self._watchdog(), name="service.watchdog"))
                engine = tg.create_task(self._engine_loop(), name="service.engine")
                tasks.append(engine)
                await asyncio.sleep(0)
                self.stats.ready_s = time.monotonic() - self.stats.started_s
                self.notifier.send(READY="1", STATUS=self._status_line())
                self.ready.set()
                LOGGER.info("ready in %.3f s: %s", self.stats.ready_s, self.health.summary(),
                            extra={"ready_s": self.stats.ready_s})
                await self._stop.wait()
                self.notifier.send(STOPPING="1", STATUS="stopping")
                for task in reversed(tasks):
                    task.cancel()
        finally:
            self._timers.cancel_all()
            for job in list(self._jobs):
                job.cancel()
            if self.mcu is not None:
                await self.mcu.aclose()
            self.health.listeners.remove(self._on_health)

    async def _resume(self) -> None:
        """After (re)start: the shell re-arms timers and publishes; then re-issue what the table was waiting
        for (a build or the dice: the MCU may have restarted too) and restore the turn LEDs."""
        st = self.table.state
        if self.table.resumed:
            LOGGER.info("resumed from the journal at seq %d, phase %s", st.seq, st.phase,
                        extra={"seq": st.seq, "phase": str(st.phase)})
            self.publisher.numbering.hidden = hidden_now(self.table)  # 定缺 presses stay uncounted in public
        await self.shell.resume()
        if self.table.resumed:
            self._republish_unconfirmed()
        st = self.table.state
        if not self.table.resumed or st.paused:
            return
        self._reissue_table_work()
        if st.hand is not None and st.hand.turn is not None and st.phase is Phase.TURN and self.gpio is not None:
            for e in [SetLed(seat=s, on=s == st.hand.turn) for s in range(4)]:
                self.gpio.set_led(e.seat, e.on)

    def _republish_unconfirmed(self) -> None:
        """Publish what the journal holds and the outbox never recorded (see :func:`republish_unconfirmed`)."""
        n = republish_unconfirmed(self.table, self.publisher)
        if n:
            LOGGER.info("republished the public events of %d journaled event(s)", n, extra={"republished": n})

    async def _supervise(self, name: str, run: Callable[[], Awaitable[None]]) -> None:
        """Run one part for the life of the service: a bug that escapes it is logged, reported as the part
        being down, and the part is started again after ``restart_s``; it never takes the referee down."""
        while True:
            try:
                await run()
                return
            except Exception as exc:
                LOGGER.exception("part %s crashed; restarting it in %.0f s", name, self.restart_s)
                with contextlib.suppress(ValueError):
                    self.health.set(name, f"down: crashed ({type(exc).__name__}: {exc}); restarting")
                await asyncio.sleep(self.restart_s)

    def _reissue_table_work(self) -> None:
        """The engine waits for a wall or dice that no running MCU command will deliver (after a restart of the
        service, or a fault the referee has cleared with *resume*): ask the table again."""
        st = self.table.state
        if self.mcu is None or st.paused:
            return
        if st.phase in (Phase.BUILDING, Phase.HAND_OVER) and not self.mcu.busy("shuffle_and_build"):
            self.mcu.execute(McuCommand(name="shuffle_and_build", args={"tile_set": _tile_total(st)}))
        elif st.phase is Phase.DICE and not self.mcu.busy("roll_dice"):
            self.mcu.execute(McuCommand(name="roll_dice", args={"throw": 1}))

    async def _watchdog(self) -> None:
        """WATCHDOG=1 from the loop itself (a wedged loop stops pinging) and periodic health writes."""
        interval = self.notifier.watchdog_interval_s or 5.0
        while True:
            self.notifier.send(WATCHDOG="1")
            self.health.write()
            await asyncio.sleep(interval)

    def _on_health(self, health: Health) -> None:
        self.notifier.send(STATUS=self._status_line())

    def _status_line(self) -> str:
        st = self.table.state
        return f"hand {st.session.hand_no + 1}/{st.config.hands_total}, {st.phase}; {self.health.summary()}"

    # --- the engine loop --------------------------------------------------------------------------------
    async def _engine_loop(self) -> None:
        while True:
            item = await self.inbox.get()
            await self._step(item)

    async def _step(self, item: _Inbound) -> None:
        ev = item.event
        before = self.table.state
        self.publisher.event = ev
        try:
            fx = await self.shell.submit(ev)  # journaled and fsynced, then effects executed and views published
        finally:
            self.publisher.event = None
        if fx and isinstance(fx[0], Rejected):
            self.stats.rejected += 1
            reason = fx[0].reason
            self.stats.rejections[reason] = self.stats.rejections.get(reason, 0) + 1
            if not isinstance(ev, ClockTick):
                LOGGER.info("rejected %s: %s (%s)", ev.type, reason, fx[0].message,
                            extra={"event_id": ev.id, "reason": reason})
            if item.on_done is not None:
                item.on_done(f"{reason}: {fx[0].message}")
        else:
            self.stats.accepted += 1
            if item.on_done is not None:
                item.on_done(None)
            seq = self.table.state.seq
            self.publisher.publish_events(public_event(ev, (), before), seq, ev.at_s, self.publisher.numbering(seq))
            if before.paused and not self.table.state.paused:
                self._reissue_table_work()
        for listener in list(self.listeners):
            listener(ev, self.table.state, fx)
        self.changed.set()

    def _fire_tick(self) -> None:
        """A timer is due: queue a ClockTick behind whatever is already waiting (loop thread)."""
        self.emit(ClockTick)


class _Clock:
    def __init__(self, fn: Callable[[], float]) -> None:
        self._fn = fn

    def now_s(self) -> float:
        return self._fn()


def _tile_total(st: GameState) -> int:
    from controller.engine.query import ruleset_of

    return int(ruleset_of(st).tileset.total)
