"""The thin asyncio shell around the pure engine: journal first, then effects through injected ports.

Usage (the service, the demo)::

    shell = EngineShell(JournaledTable(path, start_event), clock=SystemClock(), mcu=..., indicators=...,
                        publisher=..., timers=AsyncioTimers(clock))
    await shell.resume()                 # arm the timers of a resumed journal, fire the overdue ones
    effects = await shell.submit(event)  # journaled + fsynced BEFORE any effect is executed
    shell.state                          # the current GameState (views: controller.views)

Every port is a ``typing.Protocol`` with a real and a fake implementation.  Everything runs on ONE asyncio
loop; timers call back into that loop by submitting ``ClockTick`` events.  Nothing here decides a rule.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.engine.effects import (
    Buzz,
    CancelTimer,
    Effect,
    McuCommand,
    SetLed,
    StartTimer,
)
from controller.engine.events import ClockTick, Event, event_from_json
from controller.engine.state import GameState
from controller.journal import JournaledTable
from controller.views import public_view, referee_view

LOGGER = logging.getLogger(__name__)


class Clock(Protocol):
    def now_s(self) -> float:
        """Unix time in seconds."""
        ...


class SystemClock:
    def now_s(self) -> float:
        return time.time()


@dataclass
class FakeClock:
    """A clock tests move by hand."""

    t_s: float = 1_767_225_600.0

    def now_s(self) -> float:
        return self.t_s

    def advance(self, dt_s: float) -> None:
        self.t_s += dt_s


class McuPort(Protocol):
    async def command(self, name: str, args: dict[str, Any]) -> None:
        """Send one command to the table MCU (``shuffle_and_build``, ``roll_dice``...)."""
        ...


class IndicatorPort(Protocol):
    def set_led(self, seat: int, on: bool) -> None: ...

    def buzz(self, duration_s: float) -> None: ...


class PublisherPort(Protocol):
    async def publish_state(self, public: dict[str, Any], referee: dict[str, Any]) -> None:
        """Publish the two views after an accepted step."""
        ...

    async def publish_effect(self, effect: dict[str, Any]) -> None:
        """Publish an alert, infraction, rejection, hand or session end (``effect["type"]``)."""
        ...


class TimerPort(Protocol):
    def arm(self, name: str, deadline_s: float, fire: Callable[[], Awaitable[None]]) -> None:
        """Call ``fire`` once at ``deadline_s`` (unix seconds), replacing a timer of the same name."""
        ...

    def cancel(self, name: str) -> None: ...

    def armed(self) -> dict[str, float]:
        """Armed timers: name -> deadline_s."""
        ...


class AsyncioTimers:
    """Real timers on the running loop, measured against ``clock`` (sleeps live here, never in the rules)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._tasks: dict[str, tuple[float, asyncio.Task[None]]] = {}

    def arm(self, name: str, deadline_s: float, fire: Callable[[], Awaitable[None]]) -> None:
        self.cancel(name)

        async def wait_and_fire() -> None:
            await asyncio.sleep(max(0.0, deadline_s - self._clock.now_s()))
            self._tasks.pop(name, None)
            await fire()

        self._tasks[name] = (deadline_s, asyncio.get_running_loop().create_task(wait_and_fire(), name=f"timer.{name}"))

    def cancel(self, name: str) -> None:
        entry = self._tasks.pop(name, None)
        if entry is not None:
            entry[1].cancel()

    def armed(self) -> dict[str, float]:
        return {n: d for n, (d, _) in self._tasks.items()}

    def cancel_all(self) -> None:
        for name in list(self._tasks):
            self.cancel(name)


