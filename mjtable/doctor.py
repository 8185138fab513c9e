"""``mjtable doctor``: check this machine's config, GPIO, serial port (or a closed table's panel pins and lamps,
:mod:`mjtable.doctor_panel`), camera, tile classifier (its int8 arithmetic on this CPU), broker and data directory.

Prints one JSON line per check, ``{"check": str, "status": "ok"|"warn"|"fail", "detail": str}``, then a
summary line ``{"check": "summary", "status": ..., "failed": [...], "warned": [...]}``.  Exit code 0 when
nothing failed (warnings allowed), 1 otherwise, 2 when the config itself is unusable.  Every check is
bounded (no check waits more than ``--timeout`` seconds) and read-only except a temporary probe file in an
existing data directory (a missing one is reported, never created).
The running service's last health report (``<data_dir>/<table>.health.json``) is shown too, so a degraded
service (no camera, broker down) is visible here as well as on MQTT.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mjtable import config_check
from mjtable.config import Config, ConfigError, parse_config
from mjtable.config_check import load_checked


@dataclass(frozen=True, slots=True)
class Check:
    check: str
    status: str  # ok | warn | fail
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"check": self.check, "status": self.status, "detail": self.detail}


def check_platform() -> Check:
    model_file = Path("/proc/device-tree/model")
    model = model_file.read_bytes().rstrip(b"\0").decode(errors="replace") if model_file.exists() else ""
    py = ".".join(map(str, sys.version_info[:3]))
    if not model:
        return Check("platform", "warn", f"not a Raspberry Pi ({os.uname().machine}), Python {py}")
    return Check("platform", "ok", f"{model}, {os.uname().machine}, Python {py}")


def check_gpio(cfg: Config) -> Check:
    from hw.backend import BackendUnavailableError, GpioError, PinInUseError
    from hw.factory import open_backend
    from hw.panel import TablePanel

    if cfg.gpio.backend == "none":
        return Check("gpio", "warn", "gpio.backend = none: no player buttons, LEDs or buzzer")
    try:
        backend = open_backend(cfg.gpio.backend, host=cfg.gpio.pigpiod_host, port=cfg.gpio.pigpiod_port,
                               chip=cfg.gpio.chip)
    except BackendUnavailableError as exc:
        return Check("gpio", "fail", str(exc))
    try:
        panel = TablePanel(backend, cfg.gpio.pinout)
        levels = {f"seat{i}": [backend.read(s.call), backend.read(s.pass_ready)]
                  for i, s in enumerate(cfg.gpio.pinout.seats)}
        panel.close()
    except PinInUseError as exc:
        return Check("gpio", "fail", str(exc))
    except GpioError as exc:
        return Check("gpio", "fail", f"{cfg.gpio.backend}: {exc}")
    finally:
        backend.close()
    stuck = [seat for seat, lv in levels.items() if 0 in lv]
    if stuck:
        return Check("gpio", "warn", f"{cfg.gpio.backend}: button held or shorted at {', '.join(stuck)} "
                     f"(levels {levels})")
    detail = f"{cfg.gpio.backend}: 8 buttons idle, 4 LEDs"
    return Check("gpio", "ok", detail + (", buzzer" if cfg.gpio.pinout.buzzer is not None else ""))


def check_serial(cfg: Config) -> Check:
    port = cfg.serial.port
    if not port:
        return Check("serial", "warn", "serial.port is empty: no table MCU (no shuffling, no dice)")
    p = Path(port)
    if not p.exists():
        return Check("serial", "fail", f"{port} does not exist: is the table MCU plugged in? "
                     "(udev rule deploy/udev/99-mjtable.rules makes /dev/mjtable-mcu)")
    mode = p.stat().st_mode
    if not stat.S_ISCHR(mode):
        return Check("serial", "fail", f"{port} is not a character device")
    if not os.access(p, os.R_OK | os.W_OK):
        return Check("serial", "fail", f"{port}: no read/write permission (add the service user to 'dialout')")
    return Check("serial", "ok", f"{port} ({os.path.realpath(port)}) at {cfg.serial.baud} bit/s")


def check_mcu(cfg: Config, timeout_s: float) -> Check:
    """Handshake with the table MCU (HELLO, version, status).  Only with ``--probe-mcu``: it opens the port,
    so run it while the service is stopped (two readers on one serial port steal each other's bytes)."""
    from firmware_bridge.events import BridgeError
    from firmware_bridge.session import LinkTiming, TableLink
    from firmware_bridge.transport import serial_factory

    async def probe() -> str:
        timing = LinkTiming(connect_timeout_s=timeout_s)
        async with TableLink(serial_factory(cfg.serial.port, cfg.serial.baud), timing=timing) as link:
            st = await link.status()
            return (f"firmware {link.firmware!r}, boot {link.boot}, capabilities 0x{link.capabilities:x}, "
                    f"state {st.state}, fault {st.fault or 'none'}, {st.temperature_c:.1f} °C")

    try:
        detail = asyncio.run(probe())
    except (BridgeError, OSError) as exc:
        return Check("mcu", "fail", f"no answer from the table MCU on {cfg.serial.port}: {exc}")
    return Check("mcu", "ok", detail)


def check_camera(cfg: Config) -> Check:
    src = cfg.camera.source
    if src == "none":
        return Check("camera", "warn", "camera.source = none: referee must enter every discard and meld")
    if src == "sim":
        return Check("camera", "warn", "camera.source = sim films the demo's table (mjtable demo --camera sim); "
                     "mjtable run sees no table with it")
    if src.startswith("file:"):
        path = Path(src[5:])
        return (Check("camera", "ok", f"frames from {path}") if path.exists()
                else Check("camera", "fail", f"{path} does not exist"))
    if src == "picamera2":
        try:
            import picamera2  # noqa: F401
        except ImportError:
            return Check("camera", "fail", "picamera2 is not importable: apt-get install python3-picamera2 and "
                         "create the venv with --system-site-packages (deploy/install.sh does)")
        return Check("camera", "ok", "picamera2 available")
    index = src.split(":", 1)[1]
    dev = Path(f"/dev/video{index}")
    if not dev.exists():
        return Check("camera", "fail", f"{dev} does not exist: is the USB camera plugged in?")
    if not os.access(dev, os.R_OK | os.W_OK):
        return Check("camera", "fail", f"{dev}: no permission (add the service user to 'video')")
    return Check("camera", "ok", f"{dev}")


def check_classifier(cfg: Config, kernel_check: Callable[[Path], Any] | None = None) -> Check:
    """The camera's tile classifier on this CPU (``vision.classifier.selfcheck``): does onnxruntime's fused
    int8 arithmetic compute the configured model as its graph says, and how long does a crop take?
    ``kernel_check``: the check to run (default ``vision.classifier.selfcheck.kernel_check``)."""
    from mjtable.service.camera import load_classifier, model_path
    from vision.classifier.model import ModelError, card_reading
    from vision.classifier.selfcheck import kernel_check as real_check

    run_check = kernel_check or real_check
    path = model_path(cfg.camera)
    try:
        got = run_check(path)
        reading = card_reading(path)
    except ModelError as exc:
        status = "warn" if cfg.camera.source == "none" else "fail"
        return Check("classifier", status, str(exc))
    if not got.agrees:
        return Check("classifier", "fail", got.disagreement(path.name))
    enrolled = ""
    if cfg.camera.enrollment:  # the head the camera will read with: loaded exactly as the service loads it
        try:
            clf = load_classifier(cfg.camera)
        except RuntimeError as exc:
            status = "warn" if cfg.camera.source == "none" else "fail"
            return Check("classifier", status, str(exc))
        enrollment = clf.enrollment
        enrolled = (f"; enrollment {cfg.camera.enrollment}: {len(enrollment.codes)} faces enrolled, "
                    f"temperature {clf.temperature}")
    per_tile = _per_tile(reading, got.ms_per_crop)
    return Check("classifier", "ok", f"{path.name} reads as its graph says on this CPU; {got.ms_per_crop} ms per "
                 f"network read in a batch of {got.crops} (a tile: {per_tile}){enrolled}"
                 f"{_threshold_in_force(cfg, path)}")


def _per_tile(reading: str, ms_per_read: float) -> str:
    """What a tile costs the service for the card's ``input.test_time`` ``reading``, at ``ms_per_read``."""
    once, twice = round(ms_per_read, 3), round(2 * ms_per_read, 3)
    if reading == "mirror":
        return f"2 reads (with its mirror), {twice} ms"
    if reading == "mirror_when_unsure":
        return f"1 read, 2 (with its mirror) when the first is unsure, {once} to {twice} ms"
    return f"1 read, {once} ms"


def _threshold_in_force(cfg: Config, path: Path) -> str:
    """``; reads taken as fact at T (where T comes from)`` for the check's detail, with the model card's bounded
    threshold (``calibration.bounded``: a promised 0.2 % confident and wrong) when the card gives one."""
    threshold = cfg.camera.min_confidence
    try:
        calibration = json.loads(path.with_suffix(".json").read_text()).get("calibration") or {}
    except (OSError, ValueError, AttributeError):  # the card was read by the check above; nothing more to say
        calibration = {}
    if threshold == calibration.get("min_confidence"):
        origin = "the card's"
    elif threshold == (calibration.get("simulated_camera") or {}).get("min_confidence"):
        origin = "the card's, for the simulated camera"
    else:
        origin = "configured"
    bounded = (calibration.get("bounded") or {}).get("threshold")
    promise = f"; the card's bounded threshold for a promised 0.2 %: {bounded}" if bounded is not None else ""
    return f"; reads taken as fact at {threshold} ({origin}){promise}"


def check_broker(cfg: Config, timeout_s: float) -> Check:
    host, port = cfg.mqtt.host, cfg.mqtt.port
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as s:
            # MQTT 3.1.1 CONNECT, clean session, keepalive 5 s, client id "mjtable-doctor"
            cid = b"mjtable-doctor"
            var = b"\x00\x04MQTT\x04\x02\x00\x05"
            payload = len(cid).to_bytes(2, "big") + cid
            s.sendall(bytes([0x10, len(var) + len(payload)]) + var + payload)
            s.settimeout(timeout_s)
            ack = s.recv(4)
    except OSError as exc:
        return Check("mqtt", "fail", f"broker {host}:{port} unreachable ({exc}); the service runs but publishes "
                     "nothing until it is back: systemctl status mosquitto")
    if len(ack) == 4 and ack[0] == 0x20 and ack[3] == 0:
        return Check("mqtt", "ok", f"broker {host}:{port} accepts connections")
    if len(ack) == 4 and ack[0] == 0x20 and ack[3] in (4, 5):
        return Check("mqtt", "ok", f"broker {host}:{port} is up and requires credentials")
    return Check("mqtt", "fail", f"{host}:{port} did not answer like an MQTT broker ({ack!r})")


def check_data_dir(cfg: Config) -> Check:
    """``run``'s own check of ``table.data_dir`` (:func:`mjtable.config_check.check_data_dir`: a directory, not
    under /proc, /sys or /dev, writable or creatable), then what only doctor looks at: a write probe, free space
    and the journal's checksums.  Nothing is created."""
    d = cfg.table.data_dir
    try:
        config_check.check_data_dir(cfg)
    except ConfigError as exc:
        return Check("data_dir", "fail", str(exc))
    if not d.is_dir():  # doctor only looks: creating it is the installer's (or the service's) job
        return Check("data_dir", "warn", f"{d} does not exist yet (the service will create it)")
    try:
        with tempfile.NamedTemporaryFile(dir=d, prefix=".doctor-probe-"):
            pass
    except OSError as exc:
        return Check("data_dir", "fail", f"{d} is not writable: {exc}")
    free_mb = shutil.disk_usage(d).free / 1e6
    journal = cfg.journal_path
    detail = f"{d} writable, {free_mb:.0f} MB free"
    if journal.exists():
        from controller.journal import scan_lines

        lines = scan_lines(journal.read_bytes())  # checksums, JSON, duplicated events
        bad_lines = [ln.no for ln in lines[:-1] if ln.record is None]
        tail_ok = not lines or lines[-1].record is not None
        detail += f"; journal {journal.name}: {len(lines)} entries"
        if bad_lines:
            return Check("data_dir", "fail", detail + f", corrupt line(s) {bad_lines[:5]} before the end: run "
                         f"'mjtable journal check {journal}'")
        if not tail_ok:
            detail += " (torn last line from a power cut: it will be dropped on resume)"
        session = _journal_session(cfg, [ln.record for ln in lines if ln.record is not None])
        if session is not None:
            problem, said = session
            if problem:
                return Check("data_dir", "fail", detail + f"; {said}")
            detail += f"; {said}"
    return Check("data_dir", "warn" if free_mb < 200 else "ok", detail)


def _journal_session(cfg: Config, records: list[Any]) -> tuple[bool, str] | None:
    """What the service will do with the journal's session at start (``mjtable.service.session_journal``):
    (a problem, the words), or None when its events cannot be replayed here (the service reports that)."""
    from controller.engine.events import event_from_json
    from controller.engine.state import Phase
    from controller.journal import JournalError, fold
    from mjtable.service.session_journal import mismatch

    try:
        state = fold([event_from_json(r.event) for r in records if r.rec == "event"])
    except (JournalError, ValueError, KeyError, TypeError):
        return None
    if state.phase is Phase.SESSION_OVER:
        return False, ("its session is over: at start the service keeps it aside (once its public events are all "
                       "out) and starts the configured session")
    problem = mismatch(cfg, state)
    return (True, problem) if problem else (False, "the service resumes its unfinished session")


def check_service_health(cfg: Config, now_s: float) -> Check:
    path = cfg.table.data_dir / f"{cfg.table.id}.health.json"
    if not path.exists():
        return Check("service", "warn", "the service has not reported health yet (not running?)")
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        return Check("service", "warn", f"{path}: unreadable health report: {exc}")
    age_s = now_s - float(doc.get("ts_s", 0))
    degraded = [f"{k}: {v}" for k, v in sorted(doc.get("parts", {}).items()) if v != "ok"]
    if age_s > 60:
        return Check("service", "warn", f"last health report is {age_s:.0f} s old (service stopped?)")
    if degraded:
        return Check("service", "warn", "degraded: " + "; ".join(degraded))
    return Check("service", "ok", f"running, all parts ok ({age_s:.0f} s ago)")


def run_checks(cfg: Config, timeout_s: float = 2.0, now: Callable[[], float] = time.time, *,
               probe_mcu: bool = False) -> list[Check]:
    checks = [check_platform(), check_gpio(cfg)]
    if cfg.panel is not None:  # a closed table driven through its panel (mjtable.doctor_panel)
        from mjtable.doctor_panel import check_panel

        checks.append(check_panel(cfg))
    else:
        checks.append(check_serial(cfg))
        if probe_mcu and checks[-1].status == "ok":
            checks.append(check_mcu(cfg, timeout_s))
    return [*checks, check_camera(cfg), check_classifier(cfg), check_broker(cfg, timeout_s), check_data_dir(cfg),
            check_service_health(cfg, now())]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="/etc/mjtable/table.toml", help="the service's TOML config")
    parser.add_argument("--timeout", type=float, default=2.0, help="per-check network timeout, seconds")
    parser.add_argument("--probe-mcu", action="store_true",
                        help="also handshake with the table MCU (stop the service first: it opens the port)")


def run(args: argparse.Namespace) -> int:
    try:
        cfg = load_checked(args.config) if args.config != "-" else parse_config({})  # the same check as ``run``
    except ConfigError as exc:
        print(json.dumps({"check": "config", "status": "fail", "detail": str(exc)}), flush=True)
        print(json.dumps({"check": "summary", "status": "fail", "failed": ["config"], "warned": []}), flush=True)
        return 2
    print(json.dumps(Check("config", "ok", f"{cfg.source}: table {cfg.table.id}, {cfg.table.rules}").to_json()))
    checks = run_checks(cfg, args.timeout, probe_mcu=getattr(args, "probe_mcu", False))
    for c in checks:
        print(json.dumps(c.to_json()), flush=True)
    failed = [c.check for c in checks if c.status == "fail"]
    warned = [c.check for c in checks if c.status == "warn"]
    print(json.dumps({"check": "summary", "status": "fail" if failed else ("warn" if warned else "ok"),
                      "failed": failed, "warned": warned}), flush=True)
    return 1 if failed else 0
