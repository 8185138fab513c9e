"""Recorder CPU per stored event, end to end, measured so that the machine's load does not change it.

    nice -n 10 .venv/bin/python -m bench.recorder_cpu [--events 20000] [--stores sqlite,postgresql]
                                                      [--mqtt-versions 5,3.1.1] [--shared both] [--profile F]

Wall-clock throughput on a busy machine says more about the other workloads than about the recorder; CPU
seconds per event do not (up to cache effects).  For each store, MQTT version and subscription kind (plain, the
one-recorder default with end-to-end acks; ``$share``, a member of a shared-subscription group) this bench:

1. starts a real mosquitto on 127.0.0.1 and lets a :class:`~mjtable.recorder.recorder.Recorder` create its
   persistent session, then stops it;
2. queues ``--events`` ``mjtable.event/1`` envelopes from 200 tables (QoS 1, generator processes of
   :mod:`bench.recorder_load`) in that session while the recorder is away;
3. starts the recorder again **in this process** and lets it drain the backlog: paho receive -> bounded parse
   and envelope check -> batch -> store transaction -> PUBACK.

It reports the process CPU seconds (all threads: ``time.process_time``) per stored event in microseconds, split
by thread (paho's network thread, the writer thread, the rest) from ``/proc/self/task/<tid>/stat``, the implied
single-core ceiling (1e6 / µs), the broker's CPU per event (``/proc/<pid>/stat``), and the wall-clock drain
rate (load dependent, for reference).  SQLite, plain, the first MQTT version is the same-run anchor.
``--profile FILE`` writes a cProfile of every thread of the drain (pstats format) for each configuration.
Prints one JSON line per configuration and a summary line.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.recorder_load import _cpu_s, offer
from mjtable.broker import LocalMosquitto
from mjtable.recorder.pgserver import LocalPostgres
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.store import SqlEventStore

TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


def _thread_cpu() -> dict[str, float]:
    """CPU seconds (user + system) of each live thread of this process, by Python thread name."""
    out: dict[str, float] = {}
    for t in threading.enumerate():
        if t.native_id is None:
            continue
        try:
            fields = Path(f"/proc/self/task/{t.native_id}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = "paho" if t.name.startswith("paho") else t.name
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) * TICK_S
    return out


class _ThreadProfiles:
    """cProfile in every thread started while active (paho's and the writer's), merged at the end."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []

    def _boot(self, *_: Any) -> None:
        sys.setprofile(None)
        p = cProfile.Profile()
        self.profiles.append(p)
        p.enable()

    def __enter__(self) -> _ThreadProfiles:
        threading.setprofile(self._boot)
        return self

    def __exit__(self, *_: Any) -> None:
        threading.setprofile(None)

    def dump(self, path: Path) -> None:
        for p in self.profiles:
            p.disable()
        if self.profiles:
            stats = pstats.Stats(self.profiles[0])
            for p in self.profiles[1:]:
                stats.add(p)
            stats.dump_stats(str(path))


