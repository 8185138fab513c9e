"""Soak (issue 19): N tables, a recorder, broker SIGKILL every 20 s and a service SIGKILL every 30 s; nothing lost.

    .venv/bin/python -m bench.soak [--tables 16] [--duration-s 600] [--broker-kill-s 20] [--service-kill-s 30]
                                   [--hands 16] [--pace-s 0.25] [--workdir DIR]

Loopback only: a real mosquitto (persistence on, ``autosave_interval 10`` as in deploy/mosquitto, so each SIGKILL
loses what it had acknowledged but not saved), the real recorder (``mjtable recorder``, SQLite), and ``--tables``
table processes (:mod:`bench.soak_table`: the engine's journal and the service's publication path).  For
``--duration-s`` seconds the broker is SIGKILLed and restarted every ``--broker-kill-s`` seconds and one table
process (seeded choice) every ``--service-kill-s`` seconds (restarted at once: it resumes from its journal).  Then
the tables finish their sessions and wait for the recorder's acknowledgement.

Checks, against the anchor of the issue computed in the same run: every public event each table journaled and
published (up to the outbox ledger's highest seq; also re-derived from the journal) is stored by the recorder
exactly once with seqs 1..N, and each table's final scores (its journal, and the recorder's ``game_end``) equal an
undisturbed run of the same seed (each table's final scores and the undisturbed run's are printed side by side; the
outbox ledger's row count shows its pruning). Prints ONE JSON line of counts and ``pass``. Not part of CI (minutes
of wall time).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.engine.events import event_from_json
from controller.engine.simulate import SimRun
from controller.engine.step import step
from controller.journal import fold, read_records
from mjtable.broker import LocalMosquitto
from mjtable.service.events_out import public_event


def _start_table(i: int, args: argparse.Namespace, port: int, work: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "bench.soak_table", "--table", f"T{i}", "--seed", str(args.seed + i),
           "--hands", str(args.hands), "--port", str(port), "--dir", str(work / "tables"),
           "--pace-s", str(args.pace_s)]
    return subprocess.Popen(cmd, stdout=(work / f"T{i}.out").open("ab"), stderr=(work / f"T{i}.err").open("ab"),
                            cwd=Path(__file__).resolve().parents[1])


def _journal_ids(path: Path, game: str) -> tuple[list[str], int]:
    """The public event ids the service publishes for the accepted events of a journal, and their count."""
    records = [r for r in read_records(path)[0] if r.rec == "event"]
    ids: list[str] = []
    state = fold([event_from_json(records[0].event)])
    for r in records[1:]:
        ev = event_from_json(r.event)
        ids += [f"{game}:{r.n}:{k}" for k in range(len(public_event(ev, (), state)))]
        state = step(state, ev)[0]
    return ids, len(records)


def verify(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Compare what each table journaled and published with what the recorder stored, and the scores."""
    from mjtable.service.ports import game_id_of

    db = sqlite3.connect(str(work / "recorder.db"))
    tables: dict[str, Any] = {}
    totals = {"journaled_events": 0, "published": 0, "journal_public_ids": 0, "recorded": 0, "missing": 0,
              "not_from_journal": 0, "seq_errors": 0, "scores_match": 0, "recorder_scores_match": 0}
    for i in range(args.tables):
        t = f"T{i}"
        journal = work / "tables" / f"{t}.journal.jsonl"
        state = fold([event_from_json(r.event) for r in read_records(journal)[0] if r.rec == "event"])
        game = game_id_of(t, state.session.start_s)
        from_journal, accepted = _journal_ids(journal, game)
        ledger = sqlite3.connect(str(work / "tables" / f"{t}.outbox.sqlite"))
        # the ledger is pruned once the recorder has events (its newest row stays): the highest seq published
        published = int(ledger.execute("SELECT COALESCE(MAX(seq), 0) FROM published WHERE game = ?",
                                       (game,)).fetchone()[0])
        ledger_rows = int(ledger.execute("SELECT COUNT(*) FROM published").fetchone()[0])
        ledger.close()
        rows = db.execute("SELECT event_id, seq, payload FROM events WHERE table_id = ? AND game_id = ?",
                          (t, game)).fetchall()
        recorded = {str(r[0]): int(r[1]) for r in rows}
        seqs = sorted(recorded.values())
        undisturbed = SimRun(seed=args.seed + i, hands_total=args.hands).play()
        end = [json.loads(r[2]) for r in rows if json.loads(r[2])["type"] == "game_end"]
        scores_ok = list(state.session.scores) == list(undisturbed.session.scores)
        by_player = dict(zip(undisturbed.session.players, undisturbed.session.scores, strict=True))
        # game_end lists the scores per seat of the last hand (``players``): seats rotate, so compare by player
        rec_ok = bool(end) and dict(zip(end[0]["data"]["players"], end[0]["data"]["scores"], strict=True)) == by_player
        missing = sorted(set(range(1, published + 1)) - set(seqs))
        tables[t] = {"accepted": accepted, "published": published, "recorded": len(recorded),
                     "missing": len(missing), "ledger_rows": ledger_rows, "scores": list(state.session.scores),
                     "undisturbed_scores": list(undisturbed.session.scores), "scores_match": scores_ok,
                     "recorder_game_end_match": rec_ok}
        totals["journaled_events"] += accepted
        totals["published"] += published
        totals["journal_public_ids"] += len(from_journal)
        totals["recorded"] += len(recorded)
        totals["missing"] += len(missing) + len(set(from_journal) - set(recorded))
        totals["not_from_journal"] += len({k for k in recorded if k.split(":")[-1].isdigit()} - set(from_journal))
        totals["seq_errors"] += int(seqs != list(range(1, published + 1)))  # each seq once, none beyond
        totals["scores_match"] += int(scores_ok)
        totals["recorder_scores_match"] += int(rec_ok)
    db.close()
    return {**totals, "per_table": tables}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--duration-s", type=float, default=600.0, help="how long the kills go on, seconds")
    ap.add_argument("--broker-kill-s", type=float, default=20.0)
    ap.add_argument("--service-kill-s", type=float, default=30.0)
    ap.add_argument("--hands", type=int, default=16)
    ap.add_argument("--pace-s", type=float, default=0.25, help="pause between a table's engine events, seconds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--finish-timeout-s", type=float, default=1800.0)
    args = ap.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="mjt-soak-"))
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"soak:{args.seed}")
    broker = LocalMosquitto(persistence=True, autosave_s=10, ws_port=None, workdir=work / "broker").start()
    recorder = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "recorder", "--broker",
                                 f"127.0.0.1:{broker.port}", "--db", f"sqlite:///{work / 'recorder.db'}",
                                 "--stats-every-s", "10"],
                                stdout=(work / "recorder.out").open("ab"), stderr=(work / "recorder.err").open("ab"))
    procs = {i: _start_table(i, args, broker.port, work) for i in range(args.tables)}
    finished: dict[int, int] = {}
    kills = {"broker": 0, "service": 0}
    t0 = time.monotonic()
    next_broker, next_service = t0 + args.broker_kill_s, t0 + args.service_kill_s
    try:
        while len(finished) < args.tables and time.monotonic() - t0 < args.duration_s + args.finish_timeout_s:
            now = time.monotonic()
            for i, p in list(procs.items()):
                if i not in finished and p.poll() is not None:
                    finished[i] = p.returncode
            if now - t0 < args.duration_s:
                if now >= next_broker:
                    broker.kill()
                    broker.start()
                    kills["broker"] += 1
                    next_broker += args.broker_kill_s
                if now >= next_service:
                    running = [i for i, p in procs.items() if p.poll() is None]
                    if running:
                        victim = rng.choice(running)
                        procs[victim].send_signal(signal.SIGKILL)
                        procs[victim].wait(30)
                        procs[victim] = _start_table(victim, args, broker.port, work)
                        kills["service"] += 1
                    next_service += args.service_kill_s
            time.sleep(0.2)
        elapsed = time.monotonic() - t0
        time.sleep(3.0)  # the recorder's last acks and writes
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        recorder.send_signal(signal.SIGTERM)
        try:
            recorder.wait(30)
        except subprocess.TimeoutExpired:
            recorder.kill()
        broker.close()
    stats = [json.loads(x) for x in (work / "recorder.out").read_text().splitlines() if x.startswith("{")]
    last: dict[str, Any] = next((s for s in reversed(stats)
                                 if s.get("event") in ("recorder_stopped", "recorder_stats")), {})
    result = verify(args, work)
    ok = (len(finished) == args.tables and all(rc == 0 for rc in finished.values()) and result["missing"] == 0
          and result["seq_errors"] == 0 and result["scores_match"] == args.tables
          and result["recorder_scores_match"] == args.tables)
    per_table = result.pop("per_table")
    scores = {t: {"scores": v["scores"], "undisturbed": v["undisturbed_scores"], "match": v["scores_match"]}
              for t, v in per_table.items()}
    print(json.dumps({"bench": "soak", "tables": args.tables, "duration_s": args.duration_s,
                      "elapsed_s": round(elapsed, 1), "broker_kills": kills["broker"],
                      "service_kills": kills["service"],
                      "finished": len(finished), "exit_codes": sorted(set(finished.values())), **result,
                      "recorder": {k: last.get(k) for k in ("stored", "duplicates", "rejected", "missing_seen",
                                                            "recovered", "missing_now", "store_errors")},
                      "ledger_rows_max": max((v["ledger_rows"] for v in per_table.values()), default=0),
                      "scores_per_table": scores,
                      "anchor": "every journaled event stored exactly once; scores equal an undisturbed run",
                      "pass": ok, "workdir": str(work)}))
    if not ok:
        print(json.dumps({"per_table": per_table}), file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
