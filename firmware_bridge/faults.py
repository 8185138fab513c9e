"""Link fault injection for the MCU simulator: drop, duplicate, corrupt and delay whole wire frames.

:class:`LinkFaults` holds the knobs for one direction; :meth:`LinkFaults.apply` turns one wire frame into the
list of ``(delay_s, bytes)`` writes that reach the other side.  Counters (``drop_next`` ...) act on the next
frames; rates are per frame probabilities drawn from the injected ``random.Random``.  Pure; no I/O.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields


@dataclass
class LinkFaults:
    """Fault knobs for one direction (MCU->host ``tx`` or host->MCU ``rx``).

    Attributes:
        drop_next / duplicate_next / corrupt_next / delay_next: act on that many next frames.
        delay_s: delay for ``delay_next`` frames, seconds (later frames overtake a delayed one).
        drop_rate / duplicate_rate / corrupt_rate: probability per frame, 0..1.
    """

    drop_next: int = 0
    duplicate_next: int = 0
    corrupt_next: int = 0
    delay_next: int = 0
    delay_s: float = 0.3
    drop_rate: float = 0.0
    duplicate_rate: float = 0.0
    corrupt_rate: float = 0.0

    def clear(self) -> None:
        """Back to a perfect link."""
        for f in fields(self):
            setattr(self, f.name, f.default)

    def apply(self, wire: bytes, rng: random.Random) -> list[tuple[float, bytes]]:
        """What happens to one wire frame (ending in 0x00): a list of (delay_s, bytes) to deliver."""
        if self.drop_next > 0:
            self.drop_next -= 1
            return []
        if self.drop_rate and rng.random() < self.drop_rate:
            return []
        delay = 0.0
        if self.delay_next > 0:
            self.delay_next -= 1
            delay = self.delay_s
        data = wire
        if self.corrupt_next > 0:
            self.corrupt_next -= 1
            data = corrupt(wire, rng)
        elif self.corrupt_rate and rng.random() < self.corrupt_rate:
            data = corrupt(wire, rng)
        out = [(delay, data)]
        if self.duplicate_next > 0:
            self.duplicate_next -= 1
            out.append((delay, data))
        elif self.duplicate_rate and rng.random() < self.duplicate_rate:
            out.append((delay, data))
        return out


def corrupt(wire: bytes, rng: random.Random) -> bytes:
    """Flip one random bit of ``wire`` outside its final delimiter, never creating a 0x00 byte."""
    body = bytearray(wire[:-1] if wire.endswith(b"\x00") else wire)
    if not body:
        return wire
    for _ in range(16):
        i = rng.randrange(len(body))
        flipped = body[i] ^ (1 << rng.randrange(8))
        if flipped != 0:
            body[i] = flipped
            break
    return bytes(body) + wire[len(body):]


def split_wire(buffer: bytearray, data: bytes) -> list[bytes]:
    """Append ``data`` to ``buffer`` and pop every complete wire frame (each ending in 0x00)."""
    buffer += data
    out: list[bytes] = []
    while True:
        i = buffer.find(0)
        if i < 0:
            return out
        out.append(bytes(buffer[: i + 1]))
        del buffer[: i + 1]
