"""In-memory broker and publisher: the fake side of :class:`~mjtable.mqtt.publisher.Publisher`.

:class:`MemoryBroker` keeps retained messages and a log of every delivered message, matches MQTT wildcards,
and runs subscribers synchronously in the publishing thread.  :class:`FakePublisher` is one client of it
with the same outbox semantics as the real publisher: while ``connected`` is False messages queue in order
and are delivered on :meth:`FakePublisher.reconnect`.  Single-threaded use (tests).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from paho.mqtt.client import topic_matches_sub

from mjtable.mqtt.outbox import Hold
from mjtable.mqtt.publisher import Message, MessageHandler


@dataclass(frozen=True, slots=True)
class Delivered:
    """One message as the broker routed it."""

    topic: str
    payload: bytes
    qos: int
    retain: bool
    client_id: str


@dataclass
class MemoryBroker:
    """Routes messages between :class:`FakePublisher` clients; ``log`` holds every message in order."""

    retained: dict[str, bytes] = field(default_factory=dict)
    log: list[Delivered] = field(default_factory=list)
    _subs: list[tuple[str, MessageHandler]] = field(default_factory=list)
    acl: Callable[[str, str, str], bool] | None = None  # (client_id, "read"|"write", topic) -> allowed

    def route(self, msg: Delivered) -> None:
        if self.acl is not None and not self.acl(msg.client_id, "write", msg.topic):
            return
        if msg.retain:
            if msg.payload:
                self.retained[msg.topic] = msg.payload
            else:
                self.retained.pop(msg.topic, None)
        self.log.append(msg)
        for topic_filter, handler in list(self._subs):
            if topic_matches_sub(topic_filter, msg.topic):
                handler(msg.topic, msg.payload)

    def subscribe(self, topic_filter: str, handler: MessageHandler) -> None:
        self._subs.append((topic_filter, handler))
        for topic, payload in list(self.retained.items()):
            if topic_matches_sub(topic_filter, topic):
                handler(topic, payload)

    def messages(self, topic_filter: str = "#") -> list[Delivered]:
        return [m for m in self.log if topic_matches_sub(topic_filter, m.topic)]


class FakePublisher:
    """A :class:`~mjtable.mqtt.publisher.Publisher` on a :class:`MemoryBroker` (tests, ``mjtable sim``)."""

    def __init__(self, broker: MemoryBroker, client_id: str = "fake", *, will: Message | None = None,
                 online: Message | None = None) -> None:
        self.broker = broker
        self.client_id = client_id
        self._will = will
        self._online = online
        self._connected = True
        self._queue: list[Delivered] = []
        self.closed = False
        if online is not None:
            self._send(Delivered(online.topic, online.payload, online.qos, online.retain, client_id))

    @property
    def connected(self) -> bool:
        return self._connected

    def _send(self, msg: Delivered) -> None:
        self.broker.route(msg)

    def publish(self, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False,
                hold: Hold | None = None) -> None:
        if self.closed:
            raise RuntimeError("publisher is closed")
        msg = Delivered(topic, payload, qos, retain, self.client_id)
        if self._connected:
            self._send(msg)
        elif qos > 0:
            self._queue.append(msg)

    def subscribe(self, topic_filter: str, handler: MessageHandler, *, qos: int = 1) -> None:
        self.broker.subscribe(topic_filter, handler)

    def disconnect(self, *, fire_will: bool = True) -> None:
        """Simulate losing the broker (the broker fires the will)."""
        self._connected = False
        if fire_will and self._will is not None:
            w = self._will
            self.broker.route(Delivered(w.topic, w.payload, w.qos, w.retain, self.client_id))

    def reconnect(self) -> None:
        """Come back: announce online, then deliver the queued messages in order."""
        self._connected = True
        if self._online is not None:
            o = self._online
            self._send(Delivered(o.topic, o.payload, o.qos, o.retain, self.client_id))
        queued, self._queue = self._queue, []
        for msg in queued:
            self._send(msg)

    def pending_count(self) -> int:
        return len(self._queue)

    def close(self) -> None:
        if self._will is not None and self._connected and not self.closed:
            w = self._will
            self._send(Delivered(w.topic, w.payload, w.qos, w.retain, self.client_id))
        self.closed = True
