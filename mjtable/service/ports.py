"""The service's implementations of the engine shell's ports (``controller.shell``).

* :class:`ServiceMcuPort` -> :class:`mjtable.service.mcu.McuPart` (commands run as tasks: a build takes a minute);
* :class:`ServiceIndicators` -> :class:`mjtable.service.parts.GpioPart` (turn LEDs, buzzer);
* :class:`ServicePublisher` -> :class:`mjtable.mqtt.channel.TableChannel` (views, timers, public events,
  alerts and infractions; ids are deterministic per engine ``seq`` so a resumed service republishing after a crash
  produces duplicates the recorder drops, never new events; a Sichuan 定缺 *call* press is published nowhere
  public and counted in no public number: :class:`mjtable.service.events_out.PublicSeq`);
* :class:`InboxTimers` -> a due timer queues a ``ClockTick`` on the service inbox (one order for every input).

All called on the service loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from controller.engine.effects import McuCommand
from controller.engine.events import Event, event_from_json
from controller.engine.state import GameState, Phase
from controller.journal import JournaledTable, Record, replay
from controller.views import public_view
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.outbox import glob_literal
from mjtable.service.events_out import PublicSeq, hidden_step, public_event, void_call
from mjtable.service.mcu import McuPart
from mjtable.service.parts import GpioPart

LOGGER = logging.getLogger(__name__)

#: effects that are reports for the referee (the channel decides what of them the public may see)
REPORTS = ("alert", "infraction", "rejected")


class ServiceMcuPort:
    def __init__(self, mcu: McuPart | None) -> None:
        self._mcu = mcu

    async def command(self, name: str, args: dict[str, Any]) -> None:
        if self._mcu is not None:
            self._mcu.execute(McuCommand(name=name, args=dict(args)))


class ServiceIndicators:
    def __init__(self, gpio: GpioPart | None) -> None:
        self._gpio = gpio

    def set_led(self, seat: int, on: bool) -> None:
        if self._gpio is not None:
            self._gpio.set_led(seat, on)

    def buzz(self, duration_s: float) -> None:
        if self._gpio is not None:
            self._gpio.buzz(duration_s)


class ServicePublisher:
    """Args: channel: None publishes nothing (tests); changed: set after every published state.

    ``event`` is the input being stepped (the service sets it; None: a step of the shell's own, e.g. the tick after a
    resume); ``numbering`` the public numbers of the steps (:class:`PublicSeq`)."""

    def __init__(self, channel: TableChannel | None, changed: asyncio.Event) -> None:
        self.channel = channel
        self.changed = changed
        self.event: Event | None = None
        self.numbering = PublicSeq()
        self._view: dict[str, Any] | None = None  # the engine's last public view, as given
        self._seq = 0
        self._fx_count = 0

    async def publish_state(self, public: dict[str, Any], referee: dict[str, Any]) -> None:
        """After every accepted step.  A hidden step (a 定缺 *call* press, :func:`hidden_step`) publishes nothing:
        its public documents would only differ by the ``seq`` it took (and the referee view shows no more)."""
        before, self._view = self._view, public
        hidden = hidden_step(self.event, before, public)
        self.numbering.account(str(public.get("phase")), hidden)
        self.changed.set()
        if hidden:
            return
        self._seq = self.numbering(int(public.get("seq", self._seq)))
        self._fx_count = 0
        if self.channel is None:
            return
        if public.get("seq") != self._seq:
            public = {**public, "seq": self._seq}
        self.channel.publish_state(public, referee)
        self.channel.publish_timers(list(public.get("timers", [])))

    async def publish_effect(self, effect: dict[str, Any]) -> None:
        """Alerts, infractions and rejections: in full to the referee-only ``referee/events`` topic, and (alerts,
        infractions) redacted to the public stream — ``mjtable.mqtt``'s ``TableChannel.publish_effect`` routes them; ids
        are deterministic per engine ``seq``."""
        if self.channel is None or effect.get("type") not in REPORTS:
            return
        self._fx_count += 1
        self.channel.publish_effect(effect, event_id=f"{self.channel.game_id}:{self._seq}:fx{self._fx_count}")

    def publish_events(self, pairs: list[tuple[str, dict[str, Any]]], seq: int, ts_s: float,
                       public_seq: int | None = None) -> None:
        """The public form of one accepted input event (see :func:`mjtable.service.events_out.public_event`); ``seq``
        is the engine's (the journal's ``n``), ``public_seq`` its public number for the ids (default: ``seq``)."""
        if self.channel is None:
            return
        n = seq if public_seq is None else public_seq
        for k, (kind, data) in enumerate(pairs):
            try:
                self.channel.publish_event(kind, data, event_id=f"{self.channel.game_id}:{n}:{k}", ts_s=ts_s)
            except Exception:  # a schema/guard refusal must never stop the referee
                LOGGER.exception("publishing %s at seq %d failed", kind, seq)
        ledger = self.channel.ledger
        if ledger is not None:  # what a resumed service must publish again starts after this journal seq (and the
            # ledger rows of the events published so far may go once the recorder has them)
            game = self.channel.game_id  # prunable: the ids of journal records and their effects, <game>:<n>:...
            ledger.mark_published(game, {published_key(game): str(seq)}, prunable=f"{glob_literal(game)}:[0-9]*")


def game_id_of(table_id: str, start_s: float) -> str:
    """The game id the service gives a session (``<table>-<unix start s>``): its events' ids and outbox keys."""
    return f"{table_id}-{int(start_s)}"


