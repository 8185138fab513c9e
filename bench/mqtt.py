"""MQTT benchmark: publish-to-receipt latency and recorder throughput through a real local mosquitto.

    .venv/bin/python -m bench.mqtt [--latency-messages 2000] [--tables 200] [--rate-hz 10] [--duration-s 10]

1. Latency: one table (PahoPublisher with its SQLite outbox, TableChannel with schema check and guard)
   publishes events every 2 ms; a paho subscriber stamps their arrival (same process, perf_counter).
2. Recorder throughput: ``--tables`` tables each publish ``--rate-hz`` events/s (through TableChannel) for
   ``--duration-s`` seconds over 20 publisher connections (10 tables each: 200 paho network threads would
   measure the GIL, not the broker); the real Recorder stores them in SQLite.  Lost = sent - stored.

Anchors (issue 7): median latency <= 20 ms; 200 tables x 10 events/s = 2000 events/s with 0 lost.
Prints ONE JSON line with the figures and pass/fail.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.store import SqlEventStore

TARGET_MEDIAN_MS = 20.0
TARGET_EVENTS_S = 2000.0
TABLES_PER_CONNECTION = 10


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def latency(broker: LocalMosquitto, n: int, workdir: Path) -> dict[str, Any]:
    got: dict[int, float] = {}
    done = threading.Event()
    sub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-sub")
    ready = threading.Event()

    def on_message(c: mqtt.Client, u: Any, msg: mqtt.MQTTMessage) -> None:
        doc = json.loads(msg.payload)
        got[doc["seq"]] = time.perf_counter() - doc["data"]["t"]
        if len(got) >= n:
            done.set()

    sub.on_message = on_message
    sub.on_subscribe = lambda *a: ready.set()
    sub.connect(broker.host, broker.port)
    sub.subscribe("mjtable/v1/table/L1/events", qos=1)
    sub.loop_start()
    ready.wait(10)
    pub = PahoPublisher(broker.host, broker.port, "bench-L1", outbox=Outbox(workdir / "latency-outbox.db")).start()
    pub.wait_connected(10)
    ch = TableChannel("L1", pub, game_id="lat")
    for i in range(n):
        ch.publish_event("discard", {"seat": i % 4, "tile": "5p", "t": time.perf_counter()})
        time.sleep(0.002)
    done.wait(30)
    pub.close()
    sub.loop_stop()
    sub.disconnect()
    ms = [v * 1000 for v in got.values()]
    return {"latency_messages": n, "latency_received": len(got), "latency_median_ms": round(statistics.median(ms), 3),
            "latency_p99_ms": round(_pct(ms, 0.99), 3), "latency_max_ms": round(max(ms), 3)}


def throughput(broker: LocalMosquitto, tables: int, rate_hz: float, duration_s: float, workdir: Path) -> dict[str, Any]:
    store = SqlEventStore(f"sqlite:///{workdir / 'bench-records.db'}")
    rec = Recorder(store, broker.host, broker.port, client_id="bench-recorder").start()
    rec.wait_connected(10)
    pubs: list[PahoPublisher] = []
    channels: list[TableChannel] = []
    for c in range((tables + TABLES_PER_CONNECTION - 1) // TABLES_PER_CONNECTION):
        pub = PahoPublisher(broker.host, broker.port, f"bench-conn-{c}").start()
        pub.wait_connected(10)
        pubs.append(pub)
        for t in range(c * TABLES_PER_CONNECTION, min(tables, (c + 1) * TABLES_PER_CONNECTION)):
            # the load generator skips the schema check (measured in part 1) so one thread can offer 2000/s
            channels.append(TableChannel(f"B{t}", pub, game_id=f"B{t}-g", validate=False))
    sent = 0
    period = 1.0 / rate_hz
    start = time.perf_counter()
    ticks = int(duration_s * rate_hz)
    late_ticks = 0
    for k in range(ticks):
        for ch in channels:
            ch.publish_event("discard", {"seat": k % 4, "tile": "5p"})
            sent += 1
        wake = start + (k + 1) * period
        now = time.perf_counter()
        if now > wake:
            late_ticks += 1
        else:
            time.sleep(wake - now)
    publish_end = time.perf_counter()
    deadline = publish_end + 60
    while store.count() < sent and time.perf_counter() < deadline:
        time.sleep(0.05)
    drained = time.perf_counter()
    stored = store.count()
    for pub in pubs:
        pub.close()
    rec.stop()
    store.close()
    return {"tables": tables, "rate_hz_per_table": rate_hz, "duration_s": duration_s,
            "publisher_connections": len(pubs), "sent": sent, "stored": stored, "lost": sent - stored,
            "duplicates_dropped": rec.duplicates, "publisher_late_ticks": late_ticks,
            "offered_events_s": round(sent / (publish_end - start), 1),
            "recorder_events_s": round(stored / (drained - start), 1),
            "recorder_lag_after_last_publish_s": round(drained - publish_end, 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency-messages", type=int, default=2000)
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--rate-hz", type=float, default=10.0)
    ap.add_argument("--duration-s", type=float, default=10.0)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mjt-bench-mqtt-") as tmp, LocalMosquitto(ws_port=None) as broker:
        work = Path(tmp)
        out: dict[str, Any] = {"bench": "mqtt"}
        out.update(latency(broker, args.latency_messages, work))
        out.update(throughput(broker, args.tables, args.rate_hz, args.duration_s, work))
    out["target_median_ms"] = TARGET_MEDIAN_MS
    out["target_events_s"] = args.tables * args.rate_hz
    out["latency_pass"] = out["latency_median_ms"] <= TARGET_MEDIAN_MS
    out["throughput_pass"] = (out["lost"] == 0 and out["recorder_events_s"] >= 0.95 * out["target_events_s"]
                              and out["recorder_lag_after_last_publish_s"] < 1.0)
    out["pass"] = bool(out["latency_pass"] and out["throughput_pass"])
    print(json.dumps(out))
    return 0 if out["pass"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
