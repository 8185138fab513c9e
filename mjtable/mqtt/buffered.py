"""A paho client that reads the broker's stream in large chunks: for a subscriber that receives thousands of
messages per second (the recorder).

paho-mqtt 2.x reads every packet with at least three ``recv`` calls (the command byte, the remaining length one
byte at a time, then the rest) and runs one ``select`` per packet: five system calls for each ~200-byte event,
about a third of paho's CPU per message here.  :class:`BufferedClient` wraps paho's TCP socket in
:class:`BufferedSocket`, which fetches up to :data:`CHUNK` bytes per ``recv`` and serves paho's small reads from
memory, and reads every packet already in that buffer in one pass of the network loop (no ``select`` between
them); its ``pending()`` tells paho's loop that buffered bytes are waiting, as paho does for TLS sockets.  Writes
in one pass of the loop are corked (``TCP_CORK``) and leave in as few segments as the kernel can make, and
:meth:`BufferedClient.ack_many` queues a batch's PUBACKs as one write (paho's ``ack`` wakes its loop and writes
once per message).  Nothing else changes: the MQTT state machine, keepalive, QoS and acknowledgements are paho's
own.

The hooks are paho's ``_create_socket``, ``loop_read`` and ``loop_write`` (paho-mqtt 2.x); with a paho without
them the client behaves exactly as ``paho.mqtt.client.Client``.  Thread: paho's network thread.
"""

from __future__ import annotations

import contextlib
import socket
import struct
from collections.abc import Iterable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode

#: bytes fetched per ``recv`` (a few hundred events)
CHUNK = 64 * 1024
#: most packets read in one pass of paho's loop before it writes (acknowledgements) and checks keepalive
MAX_PACKETS_PER_PASS = 1000
_PUBACK = struct.Struct("!BBH")  # fixed header 0x40, remaining length 2, packet id (MQTT 3.1.1 and 5)


class BufferedSocket:
    """A TCP socket whose ``recv`` is served from a buffer filled :data:`CHUNK` bytes at a time.

    ``recv`` raises what the socket raises (``BlockingIOError`` when nothing is buffered and nothing has arrived)
    and returns ``b""`` at the end of the stream; everything else is the socket's own.
    """

    __slots__ = ("_buf", "_pos", "_sock")

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._buf = b""
        self._pos = 0

    def recv(self, bufsize: int) -> bytes:
        pos = self._pos
        if pos >= len(self._buf):
            data: bytes = self._sock.recv(max(bufsize, CHUNK))
            if len(data) <= bufsize:
                return data
            self._buf, pos = data, 0
        end = pos + bufsize
        self._pos = end
        return self._buf[pos:end]

    def pending(self) -> int:
        """Bytes received and not yet read (plus what a TLS socket holds decrypted)."""
        inner = self._sock.pending() if hasattr(self._sock, "pending") else 0
        return max(0, len(self._buf) - self._pos) + int(inner)

    def cork(self, on: bool) -> None:
        """Hold small writes until :meth:`cork` (False) (TCP_CORK; a no-op where it does not exist)."""
        if hasattr(socket, "TCP_CORK"):
            with contextlib.suppress(OSError, AttributeError):
                self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1 if on else 0)

    def __getattr__(self, name: str) -> Any:  # send, fileno, close, setblocking, settimeout, ...
        return getattr(self._sock, name)


class BufferedClient(mqtt.Client):
    """``paho.mqtt.client.Client`` reading through :class:`BufferedSocket` (see the module doc)."""

    def _create_socket(self) -> Any:
        sock = super()._create_socket()
        return sock if self._transport == "websockets" else BufferedSocket(sock)

    def loop_read(self, max_packets: int = 1) -> MQTTErrorCode:
        rc = super().loop_read(max_packets)
        for _ in range(MAX_PACKETS_PER_PASS):
            sock = self._sock
            if rc != MQTTErrorCode.MQTT_ERR_SUCCESS or not isinstance(sock, BufferedSocket) \
                    or sock.pending() <= 0:
                break
            rc = super().loop_read(1)
        return rc

    def ack_many(self, acks: Iterable[tuple[int, int]]) -> None:
        """Acknowledge received messages, given as (packet id, QoS), in this order (``manual_ack``): the QoS 1
        PUBACKs leave in one write; QoS 2 goes through paho's ``ack``.  Any thread (as paho's ``ack``)."""
        if not self._manual_ack:
            return
        pubacks = bytearray()
        for mid, qos in acks:
            if qos == 1:
                pubacks += _PUBACK.pack(mqtt.PUBACK, 2, mid)
            elif qos == 2:
                if pubacks:
                    self._packet_queue(mqtt.PUBACK, bytes(pubacks), 0, 1)
                    pubacks.clear()
                self.ack(mid, qos)
        if pubacks:  # one out-packet: paho writes its bytes in order, as it would each PUBACK's
            self._packet_queue(mqtt.PUBACK, bytes(pubacks), 0, 1)

    def loop_write(self) -> MQTTErrorCode:
        sock = self._sock
        if not isinstance(sock, BufferedSocket):
            return super().loop_write()
        sock.cork(True)
        try:
            return super().loop_write()
        finally:
            sock.cork(False)
