"""sd_notify over a real unix datagram socket, JSON-line logs, the health file and mjtable doctor."""

from __future__ import annotations

import io
import json
import logging
import socket
from pathlib import Path

import pytest

from mjtable.broker import LocalMosquitto
from mjtable.config import parse_config
from mjtable.doctor import check_broker, check_data_dir, check_service_health, run
from mjtable.service.health import Health
from mjtable.service.logs import JsonLineFormatter
from mjtable.service.notify import SystemdNotifier


def test_sd_notify_reaches_the_socket_and_watchdog_is_half(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    server.settimeout(5)
    n = SystemdNotifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "20000000"})
    assert n.watchdog_interval_s == 10.0
    assert n.send(READY="1", STATUS="all parts ok")
    assert server.recv(4096) == b"READY=1\nSTATUS=all parts ok"
    n.send(WATCHDOG="1")
    assert server.recv(4096) == b"WATCHDOG=1"
    n.close()
    server.close()


def test_sd_notify_abstract_socket_and_absent_socket() -> None:
    name = f"mjt-test-{id(object())}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind("\0" + name)
    server.settimeout(5)
    n = SystemdNotifier({"NOTIFY_SOCKET": "@" + name})
    assert n.send(STOPPING="1")
    assert server.recv(100) == b"STOPPING=1"
    server.close()
    off = SystemdNotifier({})
    assert not off.enabled and off.watchdog_interval_s is None and off.send(READY="1") is False
    other_pid = SystemdNotifier({"WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"})
    assert other_pid.watchdog_interval_s is None


def test_json_line_logs_carry_extra_fields() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLineFormatter())
    log = logging.getLogger("mjt.test.json")
    log.addHandler(handler)
    log.propagate = False
    log.warning("camera %s", "down", extra={"part": "camera"})
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("failed")
    lines = [json.loads(x) for x in stream.getvalue().splitlines()]
    assert lines[0]["msg"] == "camera down" and lines[0]["part"] == "camera" and lines[0]["level"] == "warning"
    assert "ValueError: boom" in lines[1]["exc"]


def test_health_file_and_listeners(tmp_path: Path) -> None:
    seen: list[str] = []
    h = Health(tmp_path / "t.health.json", clock=lambda: 1000.0)
    h.listeners.append(lambda hh: seen.append(hh.summary()))
    for part in ("engine", "mcu", "gpio", "mqtt"):
        h.set(part, "ok")
    h.set("camera", "down: /dev/video0 missing")
    h.set("camera", "down: /dev/video0 missing")
    doc = json.loads((tmp_path / "t.health.json").read_text())
    assert doc == {"schema": "mjtable.health/1", "ts_s": 1000.0, "degraded": True,
                   "parts": {"engine": "ok", "mcu": "ok", "camera": "down: /dev/video0 missing", "gpio": "ok",
                             "mqtt": "ok"}}
    assert seen[-1] == "degraded: camera down: /dev/video0 missing"
    assert len(seen) == 5
    with pytest.raises(ValueError, match="unknown part"):
        h.set("printer", "ok")
    with pytest.raises(ValueError, match="health state"):
        h.set("mcu", "broken")


def test_doctor_sees_degraded_service_and_torn_journal(tmp_path: Path) -> None:
    cfg = parse_config({"table": {"id": "T1", "data_dir": str(tmp_path)}})
    Health(tmp_path / "T1.health.json", clock=lambda: 50.0).set("camera", "down: no camera")
    c = check_service_health(cfg, now_s=60.0)
    assert c.status == "warn" and "camera: down: no camera" in c.detail
    assert check_service_health(cfg, now_s=500.0).detail.startswith("last health report is 450 s old")
    from controller.journal import Record, encode_line

    lines = [encode_line(Record("event", n, {"type": kind, "id": f"e{n}"}))
             for n, kind in ((1, "session_start"), (2, "tick"))]
    cfg.journal_path.write_bytes(b"\n".join(lines) + b'\n{"event":{"type":"ti')  # journal lines carry checksums
    c = check_data_dir(cfg)
    assert c.status == "ok" and "3 entries" in c.detail and "torn last line" in c.detail
    cfg.journal_path.write_bytes(lines[0] + b"\nnot json\n" + lines[1] + b"\n")
    assert check_data_dir(cfg).status == "fail"


