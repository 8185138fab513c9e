"""The MQTT edge of a table: the :class:`Publisher` protocol and its paho implementation.

:class:`PahoPublisher` wraps one paho-mqtt 2.x client (``CallbackAPIVersion.VERSION2``, MQTT 3.1.1) whose
network loop runs on paho's own thread (``loop_start``).  Every QoS >= 1 message goes to the persistent
:class:`~mjtable.mqtt.outbox.Outbox` first and leaves it when the broker's PUBACK arrives.  While the broker
is gone paho keeps the messages queued in order and resends them after the automatic reconnect; messages
still in the outbox from a previous (killed) process are sent first when the publisher starts.  Duplicates
are possible after a reconnect, never losses or reordering: consumers drop duplicates by event id.

End to end (issue 19.2): event-stream messages published with a ``hold`` stay in the outbox after the PUBACK until
the recorder acknowledges them on the table's ``recorder/ack`` topic (:meth:`PahoPublisher.follow_recorder`);
held events the recorder does not have are sent again after every (re)connect, when the recorder reports
missing events, and when its acknowledgement stalls (:meth:`PahoPublisher.resend_stale`).  Until a recorder
has acknowledged anything, held events are kept but never resent (a table without a recorder).

The last will (``status`` = offline, retained) is registered at connect; ``online`` is published
(retained) on every successful connect.  ``publish`` and ``subscribe`` may be called from any thread;
subscription handlers run on paho's network thread and must not block.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mjtable.mqtt.outbox import Hold, Outbox
from mjtable.mqtt.payload import loads_bounded

LOGGER = logging.getLogger(__name__)

#: handler(topic, payload) for subscriptions; runs on the client's network thread
MessageHandler = Callable[[str, bytes], None]


@dataclass(frozen=True, slots=True)
class Message:
    """One MQTT message to publish (used for the will and the online announcement)."""

    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = False


class Publisher(Protocol):
    """Where a table's messages go.  Real: :class:`PahoPublisher`; fake: :class:`mjtable.mqtt.fake.FakePublisher`."""

    @property
    def connected(self) -> bool: ...

    def publish(self, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False,
                hold: Hold | None = None) -> None:
        """Queue one message; never blocks on the network and never drops a QoS >= 1 message.  ``hold``
        (game, seq, event id) marks an event the recorder must acknowledge end to end (ignored by fakes)."""
        ...

    def subscribe(self, topic_filter: str, handler: MessageHandler, *, qos: int = 1) -> None:
        """Call ``handler`` for every message matching ``topic_filter`` (re-subscribed after reconnects)."""
        ...

    def close(self) -> None:
        """Announce going offline (if a will was set), flush and disconnect."""
        ...


