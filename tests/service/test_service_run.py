"""``mjtable run`` as a real process: systemd notify, degraded mode, graceful stop, resume after SIGKILL."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mjtable.broker import LocalMosquitto, free_port
from mjtable.config import parse_config
from mjtable.doctor import check_service_health


def write_config(tmp: Path, *, mqtt_port: int, serial: str = "/dev/mjtable-test-absent",
                 gpio: str = 'backend = "fake"', camera: str = 'source = "none"') -> Path:
    cfg = tmp / "table.toml"
    cfg.write_text(f"""
[table]
id = "T9"
data_dir = "{tmp / 'data'}"
[serial]
port = "{serial}"
[camera]
{camera}
[mqtt]
port = {mqtt_port}
[gpio]
{gpio}
[service]
log_level = "info"
""")
    return cfg


class NotifySocket:
    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(30)
        self.path = path
        self.messages: list[dict[str, str]] = []

    def wait_for(self, key: str) -> dict[str, str]:
        while True:
            raw = self.sock.recv(4096).decode()
            msg = dict(line.split("=", 1) for line in raw.splitlines())
            self.messages.append(msg)
            if key in msg:
                return msg

    def close(self) -> None:
        self.sock.close()


def start(cfg: Path, notify: NotifySocket, tmp: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "2000000"}
    return subprocess.Popen([sys.executable, "-m", "mjtable.cli", "run", "--config", str(cfg)], env=env,
                            stderr=(tmp / "service.stderr").open("ab"))


@contextlib.contextmanager
def running(cfg: Path, tmp: Path, notify_name: str = "notify.sock") -> Iterator[subprocess.Popen[bytes]]:
    """``mjtable run`` with ``cfg``, READY awaited; at the block's end a process the block did not end itself
    (e.g. with SIGKILL) is stopped with SIGTERM and must exit cleanly; after an error in the block it is killed."""
    notify = NotifySocket(tmp / notify_name)
    proc = start(cfg, notify, tmp)
    try:
        notify.wait_for("READY")
        yield proc
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        notify.close()


def logs(tmp: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (tmp / "service.stderr").read_text().splitlines() if x.startswith("{")]


def test_degraded_start_notify_watchdog_and_graceful_stop(tmp_path: Path) -> None:
    # no broker, no MCU, no camera, no pigpio daemon
    cfg_path = write_config(tmp_path, mqtt_port=free_port(),
                            gpio=f'backend = "pigpio"\npigpiod_port = {free_port()}')
    notify = NotifySocket(tmp_path / "notify.sock")
    proc = start(cfg_path, notify, tmp_path)
    try:
        ready = notify.wait_for("READY")
        assert ready["READY"] == "1" and "degraded" in ready["STATUS"]
        notify.wait_for("WATCHDOG")
        deadline = time.monotonic() + 30
        cfg = parse_config({"table": {"id": "T9", "data_dir": str(tmp_path / "data")}})
        while time.monotonic() < deadline:  # the health file reports each missing part with its reason
            detail = check_service_health(cfg, time.time()).detail
            if "mcu: down" in detail and "mqtt: down" in detail and "gpio: down" in detail:
                break
            time.sleep(0.1)
        assert "camera: off" in detail and "mcu: down" in detail and "mqtt: down" in detail, detail
        assert "gpio: down: cannot reach the pigpio daemon" in detail, detail
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        assert any("STOPPING" in m for m in notify.messages) or "STOPPING" in notify.wait_for("STOPPING")
    finally:
        if proc.poll() is None:
            proc.kill()
        notify.close()
    records = logs(tmp_path)
    assert all({"ts", "level", "logger", "msg"} <= set(r) for r in records)
    assert any(r.get("part") == "mcu" and r["level"] == "warning" for r in records)
    assert records[-1]["msg"] == "stopped"


def test_a_bad_enrollment_keeps_the_camera_down_and_says_why(tmp_path: Path) -> None:
    """``[camera] enrollment`` names a file that is not one: ``mjtable run`` starts degraded, its health names the
    file, and the table is refereed without the camera (the referee enters the acts)."""
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "000.png").write_bytes(b"")  # never read: the camera does not open
    (tmp_path / "venue.npz").write_text("not a head")
    cfg_path = write_config(tmp_path, mqtt_port=free_port(),
                            camera=f'source = "file:{frames}"\nenrollment = "{tmp_path / "venue.npz"}"')
    cfg = parse_config({"table": {"id": "T9", "data_dir": str(tmp_path / "data")}})
    with running(cfg_path, tmp_path):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            detail = check_service_health(cfg, time.time()).detail
            if "camera: down" in detail:
                break
            time.sleep(0.1)
        assert "camera: down" in detail and "camera.enrollment" in detail and "venue.npz" in detail, detail


def test_bad_config_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[gpio]\nbackend = "rpi"\n')
    r = subprocess.run([sys.executable, "-m", "mjtable.cli", "run", "--config", str(bad)], capture_output=True,
                       timeout=60, check=False)
    assert r.returncode == 2
    assert "gpio.backend must be one of" in json.loads(r.stderr.decode().splitlines()[-1])["msg"]


def test_sigkill_then_restart_resumes_the_journal(mosquitto: LocalMosquitto, tmp_path: Path) -> None:
    cfg_path = write_config(tmp_path, mqtt_port=mosquitto.port)
    for round_no in range(2):
        with running(cfg_path, tmp_path, f"notify{round_no}.sock") as proc:
            if round_no == 0:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(30)
    journal = (tmp_path / "data" / "T9.journal.jsonl").read_text().splitlines()
    assert sum(1 for x in journal if '"session_start"' in x) == 1  # one session, resumed, not restarted
    assert any(r["msg"].startswith("resumed from the journal") for r in logs(tmp_path))
