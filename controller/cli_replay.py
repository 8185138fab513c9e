"""``mjtable replay JOURNAL``: rebuild the final state and scores from a journal (JSON lines out).

Output: one ``{"record": "hand", ...}`` line per finished hand, then one ``{"record": "final", ...}`` line with the
session scores, ranking points, infractions, rejections and the public view.  ``--referee`` prints the
referee view instead.  ``mjtable replay --serve JOURNAL [--host H] [--port P]`` serves the hawk-eye replay UI
(``mjtable.replay_server.serve``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.engine.events import EventFormatError, event_from_json
from controller.engine.ext import ext_of
from controller.engine.session import result_json
from controller.journal import JournalError, fold, read_records
from controller.views import public_view, referee_view


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("journal", type=Path, help="the JSONL journal of one table session")
    parser.add_argument("--serve", action="store_true", help="serve the replay UI instead of printing")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--referee", action="store_true", help="print the referee view (concealed tiles)")


def run(args: argparse.Namespace) -> int:
    path: Path = args.journal
    if not path.exists():
        print(json.dumps({"error": f"no journal at {path}"}), file=sys.stderr)
        return 2
    if args.serve:
        from mjtable import replay_server  # type: ignore[attr-defined,unused-ignore]

        replay_server.serve(str(path), args.host, args.port)
        return 0
    try:
        records, _ = read_records(path)  # read-only: a live journal may be open in the service
        rejections = [r for r in records if r.rec == "rejection"]
        state = fold([event_from_json(r.event) for r in records if r.rec == "event"])
    except (JournalError, EventFormatError) as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 1
    for i, r in enumerate(state.history):
        print(json.dumps({"record": "hand", "hand_no": i + 1, **result_json(r)}, ensure_ascii=False))
    sess = state.session
    net = [sess.scores[p] - sess.penalties[p] for p in range(4)]
    view = referee_view(state) if args.referee else public_view(state)
    print(json.dumps({
        "record": "final", "table": state.config.table_id, "rules": state.config.rules, "seq": state.seq,
        "phase": str(state.phase), "players": list(sess.players), "scores": list(sess.scores),
        "penalties": list(sess.penalties), "net": net,
        "ranking_points": ext_of(state).ranking_points(state, net),  # ext_riichi: riichi leftover sticks + uma
        "infractions": [i.to_json() for i in state.infractions],
        "rejections": [{"n": r.n, "id": r.event.get("id"), "reason": r.reason, "message": r.message}
                       for r in rejections],
        "view": view,
    }, ensure_ascii=False))
    return 0
