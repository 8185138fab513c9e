"""Transports move bytes only: pyserial on a pty and on ``loop://``, and the in-memory pair."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from firmware_bridge.transport import PtyMaster, SerialTransport, TransportClosedError, memory_pair


async def _read_exactly(read: Callable[[], Awaitable[bytes]], n: int) -> bytes:
    out = b""
    async with asyncio.timeout(10):
        while len(out) < n:
            out += await read()
    return out


async def test_pty_both_ways_and_port_loss() -> None:
    device = PtyMaster()
    host = await SerialTransport.open(device.path)
    payload = bytes(range(256)) * 8  # every byte value, raw mode: nothing translated
    await host.write(payload)
    assert await _read_exactly(device.read, len(payload)) == payload
    await device.write(b"\x00\x11\r\n\x03")
    assert await _read_exactly(host.read, 5) == b"\x00\x11\r\n\x03"
    await device.close()  # the MCU side vanishes: the host's read ends with TransportClosedError
    with pytest.raises(TransportClosedError):
        async with asyncio.timeout(10):
            await host.read()
    await host.close()
    await host.close()  # idempotent


async def test_pyserial_loop_url_uses_the_reader_thread() -> None:
    port = await SerialTransport.open("loop://")
    await port.write(b"abc\x00")
    assert await _read_exactly(port.read, 4) == b"abc\x00"
    await port.close()
    with pytest.raises(TransportClosedError):
        await port.write(b"x")


async def test_opening_a_missing_port_is_a_clear_error() -> None:
    with pytest.raises(TransportClosedError, match="cannot open"):
        await SerialTransport.open("/dev/does-not-exist-mjtable")


async def test_memory_pair_closes_both_ends() -> None:
    a, b = memory_pair()
    await a.write(b"hi")
    assert await b.read() == b"hi"
    await b.close()
    with pytest.raises(TransportClosedError):
        await a.read()
    with pytest.raises(TransportClosedError):
        await a.write(b"x")
