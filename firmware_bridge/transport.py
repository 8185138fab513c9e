"""Byte transports under the session: the :class:`Transport` port and its implementations.

* :class:`SerialTransport` - pyserial: real ports (``/dev/ttyUSB0``), pseudo-terminals and URLs such as ``loop://``.
  Ports with a file descriptor are read with ``loop.add_reader`` (no thread); URL ports without one are read by a
  daemon thread that hands chunks to the loop with ``call_soon_threadsafe``.
* :class:`PtyMaster` - the device side of a pseudo-terminal (used by the MCU simulator).
* :func:`memory_pair` - two in-memory transports joined back to back, for tests.

All methods are called from the asyncio loop that opened the transport.  Only bytes move here; framing is
``firmware_bridge.codec``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import tty
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

LOGGER = logging.getLogger(__name__)
_READ_CHUNK = 4096


class TransportClosedError(ConnectionError):
    """The other end went away, the port failed, or ``close()`` was called."""


class Transport(Protocol):
    """A bidirectional byte stream owned by one asyncio loop."""

    async def read(self) -> bytes:
        """Wait for and return at least one byte; raise :class:`TransportClosedError` when the stream ends."""
        ...

    async def write(self, data: bytes) -> None:
        """Send ``data`` (all of it, or raise :class:`TransportClosedError`)."""
        ...

    async def close(self) -> None:
        """Release the port; idempotent.  Pending ``read()`` calls raise :class:`TransportClosedError`."""
        ...


#: Opens a fresh transport; the session calls it at every (re)connect.
TransportFactory = Callable[[], Awaitable[Transport]]


class _ChunkQueue:
    """Chunks handed to the loop by a reader callback or thread; ``None`` marks the end."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._closed_reason: str | None = None

    def put(self, chunk: bytes | None) -> None:
        self._queue.put_nowait(chunk)

    async def get(self) -> bytes:
        if self._closed_reason is not None:
            raise TransportClosedError(self._closed_reason)
        chunk = await self._queue.get()
        if chunk is None:
            self._closed_reason = "closed"
            self._queue.put_nowait(None)
            raise TransportClosedError("closed")
        return chunk


class SerialTransport:
    """A pyserial port as a :class:`Transport`.

    Args:
        port: an open ``serial.Serial``-like object (``timeout=0`` for fd ports).
    Use :meth:`open` (``await SerialTransport.open("/dev/pts/3")``) rather than the constructor.
    """

    def __init__(self, port: Any) -> None:
        self._port = port
        self._loop = asyncio.get_running_loop()
        self._chunks = _ChunkQueue()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._fd: int | None = None
        try:
            self._fd = int(port.fileno())
        except (AttributeError, OSError, ValueError, TypeError):
            self._fd = None
        if self._fd is not None:
            self._loop.add_reader(self._fd, self._on_readable)
        else:
            self._thread = threading.Thread(target=self._reader_thread, name="serial-rx", daemon=True)
            self._thread.start()

    @classmethod
    async def open(cls, url: str, baudrate: int = 115200, write_timeout_s: float = 1.0) -> SerialTransport:
        """Open ``url`` (device path or pyserial URL) with 8N1 and no flow control."""
        import serial

        try:
            port = serial.serial_for_url(url, baudrate=baudrate, timeout=0, write_timeout=write_timeout_s)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise TransportClosedError(f"cannot open {url}: {exc}") from exc
        if not hasattr(port, "fileno") or url.startswith(("loop://", "socket://", "rfc2217://", "spy://")):
            port.timeout = 0.05
        return cls(port)

    def _on_readable(self) -> None:
        try:
            data = bytes(self._port.read(_READ_CHUNK))
        except Exception as exc:  # pyserial raises SerialException/OSError when the other end vanishes
            LOGGER.info("serial read failed: %s", exc)
            data = b""
        if data:
            self._chunks.put(data)
        else:
            self._stop_reader()
            self._chunks.put(None)

    def _reader_thread(self) -> None:
        while not self._closed:
            try:
                data = bytes(self._port.read(max(1, int(getattr(self._port, "in_waiting", 0)))))
            except Exception as exc:
                LOGGER.info("serial read failed: %s", exc)
                break
            if data:
                with contextlib.suppress(RuntimeError):
                    self._loop.call_soon_threadsafe(self._chunks.put, data)
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._chunks.put, None)

    def _stop_reader(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._fd)

    async def read(self) -> bytes:
        return await self._chunks.get()

    async def write(self, data: bytes) -> None:
        if self._closed:
            raise TransportClosedError("closed")
        try:
            self._port.write(data)
        except Exception as exc:
            raise TransportClosedError(f"write failed: {exc}") from exc

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop_reader()
        with contextlib.suppress(Exception):
            self._port.close()
        self._chunks.put(None)
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 1.0)


