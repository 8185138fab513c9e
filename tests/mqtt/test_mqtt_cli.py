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

from mjtable.broker import LocalMosquitto
from mjtable.cli_display import make_server
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.publisher import PahoPublisher
from tests.mqtt.mqtt_helpers import sample_public

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
        for _ in range(100):  # stats every 0.2 s: connected and subscribed within 20 s
            if json.loads(proc.stdout.readline()).get("connected"):
                break
        else:
            pytest.fail("the recorder did not connect")
        pub = PahoPublisher(mosquitto.host, mosquitto.port, "t1").start()
        assert pub.wait_connected()
        ch = TableChannel("T1", pub, game_id="g1")
        done = sample_public(seq=9)
        done["result"] = {"kind": "draw", "winners": [], "fans": [], "total": 0, "payments": [0, 0, 0, 0]}
        done["phase"] = "session_over"
        done["infractions"] = [{"id": "inf-1", "hand_no": 0, "seat": 2, "player": "P3", "player_index": 2,
                                "kind": "false_win", "points": 30, "status": "applied", "message": "false win",
                                "at_s": 1.0}]
        ch.publish_state(done)
        pub.close()
        for _ in range(100):
            if json.loads(proc.stdout.readline()).get("stored", 0) >= 2:
                break
        else:
            pytest.fail("the recorder did not store the two events")
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
    assert record["penalties"][0]["kind"] == "false_win"
    sheet = (tmp_path / "out" / "g1.penalties.csv").read_text().splitlines()
    assert sheet[1] == "1,P3,g1,0,T1,2,false_win: false win,30 points (applied)"


def test_display_command_serves_until_sigterm() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "display", "--host", "127.0.0.1", "--port", "0",
                             "--broker-ws", "ws://127.0.0.1:9001", "--table", "T7"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=REPO)
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["event"] == "display_serving"
        cfg = json.loads(urllib.request.urlopen(first["url"] + "config.json").read())
        assert cfg["table"] == "T7"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    assert proc.returncode == 0


def test_broker_users_script_creates_hashed_users_and_the_acl(tmp_path: Path) -> None:
    script = REPO / "deploy" / "mosquitto" / "mjtable-broker-users"
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"}
    for args in (["add", "table", "table-T3", "T3", "--generate"], ["add", "referee", "ref9", "--generate"]):
        res = subprocess.run([sys.executable, str(script), "--dir", str(tmp_path), *args], capture_output=True,
                             text=True, env=env, check=True)
        assert res.stdout.startswith(f"password for {args[2]}: ")
    secret = res.stdout.split(": ", 1)[1].split()[0]
    passwd = (tmp_path / "passwd").read_text()
    assert passwd.count("\n") == 2 and "table-T3:" in passwd and secret not in passwd  # hashes only
    assert (tmp_path / "roster").read_text() == "table table-T3 T3\nreferee ref9\n"
    assert "user table-T3\ntopic write mjtable/v1/table/T3/state" in (tmp_path / "acl").read_text()
    subprocess.run([sys.executable, str(script), "--dir", str(tmp_path), "remove", "ref9"], capture_output=True,
                   env=env, check=True)
    assert "ref9" not in (tmp_path / "acl").read_text() and "ref9" not in (tmp_path / "passwd").read_text()
    bad = subprocess.run([sys.executable, str(script), "--dir", str(tmp_path), "add", "table", "t", "--generate"],
                         capture_output=True, text=True, env=env, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "needs a table id" in bad.stderr