def published_key(game_id: str) -> str:
    """The outbox ``meta`` key holding the last journal seq whose public events are in the outbox."""
    return f"published_n:{game_id}"


def republish_unconfirmed(table: JournaledTable, publisher: ServicePublisher) -> int:
    """After a resume: publish the public events of the journaled events whose publication the outbox never
    recorded (a SIGKILL between the journal's fsync and the outbox, issue 19.3); returns how many journal events
    were looked at again.  Ids are deterministic and the outbox ledger drops ids already published, so nothing is
    sent twice under two seqs.  Without a mark (an outbox from before this) the last accepted event is checked."""
    channel = publisher.channel
    if channel is None or channel.ledger is None:
        return 0
    mark = channel.ledger.get_meta(published_key(channel.game_id))
    records = [r for r in table.journal.records if r.rec == "event"]
    if not records:
        return 0
    after = int(mark) if mark is not None else records[-1].n - 1
    if records[-1].n <= after:
        return 0
    todo = 0
    for r, ev, before, public_seq in replay_public(records):
        if r.n <= after or before is None:
            continue
        todo += 1
        publisher.publish_events(public_event(ev, (), before), r.n, ev.at_s, public_seq)
    return todo


def replay_public(records: list[Record]) -> Iterator[tuple[Record, Event, GameState | None, int]]:
    """Fold accepted journal records (``session_start`` first; ``controller.journal.replay``) as the live service
    stepped them: each with its event, the state before it (None for the ``session_start``) and its public number
    (:class:`PublicSeq`)."""
    numbering = PublicSeq()
    for r, (ev, before, state) in zip(records, replay(event_from_json(r.event) for r in records), strict=True):
        hidden = before is not None and void_call(ev, str(before.phase)) and \
            hidden_step(ev, public_view(before), public_view(state))
        numbering.account(str(state.phase), hidden)
        yield r, ev, before, numbering(r.n)


def hidden_now(table: JournaledTable) -> int:
    """How many hidden steps the public numbers of ``table``'s (resumed) state leave out (:class:`PublicSeq`): 0
    outside the 定缺 phase; in it, the journal is folded again to count them."""
    if table.state.phase is not Phase.VOID:
        return 0
    hidden = 0
    for r, _, _, public_seq in replay_public([r for r in table.journal.records if r.rec == "event"]):
        hidden = r.n - public_seq
    return hidden


class InboxTimers:
    """The shell's TimerPort: one loop timer per name; when due, ``on_due()`` queues a ClockTick."""

    def __init__(self, clock: Callable[[], float], on_due: Callable[[], None]) -> None:
        self._clock = clock
        self._on_due = on_due
        self._handles: dict[str, tuple[float, asyncio.TimerHandle]] = {}

    def arm(self, name: str, deadline_s: float, fire: Callable[[], Awaitable[None]]) -> None:
        self.cancel(name)
        delay = max(0.0, deadline_s - self._clock())
        handle = asyncio.get_running_loop().call_later(delay, self._due, name)
        self._handles[name] = (deadline_s, handle)

    def _due(self, name: str) -> None:
        self._handles.pop(name, None)
        self._on_due()

    def cancel(self, name: str) -> None:
        entry = self._handles.pop(name, None)
        if entry is not None:
            entry[1].cancel()

    def armed(self) -> dict[str, float]:
        return {n: d for n, (d, _) in self._handles.items()}

    def cancel_all(self) -> None:
        for name in list(self._handles):
            self.cancel(name)
