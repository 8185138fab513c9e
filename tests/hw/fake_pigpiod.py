"""A small fake pigpiod speaking the real socket protocol, so the real ``pigpio`` client can be tested.

Requests are 16 bytes ``<IIII`` (cmd, p1, p2, p3 = extension length); replies are ``<IIIi`` (the request
echoed, then the result).  A connection that sends NOIB (99) becomes a notification stream: the daemon
writes 12-byte ``<HHII`` reports (seq, flags, tick, level bits) to it when a monitored input changes.
Only the commands the backend uses are implemented; anything else answers PI_BAD_... (-1... negative).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

CMD_MODES, CMD_PUD, CMD_READ, CMD_WRITE, CMD_PWM, CMD_PFS = 0, 2, 3, 4, 5, 7
CMD_BR1, CMD_NB, CMD_NC, CMD_NOIB = 10, 19, 21, 99
PI_BAD_GPIO = -3
PI_UNKNOWN_COMMAND = -123


class FakePigpiod:
    """Listens on 127.0.0.1:<free port>; ``set_input(pin, level)`` plays the outside world."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self.levels = 0x0FFFFFFF  # GPIO0..27 float high (pull-ups)
        self.modes: dict[int, int] = {}
        self.pulls: dict[int, int] = {}
        self.pwm: dict[int, tuple[int, int]] = {}  # pin -> (frequency, dutycycle 0..255)
        self.tick_us = 0
        self._notify: dict[int, tuple[socket.socket, int]] = {}
        self._next_handle = 0
        self._seq = 0
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []
        self._closed = False
        self._accept = threading.Thread(target=self._accept_loop, name="fake-pigpiod", daemon=True)
        self._accept.start()

    def _accept_loop(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self._conns.append(conn)
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def _recv_exact(self, conn: socket.socket, n: int) -> bytes | None:
        buf = b""
        while len(buf) < n:
            try:
                chunk = conn.recv(n - len(buf))
            except OSError:
                return None
            if not chunk:
                return None
            buf += chunk
        return buf

    def _serve(self, conn: socket.socket) -> None:
        while True:
            req = self._recv_exact(conn, 16)
            if req is None:
                return
            cmd, p1, p2, p3 = struct.unpack("<IIII", req)
            if p3:
                self._recv_exact(conn, p3)
            res = self._execute(conn, cmd, p1, p2)
            with contextlib.suppress(OSError):
                conn.sendall(struct.pack("<IIIi", cmd, p1, p2, res))

    def _execute(self, conn: socket.socket, cmd: int, p1: int, p2: int) -> int:
        with self._lock:
            if cmd in (CMD_MODES, CMD_PUD, CMD_READ, CMD_WRITE, CMD_PWM, CMD_PFS) and p1 > 53:
                return PI_BAD_GPIO
            if cmd == CMD_MODES:
                self.modes[p1] = p2
                return 0
            if cmd == CMD_PUD:
                self.pulls[p1] = p2
                return 0
            if cmd == CMD_READ:
                return (self.levels >> p1) & 1
            if cmd == CMD_WRITE:
                self._set_bit(p1, p2)
                self.pwm.pop(p1, None)
                return 0
            if cmd == CMD_PFS:
                freq, duty = self.pwm.get(p1, (800, 0))
                self.pwm[p1] = (p2, duty)
                return p2
            if cmd == CMD_PWM:
                freq, _ = self.pwm.get(p1, (800, 0))
                self.pwm[p1] = (freq, p2)
                return 0
            if cmd == CMD_BR1:
                return self.levels & 0x7FFFFFFF
            if cmd == CMD_NOIB:
                handle = self._next_handle
                self._next_handle += 1
                self._notify[handle] = (conn, 0)
                return handle
            if cmd == CMD_NB:
                sock, _ = self._notify[p1]
                self._notify[p1] = (sock, p2)
                return 0
            if cmd == CMD_NC:
                self._notify.pop(p1, None)
                return 0
            return PI_UNKNOWN_COMMAND

    def _set_bit(self, pin: int, level: int) -> None:
        self.levels = (self.levels | (1 << pin)) if level else (self.levels & ~(1 << pin))

    def set_input(self, pin: int, level: int, advance_us: int = 1000) -> None:
        """The world drives ``pin`` to ``level``; monitoring clients get a report ``advance_us`` later."""
        with self._lock:
            self.tick_us = (self.tick_us + advance_us) & 0xFFFFFFFF
            self._set_bit(pin, level)
            self._seq = (self._seq + 1) & 0xFFFF
            report = struct.pack("<HHII", self._seq, 0, self.tick_us, self.levels & 0xFFFFFFFF)
            targets = [sock for sock, bits in self._notify.values() if bits & (1 << pin)]
        for sock in targets:
            with contextlib.suppress(OSError):
                sock.sendall(report)

    def level(self, pin: int) -> int:
        with self._lock:
            return (self.levels >> pin) & 1

    def close(self) -> None:
        self._closed = True
        self._server.close()
        for c in self._conns:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
            c.close()
        for t in self._threads:
            t.join(timeout=5)
