"""``mjtable recorder``: subscribe to every table on a broker and store their games.

    mjtable recorder --broker 127.0.0.1:1883 --db sqlite:///runs/records.db
    mjtable recorder --db sqlite:///runs/records.db --export runs/records   # write records, sheets, standings

Runs until SIGINT/SIGTERM; prints JSON lines (``recorder_started``, ``recorder_stats`` every
``--stats-every-s`` seconds, ``recorder_stopped``).  ``--export DIR`` writes one ``<game>.json`` game record,
one ``<game>.csv`` score sheet and one ``<game>.penalties.csv`` penalty record per game plus ``standings.csv``
and ``standings.json``, then exits; a riichi game whose complete record the recorder stored (the table's
referee-only ``referee/record`` topic, or ``--import-journal`` of an engine journal) also gets
``<game>.tenhou.json`` (tenhou.net/6) and ``<game>.mjai.jsonl`` (mjai JSON lines).

    mjtable recorder --db sqlite:///runs/records.db --import-journal runs/journal/game-0.jsonl --export out

A venue runs several recorders on one PostgreSQL, sharing the tables through an MQTT 5 shared subscription
(each with its own fixed client id; every event is stored once, either may be killed and restarted):

    mjtable recorder --db postgresql://recorder@db/venue --share-group recorders --client-id rec-a
    mjtable recorder --db postgresql://recorder@db/venue --share-group recorders --client-id rec-b
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mjtable.recorder.recorder import Recorder
from mjtable.recorder.rejected import RejectedLog
from mjtable.recorder.store import SqlEventStore, StoreError, redact_url
from mjtable.records import (
    game_records_from_events,
    penalty_sheet_csv,
    score_sheet_csv,
    standings,
    standings_csv,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--broker", default="127.0.0.1:1883",
                        help="HOST[:PORT] or mqtt://HOST[:PORT] (TCP, port 1883 by default)")
    parser.add_argument("--db", required=True, help="sqlite:///path.db or postgresql://user@host/db")
    parser.add_argument("--username", default=None)
    parser.add_argument("--password-file", type=Path, default=None, help="file holding the broker password")
    parser.add_argument("--client-id", default="mjtable-recorder", help="fixed id of the persistent session")
    parser.add_argument("--stats-every-s", type=float, default=60.0)
    parser.add_argument("--share-group", default=None, metavar="GROUP",
                        help="share the tables with other recorders ($share/GROUP/...; MQTT 5)")
    parser.add_argument("--batch", type=int, default=500, metavar="N",
                        help="most events per database transaction (0: one insert per message)")
    parser.add_argument("--mqtt-version", choices=("auto", "5", "3.1.1"), default="auto",
                        help="MQTT version; auto: 3.1.1 alone, 5 with --share-group (3.1.1 costs less CPU per "
                             "message; mosquitto, EMQX and VerneMQ accept $share from it)")
    parser.add_argument("--rejected-log", type=Path, default=None, metavar="FILE",
                        help="where poison messages are set aside (JSON lines; default: next to a SQLite --db, "
                             "else ./recorder-rejected.jsonl)")
    parser.add_argument("--export", type=Path, default=None, metavar="DIR",
                        help="write game records, score sheets and standings from the database, then exit")
    parser.add_argument("--import-journal", type=Path, action="append", default=[], metavar="JOURNAL",
                        help="store an engine journal as a complete game record (repeatable), then exit "
                             "(or export, with --export)")


def _emit(doc: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def parse_broker(text: str) -> tuple[str, int]:
    """``host``, ``host:port``, ``mqtt://host`` or ``mqtt://host:port`` -> (host, port); the port defaults to
    1883 (MQTT over TCP); raises ValueError."""
    rest = text.removeprefix("mqtt://").rstrip("/")
    host, sep, port = rest.rpartition(":")
    if not sep or (":" in host and not host.endswith("]")):  # no port given (or a bare IPv6 address)
        host, port = rest, "1883"
    host = host.removeprefix("[").removesuffix("]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or "/" in host or " " in host:
        raise ValueError(f"bad broker {text!r}: use HOST, HOST:PORT or mqtt://HOST[:PORT]")
    return host, int(port)


def default_rejected_log(db: str) -> Path:
    """Next to a SQLite database (``<db>.rejected.jsonl``), else ``./recorder-rejected.jsonl``."""
    if db.startswith(("postgresql://", "postgres://")) or db == ":memory:":
        return Path("recorder-rejected.jsonl")
    return Path(db.removeprefix("sqlite:///") + ".rejected.jsonl")


def export(store: SqlEventStore, out: Path) -> dict[str, Any]:
    """Write every game's record and score sheet and the standings into ``out``; returns a summary."""
    out.mkdir(parents=True, exist_ok=True)
    records = game_records_from_events(store.events())
    for rec in records:
        safe = _safe(rec["game_id"])
        (out / f"{safe}.json").write_text(json.dumps(rec, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        (out / f"{safe}.csv").write_text(score_sheet_csv(rec), encoding="utf-8")
        (out / f"{safe}.penalties.csv").write_text(penalty_sheet_csv(rec), encoding="utf-8")
    exported, failed = _riichi_exports(store, out)
    rows = standings(records)
    (out / "standings.csv").write_text(standings_csv(rows), encoding="utf-8")
    (out / "standings.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return {"event": "recorder_export", "games": len(records), "players": len(rows), "dir": str(out),
            "riichi_exports": exported, "riichi_failed": failed}


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def _riichi_exports(store: SqlEventStore, out: Path) -> tuple[int, list[dict[str, str]]]:
    """tenhou.net/6 + mjai files for every stored riichi game record; failures are reported, not fatal."""
    from mjtable.recorder.riichi_export import ExportError
    from mjtable.recorder.riichi_live import write_exports

    done, failed = 0, []
    for rec in store.records():
        if not str(rec.get("rules", "")).startswith("riichi"):
            continue
        name = _safe(str(rec["game"]))
        try:
            write_exports(rec["events"], out / f"{name}.tenhou.json", out / f"{name}.mjai.jsonl",
                          title=f"{rec['table']} {rec['game']}")
            done += 1
        except ExportError as exc:
            failed.append({"game": str(rec["game"]), "error": str(exc)})
    return done, failed


def import_journals(store: SqlEventStore, paths: list[Path]) -> dict[str, Any]:
    """Store each engine journal as a complete game record (idempotent by table and game)."""
    from mjtable.recorder.engine_record import RecordError, record_from_journal

    stored = 0
    for path in paths:
        try:
            stored += store.add_record(record_from_journal(path))
        except (OSError, RecordError) as exc:
            return {"event": "error", "error": f"{path}: {exc}"}
    return {"event": "recorder_import", "journals": len(paths), "stored": stored}


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    try:
        store = SqlEventStore(args.db, stored_by=args.client_id)
    except (StoreError, OSError) as exc:
        secret = urlsplit(args.db).password
        _emit({"event": "error", "error": str(exc).replace(secret, "***") if secret else str(exc)})
        return 2
    if args.import_journal:
        result = import_journals(store, args.import_journal)
        _emit(result)
        if result["event"] == "error" or args.export is None:
            store.close()
            return 1 if result["event"] == "error" else 0
    if args.export is not None:
        _emit(export(store, args.export))
        store.close()
        return 0
    try:
        host, port = parse_broker(args.broker)
        password = args.password_file.read_text().strip() if args.password_file else None
    except (ValueError, OSError) as exc:
        _emit({"event": "error", "error": str(exc)})
        return 2
    try:
        rec = Recorder(store, host, port, client_id=args.client_id, username=args.username, password=password,
                       share_group=args.share_group, batch_max=max(0, args.batch), mqtt_version=args.mqtt_version,
                       rejected=RejectedLog(args.rejected_log or default_rejected_log(args.db))).start()
    except ValueError as exc:
        _emit({"event": "error", "error": str(exc)})
        return 2
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    _emit({"event": "recorder_started", "broker": f"{host}:{port}", "db": redact_url(args.db),
           "client_id": args.client_id, "share_group": args.share_group, "mqtt_version": rec.mqtt_version})
    while not stop.wait(args.stats_every_s):
        _emit({"event": "recorder_stats", **rec.stats(), "connected": rec.wait_connected(0)})
    rec.stop()
    store.close()
    _emit({"event": "recorder_stopped", **rec.stats()})
    return 0
