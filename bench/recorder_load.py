"""Recorder load bench: where is the ceiling of stored events/s, SQLite vs PostgreSQL, 1 to 4 recorders?

The issue 20 table (SQLite and PostgreSQL, 1-4 recorders, 5,000 events/s offered by 200 tables; about 4-5
minutes on 2 idle cores), one command from the repository root:

    nice -n 10 .venv/bin/python -m bench.recorder_load --markdown /tmp/recorder_load.md

Options: [--rate 5000] [--duration-s 6] [--backlog 30000] [--recorders 1,2,3,4] [--stores sqlite,postgresql]
[--generators 3] [--tables 200] [--mqtt-version auto|5|3.1.1] [--share-alone] [--store-events 50000].

Everything is real and on 127.0.0.1: one mosquitto per configuration, a throwaway PostgreSQL cluster
(:class:`mjtable.recorder.pgserver.LocalPostgres`), ``--generators`` generator processes (each its own paho
client, ``--tables`` tables between them, QoS 1, pre-built ``mjtable.event/1`` envelopes stamped with the
publish time), and 1-4 ``mjtable recorder`` processes: one recorder runs as a venue runs one (its own
subscription, end-to-end acks on, MQTT 3.1.1 by default), two or more share the tables through a shared
subscription (``--share-group``, MQTT 5 by default), each storing batches in one transaction.  For each store
and recorder count:

* live: the generators offer ``--rate`` events/s for ``--duration-s``; reported are offered and stored events/s
  (stored / time until the last one was in the database), the recorders' lag after the last publish and
  ``kept_up`` (lag < 1 s: no backlog grew), p50/p99 latency publish -> row built for the committing transaction
  (``received_s - ts_s``, one clock), loss (sent - stored, after a drain of up to 60 s), the recorders' CPU
  per stored event (``/proc/<pid>/stat``, start-up excluded) and the broker's CPU per event and share of one core;
* ceiling: ``--backlog`` events are published while the recorders are stopped (the broker queues them in their
  persistent sessions), then the recorders start and drain it: stored events/s with the generators out of the
  way is the recorders' ceiling; the recorders' CPU per event while draining gives the load-independent figure,
  ``recorder_core_ceiling_events_s`` = 1e6 / µs per event (events per CPU-second of recorder).

On a machine shared with other work the wall-clock figures (events/s, latency) fall with its load; the CPU
figures much less (``bench.recorder_cpu`` measures them in one process, by thread).  Before the MQTT runs, each
store alone takes ``--store-events`` envelopes through ``add_events`` (the writer thread's call) in batches of
``--batch``: the store's own ceiling.  SQLite with one recorder is the anchor of the same run.  Target
(issue 20): >= 5,000 events/s stored with 0 loss (a 200-table venue at 10 events/s per table is 2,000); a
configuration passes when the generators offered >= 98 % of it, nothing was lost and the recorders kept up.
Prints one JSON line per configuration and a final summary line; exit code 0 when some PostgreSQL
configuration passed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mjtable.broker import LocalMosquitto
from mjtable.recorder.pgserver import LocalPostgres
from mjtable.recorder.store import SqlEventStore

TARGET_EVENTS_S = 5000.0
SHARE_GROUP = "bench"


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


# -- generator processes ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GenSpec:
    """What one generator process publishes: ``rate`` events/s over ``tables`` (round robin) from ``start_at``
    (unix time) for ``duration_s`` or until ``limit`` events (-1: no limit); ``rate <= 0``: as fast as it can."""

    host: str
    port: int
    tables: list[str]
    rate: float
    duration_s: float
    limit: int
    run: str
    start_at: float


def generate(spec: GenSpec, out: Any) -> None:
    """One generator process (see :class:`GenSpec`); puts (sent, acked by the broker, seconds) on ``out``."""
    host, port, tables, rate, duration_s = spec.host, spec.port, spec.tables, spec.rate, spec.duration_s
    limit, run, start_at = spec.limit, spec.run, spec.start_at
    acked = 0
    lock = threading.Lock()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"gen-{run}-{os.getpid()}")
    c.max_inflight_messages_set(2000)
    c.max_queued_messages_set(0)

    def on_publish(*_: Any) -> None:
        nonlocal acked
        with lock:
            acked += 1

    c.on_publish = on_publish
    c.connect(host, port, keepalive=30)
    c.loop_start()
    seqs = dict.fromkeys(tables, 0)
    sent = 0
    n = len(tables)
    while time.time() < start_at:
        time.sleep(0.001)
    t0 = time.time()
    end = t0 + duration_s
    total = int(rate * duration_s) if rate > 0 else limit
    while True:
        now = time.time()
        if now >= end or (total >= 0 and sent >= total):
            break
        due = (int((now - t0) * rate) if rate > 0 else sent + 200) - sent
        if total >= 0:
            due = min(due, total - sent)
        if due <= 0:
            time.sleep(0.002)
            continue
        for _ in range(due):
            table = tables[sent % n]
            seqs[table] += 1
            seq = seqs[table]
            doc = {"schema": "mjtable.event/1", "table": table, "game": f"{table}-{run}", "id": f"{table}-{run}:{seq}",
                   "seq": seq, "ts_s": time.time(), "type": "discard", "data": {"seat": seq % 4, "tile": "5p"}}
            c.publish(f"mjtable/v1/table/{table}/events", json.dumps(doc, separators=(",", ":")), qos=1)
            sent += 1
    seconds = time.time() - t0
    deadline = time.time() + 60
    while time.time() < deadline:
        with lock:
            if acked >= sent:
                break
        time.sleep(0.01)
    c.disconnect()
    c.loop_stop()
    out.put((sent, acked, seconds))


def offer(broker: LocalMosquitto, *, generators: int, tables: int, rate: float, duration_s: float,
          run: str, limit: int = -1) -> tuple[int, int, float, float]:
    """Run the generator processes; returns (sent, acked by the broker, start unix time, longest seconds)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    names = [f"V{t:03d}" for t in range(tables)]
    start_at = time.time() + 1.5  # the spawned interpreters need time to import
    procs = [ctx.Process(target=generate, args=(GenSpec(broker.host, broker.port, names[g::generators],
                                                        rate / generators, duration_s,
                                                        limit // generators if limit > 0 else -1, run, start_at),
                                                out))
             for g in range(generators)]
    for p in procs:
        p.start()
    results = [out.get(timeout=duration_s + 120) for _ in procs]
    for p in procs:
        p.join(10)
    return (sum(r[0] for r in results), sum(r[1] for r in results), start_at, max(r[2] for r in results))


# -- recorder processes -----------------------------------------------------------------------------------
class RecorderProc:
    """``mjtable recorder`` as a child process (``--share-group`` when ``shared``); reads its JSON lines."""

    def __init__(self, broker: LocalMosquitto, db: str, name: str, *, batch: int, mqtt_version: str,
                 shared: bool = True) -> None:
        self.argv = [sys.executable, "-m", "mjtable.cli", "recorder", "--broker", f"{broker.host}:{broker.port}",
                     "--db", db, "--client-id", name, "--batch", str(batch), "--stats-every-s", "0.2",
                     "--mqtt-version", mqtt_version, *(["--share-group", SHARE_GROUP] if shared else [])]
        self.version_used: str | None = None
        self.connected = threading.Event()
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> RecorderProc:
        self.connected.clear()
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        return self

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if '"recorder_started"' in line:
                self.version_used = json.loads(line).get("mqtt_version")
            if '"connected": true' in line:
                self.connected.set()

    def cpu_s(self) -> float:
        """CPU seconds (user + system) this process used so far (0 when it is not running)."""
        return _cpu_s(self.proc.pid) if self.proc is not None and self.proc.poll() is None else 0.0

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def _cpu_s(pid: int) -> float:
    """user + system CPU seconds of a live process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start_all(recs: list[RecorderProc]) -> None:
    for r in recs:
        r.start()
    for r in recs:
        if not r.connected.wait(60):
            raise RuntimeError(f"recorder {r.argv} did not connect")


def _wait_stored(store: SqlEventStore, target: int, timeout_s: float) -> tuple[int, float]:
    """Poll until ``target`` events are stored or the time is up; returns (stored, unix time of the last growth)."""
    deadline = time.time() + timeout_s
    last, last_t = -1, time.time()
    while time.time() < deadline:
        n = store.count()
        if n != last:
            last, last_t = n, time.time()
        if n >= target:
            break
        if time.time() - last_t > 10:  # nothing new for 10 s: the rest is lost
            break
        time.sleep(0.02)
    return last, last_t


def one_config(kind: str, db: str, n_rec: int, args: argparse.Namespace) -> dict[str, Any]:
    """One store and recorder count, on a broker of its own (no sessions left from another configuration)."""
    with LocalMosquitto(ws_port=None) as broker:
        return _measure(kind, db, broker, n_rec, args)


def _us_per_event(cpu_s: float, events: int) -> float:
    return round(cpu_s / max(1, events) * 1e6, 1)


def _ceiling(us: float) -> int | None:
    """Events per CPU-second at ``us`` µs of CPU per event: one core's ceiling, whatever the machine's load."""
    return round(1e6 / us) if us > 0 else None


def _measure(kind: str, db: str, broker: LocalMosquitto, n_rec: int, args: argparse.Namespace) -> dict[str, Any]:
    tag = f"{kind[:2]}{n_rec}"
    store = SqlEventStore(db)
    shared = n_rec > 1 or args.share_alone
    recs = [RecorderProc(broker, db, f"bench-{tag}-{i}", batch=args.batch, mqtt_version=args.mqtt_version,
                         shared=shared) for i in range(n_rec)]
    out: dict[str, Any] = {"store": kind, "recorders": n_rec, "shared": shared}
    broker_proc = broker._proc  # the mosquitto process of this configuration
    assert broker_proc is not None

    def cpu() -> tuple[float, float, float]:
        """(recorders' CPU seconds, broker's CPU seconds, wall time) now."""
        return sum(r.cpu_s() for r in recs), _cpu_s(broker_proc.pid), time.time()

    try:
        _start_all(recs)
        out["mqtt_version"] = recs[0].version_used or args.mqtt_version
        # live load: CPU from here on (the recorders' start-up is not the cost of an event)
        rec0, brk0, wall0 = cpu()
        startup_cpu = rec0  # what the recorders spent starting, connecting and subscribing
        sent, acked, t0, seconds = offer(broker, generators=args.generators, tables=args.tables, rate=args.rate,
                                         duration_s=args.duration_s, run=f"{tag}live")
        publish_end = t0 + seconds
        stored, last_t = _wait_stored(store, sent, 60)
        rec1, brk1, wall1 = cpu()
        lat = store._run(lambda c: c.execute("SELECT received_s - ts_s FROM events").fetchall())
        ms = [float(r[0]) * 1000 for r in lat]
        us = _us_per_event(rec1 - rec0, stored)
        lag = max(0.0, last_t - publish_end)
        out.update({"offered_events_s": round(sent / seconds, 1), "sent": sent, "broker_acked": acked,
                    "stored": stored, "lost": sent - stored,
                    "stored_events_s": round(stored / max(1e-9, last_t - t0), 1),
                    "lag_after_last_publish_s": round(lag, 3), "kept_up": lag < 1.0,
                    "latency_p50_ms": round(_pct(ms, 0.50), 1), "latency_p99_ms": round(_pct(ms, 0.99), 1),
                    "recorder_cpu_us_per_event": us,
                    "broker_cpu_us_per_event": _us_per_event(brk1 - brk0, stored),
                    "broker_cpu_share": round((brk1 - brk0) / max(1e-9, wall1 - wall0), 3),
                    "load_avg_1min": round(os.getloadavg()[0], 2)})
        # drain ceiling: queue a backlog while the recorders are away, then let them drain it
        for r in recs:
            r.stop()
        before = store.count()
        b_sent = offer(broker, generators=args.generators, tables=args.tables, rate=0.0, duration_s=600.0,
                       run=f"{tag}bl", limit=args.backlog)[0]
        brk0 = _cpu_s(broker_proc.pid)
        _start_all(recs)  # they drain as soon as they have subscribed: their CPU less a start-up's, below
        t_start, at_start = time.time(), store.count()  # the rate is timed from here (no process start-up)
        stored_b, last_b = _wait_stored(store, before + b_sent, 120)
        rec1, brk1, _ = cpu()
        drain_us = _us_per_event(rec1 - startup_cpu, stored_b - before)
        out.update({"backlog": b_sent, "backlog_lost": before + b_sent - stored_b,
                    "ceiling_events_s": round((stored_b - at_start) / max(1e-9, last_b - t_start), 1),
                    "drain_recorder_cpu_us_per_event": drain_us,
                    "drain_broker_cpu_us_per_event": _us_per_event(brk1 - brk0, stored_b - before),
                    "recorder_core_ceiling_events_s": _ceiling(drain_us)})
    finally:
        for r in recs:
            r.stop()
        store.close()
    out["pass"] = bool(out.get("lost") == 0 and out.get("backlog_lost") == 0 and out.get("kept_up")
                       and out.get("offered_events_s", 0) >= 0.98 * TARGET_EVENTS_S)
    return out


def store_ceiling(kind: str, db: str, events: int, batch: int) -> dict[str, Any]:
    """The store alone (no MQTT): ``events`` envelopes through ``add_events`` in batches, one writer thread, as
    the recorder's writer does; then the same again (all duplicates)."""
    store = SqlEventStore(db, stored_by="bench")
    docs = [{"schema": "mjtable.event/1", "table": f"V{i % 200:03d}", "game": f"V{i % 200:03d}-store",
             "id": f"V{i % 200:03d}-store:{i}", "seq": i, "ts_s": time.time(), "type": "discard",
             "data": {"seat": i % 4, "tile": "5p"}} for i in range(events)]
    try:
        out: dict[str, Any] = {"bench": "recorder_load", "store_only": True, "store": kind, "events": events,
                               "batch": batch}
        for label in ("new", "duplicate"):
            t0 = time.perf_counter()
            new = sum(store.add_events(docs[i:i + batch]) for i in range(0, events, batch))
            dt = time.perf_counter() - t0
            out[f"{label}_events_s"] = round(events / dt, 1)
            out[f"{label}_stored"] = new
        out["load_avg_1min"] = round(os.getloadavg()[0], 2)
        return out
    finally:
        store.close()


MARKDOWN_HEADER = ("| store | recorders | MQTT | offered/s | stored/s (live) | kept up | p99 latency | lost | "
                   "drain ceiling/s | recorder CPU µs/event (live; drain) | one-core ceiling/s | broker CPU "
                   "µs/event; share of a core |\n" + "|---" * 12 + "|\n")


def markdown(rows: list[dict[str, Any]]) -> str:
    """The configurations as a Markdown table (docs/mqtt.md); SQLite with one recorder is the anchor."""
    lines = [MARKDOWN_HEADER]
    for r in rows:
        name = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}.get(r["store"], r["store"])
        if r["store"] == "sqlite" and r["recorders"] == 1:
            name += " (anchor)"
        kept = "yes" if r["kept_up"] else "no"
        lines.append(f"| {name} | {r['recorders']}{' shared' if r['shared'] else ''} | {r['mqtt_version']} "
                     f"| {r['offered_events_s']:,.0f} | {r['stored_events_s']:,.0f} | {kept} "
                     f"| {r['latency_p99_ms']:,.0f} ms | {r['lost'] + r['backlog_lost']} "
                     f"| {r['ceiling_events_s']:,.0f} | {r['recorder_cpu_us_per_event']:.0f}; "
                     f"{r['drain_recorder_cpu_us_per_event']:.0f} | {r['recorder_core_ceiling_events_s'] or 0:,} "
                     f"| {r['broker_cpu_us_per_event']:.0f}; {r['broker_cpu_share']:.2f} |\n")
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.recorder_load", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rate", type=float, default=TARGET_EVENTS_S, help="offered events/s in the live run")
    ap.add_argument("--duration-s", type=float, default=6.0, help="seconds of the live run")
    ap.add_argument("--backlog", type=int, default=30000, help="events queued for the drain-ceiling run")
    ap.add_argument("--recorders", default="1,2,3,4", help="recorder counts, comma-separated")
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--generators", type=int, default=3, help="generator processes")
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--batch", type=int, default=500, help="the recorders' --batch")
    ap.add_argument("--mqtt-version", choices=("auto", "5", "3.1.1"), default="auto",
                    help="the recorders' MQTT version (auto, their default: 3.1.1 alone, 5 in a shared group)")
    ap.add_argument("--share-alone", action="store_true",
                    help="one recorder subscribes through the shared group too (default: as a venue runs one)")
    ap.add_argument("--store-events", type=int, default=50000, help="events for the store-only ceiling (0: skip)")
    ap.add_argument("--markdown", type=Path, default=None, metavar="FILE",
                    help="also write the configurations as a Markdown table (docs/mqtt.md)")
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.recorders.split(",") if x]
    stores = args.stores.split(",")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mjt-bench-rec-") as tmp, LocalPostgres() as pg:
        for kind in stores:
            if args.store_events > 0:
                db = (f"sqlite:///{Path(tmp) / f'{kind}-store.db'}" if kind == "sqlite"
                      else pg.create_database("bench_store"))
                print(json.dumps(store_ceiling(kind, db, args.store_events, args.batch)), flush=True)
            for n in counts:
                db = (f"sqlite:///{Path(tmp) / f'{kind}-{n}.db'}" if kind == "sqlite"
                      else pg.create_database(f"bench_{n}"))
                row = {"bench": "recorder_load", **one_config(kind, db, n, args)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    if not rows:
        return 0
    if args.markdown is not None:
        args.markdown.write_text(markdown(rows), encoding="utf-8")
    anchor = next((r for r in rows if r["store"] == "sqlite" and r["recorders"] == 1), None)
    best_pg = max((r for r in rows if r["store"] == "postgresql"), key=lambda r: r.get("ceiling_events_s", 0),
                  default=None)
    summary = {"bench": "recorder_load", "summary": True, "target_events_s": TARGET_EVENTS_S, "rate": args.rate,
               "duration_s": args.duration_s, "generators": args.generators, "tables": args.tables,
               "anchor_sqlite_1": anchor and {k: anchor[k] for k in ("ceiling_events_s", "stored_events_s",
                                                                     "drain_recorder_cpu_us_per_event")},
               "best_postgresql": best_pg and {k: best_pg[k] for k in ("recorders", "ceiling_events_s",
                                                                      "stored_events_s", "lost", "kept_up",
                                                                      "drain_recorder_cpu_us_per_event")},
               "passing": [f"{r['store']}x{r['recorders']}" for r in rows if r["pass"]],
               "pass": any(r["pass"] for r in rows if r["store"] == "postgresql"),
               "load_avg_1min": round(os.getloadavg()[0], 2)}
    print(json.dumps(summary), flush=True)
    return 0 if summary["pass"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
