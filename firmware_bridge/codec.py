"""Pure wire codec of the mjtable serial protocol v1 (see ``docs/serial-protocol.md``).

A frame on the wire is ``COBS(header + payload + crc) 0x00``:

====== ===== ================================================================
offset bytes field
====== ===== ================================================================
0      1     protocol version (``PROTOCOL_VERSION`` = 1)
1      1     kind: 1 request, 2 ack, 3 nack, 4 event (:class:`FrameKind`)
2      2     seq, unsigned big-endian, 1..65535 (0 is never sent)
4      1     id: command id (request/ack/nack) or event id (event)
5      1     payload length N, 0..``MAX_PAYLOAD``
6      N     payload (big-endian fields, see ``firmware_bridge.commands``)
6+N    2     CRC-16/CCITT-FALSE of bytes 0..5+N, big-endian
====== ===== ================================================================

Nothing here does I/O or imports asyncio/serial: bytes in, frames out.  :class:`FrameDecoder` keeps a buffer,
resynchronises on the 0x00 delimiter and drops (and counts) anything that is not a valid frame.
Not thread-safe; one decoder per byte stream.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

PROTOCOL_VERSION = 1
DELIMITER = 0x00
HEADER_LEN = 6
CRC_LEN = 2
#: Largest payload in one frame, bytes.  Keeps every encoded frame <= 256 bytes on the wire.
MAX_PAYLOAD = 240
#: Largest unstuffed frame (header + payload + crc), bytes.
MAX_FRAME = HEADER_LEN + MAX_PAYLOAD + CRC_LEN
#: Largest COBS-stuffed frame without its delimiter, bytes (one overhead byte per 254 data bytes, plus one).
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1

#: CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0x0000; check("123456789") = 0x29B1.
CRC16_CHECK = 0x29B1


def _make_crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_crc_table()


def crc16_ccitt_false(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (poly 0x1021, init 0xFFFF, unreflected, xorout 0)."""
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc


class FrameError(ValueError):
    """A byte string is not a valid frame; ``reason`` is one of the ``FrameDecoder.stats`` keys."""

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        super().__init__(f"{reason}: {detail}" if detail else reason)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: returns ``data`` with no 0x00 byte (delimiter not added)."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Strict inverse of :func:`cobs_encode`; raises :class:`FrameError` ("cobs") on any malformed input."""
    out = bytearray()
    i = 0
    n = len(data)
    if n == 0:
        raise FrameError("cobs", "empty")
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("cobs", f"zero byte at {i}")
        end = i + code
        if end > n:
            raise FrameError("cobs", f"block at {i} runs past the end")
        block = data[i + 1 : end]
        if 0 in block:
            raise FrameError("cobs", "zero byte inside a block")
        out += block
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


class FrameKind(enum.IntEnum):
    """Second header byte."""

    REQUEST = 1
    ACK = 2
    NACK = 3
    EVENT = 4


@dataclass(frozen=True, slots=True)
class Frame:
    """One protocol frame (version is implied: always :data:`PROTOCOL_VERSION`).

    Attributes:
        kind: request, ack, nack or event.
        seq: 1..65535; a request's seq is echoed by its ack/nack; events carry the MCU's event counter.
        ident: command id (request/ack/nack) or event id (event), 0..255.
        payload: 0..MAX_PAYLOAD bytes, big-endian fields as declared in ``firmware_bridge.commands``.
    """

    kind: FrameKind
    seq: int
    ident: int
    payload: bytes = b""

    def __post_init__(self) -> None:
        if not 1 <= self.seq <= 0xFFFF:
            raise ValueError(f"seq {self.seq} outside 1..65535")
        if not 0 <= self.ident <= 0xFF:
            raise ValueError(f"id {self.ident} outside 0..255")
        if len(self.payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")


def frame_body(frame: Frame) -> bytes:
    """Header + payload + CRC of ``frame``, before byte stuffing."""
    head = bytes(
        (PROTOCOL_VERSION, int(frame.kind), frame.seq >> 8, frame.seq & 0xFF, frame.ident, len(frame.payload))
    )
    body = head + frame.payload
    crc = crc16_ccitt_false(body)
    return body + bytes((crc >> 8, crc & 0xFF))


def encode(frame: Frame) -> bytes:
    """Wire bytes of ``frame``: COBS-stuffed body followed by the 0x00 delimiter."""
    return cobs_encode(frame_body(frame)) + b"\x00"


def parse_body(body: bytes) -> Frame:
    """Check and parse an unstuffed frame body; raises :class:`FrameError` with a ``reason``."""
    if len(body) < HEADER_LEN + CRC_LEN:
        raise FrameError("short", f"{len(body)} bytes")
    crc = crc16_ccitt_false(body[:-CRC_LEN])
    if crc != (body[-2] << 8 | body[-1]):
        raise FrameError("crc", f"computed {crc:#06x}")
    version, kind, seq_hi, seq_lo, ident, length = body[:HEADER_LEN]
    if version != PROTOCOL_VERSION:
        raise FrameError("version", f"version {version}")
    if length != len(body) - HEADER_LEN - CRC_LEN:
        raise FrameError("length", f"header says {length}, frame has {len(body) - HEADER_LEN - CRC_LEN}")
    try:
        frame_kind = FrameKind(kind)
    except ValueError:
        raise FrameError("kind", f"kind {kind}") from None
    seq = seq_hi << 8 | seq_lo
    if seq == 0:
        raise FrameError("seq", "seq 0")
    if length > MAX_PAYLOAD:
        raise FrameError("length", f"payload {length} > {MAX_PAYLOAD}")
    return Frame(frame_kind, seq, ident, bytes(body[HEADER_LEN:-CRC_LEN]))


def decode(wire: bytes) -> Frame:
    """Decode exactly one wire frame (with or without its trailing delimiter)."""
    if wire.endswith(b"\x00"):
        wire = wire[:-1]
    return parse_body(cobs_decode(wire))


@dataclass
class FrameDecoder:
    """Incremental decoder: ``feed`` any chunk of the byte stream, get the complete valid frames in it.

    Bytes up to each 0x00 form one candidate; empty candidates (repeated delimiters) are ignored, bad ones are
    dropped and counted in ``stats`` by reason, so one corrupted frame never costs its neighbours.  A candidate
    longer than ``MAX_ENCODED`` is dropped as soon as it overflows, and bytes are skipped up to the next delimiter.
    """

    stats: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("frames", "cobs", "short", "crc", "version", "length", "kind", "seq", "overflow"), 0))
    _buf: bytearray = field(default_factory=bytearray)
    _skipping: bool = False

    def feed(self, data: bytes) -> list[Frame]:
        """Consume ``data``; return the frames completed by it, in stream order."""
        frames: list[Frame] = []
        start = 0
        while True:
            end = data.find(b"\x00", start)
            chunk = data[start:] if end < 0 else data[start:end]
            if not self._skipping:
                self._buf += chunk
                if len(self._buf) > MAX_ENCODED:
                    self.stats["overflow"] += 1
                    self._buf.clear()
                    self._skipping = True
            if end < 0:
                return frames
            if not self._skipping and self._buf:
                try:
                    frames.append(decode(bytes(self._buf)))
                    self.stats["frames"] += 1
                except FrameError as exc:
                    self.stats[exc.reason] += 1
            self._buf.clear()
            self._skipping = False
            start = end + 1

    @property
    def rejected(self) -> int:
        """Number of candidates dropped so far, all reasons together."""
        return sum(v for k, v in self.stats.items() if k != "frames")