def serial_factory(url: str, baudrate: int = 115200) -> TransportFactory:
    """A :data:`TransportFactory` that opens ``url`` with pyserial at every call."""

    async def factory() -> Transport:
        return await SerialTransport.open(url, baudrate)

    return factory


class PtyMaster:
    """The device end of a fresh pseudo-terminal; the host opens :attr:`path` with pyserial.

    Writes never block: when the host does not read and the pty buffer is full, bytes are dropped (like a UART
    without flow control).  The slave fd stays open in this object so the master never sees EIO while the host
    reconnects.
    """

    def __init__(self) -> None:
        self.master_fd, self._slave_fd = os.openpty()
        tty.setraw(self._slave_fd)
        tty.setraw(self.master_fd)
        os.set_blocking(self.master_fd, False)
        self.path = os.ttyname(self._slave_fd)
        self._loop = asyncio.get_running_loop()
        self._chunks = _ChunkQueue()
        self._closed = False
        self._loop.add_reader(self.master_fd, self._on_readable)

    def _on_readable(self) -> None:
        try:
            data = os.read(self.master_fd, _READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            LOGGER.info("pty read failed: %s", exc)
            data = b""
        if data:
            self._chunks.put(data)
        else:
            self._loop.remove_reader(self.master_fd)
            self._chunks.put(None)

    async def read(self) -> bytes:
        return await self._chunks.get()

    async def write(self, data: bytes) -> None:
        if self._closed:
            raise TransportClosedError("closed")
        try:
            os.write(self.master_fd, data)
        except BlockingIOError:
            LOGGER.warning("pty buffer full: %d bytes dropped", len(data))
        except OSError as exc:
            raise TransportClosedError(f"pty write failed: {exc}") from exc

    def flush_input(self) -> None:
        """Discard bytes the host sent that were not read yet (what an MCU reset does to its UART buffer)."""
        with contextlib.suppress(OSError):
            while os.read(self.master_fd, _READ_CHUNK):
                pass

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self._loop.remove_reader(self.master_fd)
        for fd in (self.master_fd, self._slave_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._chunks.put(None)


class MemoryTransport:
    """One end of an in-memory byte pipe (see :func:`memory_pair`)."""

    def __init__(self) -> None:
        self._chunks = _ChunkQueue()
        self.peer: MemoryTransport | None = None
        self._closed = False

    async def read(self) -> bytes:
        return await self._chunks.get()

    async def write(self, data: bytes) -> None:
        if self._closed or self.peer is None or self.peer._closed:
            raise TransportClosedError("closed")
        if data:
            self.peer._chunks.put(bytes(data))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._chunks.put(None)
        if self.peer is not None and not self.peer._closed:
            self.peer._closed = True
            self.peer._chunks.put(None)


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """Two transports: bytes written to one are read from the other.  Closing either closes both."""
    a, b = MemoryTransport(), MemoryTransport()
    a.peer, b.peer = b, a
    return a, b
