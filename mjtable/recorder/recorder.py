"""The recorder: subscribes to every table on a broker and stores their event streams.

It uses a persistent MQTT session (fixed client id, ``clean_start=False``, QoS 1): while the recorder or
the broker is down the broker queues the events (mosquitto with ``persistence true`` keeps them across its
own restart), and a message is acknowledged only after the event is in the database (by the writer thread
after its batch committed, or by paho after :meth:`Recorder._on_message` returned when ``batch_max=0``).
Duplicates (redeliveries, a table resending its outbox) are dropped by event id.  Every payload is bounded in
size and nesting depth before it is parsed (:func:`mjtable.mqtt.payload.loads_bounded`); a message that is not
valid (a poison message) is set aside (:class:`~mjtable.recorder.rejected.RejectedLog`) and acknowledged, and
nothing a payload does can end paho's network thread or the writer thread.  A message whose store write fails is
NOT acknowledged (the writer retries; with ``batch_max=0`` the broker redelivers it after the next reconnect).

MQTT 3.1.1 (``clean_session=False``) on its own, MQTT 5 (a session that never expires, ``clean_start=False``) in
a shared group, by default (:data:`MQTT_VERSIONS`); paho reads through :class:`mjtable.mqtt.buffered.BufferedClient`
(large reads, one write for a batch's PUBACKs).  Several recorders may share the work with
``share_group`` (subscriptions ``$share/<group>/mjtable/v1/table/+/...``; the broker gives each message to one
member, every member writes the same database, and the inserts are idempotent, so every event is stored once).
With ``batch_max > 0`` (the default) messages are stored by a writer thread in batches and acknowledged only after
their transaction committed (:mod:`mjtable.recorder.writer`); ``batch_max=0`` stores each message on paho's
thread.  It also stores each table's complete game record
(``referee/record``, :mod:`mjtable.recorder.engine_record`; the ``recorder`` role may read it) for the riichi
tenhou/mjai exports.  Callbacks run on paho's network thread.

End-to-end acknowledgement (issue 19.2): a broker that crashes loses the messages it acknowledged but had not
saved yet, so tables keep every event until the RECORDER has it.  Per (table, game) the recorder tracks the
highest ``seq`` up to which it holds every event, and publishes it (retained, QoS 1) on
``mjtable/v1/table/<id>/recorder/ack`` (:data:`ACK_SCHEMA`) at most every ``ack_every_s``; the table drops
held events up to that seq and resends the rest after a reconnect or when the ack reports ``missing``
events.  A gap in a table's seqs (a broker that dropped queued messages, issue 19.4) is counted
(``missing_seen``), logged as a warning and reported in the ack until the table's resend fills it
(``recovered``): never silent.  Acks are published from the ``recorder.acks`` thread.  A member of a
shared-subscription group sees only its share of each table's events, so it cannot tell a gap from its
partner's share: with ``share_group`` the acks are off (``ack_every_s`` is ignored) and durability across a
broker crash rests on the tables' resend after reconnect (see docs/mqtt.md).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from mjtable import schemas
from mjtable.mqtt.buffered import BufferedClient
from mjtable.mqtt.channel import dumps
from mjtable.mqtt.payload import loads_bounded_text, unstorable
from mjtable.mqtt.topics import ALL_EVENTS, ALL_RECORDS, ALL_STATUS, TableTopics, table_of
from mjtable.recorder.engine_record import MAX_RECORD_BYTES, RecordError, check_record
from mjtable.recorder.envelope import check_event
from mjtable.recorder.rejected import RejectedLog
from mjtable.recorder.store import EventStore
from mjtable.recorder.writer import BatchWriter, Inbound

LOGGER = logging.getLogger(__name__)
MAX_EVENT_BYTES = 256 * 1024
#: MQTT 5 session expiry that means "never" (the broker keeps the recorder's queue while it is away)
SESSION_NEVER_EXPIRES = 0xFFFFFFFF
#: in-flight window the recorder offers the broker (MQTT 5 Receive Maximum): a batch is at most this big
RECEIVE_MAXIMUM = 1000
#: ``mqtt_version`` values.  "auto" (the default): "3.1.1" for a recorder on its own, "5" in a shared-subscription
#: group.  paho builds an MQTT 5 ``Properties`` object for every PUBLISH it receives, ~12 µs of CPU per message
#: here (``bench.recorder_cpu``), a quarter of the recorder's cost per event; a recorder on its own needs nothing
#: of MQTT 5 (3.1.1 keeps a ``clean_session=False`` session as long as the broker does, and the broker's
#: ``max_inflight_messages`` is its window).  ``$share/`` is standard in MQTT 5; mosquitto, EMQX and VerneMQ also
#: accept it from 3.1.1 clients as an extension, so ``"3.1.1"`` with a group is the cheaper choice on those.
MQTT_VERSIONS = ("auto", "5", "3.1.1")
MAX_STATUS_BYTES = 16 * 1024
ACK_SCHEMA = "mjtable.recorder_ack/1"
#: while events are missing, the ack is published again this often (seconds): it asks the table to resend
REASK_S = 2.0


@dataclass
class _Progress:
    """What the recorder holds of one (table, game): every seq <= ``contiguous`` plus the seqs in ``ahead``."""

    contiguous: int = 0
    ahead: set[int] = field(default_factory=set)
    changed: bool = True
    sent_s: float = 0.0  # monotonic time of the last ack published

    def add(self, seq: int) -> tuple[int, int]:
        """Record ``seq``; returns (newly missing, recovered): the seqs it skipped over, or 1 if it filled a hole."""
        if seq <= self.contiguous or seq in self.ahead:
            return 0, 0
        top = max(self.ahead) if self.ahead else self.contiguous
        newly_missing = max(0, seq - top - 1)
        recovered = 1 if seq < top else 0
        self.ahead.add(seq)
        while self.contiguous + 1 in self.ahead:
            self.contiguous += 1
            self.ahead.discard(self.contiguous)
        self.changed = True
        return newly_missing, recovered

    @property
    def missing(self) -> int:
        if not self.ahead:
            return 0
        return max(self.ahead) - self.contiguous - len(self.ahead)


class Recorder:
    """Stores every table's events from one broker.

    Args:
        store: the event store.
        host, port: the broker (TCP).
        client_id: fixed MQTT client id: the broker keeps this session's queue while the recorder is away.
        username, password: the recorder's broker user (role ``recorder`` in deploy/mosquitto).
        share_group: subscribe as a member of this MQTT 5 shared-subscription group (several recorders).
        batch_max: most messages per database transaction on the writer thread (0: one insert per message on
            paho's network thread).
        rejected: where poison messages are set aside (in memory when None).
        ack_every_s: how often changed end-to-end acks are published, seconds (0: no acks; off with
            ``share_group``).
        mqtt_version: ``"auto"``, ``"5"`` or ``"3.1.1"`` (see :data:`MQTT_VERSIONS`); :attr:`mqtt_version` is the
            version used.
    """

    def __init__(self, store: EventStore, host: str, port: int, *, client_id: str = "mjtable-recorder",
                 username: str | None = None, password: str | None = None, keepalive_s: int = 10,
                 share_group: str | None = None, batch_max: int = 500, mqtt_version: str = "auto",
                 rejected: RejectedLog | None = None, ack_every_s: float = 0.5) -> None:
        if mqtt_version not in MQTT_VERSIONS:
            raise ValueError(f"bad MQTT version {mqtt_version!r}: use one of {', '.join(MQTT_VERSIONS)}")
        if share_group is not None and not share_group.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"bad share group {share_group!r}: use letters, digits, '-' or '_'")
        self.store = store
        self.host = host
        self.port = port
        self.stored = 0
        self.duplicates = 0
        self.rejected = 0
        self.records = 0
        self._connected = threading.Event()
        self.last_connect_error: str | None = None
        self.store_errors = 0
        self.missing_seen = 0
        self.recovered = 0
        self.rejected_log = rejected if rejected is not None else RejectedLog(None)
        self._progress: dict[tuple[str, str], _Progress] = {}
        self._plock = threading.Lock()
        self.share_group = share_group
        self._batch = threading.local()
        if mqtt_version == "auto":
            mqtt_version = "5" if share_group else "3.1.1"
        self.mqtt_version = mqtt_version
        if mqtt_version == "5":
            c = BufferedClient(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                               manual_ack=True)
        else:  # 3.1.1: a persistent session is clean_session=False
            c = BufferedClient(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311,
                               clean_session=False, manual_ack=True)
        if username is not None:
            c.username_pw_set(username, password)
        c.reconnect_delay_set(1, 2)
        c.max_inflight_messages_set(200)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_subscribe = self._on_subscribe
        c.on_message = self._on_message
        self._client = c
        self._writer = (BatchWriter(self, c.ack, max_batch=batch_max, ack_many=c.ack_many) if batch_max > 0
                        else None)
        self._keepalive_s = keepalive_s
        self._stopping = False
        self._ack_every_s = 0.0 if share_group else ack_every_s
        self._stop_acks = threading.Event()
        self._ack_thread: threading.Thread | None = None

    def start(self) -> Recorder:
        """Connect in the background (paho thread); reconnects on its own.  Starts the writer and ack threads."""
        if self._writer is not None:
            self._writer.start()
        if self.mqtt_version == "5":
            props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
            props.SessionExpiryInterval = SESSION_NEVER_EXPIRES
            props.ReceiveMaximum = RECEIVE_MAXIMUM
            self._client.connect_async(self.host, self.port, keepalive=self._keepalive_s, clean_start=False,
                                       properties=props)
        else:
            self._client.connect_async(self.host, self.port, keepalive=self._keepalive_s)
        self._client.loop_start()
        if self._ack_every_s > 0:
            self._ack_thread = threading.Thread(target=self._ack_loop, name="recorder.acks", daemon=True)
            self._ack_thread.start()
        return self

    def wait_connected(self, timeout_s: float = 10.0) -> bool:
        """Block until connected AND subscribed (True), or ``timeout_s`` passed (False)."""
        return self._connected.wait(timeout_s)

    def stop(self) -> None:
        """Disconnect, then store what the writer still holds (unacknowledged: the broker sends it again next
        time, and the duplicate is dropped by id)."""
        self._stopping = True
        self._stop_acks.set()
        if self._ack_thread is not None:
            self._ack_thread.join(5.0)
        self._client.disconnect()
        self._client.loop_stop()
        if self._writer is not None:
            self._writer.stop()

    @property
    def backlog(self) -> int:
        """Messages received and not yet stored (the writer's queue)."""
        return self._writer.backlog if self._writer is not None else 0

    def subscriptions(self) -> list[str]:
        """The topic filters, as members of the shared group when there is one."""
        topics = [ALL_EVENTS, ALL_STATUS, ALL_RECORDS]
        return [f"$share/{self.share_group}/{t}" for t in topics] if self.share_group else topics

    def stats(self) -> dict[str, Any]:
        """Counters (for the CLI's ``recorder_stats`` lines)."""
        with self._plock:
            missing_now = sum(p.missing for p in self._progress.values())
        return {"stored": self.stored, "duplicates": self.duplicates, "rejected": self.rejected,
                "store_errors": self.store_errors, "missing_seen": self.missing_seen, "recovered": self.recovered,
                "missing_now": missing_now, "records": self.records, "backlog": self.backlog}

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.last_connect_error = str(reason)
            LOGGER.error("broker %s:%s refused the recorder: %s", self.host, self.port, reason)
            return
        client.subscribe([(t, 1) for t in self.subscriptions()])
        with self._plock:
            for p in self._progress.values():
                p.changed = True  # a restarted broker may have lost the retained acks
        LOGGER.info("recorder connected to %s:%s (session present: %s)", self.host, self.port,
                    getattr(flags, "session_present", "?"))

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        if any(getattr(c, "is_failure", False) for c in codes):
            self.last_connect_error = f"subscription refused: {codes}"
            LOGGER.error("broker refused the recorder's subscriptions: %s", codes)
            return
        self._connected.set()  # ready only once the broker confirmed the subscriptions

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self._connected.clear()
        if not self._stopping:
            LOGGER.warning("recorder lost the broker (%s); reconnecting", reason)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if self._writer is not None:
            self._writer.put(Inbound(msg.topic, bytes(msg.payload), msg.mid, msg.qos))
            return
        try:
            self.handle(msg.topic, bytes(msg.payload))
        except Exception:  # the store failed: do not acknowledge; the broker redelivers after a reconnect
            self.store_errors += 1
            LOGGER.exception("recorder could not store a message on %s; it stays unacknowledged", msg.topic)
            return
        if msg.qos > 0:
            client.ack(msg.mid, msg.qos)

    def collect(self, messages: Sequence[Inbound]) -> list[tuple[dict[str, Any], str]]:
        """Validate a batch (writer thread): status and records are stored now, the events are returned for
        :meth:`commit` as (document, payload text as received)."""
        self._batch.events = []
        try:
            for m in messages:
                self.handle(m.topic, m.payload)
            return list(self._batch.events)
        finally:
            self._batch.events = None

    def commit(self, events: Sequence[tuple[dict[str, Any], str]]) -> None:
        """Store a batch of validated events in one transaction (writer thread)."""
        docs = [doc for doc, _ in events]
        new = self.store.add_events(docs, payloads=[text for _, text in events])
        self.stored += new
        self.duplicates += len(events) - new
        if self.share_group:  # a group member sees only its share: its gaps are its partners' events
            return
        for doc in docs:
            self._seen(str(doc["table"]), str(doc["game"]), int(doc["seq"]))

    def _store_event(self, doc: dict[str, Any], text: str) -> None:
        pending = getattr(self._batch, "events", None)
        if pending is not None:  # inside collect(): the writer stores the batch in one transaction
            pending.append((doc, text))
            return
        if self.store.add_events([doc], payloads=[text]):
            self.stored += 1
        else:
            self.duplicates += 1
        self._seen(str(doc["table"]), str(doc["game"]), int(doc["seq"]))

    def handle(self, topic: str, payload: bytes) -> None:
        """Validate and store one message (paho's network thread, the writer thread, or directly in tests).  A
        message that is not valid is set aside in the rejected log and returns normally; only a store failure
        raises."""
        text = ""  # an event's payload text as received (stored as is)
        try:
            table, leaf = table_of(topic)
            if leaf == "referee/record":
                doc = self._check_record(table, payload)
            else:
                doc, text = loads_bounded_text(payload, max_bytes=MAX_STATUS_BYTES if leaf == "status"
                                               else MAX_EVENT_BYTES)
                if leaf == "status":
                    schemas.validate("status", doc)
                else:
                    check_event(doc)  # exactly the schema, ~40x faster (mjtable.recorder.envelope)
                if doc["table"] != table:
                    raise schemas.PayloadError(f"document for table {doc['table']!r} on {topic}")
                why = unstorable(doc, text, ("status",) if leaf == "status" else ("id", "game"))
                if why is not None:
                    raise schemas.PayloadError(f"valid, but cannot be stored: {why}")
        except Exception as exc:  # poison: bounded, set aside, acknowledged; never fatal
            self.rejected += 1
            reason = f"{type(exc).__name__}: {exc}"[:500]
            self.rejected_log.put(topic, payload, reason)
            LOGGER.warning("recorder set aside a message on %s: %s", topic[:200], reason)
            return
        if leaf == "referee/record":
            if self.store.add_record(doc):
                self.records += 1
        elif leaf == "status":
            self.store.set_status(table, doc["status"], float(doc.get("ts_s", 0.0)))
        else:
            self._store_event(doc, text)

    def _check_record(self, table: str, payload: bytes) -> dict[str, Any]:
        doc, text = loads_bounded_text(payload, max_bytes=MAX_RECORD_BYTES, max_depth=64)
        try:
            doc = check_record(doc)
        except RecordError as exc:
            raise schemas.PayloadError(str(exc)) from exc
        if doc["table"] != table:
            raise schemas.PayloadError(f"record for table {doc['table']!r} on {table!r}'s topic")
        why = unstorable(doc, text, ("game", "rules"))
        if why is not None:
            raise schemas.PayloadError(f"valid, but cannot be stored: {why}")
        return doc

    # -- end-to-end acknowledgement ----------------------------------------------------------------------
    def _seen(self, table: str, game: str, seq: int) -> None:
        if self.share_group:  # a group member sees only its share: its gaps are its partners' events
            return
        key = (table, game)
        with self._plock:
            progress = self._progress.get(key)
        if progress is None:
            progress = _Progress()
            for ev in self.store.events(table=table, game=game):  # what earlier runs (and this message) stored
                progress.add(int(ev.get("seq") or 0))
            self.missing_seen += progress.missing  # holes below what is stored: counted once they are seen
            with self._plock:
                progress = self._progress.setdefault(key, progress)
        with self._plock:
            missing, recovered = progress.add(seq)
        if missing:
            self.missing_seen += missing
            LOGGER.warning("table %s game %s: %d event(s) before seq %d never arrived (broker dropped or lost "
                           "them); the ack asks the table to resend", table, game, missing, seq,
                           extra={"table": table, "game": game, "missing": missing})
        self.recovered += recovered

    def ack_doc(self, table: str, game: str) -> dict[str, Any]:
        """The ``mjtable.recorder_ack/1`` document of one (table, game)."""
        with self._plock:
            p = self._progress[(table, game)]
            return {"schema": ACK_SCHEMA, "table": table, "game": game, "seq": p.contiguous, "missing": p.missing,
                    "ts_s": time.time()}

    def publish_acks(self) -> int:
        """Publish the ack of every (table, game) that changed since the last one, and again every
        :data:`REASK_S` while events are missing (the table resends on it); returns how many."""
        now = time.monotonic()
        with self._plock:
            changed = [k for k, p in self._progress.items()
                       if p.changed or (p.missing and now - p.sent_s >= REASK_S)]
            for k in changed:
                self._progress[k].changed = False
                self._progress[k].sent_s = now
        for table, game in changed:
            self._client.publish(TableTopics(table).recorder_ack, dumps(self.ack_doc(table, game)), qos=1,
                                 retain=True)
        return len(changed)

    def _ack_loop(self) -> None:
        while not self._stop_acks.wait(self._ack_every_s):
            if self._connected.is_set():
                try:
                    self.publish_acks()
                except Exception:
                    LOGGER.exception("publishing recorder acks failed")
