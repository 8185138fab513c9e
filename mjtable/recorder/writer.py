"""The recorder's writer thread: stores messages in batches, then acknowledges them to the broker.

paho's network thread only queues each message (:meth:`BatchWriter.put`); this thread takes what has arrived
(up to ``max_batch``; when few are queued it first lingers :data:`LINGER_S` for more), has the recorder validate
it (:meth:`~mjtable.recorder.recorder.Recorder.collect`), stores the events in one transaction
(:meth:`~mjtable.recorder.store.EventStore.add_events`) and only then sends the PUBACKs (paho ``manual_ack``),
in arrival order.  So an event is acknowledged only once it is in the database, as with one insert per message,
at a fraction of the cost per event.  A database error does not acknowledge anything: the batch is retried
(every insert is idempotent) until it is stored or the writer is stopped; what was never acknowledged the broker
delivers again.  The broker's in-flight window bounds a batch.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

LOGGER = logging.getLogger(__name__)
#: default linger (seconds): at 5,000 events/s a batch then holds ~25 events instead of 1-3, which halved the
#: recorder's CPU per event on SQLite (107 -> 60 µs, bench.recorder_load live, one recorder) for +5 ms latency
LINGER_S = 0.005


@dataclass(frozen=True, slots=True)
class Inbound:
    """One message as paho delivered it: topic, payload, packet id and QoS (for the acknowledgement)."""

    topic: str
    payload: bytes
    mid: int
    qos: int


class BatchSink(Protocol):
    def collect(self, messages: Sequence[Inbound]) -> Sequence[Any]:
        """Validate messages; store what is not an event (status, records); return the events to store."""
        ...

    def commit(self, events: Sequence[Any]) -> None:
        """Store the events in one transaction (raises on a database error)."""
        ...


class BatchWriter:
    """One thread that stores and acknowledges.

    Args:
        sink: the recorder.
        ack: ``ack(mid, qos)``, paho's ``Client.ack`` (thread-safe).
        max_batch: most messages per transaction.
        retry_s: pause after a failed transaction before it is tried again.
        ack_many: ``ack_many([(mid, qos), ...])`` acknowledges a stored batch at once, in arrival order
            (:meth:`mjtable.mqtt.buffered.BufferedClient.ack_many`); ``ack`` per message when None.
        linger_s: after the first message of a batch, wait this long (seconds) for more when few are queued.
    """

    def __init__(self, sink: BatchSink, ack: Callable[[int, int], Any], *, max_batch: int = 500,
                 retry_s: float = 1.0, ack_many: Callable[[list[tuple[int, int]]], Any] | None = None,
                 linger_s: float = LINGER_S) -> None:
        self._sink = sink
        self._ack = ack
        self._ack_many = ack_many
        self.linger_s = linger_s
        self.max_batch = max_batch
        self.retry_s = retry_s
        self._queue: queue.SimpleQueue[Inbound] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recorder.writer", daemon=True)
        self.batches = 0
        self.failures = 0

    def start(self) -> BatchWriter:
        self._thread.start()
        return self

    def put(self, message: Inbound) -> None:
        """Queue one message (paho's network thread)."""
        self._queue.put(message)

    @property
    def backlog(self) -> int:
        """Messages received and not yet stored."""
        return self._queue.qsize()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Store and acknowledge what is queued, then end the thread."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def _take(self) -> list[Inbound]:
        try:
            batch = [self._queue.get(timeout=0.1)]
        except queue.Empty:
            return []
        if self.linger_s > 0 and self._queue.qsize() < self.max_batch // 4:
            time.sleep(self.linger_s)  # let a batch gather: one commit and one write of acks for many events
        while len(batch) < self.max_batch:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def _run(self) -> None:
        while True:
            batch = self._take()
            if not batch:
                if self._stop.is_set():
                    return
                continue
            if not self._store(batch):
                return  # stopped while the database failed: nothing of this batch acknowledged
            if self._ack_many is not None:
                self._ack_many([(m.mid, m.qos) for m in batch if m.qos > 0])
            else:
                for m in batch:
                    if m.qos > 0:
                        self._ack(m.mid, m.qos)
            self.batches += 1

    def _store(self, batch: list[Inbound]) -> bool:
        events: Sequence[Any] | None = None
        while True:
            try:  # collect stores status and records at once: a database error there is retried too
                if events is None:
                    events = self._sink.collect(batch)
                self._sink.commit(events)
                return True
            except Exception as exc:  # a database error: keep the batch, acknowledge nothing, retry
                self.failures += 1
                LOGGER.error("recorder could not store %d messages (%s); retrying in %.1f s", len(batch), exc,
                             self.retry_s)
                if self._stop.wait(self.retry_s):
                    return False
