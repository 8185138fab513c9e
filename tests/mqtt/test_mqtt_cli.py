"""The ``mjtable display`` server and ``mjtable recorder`` command as processes and servers."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from tests.mqtt.mqtt_helpers import sample_public

from mjtable.broker import LocalMosquitto
from mjtable.cli_display import make_server
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.publisher import PahoPublisher

REPO = Path(__file__).resolve().parents[2]


def test_display_server_serves_files_and_config_only() -> None:
    server = make_server("127.0.0.1", 0, "ws://127.0.0.1:9001", table="T1", public_user="hall", public_password="pw")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        cfg = json.loads(urllib.request.urlopen(f"{base}/config.json").read())
        assert cfg == {"broker_ws": "ws://127.0.0.1:9001", "table": "T1", "prefix": "mjtable/v1", "spectator": False,
                       "public_user": "hall", "public_password": "pw"}
        page = urllib.request.urlopen(f"{base}/").read().decode()
        assert "mqtt-ws.js" in page and "app.js" in page
        for bad in ("/../cli_display.py", "/%2e%2e/cli_display.py", "/nothing.js", "/__init__.py"):
            with pytest.raises(urllib.error.HTTPError):
                urllib.request.urlopen(base + bad)
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(ValueError, match="ws://"):
        make_server("127.0.0.1", 0, "http://x")


def test_recorder_command_stores_and_exports(tmp_path: Path, mosquitto: LocalMosquitto) -> None:
    db = tmp_path / "rec.db"
    proc = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "recorder", "--broker",
                             f"127.0.0.1:{mosquitto.port}", "--db", f"sqlite:///{db}", "--stats-every-s", "0.2"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO)
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["event"] == "recorder_started"
        while not json.loads(proc.stdout.readline()).get("connected"):
            pass
        pub = PahoPublisher(mosquitto.host, mosquitto.port, "t1").start()
        assert pub.wait_connected()
        ch = TableChannel("T1", pub, game_id="g1")
        done = sample_public(seq=9)
        done["result"] = {"kind": "draw", "winners": [], "fans": [], "total": 0, "payments": [0, 0, 0, 0]}
        done["phase"] = "session_over"
        ch.publish_state(done)
        pub.close()
        while json.loads(proc.stdout.readline()).get("stored", 0) < 2:
            pass
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert json.loads(out.splitlines()[-1])["event"] == "recorder_stopped"
    res = subprocess.run([sys.executable, "-m", "mjtable.cli", "recorder", "--db", f"sqlite:///{db}", "--export",
                          str(tmp_path / "out")], capture_output=True, text=True, cwd=REPO, check=True)
    assert json.loads(res.stdout)["games"] == 1
    record = json.loads((tmp_path / "out" / "g1.json").read_text())
    assert record["complete"] and record["hands"][0]["kind"] == "draw"
