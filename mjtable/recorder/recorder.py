"""The recorder: subscribes to every table on a broker and stores their event streams.

It uses a persistent MQTT session (fixed client id, ``clean_session=False``, QoS 1): while the recorder or
the broker is down the broker queues the events (mosquitto with ``persistence true`` keeps them across its
own restart), and paho acknowledges a message only after :meth:`Recorder._on_message` returned, i.e. after
the event is in the database.  Duplicates (redeliveries, a table resending its outbox) are dropped by event
id.  Malformed payloads are logged and counted, never stored.  It also stores each table's complete game record
(``referee/record``, :mod:`mjtable.recorder.engine_record`; the ``recorder`` role may read it) for the riichi
tenhou/mjai exports.  Callbacks run on paho's network thread.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mjtable import schemas
from mjtable.mqtt.topics import ALL_EVENTS, ALL_RECORDS, ALL_STATUS, TopicError, table_of
from mjtable.recorder.engine_record import MAX_RECORD_BYTES, RecordError, check_record
from mjtable.recorder.store import EventStore

LOGGER = logging.getLogger(__name__)
MAX_EVENT_BYTES = 256 * 1024


class Recorder:
    """Stores every table's events from one broker.

    Args:
        store: the event store.
        host, port: the broker (TCP).
        client_id: fixed MQTT client id: the broker keeps this session's queue while the recorder is away.
        username, password: the recorder's broker user (role ``recorder`` in deploy/mosquitto).
    """

    def __init__(self, store: EventStore, host: str, port: int, *, client_id: str = "mjtable-recorder",
                 username: str | None = None, password: str | None = None, keepalive_s: int = 10) -> None:
        self.store = store
        self.host = host
        self.port = port
        self.stored = 0
        self.duplicates = 0
        self.rejected = 0
        self.records = 0
        self._connected = threading.Event()
        self.last_connect_error: str | None = None
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False)
        if username is not None:
            c.username_pw_set(username, password)
        c.reconnect_delay_set(1, 2)
        c.max_inflight_messages_set(200)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_subscribe = self._on_subscribe
        c.on_message = self._on_message
        self._client = c
        self._keepalive_s = keepalive_s
        self._stopping = False

    def start(self) -> Recorder:
        """Connect in the background (paho thread); reconnects on its own."""
        self._client.connect_async(self.host, self.port, keepalive=self._keepalive_s)
        self._client.loop_start()
        return self

    def wait_connected(self, timeout_s: float = 10.0) -> bool:
        """Block until connected AND subscribed (True), or ``timeout_s`` passed (False)."""
        return self._connected.wait(timeout_s)

    def stop(self) -> None:
        self._stopping = True
        self._client.disconnect()
        self._client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.last_connect_error = str(reason)
            LOGGER.error("broker %s:%s refused the recorder: %s", self.host, self.port, reason)
            return
        client.subscribe([(ALL_EVENTS, 1), (ALL_STATUS, 1), (ALL_RECORDS, 1)])
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
        self.handle(msg.topic, bytes(msg.payload))

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
            schemas.validate("event", doc)
            if doc["table"] != table:
                raise schemas.PayloadError(f"event for table {doc['table']!r} on {topic}")
        except (TopicError, UnicodeDecodeError, json.JSONDecodeError, schemas.PayloadError) as exc:
            self.rejected += 1
            LOGGER.warning("recorder rejected a message on %s: %s", topic, exc)
            return
        if self.store.add_event(doc):
            self.stored += 1
        else:
            self.duplicates += 1


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