def test_doctor_checks_the_classifiers_int8_arithmetic_on_this_cpu(tmp_path: Path) -> None:
    """The shipped model reads as its graph says on this CPU; a model whose int8 weights this CPU saturates
    (the stop-30 model on an x86 without VNNI: 2 of 32 probe reads differed) fails, saying what to do; a model
    that cannot be loaded fails, or only warns when the camera is off."""
    from mjtable.doctor import check_classifier
    from vision.classifier.selfcheck import KernelCheck

    c = check_classifier(parse_config({}))
    assert c.status == "ok" and "reads as its graph says" in c.detail and "ms per network read" in c.detail, c.detail
    # the card reads a crop's mirror only when its first read is unsure: a tile costs the service one network read
    # or two, and doctor says so
    c = check_classifier(parse_config({}), kernel_check=lambda path: KernelCheck(32, 0.0, 0, 0.6))
    assert "0.6 ms per network read" in c.detail, c.detail
    assert "a tile: 1 read, 2 (with its mirror) when the first is unsure, 0.6 to 1.2 ms" in c.detail, c.detail
    c = check_classifier(parse_config({}), kernel_check=lambda path: KernelCheck(32, 6.17, 2, 0.5))
    assert c.status == "fail" and "2 of 32 probe reads differ" in c.detail and "vision.quantize" in c.detail
    missing = str(tmp_path / "none.onnx")
    assert check_classifier(parse_config({"camera": {"model": missing}})).status == "fail"
    assert check_classifier(parse_config({"camera": {"model": missing, "source": "none"}})).status == "warn"


def test_doctor_names_the_threshold_the_camera_takes_reads_as_fact_at() -> None:
    """The venue sees which threshold is in force and where it comes from: the card's by default, a configured
    one otherwise, with the card's bounded threshold (a promised 0.2 %, ``calibration.bounded``) beside it."""
    import json

    from mjtable.doctor import check_classifier
    from vision.classifier import DEFAULT_MODEL_PATH

    calibration = json.loads(DEFAULT_MODEL_PATH.with_suffix(".json").read_text())["calibration"]
    card, bounded = calibration["min_confidence"], calibration["bounded"]["threshold"]
    c = check_classifier(parse_config({}))
    assert f"reads taken as fact at {card} (the card's)" in c.detail, c.detail
    assert f"bounded threshold for a promised 0.2 %: {bounded}" in c.detail, c.detail
    c = check_classifier(parse_config({"camera": {"min_confidence": bounded}}))
    assert f"reads taken as fact at {bounded} (configured)" in c.detail, c.detail


def test_doctor_checks_the_configured_enrollment(tmp_path: Path) -> None:
    """``[camera] enrollment``: a venue's head the camera can use is named with its codes; a missing file, or one
    made for another model, fails (the camera would stay down)."""
    from mjtable.doctor import check_classifier
    from vision.classifier.enroll import Enrollment, trained_head
    from vision.classifier.model import OnnxTileClassifier

    clf = OnnxTileClassifier.load()
    w, b = trained_head(clf)
    Enrollment(clf.classes, ("1f", "2f"), w, b, temperature=0.8).save(tmp_path / "venue.npz")
    Enrollment(tuple(reversed(clf.classes)), ("1f",), w, b).save(tmp_path / "other.npz")
    c = check_classifier(parse_config({"camera": {"enrollment": str(tmp_path / "venue.npz")}}))
    assert c.status == "ok" and "venue.npz" in c.detail and "2 faces enrolled" in c.detail, c.detail
    c = check_classifier(parse_config({"camera": {"enrollment": str(tmp_path / "missing.npz")}}))
    assert c.status == "fail" and "missing.npz" in c.detail, c.detail
    c = check_classifier(parse_config({"camera": {"enrollment": str(tmp_path / "other.npz")}}))
    assert c.status == "fail" and "enroll again" in c.detail, c.detail


def test_doctor_broker_check_against_real_mosquitto(mosquitto: LocalMosquitto) -> None:
    cfg = parse_config({"mqtt": {"host": "127.0.0.1", "port": mosquitto.port}})
    assert check_broker(cfg, 5.0).status == "ok"
    mosquitto.stop()
    c = check_broker(cfg, 5.0)
    assert c.status == "fail" and "unreachable" in c.detail


def test_doctor_command_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text(f'[table]\ndata_dir = "{tmp_path}"\n[gpio]\nbackend = "fake"\n[serial]\nport = ""\n'
                    '[camera]\nsource = "sim"\n[mqtt]\nport = 1\n')
    import argparse

    rc = run(argparse.Namespace(config=str(toml), timeout=1.0))
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    by = {x["check"]: x for x in lines}
    assert rc == 1
    assert by["gpio"]["status"] == "ok" and by["serial"]["status"] == "warn" and by["mqtt"]["status"] == "fail"
    assert by["summary"]["failed"] == ["mqtt"]
    rc = run(argparse.Namespace(config=str(tmp_path / "nope.toml"), timeout=1.0))
    assert rc == 2


def test_doctor_probes_the_mcu_on_a_pty(tmp_path: Path) -> None:
    import subprocess
    import sys

    from mjtable.doctor import check_mcu

    sim = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "table-sim", "--fast", "--seed", "1"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert sim.stdout is not None
        pty = json.loads(sim.stdout.readline())["pty"]
        c = check_mcu(parse_config({"serial": {"port": pty}}), 5.0)
        assert c.status == "ok" and "firmware" in c.detail and "state idle" in c.detail, c.detail
    finally:
        sim.terminate()
        sim.wait(10)
        for stream in (sim.stdin, sim.stdout):
            if stream is not None:
                stream.close()
    dead = check_mcu(parse_config({"serial": {"port": str(tmp_path / "nothing")}}), 0.3)
    assert dead.status == "fail" and "no answer from the table MCU" in dead.detail
