"""The service's GPIO, camera and MQTT parts (the MCU part is :mod:`mjtable.service.mcu`).

Each part runs as a task on the service loop, reports its health, and never takes the service down: a
missing daemon, camera or broker is ``down: <why>`` and the part keeps retrying or waits.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from controller.engine.events import ButtonPressed, CameraObserved
from hw.backend import GpioError
from hw.panel import TablePanel
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.commands import Command, CommandEndpoint, engine_event_json
from mjtable.mqtt.publisher import Publisher
from mjtable.service.camera import FRAME_KEY
from mjtable.service.health import Health
from mjtable.service.mcu import Emit

LOGGER = logging.getLogger(__name__)

#: Phases in which the pass/ready button means "ready" (the wall being built, the dice, flower replacement).  Not
#: ``hand_over``: there *pass* is a seat's own word -- HKMA riichi's 「不聽」 after an exhaustive draw (002 L427,
#: ``controller.engine.ext_riichi_tenpai``), as it is from a button wired to the table MCU.
READY_PHASES = frozenset({"building", "flowers", "dice"})


class GpioPart:
    """Seat buttons in, LEDs and buzzer out.

    Args:
        open_panel: builds the panel (opens the backend); raises ``GpioError`` when it cannot.
        emit: queue an engine event.
        phase: the engine's current phase name (decides whether pass/ready means ``ready`` or ``pass``).
        retry_s: pause before reopening a failed panel, seconds.
        probe_s: with no press for this long, read a pin to notice a vanished daemon or chip, seconds.
    """

    def __init__(self, open_panel: Callable[[], TablePanel] | None, emit: Emit, health: Health,
                 phase: Callable[[], str], *, retry_s: float = 10.0, probe_s: float = 5.0) -> None:
        self._open = open_panel
        self._emit = emit
        self._health = health
        self._phase = phase
        self._retry_s = retry_s
        self._probe_s = probe_s
        self.panel: TablePanel | None = None
        self._leds: dict[int, bool] = {}

    async def run(self) -> None:
        """Open the panel (retrying), forward presses; returns only when cancelled (service loop)."""
        if self._open is None:
            self._health.set("gpio", "off: gpio.backend = none (no seat buttons)")
            await asyncio.Event().wait()
        assert self._open is not None
        while True:
            try:
                panel = self._open()
            except GpioError as exc:
                self._health.set("gpio", f"down: {exc}")
                await asyncio.sleep(self._retry_s)
                continue
            try:
                async with panel:
                    self.panel = panel
                    for seat, on in self._leds.items():
                        panel.set_led(seat, on)
                    self._health.set("gpio", "ok")
                    while True:
                        try:
                            press = await asyncio.wait_for(panel.next_press(), self._probe_s)
                        except TimeoutError:  # quiet table: make sure the daemon/chip is still there
                            panel.backend.read(panel.pin_of(0, "call"))
                            continue
                        button = press.button
                        if button == "pass" and self._phase() in READY_PHASES:
                            button = "ready"
                        self._emit(ButtonPressed, seat=press.seat, button=button)
            except GpioError as exc:
                self._health.set("gpio", f"down: {exc}")
            finally:
                self.panel = None
                panel.backend.close()
            await asyncio.sleep(self._retry_s)

    def set_led(self, seat: int, on: bool) -> None:
        """Engine ``SetLed`` effect (remembered and re-applied after a GPIO reconnect)."""
        self._leds[seat] = on
        if self.panel is not None:
            try:
                self.panel.set_led(seat, on)
            except GpioError as exc:
                self._health.set("gpio", f"down: {exc}")

    def buzz(self, duration_s: float) -> None:
        """Engine ``Buzz`` effect; silently nothing without a panel."""
        if self.panel is not None:
            self.panel.buzz(duration_s)


class ObservationSource(Protocol):
    """Vision event dicts from the camera pipeline (``{"type", "seat", "tiles", ...}``), in order."""

    def observations(self) -> AsyncIterator[dict[str, Any]]: ...

    async def aclose(self) -> None: ...


class SnapshotSink(Protocol):
    """Where the frame of each camera event goes (``mjtable.snapshots.SnapshotStore``)."""

    def save_frame(self, event_id: str, frame: Any) -> Any: ...


def _close_when_opened(opening: asyncio.Future[ObservationSource]) -> None:
    """Done callback (loop thread) of an open the camera part no longer waits for: close the source it opened."""
    if not opening.cancelled() and opening.exception() is None:
        task = asyncio.ensure_future(opening.result().aclose())
        _CLOSING.add(task)
        task.add_done_callback(_CLOSING.discard)


#: closes started by :func:`_close_when_opened` (a task must be referenced until it is done)
_CLOSING: set[asyncio.Future[None]] = set()


class CameraPart:
    """Feeds camera observations to the engine as ``CameraObserved`` events; saves the frame each was read from
    as that event's hawk-eye snapshot (``<journal>.snapshots/<event id>.jpg``) when a sink is given.
    ``open_source`` runs on a worker thread (it may load and check a model); ``retry_s``: pause before reopening
    a camera that is down, seconds."""

    def __init__(self, open_source: Callable[[], ObservationSource] | None, emit: Emit, health: Health, *,
                 describe: str = "camera", retry_s: float = 5.0, snapshots: SnapshotSink | None = None) -> None:
        self._open = open_source
        self._emit = emit
        self._snapshots = snapshots
        self._health = health
        self._describe = describe
        self._retry_s = retry_s
        self.seen = 0

    async def run(self) -> None:
        if self._open is None:
            self._health.set("camera", "off: camera.source = none (referee enters discards and melds)")
            await asyncio.Event().wait()
        assert self._open is not None
        while True:
            opening = asyncio.ensure_future(asyncio.to_thread(self._open))
            try:  # on a worker thread: opening loads the classifier and checks it on this CPU (about a second)
                source = await asyncio.shield(opening)
            except asyncio.CancelledError:  # stopped meanwhile: close what the thread opens, not leave it open
                opening.add_done_callback(_close_when_opened)
                raise
            except (OSError, RuntimeError, ValueError) as exc:
                self._health.set("camera", f"down: {self._describe}: {exc}")
                await asyncio.sleep(self._retry_s)
                continue
            self._health.set("camera", "ok")
            try:
                async for obs in source.observations():
                    self.seen += 1
                    observation = dict(obs)
                    frame = observation.pop(FRAME_KEY, None)
                    ev = self._emit(CameraObserved, observation=observation)
                    if frame is not None and self._snapshots is not None and ev is not None:
                        self._save_snapshot(ev.id, frame)
                self._health.set("camera", f"down: {self._describe}: the source ended")
            except (OSError, RuntimeError, ValueError) as exc:
                self._health.set("camera", f"down: {self._describe}: {exc}")
            finally:
                await source.aclose()
            await asyncio.sleep(self._retry_s)

    def _save_snapshot(self, event_id: str, frame: Any) -> None:
        if self._snapshots is None:
            return
        try:
            self._snapshots.save_frame(event_id, frame)
        except (OSError, ValueError) as exc:  # a snapshot is evidence, never a reason to stop refereeing
            LOGGER.warning("snapshot of %s not saved: %s", event_id, exc)


#: emit_json(engine event JSON, on_done): on_done(None) once applied, on_done(reason) when rejected.
EmitJson = Callable[[dict[str, Any], Callable[[str | None], None]], None]


#: clear_fault(command, answer): CLEAR_FAULT to the table MCU, then resume the engine; answer(None | reason).
ClearFault = Callable[[Command, Callable[[str | None], None]], None]


class MqttPart:
    """Publishes views and events through :class:`mjtable.mqtt.channel.TableChannel`; takes referee commands in.

    ``publisher`` connects and reconnects on its own (paho's thread); this part watches ``connected`` and
    reports it.  Referee commands arrive on paho's thread and are handed to the loop.
    """

    def __init__(self, publisher: Publisher, channel: TableChannel, emit_json: EmitJson,
                 health: Health, clock: Callable[[], float], *, poll_s: float = 1.0,
                 status_interval_s: float = 5.0, clear_fault: ClearFault | None = None) -> None:
        self.publisher = publisher
        #: the retained status and health are sent again this often (s) while nothing changes: a heartbeat
        self.status_interval_s = status_interval_s
        self._health_sent_at = float("-inf")  # loop monotonic time of the last publish_health
        self._clear_fault = clear_fault
        self.channel = channel
        self._emit_json = emit_json
        self._health = health
        self._clock = clock
        self._poll_s = poll_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self.endpoint = CommandEndpoint(channel.topics.table_id, publisher, self._on_command_thread)

    @property
    def health_topic(self) -> str:
        """Retained ``mjtable.health/1`` of this table (referee/organiser data: no tiles)."""
        return self.channel.topics.health

    def publish_health(self, health: Health) -> None:
        """Announce the part states (degraded mode) on MQTT: the retained ``status`` (``online`` with
        ``degraded`` and ``parts``) and the retained ``health`` document; loop thread."""
        topics = self.channel.topics
        status = {"schema": "mjtable.status/1", "table": topics.table_id, "status": "online", "ts_s": self._clock(),
                  "degraded": health.degraded, "parts": dict(health.parts)}
        self.publisher.publish(topics.status, json.dumps(status, separators=(",", ":")).encode(), qos=1, retain=True)
        doc = {**health.to_json(), "table": topics.table_id}
        self.publisher.publish(self.health_topic, json.dumps(doc, separators=(",", ":")).encode(), qos=1,
                               retain=True)
        self._health_sent_at = time.monotonic()

    async def run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.endpoint.start()
        self._health.listeners.append(self.publish_health)
        self.publish_health(self._health)
        was_connected = self.publisher.connected
        while True:
            connected = self.publisher.connected
            self._health.set("mqtt", "ok" if connected else "down: broker unreachable; "
                             "messages are kept in the outbox and sent on reconnect")
            if connected and not was_connected:  # the plain "online" of the reconnect replaced our status
                self.publish_health(self._health)
            elif connected and time.monotonic() - self._health_sent_at >= self.status_interval_s:
                self.publish_health(self._health)  # the heartbeat: a fresh ts_s while nothing changes
            was_connected = connected
            self.channel.tick()  # releases the delayed spectator mirror
            resend_stale = getattr(self.publisher, "resend_stale", None)
            if connected and resend_stale is not None:  # the recorder's end-to-end ack stalled: resend
                resend_stale()
            await asyncio.sleep(min(self._poll_s, self.status_interval_s))

    def _on_command_thread(self, cmd: Command) -> None:  # paho network thread
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._on_command, cmd)

    def _on_command(self, cmd: Command) -> None:  # loop
        def answer(error: str | None) -> None:
            self.endpoint.answer(cmd.id, ok=error is None, error=error)

        if cmd.command == "clear_fault":  # for the table MCU, not the engine (the engine then resumes)
            if self._clear_fault is None:
                answer("this table has no MCU to clear")
            else:
                self._clear_fault(cmd, answer)
            return
        self._emit_json(engine_event_json(cmd, self._clock()), answer)
