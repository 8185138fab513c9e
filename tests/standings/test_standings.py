"""The organiser's live standings: running scores per table and the tournament tables, by player name."""

from __future__ import annotations

import csv
import io
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from mjtable.broker import LocalMosquitto
from mjtable.cli import main
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.store import SqlEventStore
from mjtable.standings.cli import report_from
from mjtable.standings.compute import (
    RiichiSettings,
    game_points,
    live_tables,
    standings_csv,
    standings_report,
    tournament_tables,
)
from mjtable.standings.web import make_server, serve_in_thread
from tests.mqtt.mqtt_helpers import sample_public
from tests.waiting import wait_until


def _hand(table: str, game: str, hand_no: int, players: list[str], scores: list[int], *, rules: str = "mcr-2006",
          dealer: int = 0, winner: int = 0, discarder: int | None = 1, ts: float = 0.0) -> dict[str, Any]:
    result: dict[str, Any] = {"kind": "win", "winners": [winner], "discarder": discarder, "fans": [], "total": 8,
              "payments": [0, 0, 0, 0], "hands": {}}
    return {"schema": "mjtable.event/1", "table": table, "game": game, "id": f"{game}:hand{hand_no}:result",
            "seq": hand_no, "ts_s": ts or float(hand_no), "type": "hand_result",
            "data": {"rules": rules, "hand_no": hand_no, "round_wind": "E", "dealer": dealer, "hands_total": 16,
                     "players": players, "result": result, "scores": scores, "penalties": [0, 0, 0, 0]}}


def _end(table: str, game: str, players: list[str], scores: list[int], *, rules: str = "mcr-2006",
         hands: int = 16, ts: float = 100.0) -> dict[str, Any]:
    return {"schema": "mjtable.event/1", "table": table, "game": game, "id": f"{game}:end", "seq": 999,
            "ts_s": ts, "type": "game_end", "data": {"rules": rules, "players": players, "scores": scores,
                                                      "hands_played": hands, "infractions": []}}


ANN, BO, CY, DI = "Ann", "Bo", "Cy", "Di"


def _mcr_session() -> list[dict[str, Any]]:
    """Two complete MCR games (the players change seats between them) and one running game at another table."""
    g1 = [ANN, BO, CY, DI]
    g2 = [DI, ANN, BO, CY]  # seats rotate: Ann now sits at seat 1
    return [_hand("T1", "g1", 1, g1, [24, -8, -8, -8]), _end("T1", "g1", g1, [30, 10, -10, -30], ts=10),
            _hand("T1", "g2", 1, g2, [-8, 24, -8, -8], ts=20),
            _end("T1", "g2", g2, [5, 5, -2, -8], ts=30),  # Di and Ann tie for first: 4 + 2 split, 3 each
            _hand("T2", "g3", 3, ["Ed", "Flo", "Gus", "Hal"], [40, 0, -20, -20], ts=40, dealer=2, winner=0)]


def test_mcr_tournament_table_by_player_name_with_split_ties() -> None:
    (mcr,) = tournament_tables(_mcr_session())
    assert mcr["family"] == "mcr" and mcr["rules"] == ["mcr-2006"]
    rows = {r["player"]: r for r in mcr["rows"]}
    assert rows[ANN]["points"] == 4 + 3 and rows[ANN]["score"] == 35 and rows[ANN]["games"] == 2
    assert rows[DI]["points"] == 0 + 3 and rows[BO]["points"] == 2 + 1 and rows[CY]["points"] == 1 + 0
    assert [r["player"] for r in mcr["rows"][:4]] == [ANN, BO, DI, CY]  # Bo and Di: 3 points, Bo scored more
    assert [r["place"] for r in mcr["rows"][:4]] == [1, 2, 3, 4]
    # the running game counts only provisionally: Ed leads his table now
    assert rows["Ed"]["games"] == 0 and rows["Ed"]["points"] == 0 and rows["Ed"]["running"] == 1
    assert rows["Ed"]["provisional_points"] == 4 and rows["Gus"]["provisional_points"] == 0.5


def test_live_tables_show_running_scores_and_winds_by_name() -> None:
    tables = live_tables(_mcr_session(), {"T1": "online", "T2": "online", "T3": "offline"})
    by = {t["table"]: t for t in tables}
    assert by["T1"]["game"] == "g2" and by["T1"]["complete"] and by["T1"]["hands_played"] == 16
    assert [(p["player"], p["score"]) for p in by["T1"]["players"]] == [(DI, 5), (ANN, 5), (BO, -2), (CY, -8)]
    t2 = by["T2"]
    assert not t2["complete"] and t2["hands_played"] == 3
    assert [(p["player"], p["score"], p["wind"]) for p in t2["players"]] == [
        ("Ed", 40, "W"), ("Flo", 0, "N"), ("Gus", -20, "E"), ("Hal", -20, "S")]  # dealer seat 2 is East
    assert t2["last_hand"]["winners"] == ["Ed"] and t2["last_hand"]["discarder"] == "Flo"
    assert by["T3"] == {"table": "T3", "status": "offline", "game": None, "rules": None, "players": [],
                        "hands_played": 0, "complete": False, "last_hand": None}


