"""``game_end`` carries every infraction of the session, in its public form and latest status, from the engine's own
list (the channel's ``infractions`` source, as ``build_service`` wires it): bounded per event, so a long session's
list goes in ``game_infractions`` pages before its ``game_end`` and nothing is left out; and a waive or confirm
after the session is over sends a corrected ``game_end`` (``<game>:end:r<k>``), also across restarts, which the
game record and the penalty sheet (处罚记录表) take.  The service-level test with a restart mid-session is
tests/service/test_service_penalty_sheet.py."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from controller.engine.effects import Rejected
from controller.engine.events import RefereeCommand, SessionStart
from controller.engine.state import GameState
from controller.engine.step import start_session, step
from mjtable.mqtt.channel import INFRACTIONS_PER_EVENT
from mjtable.mqtt.payload import loads_bounded
from mjtable.recorder.envelope import check_event
from mjtable.recorder.recorder import MAX_EVENT_BYTES
from mjtable.records import game_records_from_events, penalty_sheet_csv
from tests.mqtt.outbox_table import OutboxTable

GAME = "T1-g1"
#: the longest names a session takes (64 characters): the heaviest infractions
PLAYERS = tuple(f"{c}{'永' * 63}" for c in "ABCD")
NOTE = "his own words about 5p"


class Session:
    """An MCR session stepped through the real engine by referee commands."""

    def __init__(self) -> None:
        self.n = 0
        self.state: GameState = start_session(SessionStart(id="s", at_s=0.0, table_id="T1", rules="mcr-2006",
                                                           players=PLAYERS))[0]

    def referee(self, command: str, **fields: Any) -> None:
        self.n += 1
        self.state, fx = step(self.state, RefereeCommand(id=f"r{self.n}", at_s=float(self.n), command=command,
                                                         **fields))
        assert not (fx and isinstance(fx[0], Rejected)), fx

    def penalties(self, n: int) -> None:
        for k in range(n):
            self.referee("apply_penalty", seat=k % 4, points=1 + k % 3, reason=NOTE)

    def infractions(self) -> list[dict[str, object]]:
        return [i.public_json() for i in self.state.infractions]


def sheet(events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, str]]]:
    (record,) = game_records_from_events(events)
    return record, list(csv.DictReader(io.StringIO(penalty_sheet_csv(record))))


def test_a_long_penalty_list_is_paged_and_nothing_is_left_out(tmp_path: Path) -> None:
    session = Session()
    total = 2 * INFRACTIONS_PER_EVENT + 50
    session.penalties(total)
    session.referee("waive_penalty", infraction_id="inf-3")
    session.referee("end_session")
    table = OutboxTable(tmp_path / "T1.outbox.sqlite", game=GAME, infractions=session.infractions)
    try:
        table.show(session.state)
        payloads = table.payloads()
        events = table.sent()
    finally:
        table.close()
    for payload in payloads:  # every one is an event the recorder takes whole
        check_event(loads_bounded(payload, max_bytes=MAX_EVENT_BYTES))
        assert NOTE.encode() not in payload
    assert max(len(p) for p in payloads) < MAX_EVENT_BYTES // 2
    pages = [e for e in events if e["type"] == "game_infractions"]
    (end,) = [e for e in events if e["type"] == "game_end"]
    assert [e["id"] for e in pages] == [f"{GAME}:end:infractions1", f"{GAME}:end:infractions2"]
    assert [e["seq"] for e in pages] == [end["seq"] - 2, end["seq"] - 1]
    assert [p["data"]["page"] for p in pages] == [1, 2] and {p["data"]["pages"] for p in pages} == {3}
    assert all(len(p["data"]["infractions"]) == INFRACTIONS_PER_EVENT for p in pages)
    assert end["id"] == f"{GAME}:end" and len(end["data"]["infractions"]) == 50
    assert end["data"]["infractions_total"] == total and end["data"]["infraction_pages"] == 3

    record, rows = sheet(events)
    assert record["penalties"] == session.infractions()
    assert len(rows) == total
    assert [r["player 姓名"] for r in rows] == [PLAYERS[k % 4] for k in range(total)]
    assert rows[2]["penalty 处罚方法"] == "3 points (waived)"
    assert rows[-1]["penalty 处罚方法"] == f"{1 + (total - 1) % 3} points (applied)"


def test_a_waive_after_the_end_corrects_the_game_end_across_restarts(tmp_path: Path) -> None:
    session = Session()
    session.penalties(30)
    session.referee("end_session")
    table = OutboxTable(tmp_path / "T1.outbox.sqlite", game=GAME, infractions=session.infractions)
    try:
        table.show(session.state)
        table.show(session.state)  # a clock tick shows the same end again
        table.restart()
        table.show(session.state)  # the resumed table: the end is out already
        session.referee("waive_penalty", infraction_id="inf-1")  # the referee goes over the sheet afterwards
        table.show(session.state)
        table.restart()
        table.show(session.state)
        session.referee("confirm_penalty", infraction_id="inf-2")  # applied already: nothing changes
        table.show(session.state)
        session.referee("waive_penalty", infraction_id="inf-5")
        table.restart()  # killed before it published the step: the resumed table does
        table.show(session.state)
        events = table.sent()
    finally:
        table.close()
    ends = [e for e in events if e["type"] == "game_end"]
    assert [e["id"] for e in ends] == [f"{GAME}:end", f"{GAME}:end:r1", f"{GAME}:end:r2"]
    assert [e["data"].get("revision", 0) for e in ends] == [0, 1, 2]
    waived = [sorted(i["id"] for i in e["data"]["infractions"] if i["status"] == "waived") for e in ends]
    assert waived == [[], ["inf-1"], ["inf-1", "inf-5"]]
    seats = ends[-1]["data"]["scores"]
    assert seats == [-(session.state.session.penalties[p]) for p in range(4)]

    record, rows = sheet(events)
    assert record["totals"] == seats and len(rows) == 30
    assert [r["penalty 处罚方法"].endswith("(waived)") for r in rows] == [k in (0, 4) for k in range(30)]
