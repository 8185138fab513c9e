"""Start and stop a real local mosquitto broker (tests, benchmarks and ``mjtable demo``).

The broker listens on 127.0.0.1 only, on free ports, with a config written to a private directory.
Mosquitto started as root drops privileges to the ``mosquitto`` user unless told ``user root``; we write
``user`` explicitly so the broker can read its own password and ACL files.  Blocking API; not thread-bound.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO

from mjtable.childproc import with_parent_death


class BrokerError(RuntimeError):
    """Mosquitto is missing or did not come up."""


def _bound_port() -> int:
    """A port the kernel hands out for 127.0.0.1 now (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_port(exclude: Collection[int] = ()) -> int:
    """A TCP port on 127.0.0.1 that is free right now and not in ``exclude`` (ports already chosen for something
    not yet listening: the kernel may hand a released port out again at once)."""
    for _ in range(100):
        port = _bound_port()
        if port not in exclude:
            return port
    raise BrokerError(f"no free port outside {sorted(exclude)} after 100 tries")


#: lines of the broker's own log (errors and warnings) kept for error messages
LOG_LINES = 200
#: starts tried with freshly picked ports when a picked port was taken before the broker bound it
PICK_ATTEMPTS = 3


def _drain(stream: IO[bytes], lines: deque[str]) -> None:
    """Read the broker's stdout to its end (daemon thread), keeping the last lines: an undrained pipe fills
    (64 KiB of warnings, e.g. one per publish an ACL denies) and then blocks the broker."""
    with contextlib.suppress(OSError, ValueError):
        for raw in stream:
            lines.append(raw.decode(errors="replace").rstrip())


def _listens(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds a listening TCP socket on ``port`` (Linux ``/proc``); None when this cannot
    be told here (another OS, or ``/proc`` unreadable)."""
    try:
        inodes = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        with open("/proc/net/tcp") as table:  # the listeners are on 127.0.0.1 (IPv4)
            next(table, None)
            for line in table:
                fields = line.split()  # sl local_address rem_address st ... inode
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port and fields[9] in inodes:
                    return True
        return False
    except (OSError, IndexError, ValueError):
        return None


def _wait_port(
    port: int, proc: subprocess.Popen[bytes], timeout_s: float, log: Callable[[], str] | None = None
) -> None:
    """Wait until ``proc`` listens on ``port`` (on Linux: its own socket, so another process that took the port
    meanwhile does not pass for it; elsewhere: the port accepts connections); BrokerError (with ``log()``, the
    broker's last lines) if the process exits or the time runs out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BrokerError(f"mosquitto exited with code {proc.returncode}: {log() if log else ''}")
        owned = _listens(proc.pid, port)
        if owned:
            return
        if owned is None:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        time.sleep(0.005)
    raise BrokerError(f"mosquitto did not accept connections on port {port} within {timeout_s} s")


@dataclass
class LocalMosquitto:
    """A mosquitto process on 127.0.0.1.

    Args:
        port: MQTT/TCP port (0 = pick a free one).
        ws_port: websockets port for browsers (0 = pick a free one, None = no websockets listener).
        passwords: user -> password; when given, anonymous access is off and an ACL may be set.
        acl: ACL file text (mosquitto syntax), used only with ``passwords``.
        persistence: keep retained messages and sessions across restarts of this object (same directory).
        autosave_s: with persistence, how often the broker saves, seconds (what a SIGKILL loses).
        die_with_parent: the broker gets SIGTERM when the thread that started it ends (the demo: a SIGKILLed demo
            leaves no broker behind); start it from the main thread.
        workdir: directory for config, data and log (a temporary one when None).
    """

    port: int = 0
    ws_port: int | None = 0
    passwords: dict[str, str] | None = None
    acl: str | None = None
    persistence: bool = False
    workdir: Path | None = None
    extra_config: str = ""
    autosave_s: int = 1
    die_with_parent: bool = False
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, init=False, repr=False)
    _log: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_LINES), init=False, repr=False)
    _drainer: threading.Thread | None = field(default=None, init=False, repr=False)
    #: which ports were picked here (0 given): only those may be picked again when taken before the bind
    _picked: tuple[bool, bool] = field(default=(False, False), init=False, repr=False)

    def __post_init__(self) -> None:
        self._picked = (self.port == 0, self.ws_port == 0)

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _binary(self) -> str:
        for cand in (shutil.which("mosquitto"), "/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"):
            if cand and os.path.exists(cand):
                return cand
        raise BrokerError("mosquitto is not installed: run scripts/bootstrap or 'apt-get install mosquitto'")

    def _write_config(self) -> Path:
        if self.workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="mjt-mosq-")
            self.workdir = Path(self._tmp.name)
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.port == 0:
            self.port = free_port()
        if self.ws_port == 0:  # not the MQTT port: two listeners on one port take each other's clients
            self.ws_port = free_port(exclude={self.port})
        lines = ["per_listener_settings false", "log_dest stdout", "log_type error", "log_type warning",
                 "max_queued_messages 100000", "max_inflight_messages 100"]
        if os.geteuid() == 0:
            lines.append("user root")
        if self.persistence:
            lines += ["persistence true", f"persistence_location {self.workdir}/",
                      f"autosave_interval {self.autosave_s}"]
        else:
            lines.append("persistence false")
        if self.passwords:
            pw = self.workdir / "passwd"
            pw.write_text("")
            for user, secret in self.passwords.items():
                subprocess.run(["mosquitto_passwd", "-b", str(pw), user, secret], check=True,
                               capture_output=True)
            lines += ["allow_anonymous false", f"password_file {pw}"]
            if self.acl is not None:
                acl = self.workdir / "acl"
                acl.write_text(self.acl)
                lines.append(f"acl_file {acl}")
        else:
            lines.append("allow_anonymous true")
        lines += [f"listener {self.port} 127.0.0.1", "protocol mqtt"]
        if self.ws_port is not None:
            # socket_domain: else mosquitto 2.0's websockets listener binds every interface, whatever the address
            lines += [f"listener {self.ws_port} 127.0.0.1", "protocol websockets", "socket_domain ipv4"]
        if self.extra_config:
            lines.append(self.extra_config)
        conf = self.workdir / "mosquitto.conf"
        conf.write_text("\n".join(lines) + "\n")
        return conf

    def start(self, timeout_s: float = 10.0) -> LocalMosquitto:
        """Start the broker and wait until its TCP (and websockets) port accepts connections.  A port picked here
        (0 given) that something else took between the pick and the bind is picked again, at the first start
        only (a restarted broker keeps its ports: its clients reconnect to them)."""
        first = self._proc is None
        for attempt in range(PICK_ATTEMPTS):
            try:
                return self._start_once(timeout_s)
            except BrokerError:
                if not (first and any(self._picked) and attempt + 1 < PICK_ATTEMPTS
                        and "Address already in use" in self.log_tail()):
                    raise
                self._proc = None  # the next _start_once writes the config again, picking the ports set to 0
                self._log.clear()
                self.port = 0 if self._picked[0] else self.port
                self.ws_port = 0 if self._picked[1] else self.ws_port
        raise AssertionError("unreachable")  # pragma: no cover

    def _start_once(self, timeout_s: float) -> LocalMosquitto:
        if self.running:
            return self
        conf = self._write_config() if self._proc is None or self.workdir is None else self.workdir / "mosquitto.conf"
        if not conf.exists():
            conf = self._write_config()
        cmd = [self._binary(), "-c", str(conf)]
        self._proc = subprocess.Popen(with_parent_death(cmd) if self.die_with_parent else cmd,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert self._proc.stdout is not None
        self._drainer = threading.Thread(target=_drain, args=(self._proc.stdout, self._log),
                                         name="mosquitto.log", daemon=True)
        self._drainer.start()
        _wait_port(self.port, self._proc, timeout_s, self.log_tail)
        if self.ws_port is not None:
            _wait_port(self.ws_port, self._proc, timeout_s, self.log_tail)
        return self

    def log_tail(self) -> str:
        """The broker's last log lines (errors and warnings), once it has written them."""
        if self._drainer is not None and self._proc is not None and self._proc.poll() is not None:
            self._drainer.join(1.0)  # the process has ended: read what it wrote last
        return "\n".join(self._log).strip()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the broker (SIGTERM, then SIGKILL); the config and data stay for a restart."""
        if self._proc is None:
            return
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout_s)
        if self._drainer is not None:
            self._drainer.join(1.0)
            self._drainer = None
        if self._proc.stdout:
            self._proc.stdout.close()
        self._proc = None

    def kill(self) -> None:
        """SIGKILL the broker (a crash: what it had not saved yet is lost); ``start`` brings it back."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(10)
        self.stop()

    def restart(self) -> None:
        """Stop and start again on the same ports and config (a broker outage)."""
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> LocalMosquitto:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