def test_sichuan_session_points_and_riichi_final_points() -> None:
    assert [float(x) for x in game_points("sichuan-sbr-2025", [30, 10, 10, -50])] == [4, 2.5, 2.5, 1]
    # HKMA A-division, digest example: 40000/35000/25000/20000 -> +55/+10/-20/-45 (L19)
    assert [float(x) for x in game_points("riichi-hkma-2025", [40000, 35000, 25000, 20000])] == [55, 10, -20, -45]
    # B-division (sum 100000), found from the points
    assert [float(x) for x in game_points("riichi-hkma-2025", [35000, 30000, 20000, 15000])] == [55, 10, -20, -45]
    # one riichi stick left on the table goes to first place (sum 119000 in A)
    assert [float(x) for x in game_points("riichi-hkma-2025", [40000, 35000, 25000, 19000])] == [56, 10, -20, -46]
    l453 = game_points("riichi-hkma-2025", [40000, 35000, 25000, 20000], RiichiSettings(uma_mode="l453"))
    assert [float(x) for x in l453] == [55, 20, -25, -50]  # the digest's L453 column
    events = [_end("R1", "r1", [ANN, BO, CY, DI], [40000, 35000, 25000, 20000], rules="riichi-hkma-2025"),
              _end("S1", "s1", [ANN, BO, CY, DI], [30, 10, 10, -50], rules="sichuan-sbr-2025")]
    fams = {t["family"]: t for t in tournament_tables(events)}
    assert set(fams) == {"sichuan", "riichi"}
    assert [(r["player"], r["points"]) for r in fams["riichi"]["rows"]] == [(ANN, 55), (BO, 10), (CY, -20), (DI, -45)]
    assert [(r["place"], r["points"]) for r in fams["sichuan"]["rows"]] == [(1, 4), (2, 2.5), (2, 2.5), (4, 1)]
    assert "盘分" in fams["sichuan"]["points_name"]


def test_standings_csv_names_players() -> None:
    rows = list(csv.reader(io.StringIO(standings_csv(standings_report(_mcr_session())))))
    assert rows[0][:4] == ["rules 规则", "place 名次", "player 姓名", "points 积分"]
    assert rows[1][:4] == ["mcr", "1", ANN, "7"]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'records.db'}"
    return str(request.getfixturevalue("postgres_url"))


def test_cli_reads_either_store_and_exports_csv(db_url: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    store = SqlEventStore(db_url)
    store.add_events(_mcr_session())
    store.set_status("T2", "online", 1.0)
    store.close()
    out_csv, tables = tmp_path / "standings.csv", tmp_path / "tables.csv"
    assert main(["standings", "--db", db_url, "--csv", str(out_csv), "--tables-csv", str(tables)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "mjtable.standings/1"
    assert doc["tournaments"] == tournament_tables(_mcr_session())
    assert out_csv.read_text(encoding="utf-8").splitlines()[1].startswith(f"mcr,1,{ANN},7,")
    assert "T2,online,g3,mcr-2006,3,False,Ed,W,40" in tables.read_text(encoding="utf-8")
    assert main(["standings", "--db", "sqlite://bad"]) == 2


def _get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def test_web_view_follows_a_game_while_it_runs(tmp_path: Path, mosquitto: LocalMosquitto) -> None:
    """A real table channel -> mosquitto -> recorder -> SQLite -> the standings server, hand by hand."""
    store = SqlEventStore(f"sqlite:///{tmp_path / 'venue.db'}")
    rec = Recorder(store, mosquitto.host, mosquitto.port, client_id="rec-standings").start()
    pub = PahoPublisher(mosquitto.host, mosquitto.port, "mjtable-table-T9").start()
    server = make_server(lambda: report_from(store, RiichiSettings()), "127.0.0.1", 0, refresh_s=1)
    serve_in_thread(server)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert rec.wait_connected() and pub.wait_connected()
        ch = TableChannel("T9", pub, game_id="T9-g1")
        names = ["<b>Ann</b>", "Bo", "Cy", "Di"]  # a name is text, never markup
        scores = [0, 0, 0, 0]
        for hand_no in (1, 2):
            st = sample_public(table="T9", seq=hand_no * 10, hand_no=hand_no)
            scores = [scores[0] + 24, scores[1] - 8, scores[2] - 8, scores[3] - 8]
            for s in range(4):
                st["seats"][s]["player"], st["seats"][s]["score"] = names[s], scores[s]
            st["result"] = {"kind": "win", "winners": [0], "discarder": None, "fans": [], "total": 8,
                            "payments": [24, -8, -8, -8], "hands": {"0": "123m123p123s456m55z"}}
            ch.publish_state(st)

            def shows(n: int = hand_no) -> bool:
                doc = json.loads(_get(f"{base}/standings.json")[2])
                return any(t["table"] == "T9" and t["hands_played"] == n for t in doc["tables"])

            assert wait_until(shows)
        doc = json.loads(_get(f"{base}/standings.json")[2])
        (t9,) = [t for t in doc["tables"] if t["table"] == "T9"]
        assert [(p["player"], p["score"]) for p in t9["players"]] == [("<b>Ann</b>", 48), ("Bo", -16), ("Cy", -16),
                                                                       ("Di", -16)]
        assert not t9["complete"] and doc["tournaments"][0]["rows"][0]["provisional_points"] == 4
        status, ctype, page = _get(f"{base}/")
        assert status == 200 and ctype.startswith("text/html") and '<script src="app.js">' in page
        assert "<script>" not in page  # the page's CSP allows scripts from the server only
        status, _, script = _get(f"{base}/app.js")
        assert status == 200 and "textContent" in script and "innerHTML" not in script
        status, ctype, text = _get(f"{base}/standings.csv")
        assert status == 200 and ctype.startswith("text/csv") and "<b>Ann</b>" in text
        assert _get(f"{base}/tables.csv")[0] == 200 and _get(f"{base}/../../etc/passwd")[0] == 404
    finally:
        server.shutdown()
        server.server_close()
        pub.close()
        rec.stop()
        store.close()


def test_web_view_binds_loopback_by_default() -> None:
    server = make_server(lambda: {"tables": [], "tournaments": []})
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()
