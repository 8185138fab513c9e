"""The pure codec against hostile input: round trips, any chunking, garbage, stray delimiters, corruption."""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import codec
from firmware_bridge.codec import MAX_PAYLOAD, Frame, FrameDecoder, FrameError, FrameKind

frames = st.builds(
    Frame,
    st.sampled_from(list(FrameKind)),
    st.integers(1, 0xFFFF),
    st.integers(0, 0xFF),
    st.binary(max_size=MAX_PAYLOAD),
)


def test_crc_check_value() -> None:
    assert codec.crc16_ccitt_false(b"123456789") == codec.CRC16_CHECK == 0x29B1


@given(st.binary(max_size=512))
def test_crc_matches_an_independent_implementation(data: bytes) -> None:
    assert codec.crc16_ccitt_false(data) == binascii.crc_hqx(data, 0xFFFF)


@given(st.binary(max_size=1024))
def test_cobs_round_trip_and_no_zero(data: bytes) -> None:
    stuffed = codec.cobs_encode(data)
    assert 0 not in stuffed
    assert codec.cobs_decode(stuffed) == data


@pytest.mark.parametrize(("data", "stuffed"), [
    (b"", "01"), (b"\x00", "01 01"), (b"\x00\x00", "01 01 01"), (b"\x11\x22\x00\x33", "03 11 22 02 33"),
    (b"\x11\x00\x00\x00", "02 11 01 01 01"), (bytes(range(1, 255)), "ff " + bytes(range(1, 255)).hex(" ") + " 01"),
])
def test_cobs_known_examples(data: bytes, stuffed: str) -> None:
    assert codec.cobs_encode(data) == bytes.fromhex(stuffed)


@pytest.mark.parametrize("bad", [b"", b"\x05\x01", b"\x02\x00", b"\x03\x01"])
def test_cobs_rejects_malformed(bad: bytes) -> None:
    with pytest.raises(FrameError):
        codec.cobs_decode(bad)


@given(frames)
def test_frame_round_trip(frame: Frame) -> None:
    wire = codec.encode(frame)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert len(wire) <= codec.MAX_ENCODED + 1
    assert codec.decode(wire) == frame
    assert FrameDecoder().feed(wire) == [frame]


