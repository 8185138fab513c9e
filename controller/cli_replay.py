"""``mjtable replay JOURNAL``: rebuild the final state and scores from a journal (JSON lines out).

Output: one ``{"record": "hand", ...}`` line per finished hand, then one ``{"record": "final", ...}`` line with the
session scores, ranking points, infractions, rejections and the public view.  A hand line keeps the result's seat
numbers (``winners``, ``discarder``, ``payments``) and names the players who sat there in that hand (``seating``,
``winner_players``, ``discarder_player``, ``payments_by_player``): MCR moves the players to other seats every
round; the final line's ``players``, ``scores``, ``penalties`` and ``net`` are in registration order.

By default the output is public, as the public MQTT topics are: alerts and infractions in their redacted form
(:func:`mjtable.mqtt.guard.redact_public_state`: no words that name a tile, no referee's own words) and each
rejection as its reason code only (a rejection's message can name a concealed tile).  ``--referee`` prints the
referee view instead, with every alert's, infraction's and rejection's words and the referee's notes.
``mjtable replay --serve JOURNAL [--host H] [--port P]`` serves the hawk-eye replay UI
(``mjtable.replay_server.serve``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.engine.events import EventFormatError, event_from_json
from controller.engine.ext import ext_of
from controller.engine.session import result_json
from controller.journal import JournalError, Record, fold, read_records
from controller.views import HandSeatings, named_result, public_view, referee_view
from mjtable.mqtt.guard import redact_infraction, redact_public_state


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("journal", type=Path, help="the JSONL journal of one table session")
    parser.add_argument("--serve", action="store_true", help="serve the replay UI instead of printing")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--referee", action="store_true",
                        help="print the referee view (concealed tiles, alert and rejection words, referee notes); "
                             "without it the output is public, redacted as on the public MQTT topics")


def _rejection_json(r: Record, *, referee: bool) -> dict[str, Any]:
    """A journaled rejection: its words only for the referee (they can name a concealed tile)."""
    doc: dict[str, Any] = {"n": r.n, "id": r.event.get("id"), "reason": r.reason}
    if referee:
        doc["message"] = r.message
    return doc


def run(args: argparse.Namespace) -> int:
    path: Path = args.journal
    if not path.exists():
        print(json.dumps({"error": f"no journal at {path}"}), file=sys.stderr)
        return 2
    if args.serve:
        from mjtable import replay_server  # type: ignore[attr-defined,unused-ignore]

        replay_server.serve(str(path), args.host, args.port)
        return 0
    seats = HandSeatings()
    try:
        records, _ = read_records(path)  # read-only: a live journal may be open in the service
        rejections = [r for r in records if r.rec == "rejection"]
        state = fold([event_from_json(r.event) for r in records if r.rec == "event"], on_step=seats.observe)
    except (JournalError, EventFormatError) as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 1
    for i, r in enumerate(state.history):
        print(json.dumps({"record": "hand", "hand_no": i + 1, **named_result(result_json(r), seats.seatings[i])},
                         ensure_ascii=False))
    sess = state.session
    net = [sess.scores[p] - sess.penalties[p] for p in range(4)]
    if args.referee:
        view = referee_view(state)
        infractions = [i.to_json() for i in state.infractions]
    else:  # as TableChannel publishes the public state: alert and infraction words redacted
        view = redact_public_state(public_view(state), referee_view(state, with_waits=False))
        infractions = [redact_infraction(i.public_json()) for i in state.infractions]
    print(json.dumps({
        "record": "final", "table": state.config.table_id, "rules": state.config.rules, "seq": state.seq,
        "phase": str(state.phase), "players": list(sess.players), "scores": list(sess.scores),
        "penalties": list(sess.penalties), "net": net,
        "ranking_points": ext_of(state).ranking_points(state, net),  # ext_riichi: riichi leftover sticks + uma
        "infractions": infractions,
        "rejections": [_rejection_json(r, referee=args.referee) for r in rejections],
        "view": view,
    }, ensure_ascii=False))
    return 0
