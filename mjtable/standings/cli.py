"""``mjtable standings``: the organiser's view of a venue or league, read from the recorder's database.

    mjtable standings --db postgresql://organiser@db/venue                 # one JSON line, then exit
    mjtable standings --db sqlite:///runs/records.db --csv standings.csv --tables-csv tables.csv
    mjtable standings --db postgresql://organiser@db/venue --serve 8090    # web view on 127.0.0.1:8090

Prints one ``mjtable.standings/1`` JSON line (every table's running scores and one tournament table per rules
family: MCR 标准分 4-2-1-0, Sichuan 盘分 4/3/2/1, HKMA final points with uma); ``--csv`` / ``--tables-csv``
write CSV; ``--serve PORT`` serves the live web view (reads the database on each request; ``--host`` to bind
elsewhere than 127.0.0.1) until SIGINT/SIGTERM.  Read-only: give it a database user that may only SELECT.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from mjtable.recorder.store import SqlEventStore, StoreError, redact_url
from mjtable.standings.compute import RiichiSettings, standings_csv, standings_report, tables_csv

RESULT_TYPES = ("hand_result", "game_end")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", required=True, help="the recorder's database: sqlite:///path.db or postgresql://...")
    parser.add_argument("--csv", type=Path, default=None, metavar="FILE", help="write the tournament tables as CSV")
    parser.add_argument("--tables-csv", type=Path, default=None, metavar="FILE",
                        help="write every table's running scores as CSV")
    parser.add_argument("--serve", type=int, default=None, metavar="PORT", help="serve the live web view")
    parser.add_argument("--host", default="127.0.0.1", help="address of the web view (default 127.0.0.1)")
    parser.add_argument("--refresh-s", type=float, default=2.0, help="how often the page reloads the standings")
    parser.add_argument("--riichi-division", choices=("auto", "A", "B"), default="auto",
                        help="HKMA division (start/return points 30000/35000 or 25000/30000; auto: from the sum)")
    parser.add_argument("--riichi-uma", choices=("l19", "l453"), default="l19",
                        help="HKMA final score method (L19 uma, or the L451-L456 rank-point tables)")


def _emit(doc: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def report_from(store: SqlEventStore, riichi: RiichiSettings) -> dict[str, Any]:
    """The standings report from what the store holds now (any thread: the store serialises its connection)."""
    return standings_report(store.events(types=RESULT_TYPES), store.statuses(), riichi=riichi, now_s=time.time())


def run(args: argparse.Namespace) -> int:
    try:
        store = SqlEventStore(args.db, read_only=True)
    except (StoreError, OSError) as exc:
        _emit({"event": "error", "error": str(exc)})
        return 2
    riichi = RiichiSettings(division=args.riichi_division, uma_mode=args.riichi_uma)
    try:
        report = report_from(store, riichi)
        if args.csv is not None:
            args.csv.write_text(standings_csv(report), encoding="utf-8")
        if args.tables_csv is not None:
            args.tables_csv.write_text(tables_csv(report), encoding="utf-8")
        if args.serve is None:
            _emit(report)
            return 0
        return _serve(store, riichi, args)
    except (StoreError, OSError) as exc:
        _emit({"event": "error", "error": str(exc)})
        return 1
    finally:
        store.close()


def _serve(store: SqlEventStore, riichi: RiichiSettings, args: argparse.Namespace) -> int:
    from mjtable.standings.web import make_server, serve_in_thread

    server = make_server(lambda: report_from(store, riichi), args.host, args.serve, args.refresh_s)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    thread = serve_in_thread(server)
    host, port = server.server_address[:2]
    _emit({"event": "standings_serving", "url": f"http://{host!s}:{port}/", "db": redact_url(args.db)})
    stop.wait()
    server.shutdown()
    thread.join(5)
    server.server_close()
    return 0
