"""``TableService``: the one asyncio process of a table — engine, MCU, camera, GPIO, MQTT, systemd.

Every input becomes an engine event on ONE inbox queue, stamped here with a unique ``id`` and ``at_s`` (unix
seconds from the injected clock), so the journal order is the order the engine saw.  The engine is area 2's
``controller.journal.JournaledTable`` (step + fsynced journal; resume = fold).  After each step this loop
executes the effects (MCU commands, LEDs, buzzer), re-arms the one clock tick for the earliest timer deadline,
and publishes the views and the public events through area 7's ``TableChannel``.

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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.engine.effects import (
    Alert,
    Buzz,
    Effect,
    HandEnded,
    InfractionEffect,
    McuCommand,
    Rejected,
    SessionEnded,
    SetLed,
)
from controller.engine.events import ClockTick, Event, event_from_json
from controller.engine.state import GameState, Phase
from controller.journal import JournaledTable
from controller.views import public_view, referee_view
from mjtable.mqtt.channel import TableChannel
from mjtable.service.events_out import public_event
from mjtable.service.health import Health
from mjtable.service.mcu import McuPart
from mjtable.service.notify import Notifier
from mjtable.service.parts import CameraPart, GpioPart, MqttPart

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
        self._tick_handle: asyncio.TimerHandle | None = None
        self._tick_deadline_s: float | None = None
        self._stop = asyncio.Event()
        self.ready = asyncio.Event()
        health.listeners.append(self._on_health)

    # --- inputs -------------------------------------------------------------------------------------------
    def emit(self, cls: type[Event], **fields: Any) -> None:
        """Queue an engine event of type ``cls`` (loop thread); ``id`` and ``at_s`` are stamped here."""
        ev = cls(id=f"{self._prefix}-{next(self._ids)}", at_s=self.clock(), **fields)
        self.inbox.put_nowait(_Inbound(ev))

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
                        tasks.append(tg.create_task(part.run(), name=f"service.{name}"))
                self._resume()
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
            if self._tick_handle is not None:
                self._tick_handle.cancel()
            if self.mcu is not None:
                await self.mcu.aclose()
            self.health.listeners.remove(self._on_health)

    def _resume(self) -> None:
        """After (re)start: publish, re-arm timers, re-issue what the table was waiting for, restore LEDs."""
        st = self.table.state
        if self.table.resumed:
            LOGGER.info("resumed from the journal at seq %d, phase %s", st.seq, st.phase,
                        extra={"seq": st.seq, "phase": str(st.phase)})
            fx: list[Effect] = []
            if st.phase in (Phase.BUILDING, Phase.HAND_OVER) and not st.paused:
                fx.append(McuCommand(name="shuffle_and_build", args={"tile_set": _tile_total(st)}))
            elif st.phase is Phase.DICE and not st.paused:
                fx.append(McuCommand(name="roll_dice", args={"throw": 1}))
            if st.hand is not None and st.hand.turn is not None and st.phase is Phase.TURN:
                fx += [SetLed(seat=s, on=s == st.hand.turn) for s in range(4)]
            self._execute(tuple(fx))
        else:
            self._execute(self.table.startup_effects)
        self._publish(None, (), None)
        self._arm_tick()

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
            self._step(item)

    def _step(self, item: _Inbound) -> None:
        ev = item.event
        before = self.table.state
        fx = self.table.submit(ev)
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
            self._execute(fx)
            self._publish(ev, fx, before)
        self._arm_tick()
        for listener in list(self.listeners):
            listener(ev, self.table.state, fx)
        self.changed.set()

    def _execute(self, fx: tuple[Effect, ...]) -> None:
        for e in fx:
            if isinstance(e, McuCommand):
                if self.mcu is not None:
                    self.mcu.execute(e)
            elif isinstance(e, SetLed):
                if self.gpio is not None:
                    self.gpio.set_led(e.seat, e.on)
            elif isinstance(e, Buzz):
                if self.gpio is not None:
                    self.gpio.buzz(e.duration_s)
            elif isinstance(e, Alert | InfractionEffect | HandEnded | SessionEnded):
                LOGGER.info("%s", e.type, extra={"effect": e.type})

    def _arm_tick(self) -> None:
        """One pending ClockTick at the earliest timer deadline (unix seconds -> loop time)."""
        st = self.table.state
        deadline = None if st.paused or not st.timers else min(t.deadline_s for t in st.timers)
        if deadline == self._tick_deadline_s:
            return
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        self._tick_deadline_s = deadline
        if deadline is None:
            return
        delay = max(0.0, deadline - self.clock())
        self._tick_handle = asyncio.get_running_loop().call_later(delay, self._fire_tick)

    def _fire_tick(self) -> None:
        self._tick_handle = None
        self._tick_deadline_s = None
        self.emit(ClockTick)

    # --- publishing ------------------------------------------------------------------------------------
    def _publish(self, ev: Event | None, fx: tuple[Effect, ...], before: GameState | None) -> None:
        if self.mqtt is None:
            return
        channel: TableChannel = self.mqtt.channel
        st = self.table.state
        tid = channel.topics.table_id
        try:
            channel.publish_state(public_view(st, tid), referee_view(st, tid))
            public = public_view(st, tid)
            channel.publish_timers(public.get("timers", []))
            if ev is not None:
                for k, (kind, data) in enumerate(public_event(ev, fx, before)):
                    channel.publish_event(kind, data, event_id=f"{channel.game_id}:{st.seq}:{k}", ts_s=ev.at_s)
        except Exception:  # a schema/guard refusal must never stop the referee: log it loudly
            LOGGER.exception("publishing state seq %d failed", st.seq)


def _tile_total(st: GameState) -> int:
    from controller.engine.query import ruleset_of

    return int(ruleset_of(st).tileset.total)


async def cancel_and_wait(task: asyncio.Task[Any]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