class PahoPublisher:
    """A :class:`Publisher` over paho-mqtt 2.x.

    Args:
        host, port: the broker (TCP, or websockets when ``transport="websockets"``).
        client_id: the MQTT client id (one per table process, e.g. ``mjtable-table-T1``).
        outbox: persistent store of unacknowledged messages (in-memory when None).
        will: the last-will message (normally ``status`` = offline, retained).
        online: published on every connect (normally ``status`` = online, retained).
        username, password: broker credentials (the table's own user).
        keepalive_s: MQTT keepalive in seconds; the broker fires the will after ~1.5x this without traffic.
        reconnect_max_s: upper bound of paho's reconnect back-off, seconds.
    """

    def __init__(self, host: str, port: int, client_id: str, *, outbox: Outbox | None = None,
                 will: Message | None = None, online: Message | None = None, username: str | None = None,
                 password: str | None = None, keepalive_s: int = 10, transport: str = "tcp",
                 reconnect_max_s: int = 2, clean_session: bool = True) -> None:
        self.host = host
        self.port = port
        self.client_id = client_id
        self.outbox = outbox if outbox is not None else Outbox(None)
        self._will = will
        self._online = online
        # _send_lock orders outbox writes with paho publishes; _lock guards the dicts only and is never held
        # while calling into paho (paho calls on_publish holding its own mutex: holding ours there deadlocks).
        self._send_lock = threading.Lock()
        self._lock = threading.Lock()
        self._inflight: dict[int, int] = {}  # paho mid -> outbox rowid
        self._early_acks: set[int] = set()  # PUBACKs that beat the mid registration
        self._untracked: set[int] = set()  # mids published outside the outbox (QoS 0, online, will)
        self._subs: dict[str, tuple[MessageHandler, int]] = {}
        # True once the connect callback has read _subs for the current session (under _lock): a later subscribe
        # sends its own SUBSCRIBE, an earlier one is in what the callback read; never both, never neither
        self._subs_live = False
        self._connected = threading.Event()
        self._closed = False
        self._resend_backlog = False  # True from start() until the first connect has flushed the outbox
        self.connects = 0
        self.resent = 0  # held events sent again for the recorder
        self.resend_min_s = 5.0  # at most one resend of a game's held events per this many seconds
        self.stale_s = 20.0  # resend when the recorder's ack has not moved for this long (seconds)
        self._ack_lock = threading.Lock()
        self._acked: dict[str, int] = {}  # game -> seq the recorder holds everything up to
        self._progress_s: dict[str, float] = {}  # game -> monotonic time the ack last moved
        self._resend_s: dict[str, float] = {}  # game -> monotonic time of the last resend
        self._resent_since_connect: set[str] = set()
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                             transport="websockets" if transport == "websockets" else "tcp")
        client.max_queued_messages_set(0)
        client.max_inflight_messages_set(100)
        client.reconnect_delay_set(min_delay=1, max_delay=max(1, reconnect_max_s))
        if username is not None:
            client.username_pw_set(username, password)
        if will is not None:
            client.will_set(will.topic, will.payload, qos=will.qos, retain=will.retain)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        self._client = client
        self._keepalive_s = keepalive_s
        self.last_connect_error: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> PahoPublisher:
        """Connect in the background; what a previous process left in the outbox goes first, on connect.

        Until the first connection, every publish only lands in the outbox: on connect the whole outbox is
        handed to paho in order (old backlog, then what this process published meanwhile), so a new message can
        never overtake the backlog of a killed predecessor.
        """
        with self._send_lock:
            self._resend_backlog = len(self.outbox) > 0
        self._client.connect_async(self.host, self.port, keepalive=self._keepalive_s)
        self._client.loop_start()
        return self

    def wait_connected(self, timeout_s: float = 10.0) -> bool:
        """Block the calling thread until connected (True) or ``timeout_s`` passed (False)."""
        return self._connected.wait(timeout_s)

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def pending_count(self) -> int:
        """Messages not yet acknowledged by the broker."""
        return len(self.outbox)

    def close(self, timeout_s: float = 5.0) -> None:
        """Wait up to ``timeout_s`` for queued messages to be acknowledged, publish the offline status (if a
        will is set) and disconnect.  Unacknowledged messages stay in a persistent outbox for the next start."""
        if self._closed:
            return
        self._closed = True
        deadline = time.monotonic() + timeout_s
        while self.connected and self._unacked() and time.monotonic() < deadline:
            time.sleep(0.005)  # let paho deliver what is queued; the rest stays in the outbox
        if self._will is not None and self.connected:
            info = self._client.publish(self._will.topic, self._will.payload, qos=1, retain=self._will.retain)
            self._register(info.mid, None)
            info.wait_for_publish(timeout_s)
        self._client.disconnect()
        self._client.loop_stop()
        self.outbox.close()

    def _unacked(self) -> int:
        with self._lock:
            return len(self._inflight)

    def kill(self) -> None:
        """Drop the connection without DISCONNECT (tests: the broker then fires the last will)."""
        self._closed = True
        self._client.loop_stop()
        sock = self._client.socket()
        if sock is not None:
            sock.close()

    # -- publish / subscribe -----------------------------------------------------------------------------
    def publish(self, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False,
                hold: Hold | None = None) -> None:
        if self._closed:
            raise RuntimeError("publisher is closed")
        with self._send_lock:
            rowid = self.outbox.put(topic, payload, qos, retain, hold if qos > 0 else None) if qos > 0 else None
            if self._resend_backlog and rowid is not None:
                return  # sent in order with the backlog on connect (_flush_backlog)
            info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            LOGGER.warning("paho refused %s (rc=%s); kept in the outbox", topic, info.rc)
        self._register(info.mid, rowid)

    def _register(self, mid: int, rowid: int | None) -> None:
        """Link a paho mid to its outbox row (``None``: not in the outbox), settling an ack that came first."""
        with self._lock:
            acked = mid in self._early_acks
            if acked:
                self._early_acks.discard(mid)
            elif rowid is None:
                self._untracked.add(mid)
            else:
                self._inflight[mid] = rowid
        if acked and rowid is not None:
            self.outbox.ack(rowid)

    def subscribe(self, topic_filter: str, handler: MessageHandler, *, qos: int = 1) -> None:
        with self._lock:
            self._subs[topic_filter] = (handler, qos)
            live = self._subs_live
        if live:
            self._client.subscribe(topic_filter, qos=qos)

    # -- paho callbacks (network thread) -------------------------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.last_connect_error = str(reason)
            LOGGER.warning("broker %s:%s refused %s: %s", self.host, self.port, self.client_id, reason)
            return
        self.connects += 1
        with self._ack_lock:
            self._resent_since_connect.clear()  # a restarted broker may have lost what it acknowledged
        self._flush_backlog()
        with self._lock:
            subs = list(self._subs.items())
            self._subs_live = True
        for topic_filter, (_, qos) in subs:
            client.subscribe(topic_filter, qos=qos)
        if self._online is not None:
            info = client.publish(self._online.topic, self._online.payload, qos=self._online.qos,
                                  retain=self._online.retain)
            self._register(info.mid, None)
        self._connected.set()
        LOGGER.info("connected to %s:%s as %s", self.host, self.port, self.client_id)
        self._resend_after_connect()

    def _resend_after_connect(self) -> None:
        """A (re)started broker may have lost events it had acknowledged: send again every held event the recorder
        has not acknowledged (only once a recorder has acknowledged something: a table without one keeps them)."""
        if self.outbox.get_meta("recorder_seen") is None:
            return
        now = time.monotonic()
        with self._ack_lock:
            games = set(self._acked)
        for game in games | set(self.outbox.held_games()):
            self._maybe_resend(game, now, missing=False)

    def _flush_backlog(self) -> None:
        """Hand the whole outbox to paho in order, once, on the first connect (network thread)."""
        with self._send_lock:
            if not self._resend_backlog:
                return
            for item in self.outbox.pending():
                info = self._client.publish(item.topic, item.payload, qos=item.qos, retain=item.retain)
                self._register(info.mid, item.rowid)
            self._resend_backlog = False

    # -- end-to-end acknowledgement by the recorder -----------------------------------------------------------
    def follow_recorder(self, ack_topic: str) -> None:
        """Subscribe to the recorder's acks for this table (``TableTopics.recorder_ack``)."""
        self.subscribe(ack_topic, self._on_recorder_ack, qos=1)

    def _on_recorder_ack(self, topic: str, payload: bytes) -> None:  # paho network thread
        try:
            doc = loads_bounded(payload, max_bytes=4096, max_depth=4)
            game, seq, missing = str(doc["game"]), int(doc["seq"]), int(doc.get("missing", 0))
        except (ValueError, KeyError, TypeError) as exc:
            LOGGER.warning("ignored a malformed recorder ack on %s: %s", topic, exc)
            return
        now = time.monotonic()
        with self._ack_lock:
            if seq > self._acked.get(game, -1):
                self._acked[game] = seq
                self._progress_s[game] = now
        if self.outbox.get_meta("recorder_seen") is None:
            self.outbox.set_meta("recorder_seen", "1")
        self.outbox.recorder_ack(game, seq)
        self._maybe_resend(game, now, missing=missing > 0)

    def resend_stale(self) -> int:
        """Resend held events of every game whose recorder ack has stalled; returns how many were sent (any
        thread; the service calls it from its poll loop)."""
        now = time.monotonic()
        with self._ack_lock:
            games = list(self._acked)
        return sum(self._maybe_resend(game, now, missing=False) for game in games)

    def _maybe_resend(self, game: str, now: float, *, missing: bool) -> int:
        if not self.connected and not missing:
            return 0
        with self._ack_lock:
            acked = self._acked.get(game, 0)
            stalled = now - self._progress_s.get(game, now) >= self.stale_s
            after_connect = game not in self._resent_since_connect
            throttled = now - self._resend_s.get(game, -1e9) < self.resend_min_s
            if not (after_connect or ((missing or stalled) and not throttled)):
                return 0
            self._resend_s[game] = now
            self._resent_since_connect.add(game)
            if stalled:
                self._progress_s[game] = now  # wait another stale_s before the next one
        held = self.outbox.held(game, acked)
        if not held:
            return 0
        with self._send_lock:
            for item in held:
                info = self._client.publish(item.topic, item.payload, qos=item.qos, retain=item.retain)
                self._register(info.mid, item.rowid)
        self.resent += len(held)
        LOGGER.info("resent %d event(s) of %s after seq %d that the recorder does not have yet", len(held), game,
                    acked, extra={"game": game, "resent": len(held)})
        return len(held)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        with self._lock:
            self._subs_live = False
        self._connected.clear()
        if not self._closed:
            LOGGER.warning("lost broker %s:%s (%s); %d messages kept for resending", self.host, self.port, reason,
                           len(self._inflight))

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        with self._lock:
            rowid = self._inflight.pop(mid, None)
            if rowid is None:
                if mid in self._untracked:
                    self._untracked.discard(mid)
                else:
                    self._early_acks.add(mid)
        if rowid is not None:
            self.outbox.ack(rowid)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self._lock:
            subs = list(self._subs.items())
        for topic_filter, (handler, _) in subs:
            if mqtt.topic_matches_sub(topic_filter, msg.topic):
                try:
                    handler(msg.topic, bytes(msg.payload))
                except Exception:
                    LOGGER.exception("handler for %s failed on %s", topic_filter, msg.topic)
