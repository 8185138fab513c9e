"""One full hand through the real stack on loopback.

The MCU simulator runs as ``mjtable table-sim`` on a real pseudo-terminal (a subprocess), the service's
engine journals to disk, its views and events go through a real mosquitto, the recorder stores them in
SQLite, the seat buttons are the fake GPIO backend (real debounce, real thread hand-off) and the camera is the
demo camera.  The stored record must equal the engine's journal and the display (retained MQTT) state.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.engine.events import CameraObserved, event_from_json
from controller.journal import fold, read_records
from controller.views import public_view
from mjtable.broker import LocalMosquitto
from mjtable.demo.stack import DemoOptions, DemoStack
from mjtable.mqtt.topics import TableTopics


def retained(host: str, port: int, topic: str, timeout_s: float = 10.0) -> dict[str, Any]:
    """The retained message on ``topic`` (what a display that connects now is shown)."""
    got: list[bytes] = []
    done = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="e2e-display-probe")
    c.on_connect = lambda cl, *_: cl.subscribe(topic, qos=1)

    def on_message(cl: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        got.append(bytes(msg.payload))
        done.set()

    c.on_message = on_message
    c.connect(host, port)
    c.loop_start()
    try:
        assert done.wait(timeout_s), f"no retained message on {topic}"
    finally:
        c.loop_stop()
        c.disconnect()
    doc: dict[str, Any] = json.loads(got[0])
    return doc


@pytest.mark.parametrize("camera", ["direct", "sim"])
def test_one_hand_record_equals_journal_and_display(mosquitto: LocalMosquitto, tmp_path: Path, camera: str) -> None:
    if camera == "sim":
        from mjtable.service.camera import default_pipeline

        try:
            default_pipeline()
        except RuntimeError as exc:
            pytest.skip(f"simulated camera needs area 6's pipeline: {exc}")
    lines: list[dict[str, Any]] = []
    opts = DemoOptions(rules="mcr-2006", seed=3, hands=1, build_s=0.2, camera=camera, run_dir=tmp_path,
                       broker=f"127.0.0.1:{mosquitto.port}", display_port=-1, table="e2e",
                       validate=True)
    stack = DemoStack(opts, lines.append)
    stack.start()
    try:
        summary = asyncio.run(stack.play())
        summary.update(stack.finish())
        assert stack.service is not None
        live = stack.service.state
        assert stack.store is not None
        recorded = stack.store.events("e2e")
    finally:
        stack.close()

    assert summary["ok"], summary
    assert summary["hands"] == 1 and summary["events_rejected"] == 0
    assert summary["health"] == {"engine": "ok", "mcu": "ok", "camera": "ok", "gpio": "ok", "mqtt": "ok"}
    assert summary["button_presses"] > 0 and summary["camera_events"] > 0

    # the journal on disk folds to the live state
    records, _ = read_records(tmp_path / "e2e.journal.jsonl")
    events = [event_from_json(r.event) for r in records if r.rec == "event"]
    folded = fold(events)
    assert public_view(folded, "e2e") == public_view(live, "e2e")
    assert any(isinstance(e, CameraObserved) and e.observation["type"] == "discard" for e in events)
    assert any(r.event["type"] == "table_built" for r in records)  # the wall came through the MCU pty
    assert any(r.event["type"] == "button" for r in records)  # presses came through GPIO

    # the display state (retained on the broker) is the journal's final public view
    display = retained("127.0.0.1", mosquitto.port, TableTopics("e2e").state)
    assert display == public_view(folded, "e2e")
    health = retained("127.0.0.1", mosquitto.port, f"{TableTopics('e2e').base}/health")
    assert health["schema"] == "mjtable.health/1" and health["degraded"] is False

    # the recorder holds every public event the engine accepted, in order, and the hand result
    assert folded.hand is not None
    ponds = [[d.tile.code for d in folded.hand.seats[s].pond] for s in range(4)]
    recorded_ponds: list[list[str]] = [[], [], [], []]
    for e in recorded:
        if e["type"] == "discard":
            recorded_ponds[e["data"]["seat"]].append(e["data"]["tile"])
    assert recorded_ponds == ponds
    assert sum(map(len, ponds)) > 10
    results = [e for e in recorded if e["type"] == "hand_result"]
    assert len(results) == 1
    assert results[0]["data"]["result"] == public_view(folded, "e2e")["result"]
    assert any(e["type"] == "game_end" for e in recorded)

    # the exported game record agrees with the journal
    record_files = sorted((tmp_path / "records").glob("e2e-*.json"))
    assert len(record_files) == 1
    record = json.loads(record_files[0].read_text())
    (hand,) = record["hands"]
    r = folded.history[0]
    assert (hand["kind"], hand["winners"], hand["total"], hand["payments"]) == (r.kind, list(r.winners), r.total,
                                                                                list(r.payments))
    assert record["totals"] == [folded.session.scores[p] - folded.session.penalties[p] for p in range(4)]
    assert [ln["event"] for ln in lines][:2] == ["started", "service_ready"]
