"""In-order, exactly-once delivery of MCU events numbered by seq (1..65535, then 1 again).

Pure and synchronous: the session offers each received event; the sequencer hands back the events that are now
deliverable in seq order, drops duplicates and stale copies, holds early ones, and says which range is missing so
the session can ask EVENTS_REPLAY.  Called from the session's loop only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
SEQ_SPACE = 0xFFFF  # seq runs 1..65535
_HALF = SEQ_SPACE // 2


def seq_add(seq: int, n: int) -> int:
    """``seq`` advanced by ``n`` in the 1..65535 ring."""
    return (seq - 1 + n) % SEQ_SPACE + 1


def seq_distance(a: int, b: int) -> int:
    """How far ``a`` is ahead of ``b`` in the ring (negative when behind), in -32767..32767."""
    d = (a - b) % SEQ_SPACE
    return d - SEQ_SPACE if d > _HALF else d


@dataclass
class EventSequencer(Generic[T]):
    """Seq bookkeeping for one MCU boot.

    Attributes:
        expected: the next seq to deliver.
        held: early events by seq, waiting for the gap before them to fill.
        duplicates: events dropped because they were already delivered.
    """

    expected: int = 1
    held: dict[int, T] = field(default_factory=dict)
    duplicates: int = 0

    def restart(self, expected: int) -> None:
        """Forget everything; the next deliverable seq is ``expected`` (after a reset: 1)."""
        self.expected = expected
        self.held.clear()

    def offer(self, seq: int, item: T) -> list[T]:
        """Take event ``seq``; return the events now deliverable, in order (possibly empty)."""
        d = seq_distance(seq, self.expected)
        if d < 0 or seq in self.held:
            self.duplicates += 1
            return []
        self.held[seq] = item
        return self._drain()

    def _drain(self) -> list[T]:
        out: list[T] = []
        while self.expected in self.held:
            out.append(self.held.pop(self.expected))
            self.expected = seq_add(self.expected, 1)
        return out

    def missing(self, newest: int | None = None) -> tuple[int, int] | None:
        """The first missing range ``(first, count)``: before the earliest held event, or up to ``newest``
        (the MCU's last sent seq, from PING) when nothing is held.  None when nothing is missing."""
        if self.held:
            first_held = min(self.held, key=lambda s: seq_distance(s, self.expected))
            return self.expected, seq_distance(first_held, self.expected)
        if newest is not None and newest != 0:
            ahead = seq_distance(newest, self.expected) + 1
            if ahead > 0:
                return self.expected, ahead
        return None

    def skip(self, count: int) -> list[T]:
        """Give up on the next ``count`` seqs (lost for good); return what becomes deliverable."""
        self.expected = seq_add(self.expected, count)
        for s in [s for s in self.held if seq_distance(s, self.expected) < 0]:
            del self.held[s]
        return self._drain()
