"""One table's MQTT channel: state, events, timers, status and the delayed spectator mirror.

The table service (:mod:`mjtable.service`) or the engine shell (:mod:`controller.shell`) owns one
:class:`TableChannel` and calls it from its asyncio loop after every engine step:

    channel = TableChannel("T1", publisher, clock=time.time, spectator_delay_s=60)
    channel.publish_state(public_view(state, "T1"), referee_view(state, "T1"))
    channel.publish_event("discard", {"seat": 2, "tile": "5p"}, event_id="T1:17")
    channel.tick()                     # on every clock tick: releases due spectator messages

Every public payload is validated against its schema and passed through the hidden-information guard
before it is handed to the publisher; a payload that fails either is refused with an exception and nothing
is published.  The referee state goes only to the referee topic.  Alerts and infractions inside the public
state are published in their redacted form (kind, seat; no words that name a tile); engine effects given to
:meth:`TableChannel.publish_effect` go in full to ``referee/events`` and (alerts, infractions) redacted to the
public stream; rejections stay referee-only.  :meth:`TableChannel.publish_record` puts the complete game record
(wall faces included) on the retained referee-only ``referee/record`` topic for the recorder.

When the public state first shows a hand result, a ``hand_result`` event with a deterministic id is emitted
(the recorder builds game records from them); a state with ``phase`` in :data:`END_PHASES` emits ``game_end``.
Both name the players per seat (``players``, the seating of the hand just played) and, when the state gives it,
in registration order (``session_players``): records are kept per player, since seats rotate.

A result or an end that changes after it was sent -- HKMA riichi re-settles an exhaustive draw on each 「聽牌」/
「不聽」 until the next wall; a referee waives or confirms a penalty after the session is over -- is sent again
under the next revision id, ``<first id>:r1``, ``:r2``, ... (data ``revision``): the last one sent (highest
``seq``) is the final one, and records take it.  With a ledger the revision survives a restart (the outbox's
``meta`` keeps the revision and a digest of what was sent), so a result shown again unchanged is not sent again
and a changed one always gets a new id.

``game_end`` carries every infraction of the session in its public form (``infractions``, with
``infractions_total``): from the ``infractions`` source the owner gives (the engine state's whole list), else only
the ones the public states showed this process (a view holds the last 20).  At most
:data:`INFRACTIONS_PER_EVENT` ride on one event: a longer list goes first in ``game_infractions`` pages (id
``<end id>:infractions<k>``, data ``end``, ``page``, ``pages``, ``infractions``) published just before its
``game_end``, which carries the last page and ``infraction_pages``; nothing is left out.
Not thread-safe: one loop calls it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mjtable import schemas
from mjtable.mqtt.delay import SpectatorDelayQueue
from mjtable.mqtt.guard import (
    check_public,
    redact_alert,
    redact_infraction,
    redact_public_state,
    seated_players,
)
from mjtable.mqtt.outbox import Hold, Outbox
from mjtable.mqtt.publisher import Message, Publisher
from mjtable.mqtt.topics import TableTopics

#: engine phases that mean the session (game) is over
END_PHASES = frozenset({"session_over", "session_end", "ended", "finished", "game_over"})
MAX_SPECTATOR_DELAY_S = 300.0
#: infractions on one event (``game_end`` and its ``game_infractions`` pages): an infraction's public form is about
#: 250 bytes (at most ~800 with a 64-character name), so a page stays far below the 256 KiB that the broker
#: (deploy/mosquitto ``message_size_limit``) and the recorder (``MAX_EVENT_BYTES``) take
INFRACTIONS_PER_EVENT = 200


def dumps(doc: Any) -> bytes:
    """Compact UTF-8 JSON, the wire format of every payload."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def status_message(topics: TableTopics, status: str, ts_s: float | None = None) -> Message:
    """The retained ``status`` message (``online``, or ``offline`` for the last will)."""
    doc: dict[str, Any] = {"schema": "mjtable.status/1", "table": topics.table_id, "status": status}
    if ts_s is not None:
        doc["ts_s"] = ts_s
    return Message(topics.status, dumps(doc), qos=1, retain=True)


