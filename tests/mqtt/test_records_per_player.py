"""Records credit the right player after MCR rotates the seats (issue 17, points 1-3).

A whole 16-hand MCR session is played by the bots through the real engine; after every step that ends a hand
the real public view goes through a :class:`TableChannel` (fake broker), exactly as the table service does.
The game record, score sheet and standings built from the channel's events must agree, player by player and
hand by hand, with the engine's own per-player session scores.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from controller.engine.effects import Effect, HandEnded, SessionEnded
from controller.engine.events import Event
from controller.engine.mcr_ruleset import SEAT_ROTATIONS
from controller.engine.simulate import SimRun
from controller.engine.state import GameState
from controller.views import public_view
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.records import game_records_from_events, score_sheet_csv, standings

PLAYERS = ("Ann", "Bo", "Cy", "Di")


@pytest.fixture(scope="module")
def session() -> dict[str, Any]:
    broker = MemoryBroker()
    ch = TableChannel("T1", FakePublisher(broker), clock=lambda: 1.0, game_id="T1-g1")
    after_hand: list[list[int]] = []  # engine's per-player session scores (net of penalties) after each hand
    views: list[dict[str, Any]] = []

    def sink(ev: Event, st: GameState, fx: tuple[Effect, ...]) -> None:
        if any(isinstance(e, HandEnded | SessionEnded) for e in fx):
            if any(isinstance(e, HandEnded) for e in fx):
                after_hand.append([st.session.scores[p] - st.session.penalties[p] for p in range(4)])
            view = public_view(st, "T1")
            views.append(view)
            ch.publish_state(view)

    final = SimRun(rules="mcr-2006", seed=3, players=PLAYERS, sink=sink).play()
    events = [json.loads(m.payload) for m in broker.messages("mjtable/v1/table/T1/events")]
    return {"final": final, "after_hand": after_hand, "views": views, "events": events}


def test_game_record_is_per_player(session: dict[str, Any]) -> None:
    final: GameState = session["final"]
    (rec,) = game_records_from_events(session["events"])
    assert rec["complete"] and rec["players"] == list(PLAYERS)
    net = [final.session.scores[p] - final.session.penalties[p] for p in range(4)]
    assert rec["totals"] == net
    assert [h["hand_no"] for h in rec["hands"]] == list(range(1, 17))
    running = [0, 0, 0, 0]
    for k, h in enumerate(rec["hands"]):
        arrangement = SEAT_ROTATIONS["A"][k // 4]  # MCR: seats change after every 4-hand round
        assert h["round_wind"] == "ESWN"[k // 4]
        for p, pp in enumerate(h["per_player"]):
            assert pp["player"] == PLAYERS[p]
            assert arrangement[pp["seat"]] == p, f"hand {k + 1}: {PLAYERS[p]} is not at seat {pp['seat']}"
            running[p] += pp["points"] + pp["other"] - pp["penalty"]
            assert pp["running"] == running[p]
        assert h["seating"] == [PLAYERS[arrangement[s]] for s in range(4)]
        assert running == session["after_hand"][k], f"hand {k + 1}"
        assert h["winner_players"] == [h["seating"][w] for w in h["winners"]]


def test_score_sheet_running_totals_follow_the_players(session: dict[str, Any]) -> None:
    (rec,) = game_records_from_events(session["events"])
    rows = list(csv.reader(io.StringIO(score_sheet_csv(rec))))
    assert rows[0][7] == "Ann 姓名" and rows[0][14] == "Bo 姓名"  # 7 columns per player, running 合计 last
    for k, row in enumerate(rows[1:17]):
        assert [row[7 + 7 * p] for p in range(4)] == list(PLAYERS)
        assert [int(row[13 + 7 * p]) for p in range(4)] == session["after_hand"][k], f"hand {k + 1}"
    total = rows[-1]
    assert total[2] == "total 合计" and [int(total[13 + 7 * p]) for p in range(4)] == rec["totals"]


def test_standings_credit_the_players(session: dict[str, Any]) -> None:
    final: GameState = session["final"]
    (rec,) = game_records_from_events(session["events"])
    by_player = {r["player"]: r["score"] for r in standings([rec])}
    assert by_player == {PLAYERS[p]: final.session.scores[p] - final.session.penalties[p] for p in range(4)}


def test_views_show_the_seating_and_number_of_the_hand_just_played(session: dict[str, Any]) -> None:
    """At a result (and at session_over) names, round and hand number are those of the hand just played."""
    views = session["views"]
    last = views[-1]
    assert last["phase"] == "session_over"
    assert last["session"]["hand_no"] == 16 and last["session"]["round_wind"] == "N"
    north_round = SEAT_ROTATIONS["A"][3]
    assert [s["player"] for s in last["seats"]] == [PLAYERS[north_round[s]] for s in range(4)]
    (rec,) = game_records_from_events(session["events"])
    final_hand = rec["hands"][-1]
    if final_hand["kind"] == "win":
        assert [last["seats"][w]["player"] for w in last["result"]["winners"]] == final_hand["winner_players"]
    fourth = next(v for v in views if v["session"]["hand_no"] == 4)  # round East's last hand, still East
    assert fourth["session"]["round_wind"] == "E"
    assert [s["player"] for s in fourth["seats"]] == list(PLAYERS)


def test_several_winners_each_keep_their_hand_fans_and_payments() -> None:
    """Sichuan bloody battle: the record and the sheet show every winner on his own (issue 17 pt 4)."""
    broker = MemoryBroker()
    ch = TableChannel("T2", FakePublisher(broker), clock=lambda: 1.0, game_id="T2-g1")

    def sink(ev: Event, st: GameState, fx: tuple[Effect, ...]) -> None:
        if any(isinstance(e, HandEnded | SessionEnded) for e in fx):
            ch.publish_state(public_view(st, "T2"))

    SimRun(rules="sichuan-sbr-2025", seed=0, players=PLAYERS, hands_total=2, sink=sink).play()
    events = [json.loads(m.payload) for m in broker.messages("mjtable/v1/table/T2/events")]
    (rec,) = game_records_from_events(events)
    several = [h for h in rec["hands"] if len(h["wins"]) >= 2]
    assert several
    h = several[0]
    assert [w["player"] for w in h["wins"]] == h["winner_players"]
    for w in h["wins"]:
        assert w["hand"] and w["total"] >= 0 and sum(w["payments"].values()) == 0
        assert w["payments"][w["player"]] > 0  # the winner is paid, by name
    assert len({json.dumps(w["payments"], sort_keys=True) for w in h["wins"]}) == len(h["wins"])  # not merged
    row = next(r for r in csv.reader(io.StringIO(score_sheet_csv(rec))) if r[2] == str(h["hand_no"]))
    for w in h["wins"]:
        assert w["player"] in row[4]
    assert row[6].count("|") == len(h["wins"]) - 1
