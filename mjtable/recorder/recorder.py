"""The recorder: subscribes to every table on a broker and stores their event streams.

It uses a persistent MQTT session (fixed client id, ``clean_start=False``, QoS 1): while the recorder or
the broker is down the broker queues the events (mosquitto with ``persistence true`` keeps them across its
own restart), and a message is acknowledged only after the event is in the database (by the writer thread
after its batch committed, or by paho after :meth:`Recorder._on_message` returned when ``batch_max=0``).
Duplicates (redeliveries, a table resending its outbox) are dropped by event id.  Malformed payloads are
logged and counted, never stored.

MQTT 5, with a session that never expires (``clean_start=False``): several recorders may share the work with
``share_group`` (subscriptions ``$share/<group>/mjtable/v1/table/+/...``; the broker gives each message to one
member, every member writes the same database, and the inserts are idempotent, so every event is stored once).
With ``batch_max > 0`` (the default) messages are stored by a writer thread in batches and acknowledged only after
their transaction committed (:mod:`mjtable.recorder.writer`); ``batch_max=0`` stores each message on paho's
thread.  It also stores each table's complete game record
(``referee/record``, :mod:`mjtable.recorder.engine_record`; the ``recorder`` role may read it) for the riichi
tenhou/mjai exports.  Callbacks run on paho's network thread.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from mjtable import schemas
from mjtable.mqtt.topics import ALL_EVENTS, ALL_RECORDS, ALL_STATUS, TopicError, table_of
from mjtable.recorder.engine_record import MAX_RECORD_BYTES, RecordError, check_record
from mjtable.recorder.envelope import check_event
from mjtable.recorder.store import EventStore
from mjtable.recorder.writer import BatchWriter, Inbound

LOGGER = logging.getLogger(__name__)
MAX_EVENT_BYTES = 256 * 1024
#: MQTT 5 session expiry that means "never" (the broker keeps the recorder's queue while it is away)
SESSION_NEVER_EXPIRES = 0xFFFFFFFF
#: in-flight window the recorder offers the broker (MQTT 5 Receive Maximum): a batch is at most this big
RECEIVE_MAXIMUM = 1000
#: ``mqtt_version`` values.  "5" (the default) is the standard for shared subscriptions; "3.1.1" costs paho ~60 µs
#: less per message here (it parses no MQTT 5 properties) and mosquitto, EMQX and VerneMQ accept ``$share/``
#: from 3.1.1 clients as an extension
MQTT_VERSIONS = ("5", "3.1.1")


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
        mqtt_version: ``"5"`` or ``"3.1.1"`` (see :data:`MQTT_VERSIONS`).
    """

    def __init__(self, store: EventStore, host: str, port: int, *, client_id: str = "mjtable-recorder",
                 username: str | None = None, password: str | None = None, keepalive_s: int = 10,
                 share_group: str | None = None, batch_max: int = 500, mqtt_version: str = "5") -> None:
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
        self.share_group = share_group
        self._batch = threading.local()
        self.mqtt_version = mqtt_version
        if mqtt_version == "5":
            c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                            manual_ack=batch_max > 0)
        else:  # 3.1.1: a persistent session is clean_session=False
            c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311,
                            clean_session=False, manual_ack=batch_max > 0)
        if username is not None:
            c.username_pw_set(username, password)
        c.reconnect_delay_set(1, 2)
        c.max_inflight_messages_set(200)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_subscribe = self._on_subscribe
        c.on_message = self._on_message
        self._client = c
        self._writer = BatchWriter(self, c.ack, max_batch=batch_max) if batch_max > 0 else None
        self._keepalive_s = keepalive_s
        self._stopping = False

    def start(self) -> Recorder:
        """Connect in the background (paho thread); reconnects on its own."""
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
        return self

    def wait_connected(self, timeout_s: float = 10.0) -> bool:
        """Block until connected AND subscribed (True), or ``timeout_s`` passed (False)."""
        return self._connected.wait(timeout_s)

    def stop(self) -> None:
        """Disconnect, then store what the writer still holds (unacknowledged: the broker sends it again next
        time, and the duplicate is dropped by id)."""
        self._stopping = True
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

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.last_connect_error = str(reason)
            LOGGER.error("broker %s:%s refused the recorder: %s", self.host, self.port, reason)
            return
        client.subscribe([(t, 1) for t in self.subscriptions()])
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
        else:
            self.handle(msg.topic, bytes(msg.payload))

    def collect(self, messages: Sequence[Inbound]) -> list[dict[str, Any]]:
        """Validate a batch (writer thread): status and records are stored now, the events are returned for
        :meth:`commit`."""
        self._batch.events = []
        try:
            for m in messages:
                self.handle(m.topic, m.payload)
            return list(self._batch.events)
        finally:
            self._batch.events = None

    def commit(self, events: Sequence[dict[str, Any]]) -> None:
        """Store a batch of validated events in one transaction (writer thread)."""
        new = self.store.add_events(events)
        self.stored += new
        self.duplicates += len(events) - new

    def _store_event(self, doc: dict[str, Any]) -> None:
        pending = getattr(self._batch, "events", None)
        if pending is not None:  # inside collect(): the writer stores the batch in one transaction
            pending.append(doc)
        elif self.store.add_event(doc):
            self.stored += 1
        else:
            self.duplicates += 1

    def handle(self, topic: str, payload: bytes) -> None:
        """Validate and store one message (called on paho's network thread, or directly in tests)."""
        try:
            table, leaf = table_of(topic)
            if leaf == "referee/record":
                self._record(table, payload)
                return
            if len(payload) > MAX_EVENT_BYTES:
                raise schemas.PayloadError(f"{len(payload)} bytes exceeds {MAX_EVENT_BYTES}")
            doc = json.loads(payload.decode("utf-8"))
            if leaf == "status":
                schemas.validate("status", doc)
                self.store.set_status(table, doc["status"], float(doc.get("ts_s", 0.0)))
                return
            check_event(doc)  # exactly the schema, ~40x faster (mjtable.recorder.envelope)
            if doc["table"] != table:
                raise schemas.PayloadError(f"event for table {doc['table']!r} on {topic}")
        except (TopicError, UnicodeDecodeError, json.JSONDecodeError, schemas.PayloadError) as exc:
            self.rejected += 1
            LOGGER.warning("recorder rejected a message on %s: %s", topic, exc)
            return
        self._store_event(doc)


    def _record(self, table: str, payload: bytes) -> None:
        if len(payload) > MAX_RECORD_BYTES:
            raise schemas.PayloadError(f"game record of {len(payload)} bytes exceeds {MAX_RECORD_BYTES}")
        try:
            doc = check_record(json.loads(payload.decode("utf-8")))
        except RecordError as exc:
            raise schemas.PayloadError(str(exc)) from exc
        if doc["table"] != table:
            raise schemas.PayloadError(f"record for table {doc['table']!r} on {table!r}'s topic")
        if self.store.add_record(doc):
            self.records += 1