class TableChannel:
    """Publishes one table's documents.

    Args:
        table_id: the table id used in topics and documents.
        publisher: where messages go (:class:`~mjtable.mqtt.publisher.PahoPublisher` or a fake).
        clock: wall clock in unix seconds (``time.time``; a fake in tests).
        spectator_delay_s: broadcast delay of the ``spectator/`` mirror, 0-300 s.
        game_id: id of the running game (session); events carry it in ``game``.
        validate: check payloads against the JSON Schemas (on by default).
        delay_queue: where delayed spectator copies wait; pass a persistent
            :class:`~mjtable.mqtt.delay.SpectatorDelayQueue` (same path after a restart) so a crash loses none:
            the copies it holds are released by :meth:`tick` at their due times.  In memory when None.
        ledger: the publisher's :class:`~mjtable.mqtt.outbox.Outbox` (persistent): the seq continues after a restart
            from the last one published in this game, an event id already published is not published again under
            a new seq, and every event is handed over with a ``hold`` so it stays in the outbox until the recorder
            acknowledges it end to end.  None: seqs start at ``first_seq`` and nothing is held.
        record_events: called once when the game ends (``game_end``); returns the accepted engine events (e.g.
            ``lambda: record_from_journal(journal_path)["events"]``), published as the complete game record on
            the referee-only ``referee/record`` topic (:meth:`publish_record`).  None: the owner calls it.
        infractions: every infraction of the session so far, in its public form (``Infraction.public_json()``, e.g.
            ``lambda: [i.public_json() for i in table.state.infractions]``): ``game_end`` carries them all, redacted.
            None: only those the public states showed to this channel (a view lists the last 20), so an older one
            is missing after a restart or once 20 newer ones were shown.
    """

    def __init__(self, table_id: str, publisher: Publisher, *, clock: Callable[[], float] = time.time,
                 spectator_delay_s: float = 0.0, game_id: str | None = None, validate: bool = True,
                 first_seq: int = 0, delay_queue: SpectatorDelayQueue | None = None,
                 record_events: Callable[[], list[dict[str, Any]]] | None = None,
                 ledger: Outbox | None = None,
                 infractions: Callable[[], Sequence[Mapping[str, Any]]] | None = None) -> None:
        if not 0.0 <= spectator_delay_s <= MAX_SPECTATOR_DELAY_S:
            raise ValueError(f"spectator delay must be 0..{MAX_SPECTATOR_DELAY_S:.0f} s, not {spectator_delay_s}")
        self.topics = TableTopics(table_id)
        self.publisher = publisher
        self.clock = clock
        self.spectator_delay_s = spectator_delay_s
        self.game_id = game_id or f"{table_id}-{int(clock())}"
        self.validate = validate
        self.ledger = ledger
        self.seq = max(first_seq, ledger.last_seq(self.game_id)) if ledger is not None else first_seq
        self.record_events = record_events
        self.delay_queue = delay_queue if delay_queue is not None else SpectatorDelayQueue(None)
        # in-memory mirror of the queue (due_s, topic, payload, retain, rowid); the queue is the truth on restart
        self._delayed: deque[tuple[float, str, bytes, bool, int]] = deque(
            (d.due_s, d.topic, d.payload, d.retain, d.rowid) for d in self.delay_queue.pending())
        self.infractions = infractions
        self._sent: dict[str, tuple[int, str]] = {}  # first event id -> (revision, digest) of the last one sent
        self._ended = False
        self._last_public: dict[str, Any] | None = None
        self._infractions: dict[str, dict[str, Any]] = {}  # without a source: every one seen, by id, latest status

    # -- documents -----------------------------------------------------------------------------------
    def publish_state(self, public: dict[str, Any], referee: dict[str, Any] | None = None) -> None:
        """Publish the retained public state (and the referee state, if given) and derived events."""
        public = redact_public_state(public, referee)
        if self.validate:
            schemas.validate("public_state", public)
            if referee is not None:
                schemas.validate("referee_state", referee)
        check_public(public)
        self._public(self.topics.state, dumps(public), retain=True, leaf="state")
        if referee is not None:
            self.publisher.publish(self.topics.referee_state, dumps(referee), qos=1, retain=True)
        self._derive_events(public)
        self._last_public = public

    def publish_event(self, type_: str, data: dict[str, Any], event_id: str | None = None,
                      ts_s: float | None = None) -> dict[str, Any]:
        """Publish one public event (QoS 1, not retained); returns the envelope that was sent.  With a ledger, an
        ``event_id`` published before (e.g. by the process before a restart) is not sent again: the envelope
        returned then carries the seq it was published under."""
        ts = self.clock() if ts_s is None else ts_s
        if self.ledger is not None and event_id is not None:
            earlier = self.ledger.seq_of(self.game_id, event_id)
            if earlier is not None:
                return {"schema": "mjtable.event/1", "table": self.topics.table_id, "game": self.game_id,
                        "id": event_id, "seq": earlier, "ts_s": ts, "type": type_, "data": data}
        self.seq += 1
        doc = {"schema": "mjtable.event/1", "table": self.topics.table_id, "game": self.game_id,
               "id": event_id or f"{self.game_id}:{self.seq}", "seq": self.seq, "ts_s": ts, "type": type_,
               "data": data}
        if self.validate:
            schemas.validate("event", doc)
        check_public(doc)
        hold = (self.game_id, self.seq, str(doc["id"])) if self.ledger is not None else None
        self._public(self.topics.events, dumps(doc), retain=False, leaf="events", hold=hold)
        return doc

    def publish_effect(self, effect: dict[str, Any], event_id: str, ts_s: float | None = None) -> None:
        """Route one engine effect (``Effect.to_json()``) that is a report: ``alert``, ``infraction`` or ``rejected``
        goes in full to the referee-only ``referee/events`` topic; an alert or infraction also goes, redacted, to
        the public event stream (``event_id`` there; ``<event_id>:referee`` on the referee topic).  Other effects
        are ignored (the views carry their consequences)."""
        kind = effect.get("type")
        if kind not in ("alert", "infraction", "rejected"):
            return
        data = {k: v for k, v in effect.items() if k != "type"}
        ts = self.clock() if ts_s is None else ts_s
        full = {"schema": "mjtable.event/1", "table": self.topics.table_id, "game": self.game_id,
                "id": f"{event_id}:referee", "seq": self.seq, "ts_s": ts, "type": str(kind), "data": data}
        if self.validate:
            schemas.validate("event", full)
        self.publisher.publish(self.topics.referee_events, dumps(full), qos=1, retain=False)
        if kind == "alert":
            self.publish_event("alert", redact_alert(data, seated_players(self._last_public)), event_id=event_id,
                               ts_s=ts)
        elif kind == "infraction" and isinstance(effect.get("infraction"), dict):
            self.publish_event("infraction", redact_infraction(effect["infraction"]), event_id=event_id, ts_s=ts)

    def publish_record(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        """Publish the complete game record (``mjtable.engine_record/1``: ``events`` are the accepted engine input
        events, ``session_start`` first, e.g. a journal's) retained on the referee-only ``referee/record`` topic,
        never on a public topic.  Call it once at the game end; returns the document sent."""
        from mjtable.recorder.engine_record import engine_record

        doc = engine_record(events, table=self.topics.table_id, game=self.game_id)
        self.publisher.publish(self.topics.referee_record, dumps(doc), qos=1, retain=True)
        return doc

    def publish_timers(self, timers: list[dict[str, Any]], now_s: float | None = None) -> None:
        """Publish the retained list of running countdowns (``deadline_s`` in unix seconds)."""
        doc = {"schema": "mjtable.timers/1", "table": self.topics.table_id,
               "now_s": self.clock() if now_s is None else now_s, "timers": timers}
        if self.validate:
            schemas.validate("timers", doc)
        check_public(doc)
        self._public(self.topics.timers, dumps(doc), retain=True, leaf="timers")

    def online_message(self) -> Message:
        return status_message(self.topics, "online")

    def will_message(self) -> Message:
        return status_message(self.topics, "offline")

    # -- spectator mirror ----------------------------------------------------------------------------------
    def _public(self, topic: str, payload: bytes, *, retain: bool, leaf: str, hold: Hold | None = None) -> None:
        if hold is not None:
            self.publisher.publish(topic, payload, qos=1, retain=retain, hold=hold)
        else:
            self.publisher.publish(topic, payload, qos=1, retain=retain)
        mirror = self.topics.spectator(leaf)
        if self.spectator_delay_s <= 0 and not self._delayed:
            self.publisher.publish(mirror, payload, qos=1, retain=retain)
        else:  # (with no delay, copies left from before a restart go first: order is kept)
            due = self.clock() + self.spectator_delay_s
            rowid = self.delay_queue.put(due, mirror, payload, retain)
            self._delayed.append((due, mirror, payload, retain, rowid))

    def tick(self, now_s: float | None = None) -> int:
        """Release every spectator message whose delay has passed; returns how many were published."""
        now = self.clock() if now_s is None else now_s
        n = 0
        while self._delayed and self._delayed[0][0] <= now:
            _, topic, payload, retain, rowid = self._delayed[0]
            self.publisher.publish(topic, payload, qos=1, retain=retain)  # into the publisher's outbox first
            self.delay_queue.done(rowid)
            self._delayed.popleft()
            n += 1
        return n

    @property
    def delayed_count(self) -> int:
        return len(self._delayed)

    # -- derived events ----------------------------------------------------------------------------------
    def _derive_events(self, public: dict[str, Any]) -> None:
        session = public["session"]
        hand_no = int(session["hand_no"])
        if self.infractions is None:
            for inf in public.get("infractions", []):
                if isinstance(inf, dict) and "id" in inf:
                    self._infractions[str(inf["id"])] = inf
        result = public.get("result")
        players = [s["player"] for s in public["seats"]]  # per seat, in the seating of the shown hand
        registered = {"session_players": list(session["players"])} if "players" in session else {}
        winds = [s.get("wind") for s in public["seats"]]
        if result is not None:
            hand = {"rules": public["rules"], "hand_no": hand_no, "round_wind": session["round_wind"],
                    "dealer": session["dealer"], "hands_total": session["hands_total"], "players": players,
                    "winds": winds, **registered,
                    "result": result, "scores": [s["score"] for s in public["seats"]],
                    "penalties": [s["penalties"] for s in public["seats"]]}
            self._send_latest(f"{self.game_id}:hand{hand_no}:result", result,
                              lambda event_id, revision: self.publish_event("hand_result", {**hand, **revision},
                                                                            event_id=event_id))
        if public.get("phase") in END_PHASES:
            infractions = self._session_infractions()
            end = {"rules": public["rules"], "players": players, **registered,
                   "scores": [s["score"] for s in public["seats"]], "hands_played": hand_no,
                   "infractions": infractions, "infractions_total": len(infractions)}
            sent = self._send_latest(f"{self.game_id}:end", end,
                                     lambda event_id, revision: self._publish_end(end, event_id, revision))
            if (sent or not self._ended) and self.record_events is not None:  # again after a restart: retained
                self.publish_record(self.record_events())
            self._ended = True

    def _session_infractions(self) -> list[dict[str, Any]]:
        """Every infraction of the session in its public (redacted) form, latest status, in the order recorded."""
        if self.infractions is None:
            return list(self._infractions.values())
        return [redact_infraction(dict(inf)) for inf in self.infractions()]

    def _publish_end(self, end: dict[str, Any], event_id: str, revision: dict[str, int]) -> None:
        """``game_end`` under ``event_id``; an infraction list longer than :data:`INFRACTIONS_PER_EVENT` goes first
        in ``game_infractions`` pages, the end carrying the last one."""
        infractions = end["infractions"]
        pages = [infractions[k:k + INFRACTIONS_PER_EVENT]
                 for k in range(0, len(infractions), INFRACTIONS_PER_EVENT)] or [[]]
        for k, page in enumerate(pages[:-1], 1):
            self.publish_event("game_infractions", {"rules": end["rules"], "end": event_id, "page": k,
                                                    "pages": len(pages), "infractions": page, **revision},
                               event_id=f"{event_id}:infractions{k}")
        self.publish_event("game_end", {**end, "infractions": pages[-1], "infraction_pages": len(pages), **revision},
                           event_id=event_id)

    def _send_latest(self, first_id: str, content: dict[str, Any],
                     publish: Callable[[str, dict[str, int]], Any]) -> bool:
        """Publish ``content`` the first time it shows (id ``first_id``) and whenever it changed since it was last
        sent (id ``<first_id>:r<k>``, k = 1, 2, ...; ``publish(event_id, {"revision": k})``); returns whether it
        was published now.  With a ledger the last revision sent and its digest are kept in the outbox's ``meta``:
        after a restart an unchanged one is not sent again, a changed one gets the next id.  An id the ledger holds
        without its digest (a kill in between, an outbox from before revisions) gets a new revision: the same
        content twice is harmless, a lost correction is not."""
        digest = hashlib.sha256(dumps(content)).hexdigest()[:16]
        last = self._sent.get(first_id)
        if last is None and self.ledger is not None:
            last = _parse_sent(self.ledger.get_meta(_sent_key(first_id)))
            if last is None and self.ledger.seq_of(self.game_id, first_id) is not None:
                last = (0, "")
        if last is not None and last[1] == digest:
            self._sent[first_id] = last
            return False
        revision = 0 if last is None else last[0] + 1
        while self.ledger is not None and self.ledger.seq_of(self.game_id, _revised(first_id, revision)) is not None:
            revision += 1  # in the outbox but never noted as sent (a kill between the two): that id is taken
        publish(_revised(first_id, revision), {"revision": revision} if revision else {})
        self._sent[first_id] = (revision, digest)
        if self.ledger is not None:
            self.ledger.set_meta(_sent_key(first_id), f"{revision}:{digest}")
        return True


def _revised(first_id: str, revision: int) -> str:
    """The id of a derived event's ``revision`` (0: ``first_id`` itself)."""
    return first_id if revision == 0 else f"{first_id}:r{revision}"


def _sent_key(first_id: str) -> str:
    """The outbox ``meta`` key of a derived event's last revision sent."""
    return f"sent:{first_id}"


def _parse_sent(value: str | None) -> tuple[int, str] | None:
    """``"<revision>:<digest>"`` -> (revision, digest); None when absent or unreadable (treated as never sent)."""
    if value is None:
        return None
    revision, _, digest = value.partition(":")
    return (int(revision), digest) if revision.isdigit() and digest else None