def drain(kind: str, db: str, *, mqtt_version: str, shared: bool, events: int, batch: int,
          profile: Path | None = None) -> dict[str, Any]:
    """One configuration (see the module doc); returns its figures."""
    tag = f"{kind[:2]}-{mqtt_version}-{'sh' if shared else 'pl'}"
    client_id = f"cpu-{tag}"
    group = "cpu" if shared else None
    store = SqlEventStore(db, stored_by=client_id)
    try:
        with LocalMosquitto(ws_port=None) as broker:
            first = Recorder(store, broker.host, broker.port, client_id=client_id, share_group=group,
                             batch_max=batch, mqtt_version=mqtt_version).start()
            if not first.wait_connected(30):
                raise RuntimeError(f"recorder did not connect: {first.last_connect_error}")
            first.stop()
            sent = offer(broker, generators=2, tables=200, rate=0.0, duration_s=600.0, run=tag, limit=events)[0]
            rec = Recorder(store, broker.host, broker.port, client_id=client_id, share_group=group,
                           batch_max=batch, mqtt_version=mqtt_version)
            assert broker._proc is not None
            b0 = _cpu_s(broker._proc.pid)
            profiler = _ThreadProfiles() if profile is not None else None
            threads0 = _thread_cpu()
            t0, w0 = time.process_time(), time.perf_counter()
            if profiler is not None:
                with profiler:
                    rec.start()
            else:
                rec.start()
            deadline = time.monotonic() + 300
            while rec.stored + rec.duplicates < sent and time.monotonic() < deadline:
                time.sleep(0.02)
            threads = _thread_cpu()
            t1, w1 = time.process_time(), time.perf_counter()
            b1 = _cpu_s(broker._proc.pid)
            rec.stop()
            if profiler is not None and profile is not None:
                profiler.dump(profile.with_name(f"{profile.stem}-{tag}{profile.suffix}"))
    finally:
        stored_total = store.count()
        store.close()
    n = max(1, rec.stored)
    us = (t1 - t0) / n * 1e6
    return {"bench": "recorder_cpu", "store": kind, "mqtt_version": mqtt_version, "shared": shared,
            "events": sent, "stored": rec.stored, "duplicates": rec.duplicates, "rejected": rec.rejected,
            "lost": sent - stored_total,
            "recorder_cpu_us_per_event": round(us, 1),
            "single_core_ceiling_events_s": round(1e6 / us) if us > 0 else None,
            "thread_cpu_us_per_event": {k: round((v - threads0.get(k, 0.0)) / n * 1e6, 1)
                                        for k, v in sorted(threads.items())
                                        if (v - threads0.get(k, 0.0)) / n * 1e6 >= 0.5},
            "broker_cpu_us_per_event": round((b1 - b0) / n * 1e6, 1),
            "drain_wall_events_s": round(n / max(1e-9, w1 - w0), 1),
            "load_avg_1min": round(os.getloadavg()[0], 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=20000, help="backlog drained per configuration")
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--mqtt-versions", default="5,3.1.1")
    ap.add_argument("--shared", choices=("no", "yes", "both"), default="both",
                    help="plain subscription (end-to-end acks), $share group member, or both")
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--profile", type=Path, default=None, metavar="FILE",
                    help="write FILE-<config>.<suffix> cProfile stats (all threads) per configuration")
    args = ap.parse_args(argv)
    kinds = [s for s in args.stores.split(",") if s]
    versions = [v for v in args.mqtt_versions.split(",") if v]
    shares = {"no": [False], "yes": [True], "both": [False, True]}[args.shared]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mjt-bench-cpu-") as tmp:
        pg = LocalPostgres().start() if "postgresql" in kinds else None
        try:
            for kind in kinds:
                for version in versions:
                    for shared in shares:
                        name = f"{kind}-{version.replace('.', '')}-{int(shared)}"
                        db = (f"sqlite:///{Path(tmp) / f'{name}.db'}" if kind == "sqlite" or pg is None
                              else pg.create_database(f"cpu_{name.replace('-', '_')}"))
                        row = drain(kind, db, mqtt_version=version, shared=shared, events=args.events,
                                    batch=args.batch, profile=args.profile)
                        print(json.dumps(row), flush=True)
                        rows.append(row)
        finally:
            if pg is not None:
                pg.stop()
    anchor = rows[0] if rows else None
    best = {k: min((r for r in rows if r["store"] == k), key=lambda r: r["recorder_cpu_us_per_event"],
                   default=None) for k in kinds}
    print(json.dumps({"bench": "recorder_cpu", "summary": True, "events": args.events,
                      "anchor": anchor and {k: anchor[k] for k in ("store", "mqtt_version", "shared",
                                                                 "recorder_cpu_us_per_event")},
                      "best": {k: v and {f: v[f] for f in ("mqtt_version", "shared", "recorder_cpu_us_per_event",
                                                         "single_core_ceiling_events_s")}
                               for k, v in best.items()},
                      "lost": sum(r["lost"] for r in rows)}), flush=True)
    return 0 if all(r["lost"] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
