"""The recorder against a real mosquitto, and the records built from what it stored."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from mjtable import schemas
from mjtable.broker import LocalMosquitto
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from mjtable.recorder.cli import export, parse_broker
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.store import SqlEventStore
from mjtable.records import game_records_from_events, ranking_points, score_sheet_csv, standings
from tests.mqtt.mqtt_helpers import sample_public
from tests.waiting import wait_until


def _result(winner: int, discarder: int | None, total: int) -> dict[str, Any]:
    pay = [-(8 + total) if s == discarder else -8 for s in range(4)] if discarder is not None else [-(8 + total)] * 4
    pay[winner] = -sum(p for s, p in enumerate(pay) if s != winner)
    return {"kind": "win", "winners": [winner], "discarder": discarder,
            "fans": [{"name": "Mixed Triple Chow", "points": 8, "count": 1}], "total": total, "payments": pay,
            "hands": {str(winner): "123m123p123s456m55z"}}


def play_game(ch: TableChannel, hands: int, *, events_per_hand: int = 20, between: Any = None) -> list[str]:
    """Publish a small game through the channel: discards, then a result per hand, then game end."""
    ids: list[str] = []
    scores = [0, 0, 0, 0]
    for h in range(1, hands + 1):
        for i in range(events_per_hand):
            ids.append(ch.publish_event("discard", {"seat": i % 4, "tile": "5p"})["id"])
        if between is not None and h == 2:
            between()
        st = sample_public(seq=h * 100, hand_no=h)
        res = _result(h % 4, None if h % 3 == 0 else (h + 1) % 4, 8 + h)
        scores = [a + b for a, b in zip(scores, res["payments"], strict=True)]
        for s in range(4):
            st["seats"][s]["score"] = scores[s]
        st["result"] = res
        st["phase"] = "hand_over" if h < hands else "session_over"
        ch.publish_state(st)
    return ids


def test_recorder_loses_nothing_across_a_broker_restart(tmp_path: Path) -> None:
    broker = LocalMosquitto(persistence=True, workdir=tmp_path / "broker").start()
    store = SqlEventStore(f"sqlite:///{tmp_path / 'rec.db'}")
    rec = Recorder(store, broker.host, broker.port, client_id="rec-1").start()
    t = TableTopics("T1")
    pub = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", outbox=Outbox(tmp_path / "out.db"),
                        will=status_message(t, "offline"), online=status_message(t, "online")).start()
    try:
        assert rec.wait_connected() and pub.wait_connected()
        ch = TableChannel("T1", pub, game_id="T1-g1")
        ids = play_game(ch, 4, between=broker.restart)
        assert wait_until(lambda: store.count() >= len(ids) + 5)
        stored = [e["id"] for e in store.events(table="T1")]
        assert set(ids) <= set(stored)
        assert len(stored) == len(set(stored)) == len(ids) + 5  # 4 hand results + game end, no duplicates
        assert rec.rejected == 0
        # a redelivery (e.g. a restarted table resending its outbox) is dropped by id
        first = store.events(table="T1")[0]
        dups = rec.duplicates
        rec.handle(t.events, json.dumps(first).encode())
        assert rec.duplicates == dups + 1 and store.count() == len(ids) + 5
        rec.handle(t.events, b"{garbage")
        rec.handle(t.events, json.dumps({**first, "type": "BAD TYPE"}).encode())
        assert rec.rejected == 2
        pub.close()
        assert wait_until(lambda: store.statuses().get("T1") == "offline")
        records = game_records_from_events(store.events())
        assert len(records) == 1
        r = records[0]
        assert r["complete"] and [h["hand_no"] for h in r["hands"]] == [1, 2, 3, 4]
        assert r["totals"] == [sum(h["payments"][s] for h in r["hands"]) for s in range(4)]
        summary = export(store, tmp_path / "export")
        assert summary["games"] == 1
        assert json.loads((tmp_path / "export" / "T1-g1.json").read_text()) == r
        assert (tmp_path / "export" / "standings.csv").read_text().startswith("place 名次")
    finally:
        rec.stop()
        store.close()
        broker.close()


def test_score_sheet_and_standings() -> None:
    events = []
    for g, winner in (("g1", 0), ("g2", 1)):
        result = _result(winner, 2, 10)
        data = {"rules": "mcr-2006", "hand_no": 1, "round_wind": "E", "dealer": 0, "hands_total": 16,
                "players": ["Ann", "Bo", "Cy", "Di"], "result": result, "scores": list(result["payments"]),
                "penalties": [0, 0, 0, 0]}
        events.append({"schema": "mjtable.event/1", "table": "T1", "game": g, "id": f"{g}:h1", "seq": 1,
                       "ts_s": 1.0, "type": "hand_result", "data": data})
        events.append(dict(events[-1]))  # duplicate delivery
    records = game_records_from_events(events)
    assert [r["complete"] for r in records] == [False, False]
    for r in records:
        schemas.validate("game_record", r)
    sheet = list(csv.reader(io.StringIO(score_sheet_csv(records[0]))))
    assert sheet[0][:3] == ["table 桌", "game 局", "hand 盘序"]
    # per player: name, wind/seat, +, −, other ±, penalty −, running 合计
    assert sheet[1][7:14] == ["Ann", "E 东 seat 0", "34", "0", "0", "0", "34"]  # winner: + 8*3 + 10 from the discarder
    assert sheet[1][21:28] == ["Cy", "W 西 seat 2", "0", "18", "0", "0", "-18"]
    assert sheet[2][2] == "total 合计" and sheet[2][8] == "ranking 标准分 4"
    rows = standings(records)
    assert [(r["player"], r["ranking_points"]) for r in rows[:2]] == [("Ann", 5.5), ("Bo", 5.5)]
    assert rows[0]["place"] == rows[1]["place"] == 1  # same points, same score
    assert rows[2]["player"] == "Di" and rows[3]["player"] == "Cy"


def test_ranking_points_split_ties() -> None:
    assert ranking_points([10, 0, 0, -10], "mcr-2006") == [4, 1.5, 1.5, 0]
    assert ranking_points([5, 5, 5, 5], "sichuan-sbr-2025") == [2.5] * 4
    assert ranking_points([40000, 30000, 20000, 10000], "riichi-hkma-2025") == [50, 10, -10, -30]
    assert parse_broker("mqtt://10.0.0.2:1883") == ("10.0.0.2", 1883)


def test_recorder_on_postgresql(postgres_url: str, mosquitto: LocalMosquitto, tmp_path: Path) -> None:
    store = SqlEventStore(postgres_url)
    rec = Recorder(store, mosquitto.host, mosquitto.port, client_id="rec-pg").start()
    pub = PahoPublisher(mosquitto.host, mosquitto.port, "mjtable-table-T1").start()
    try:
        assert rec.wait_connected() and pub.wait_connected()
        ids = play_game(TableChannel("T1", pub, game_id="pg-game"), 2, events_per_hand=5)
        assert wait_until(lambda: store.count() == len(ids) + 3)
        rec.handle(TableTopics("T1").events, json.dumps(store.events()[0]).encode())
        assert store.count() == len(ids) + 3  # idempotent by event id on PostgreSQL too
        (r,) = game_records_from_events(store.events(game="pg-game"))
        assert r["complete"] and len(r["hands"]) == 2
        assert export(store, tmp_path / "out")["games"] == 1
    finally:
        pub.close()
        rec.stop()
        store.close()