@given(st.lists(frames, max_size=8), st.data())
def test_any_chunking_gives_the_same_frames(fs: list[Frame], data: st.DataObject) -> None:
    stream = b"".join(codec.encode(f) for f in fs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    dec = FrameDecoder()
    out: list[Frame] = []
    prev = 0
    for cut in [*cuts, len(stream)]:
        out += dec.feed(stream[prev:cut])
        prev = cut
    assert out == fs


def test_byte_by_byte() -> None:
    f = Frame(FrameKind.EVENT, 7, 0x82, b"\x00\x00\x00\x01\x02\x01\x01")
    dec = FrameDecoder()
    out = [fr for b in codec.encode(f) * 3 for fr in dec.feed(bytes([b]))]
    assert out == [f, f, f]


@given(st.lists(frames, min_size=1, max_size=5), st.lists(st.binary(max_size=40), min_size=6, max_size=6))
def test_garbage_and_stray_delimiters_between_frames(fs: list[Frame], garbage: list[bytes]) -> None:
    """Garbage between frames costs at most the garbage: every frame framed by delimiters survives."""
    stream = b""
    for f, junk in zip(fs, garbage, strict=False):
        stream += junk + b"\x00\x00" + codec.encode(f) + b"\x00"
    stream += garbage[-1]
    out = FrameDecoder().feed(stream)
    # garbage may (with probability ~2^-16 per chunk) itself be a valid frame; every real frame must be there
    it = iter(out)
    assert all(any(f == g for g in it) for f in fs)


def test_garbage_is_counted_not_fatal() -> None:
    dec = FrameDecoder()
    f = Frame(FrameKind.ACK, 3, 0x02, b"\x01\x02")
    assert dec.feed(b"\xff\xfe\x00" + b"\x00" * 5 + codec.encode(f)) == [f]
    assert dec.rejected == 1 and dec.stats["frames"] == 1


def test_oversized_candidate_is_skipped_to_next_delimiter() -> None:
    dec = FrameDecoder()
    f = Frame(FrameKind.REQUEST, 1, 0x02)
    out = dec.feed(b"\x01" * 1000)
    out += dec.feed(b"\x01" * 1000 + b"\x00" + codec.encode(f))
    assert out == [f]
    assert dec.stats["overflow"] == 1


def _flips(wire: bytes) -> list[bytes]:
    body = wire[:-1]
    out = []
    for i in range(len(body)):
        for bit in range(8):
            b = bytearray(body)
            b[i] ^= 1 << bit
            out.append(bytes(b) + b"\x00")
    return out


@settings(derandomize=True, max_examples=150)
@given(frames)
def test_single_bit_flip_on_the_wire_never_gives_a_different_frame(frame: Frame) -> None:
    """Every single-bit flip of the stuffed bytes (a flip to 0x00 splits the frame in two) yields nothing valid
    except, never, a frame other than the original.  Deterministic examples: CI cannot flake."""
    for bad in _flips(codec.encode(frame)):
        got = FrameDecoder().feed(bad)
        assert all(g == frame for g in got), (frame, bad.hex(), got)
        assert got == []


@given(frames, st.data())
def test_up_to_three_bit_errors_in_the_frame_are_always_caught(frame: Frame, data: st.DataObject) -> None:
    """CRC-16/CCITT-FALSE has Hamming distance 4 at these lengths: any 1-3 bit error in header+payload+crc fails."""
    body = bytearray(codec.frame_body(frame))
    nbits = len(body) * 8
    positions = data.draw(st.sets(st.integers(0, nbits - 1), min_size=1, max_size=3))
    for p in positions:
        body[p // 8] ^= 0x80 >> (p % 8)
    with pytest.raises(FrameError):
        codec.parse_body(bytes(body))


@given(frames, st.data())
def test_bursts_up_to_16_bits_are_always_caught(frame: Frame, data: st.DataObject) -> None:
    body = bytearray(codec.frame_body(frame))
    nbits = len(body) * 8
    length = data.draw(st.integers(1, 16))
    start = data.draw(st.integers(0, nbits - length))
    pattern = data.draw(st.integers(0, (1 << length) - 1)) | 1 | (1 << (length - 1))
    for i in range(length):
        if pattern >> i & 1:
            p = start + i
            body[p // 8] ^= 0x80 >> (p % 8)
    with pytest.raises(FrameError):
        codec.parse_body(bytes(body))


@pytest.mark.parametrize(("body", "reason"), [
    (b"\x01\x01\x00", "short"),
    (bytes.fromhex("0201000102000000"), "crc"),
])
def test_rejection_reasons(body: bytes, reason: str) -> None:
    with pytest.raises(FrameError) as info:
        codec.parse_body(body)
    assert info.value.reason == reason


def _with_crc(head: bytes) -> bytes:
    crc = codec.crc16_ccitt_false(head)
    return head + bytes((crc >> 8, crc & 0xFF))


@pytest.mark.parametrize(("head", "reason"), [
    (bytes((2, 1, 0, 1, 2, 0)), "version"),
    (bytes((1, 9, 0, 1, 2, 0)), "kind"),
    (bytes((1, 1, 0, 0, 2, 0)), "seq"),
    (bytes((1, 1, 0, 1, 2, 3, 7)), "length"),
])
def test_well_checksummed_but_invalid_headers(head: bytes, reason: str) -> None:
    with pytest.raises(FrameError) as info:
        codec.parse_body(_with_crc(head))
    assert info.value.reason == reason


def test_frame_validates_its_fields() -> None:
    with pytest.raises(ValueError, match="seq"):
        Frame(FrameKind.REQUEST, 0, 1)
    with pytest.raises(ValueError, match="payload"):
        Frame(FrameKind.REQUEST, 1, 1, bytes(MAX_PAYLOAD + 1))
