"""A hand result that changes after it was first shown reaches the organisers' records: HKMA riichi settles an
exhaustive draw with its default declarations and settles it again on each 「聽牌」/「不聽」 until the next wall (002
L427).  The channel sends a ``hand_result`` when the result first shows and a corrected one (its own id,
``<game>:hand<N>:result:r<k>``) on every later change, also after a restart on the same outbox ledger; the game
record, the score sheet and the live standings take the last one.  The table publishes as the service does
(``PahoPublisher`` into its persistent outbox, :mod:`tests.mqtt.outbox_table`) with the broker out of reach."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.views import public_view
from mjtable.records import game_records_from_events, score_sheet_csv
from mjtable.standings.compute import live_tables
from tests.mqtt.outbox_table import OutboxTable
from tests.riichi_records.games import play
from tests.riichi_records.test_riichi_records_declaration import declared, replay

GAME = "T1-g1"


def test_the_records_end_with_the_last_declaration_across_a_restart(tmp_path: Path) -> None:
    """「不聽」, 「聽牌」 again, then 「不聽」: the second 「不聽」 settles as the first did and must not be taken for a
    duplicate of it; the table restarts after the first one."""
    events, last, _ = declared(play(2), ("pass", "call", "pass"))
    end = {"type": "referee", "id": "end", "at_s": events[last]["at_s"], "command": "end_session"}
    states = replay([*events[:last + 1], end])
    draw_at = last - 3  # the state showing the draw as the default settled it
    table = OutboxTable(tmp_path / "T1.outbox.sqlite", game=GAME)
    try:
        for st in states[1:draw_at + 2]:  # up to the first 「不聽」
            table.show(st)
        table.restart()  # the resumed table shows the state again
        for st in states[draw_at + 1:]:
            table.show(st)
        sent = table.sent()
    finally:
        table.close()
    hand_no = len(states[draw_at].history)
    base = f"{GAME}:hand{hand_no}:result"
    results = [e for e in sent if e["type"] == "hand_result" and e["data"]["hand_no"] == hand_no]
    assert [e["id"] for e in results] == [base, f"{base}:r1", f"{base}:r2", f"{base}:r3"]
    payments = [list(states[k].history[-1].payments) for k in range(draw_at, last + 1)]
    assert [e["data"]["result"]["payments"] for e in results] == payments
    assert payments[0] == payments[2] != payments[1] == payments[3]
    assert [e["seq"] for e in results] == sorted(e["seq"] for e in results)

    final = states[-1]
    (record,) = game_records_from_events(sent)
    hand = next(h for h in record["hands"] if h["hand_no"] == hand_no)
    assert hand["payments"] == payments[-1]
    assert record["complete"] and record["totals"] == [final.session.scores[p] - final.session.penalties[p]
                                                       for p in range(4)]
    rows = list(csv.DictReader(io.StringIO(score_sheet_csv(record))))
    row = next(r for r in rows if r["hand 盘序"] == str(hand_no))
    assert [int(row[f"{name} running 合计"]) for name in record["players"]] == record["totals"]  # the last hand
    (live,) = live_tables(sent)
    assert [p["score"] for p in live["players"]] == [s["score"] for s in public_view(final, "T1")["seats"]]


def test_a_result_shown_again_unchanged_is_not_sent_again(tmp_path: Path) -> None:
    """Clock ticks and a restart show the same result again: one ``hand_result``, the first."""
    events, last, _ = declared(play(2), ("pass",))
    states = replay(events[:last])  # up to the draw, no declaration
    table = OutboxTable(tmp_path / "T1.outbox.sqlite", game=GAME)
    try:
        for st in states[1:]:
            table.show(st)
        table.show(states[-1])
        table.restart()
        table.show(states[-1])
        sent = table.sent()
    finally:
        table.close()
    ids = [e["id"] for e in sent if e["type"] == "hand_result"]
    assert len(ids) == len(set(ids)) == len(states[-1].history)
    assert all(i.endswith(":result") for i in ids)


def test_a_revision_whose_record_was_lost_is_sent_under_the_next_id(tmp_path: Path) -> None:
    """A kill between putting a revision in the outbox and noting it as sent: the next change must not reuse that
    revision's id (the outbox would drop it as published, and the correction would be lost)."""
    table = OutboxTable(tmp_path / "T1.outbox.sqlite")
    first = "T1-g1:hand1:result"

    def publish(content: dict[str, Any]) -> Callable[[str, dict[str, int]], Any]:
        return lambda event_id, revision: table.channel.publish_event("hand_result", {**content, **revision},
                                                                     event_id=event_id)

    assert table.channel._send_latest(first, {"payments": [0, 0, 0, 0]}, publish({"payments": [0, 0, 0, 0]}))
    assert table.channel._send_latest(first, {"payments": [1, -1, 0, 0]}, publish({"payments": [1, -1, 0, 0]}))
    table.ledger.set_meta(f"sent:{first}", "0:" + "0" * 16)  # what the outbox said before r1's note was written
    table.restart()
    last = {"payments": [2, -2, 0, 0]}
    assert table.channel._send_latest(first, last, publish(last))
    sent = [json.loads(p) for p in table.payloads()]
    assert [e["id"] for e in sent] == [first, f"{first}:r1", f"{first}:r2"]
    assert sent[-1]["data"]["payments"] == [2, -2, 0, 0]