class ManualTimers:
    """Fake timers: tests fire what is due with :meth:`fire_due` after moving a :class:`FakeClock`."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._armed: dict[str, tuple[float, Callable[[], Awaitable[None]]]] = {}

    def arm(self, name: str, deadline_s: float, fire: Callable[[], Awaitable[None]]) -> None:
        self._armed[name] = (deadline_s, fire)

    def cancel(self, name: str) -> None:
        self._armed.pop(name, None)

    def armed(self) -> dict[str, float]:
        return {n: d for n, (d, _) in self._armed.items()}

    async def fire_due(self) -> int:
        due = sorted((d, n) for n, (d, _) in self._armed.items() if d <= self._clock.now_s())
        for _, name in due:
            entry = self._armed.pop(name, None)
            if entry is not None:
                await entry[1]()
        return len(due)


@dataclass
class RecordingMcu:
    """Fake MCU port: records commands."""

    commands: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def command(self, name: str, args: dict[str, Any]) -> None:
        self.commands.append((name, dict(args)))


@dataclass
class RecordingIndicators:
    """Fake LEDs and buzzer: records (what, seat_or_duration, value)."""

    history: list[tuple[str, float, bool]] = field(default_factory=list)

    def set_led(self, seat: int, on: bool) -> None:
        self.history.append(("led", float(seat), on))

    def buzz(self, duration_s: float) -> None:
        self.history.append(("buzz", duration_s, True))


@dataclass
class RecordingPublisher:
    """Fake publisher: keeps the last views and every effect published."""

    states: int = 0
    last_public: dict[str, Any] | None = None
    last_referee: dict[str, Any] | None = None
    effects: list[dict[str, Any]] = field(default_factory=list)

    async def publish_state(self, public: dict[str, Any], referee: dict[str, Any]) -> None:
        self.states += 1
        self.last_public = public
        self.last_referee = referee

    async def publish_effect(self, effect: dict[str, Any]) -> None:
        self.effects.append(effect)


class EngineShell:
    """Runs the journaled engine on one asyncio loop and executes its effects through the ports."""

    def __init__(self, table: JournaledTable, *, clock: Clock, mcu: McuPort, indicators: IndicatorPort,
                 publisher: PublisherPort, timers: TimerPort, id_prefix: str = "shell") -> None:
        self.table = table
        self.clock = clock
        self.mcu = mcu
        self.indicators = indicators
        self.publisher = publisher
        self.timers = timers
        self._ids = itertools.count(1)
        self._prefix = f"{id_prefix}-{int(clock.now_s() * 1000)}"
        self._lock = asyncio.Lock()

    @property
    def state(self) -> GameState:
        return self.table.state

    def new_id(self) -> str:
        """A fresh event id for events this shell stamps itself (ticks)."""
        return f"{self._prefix}-{next(self._ids)}"

    def stamp(self, obj: dict[str, Any]) -> Event:
        """Build an event from a JSON dict, filling ``id`` and ``at_s`` from the shell when absent."""
        obj = dict(obj)
        obj.setdefault("id", self.new_id())
        obj.setdefault("at_s", self.clock.now_s())
        return event_from_json(obj)

    async def resume(self) -> tuple[Effect, ...]:
        """After opening a journal: execute the start-up effects of a new session, or re-arm the timers of a
        resumed one from their wall-clock deadlines and fire the overdue ones with a tick."""
        if not self.table.resumed:
            fx = self.table.startup_effects
            await self._execute(fx)
            await self._publish_state()
            return fx
        for t in self.state.timers:
            if not self.state.paused and not t.expired:
                self.timers.arm(t.name, t.deadline_s, self._tick)
        await self._publish_state()
        return await self.submit(ClockTick(id=self.new_id(), at_s=self.clock.now_s()))

    async def _tick(self) -> None:
        await self.submit(ClockTick(id=self.new_id(), at_s=self.clock.now_s()))

    async def submit(self, event: Event) -> tuple[Effect, ...]:
        """Step, journal (fsync) and then execute the effects and publish the views.  Serialised by a lock."""
        async with self._lock:
            before = self.state.seq
            fx = self.table.submit(event)
            await self._execute(fx)
            if self.state.seq != before:
                await self._publish_state()
            return fx

    async def _execute(self, fx: tuple[Effect, ...]) -> None:
        for e in fx:
            try:
                if isinstance(e, McuCommand):
                    await self.mcu.command(e.name, e.args)
                elif isinstance(e, SetLed):
                    self.indicators.set_led(e.seat, e.on)
                elif isinstance(e, Buzz):
                    self.indicators.buzz(e.duration_s)
                elif isinstance(e, StartTimer):
                    self.timers.arm(e.name, e.deadline_s, self._tick)
                elif isinstance(e, CancelTimer):
                    self.timers.cancel(e.name)
                else:
                    await self.publisher.publish_effect(e.to_json())
            except Exception:  # a port failing must not lose the journaled step
                LOGGER.exception("effect %s failed", e.type)

    async def _publish_state(self) -> None:
        try:
            await self.publisher.publish_state(public_view(self.state), referee_view(self.state))
        except Exception:
            LOGGER.exception("publishing the state failed")

    async def run(self, inbox: asyncio.Queue[Event]) -> None:
        """Consume events from ``inbox`` until cancelled (one controller loop: deterministic order)."""
        while True:
            ev = await inbox.get()
            await self.submit(ev)
