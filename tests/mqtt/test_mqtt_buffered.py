"""mjtable.mqtt.buffered: paho's small reads served from large ones, on a real socket pair."""

from __future__ import annotations

import socket

import pytest

from mjtable.mqtt.buffered import BufferedSocket


def test_small_reads_come_from_one_large_read_in_order() -> None:
    a, b = socket.socketpair()
    a.setblocking(False)
    sock = BufferedSocket(a)
    b.sendall(b"\x30\x05hello\x40\x02\x00\x07")
    assert sock.recv(1) == b"\x30"  # one recv took everything that had arrived
    assert sock.pending() == 10
    assert sock.recv(1) == b"\x05" and sock.recv(5) == b"hello"
    assert sock.recv(1) == b"\x40" and sock.recv(1) == b"\x02" and sock.recv(2) == b"\x00\x07"
    assert sock.pending() == 0
    with pytest.raises(BlockingIOError):  # nothing buffered, nothing arrived: the socket's own answer
        sock.recv(1)
    b.sendall(b"xyz")
    assert sock.recv(10) == b"xyz"  # a read no larger than what arrived is passed through
    assert sock.fileno() == a.fileno()
    b.close()
    assert sock.recv(1) == b""  # end of stream
    sock.close()
