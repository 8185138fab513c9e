"""tenhou.net/6 + mjai exports of riichi games played through the LIVE engine (controller.engine + ext_riichi):
from a journal written by ``mjtable sim``, and from the complete game record a table publishes on its
referee-only topic, stored by ``mjtable recorder`` through a real mosquitto and exported by ``--export``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mjtable.broker import LocalMosquitto
from mjtable.cli import main as mjtable_main
from mjtable.mqtt.acl import parse_roster, render_acl
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from mjtable.recorder.cli import export, import_journals
from mjtable.recorder.engine_record import RecordError, engine_record, record_from_journal
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.riichi_export import ExportError
from mjtable.recorder.riichi_live import events_from_journal, export_engine_events
from mjtable.recorder.store import SqlEventStore
from tests.mqtt.mqtt_helpers import Collector
from tests.mqtt.riichi_checks import check_mjai, check_tenhou

sim = pytest.importorskip("controller.engine.simulate")
START = 30000
RULES = "riichi-hkma-2025"


def play(seed: int, hands: int | None = None) -> tuple[list[dict[str, Any]], Any]:
    """A riichi session by the bots of ``controller.bots`` through the live engine: (accepted events as JSON,
    final state)."""
    events: list[dict[str, Any]] = []

    def sink(ev: Any, state: Any, fx: Any) -> None:
        events.append(ev.to_json())

    state = sim.SimRun(rules=RULES, seed=seed, hands_total=hands, sink=sink).play()
    return events, state


def final_points(state: Any) -> list[int]:
    from controller.engine.query import player_index

    return [START + state.session.scores[player_index(state, s)] for s in range(4)]


@pytest.fixture(scope="module")
def games() -> list[tuple[list[dict[str, Any]], Any]]:
    return [play(seed) for seed in (1, 2, 15)]  # 15: a kong robbed (chankan)


def test_live_exports_replay_tile_by_tile_and_end_with_the_engine_scores(
        games: list[tuple[list[dict[str, Any]], Any]]) -> None:
    kinds: dict[str, int] = {}
    for events, state in games:
        tenhou, mj = export_engine_events(events)
        points = final_points(state)
        assert check_tenhou(tenhou, start_points=START, final_points=points) == len(state.history)
        counts = check_mjai(mj, final_points=points)
        assert counts["start_kyoku"] == counts["end_kyoku"] == len(state.history)
        assert counts["hora"] + counts.get("ryukyoku", 0) == len(state.history)
        for k, v in counts.items():
            kinds[k] = kinds.get(k, 0) + v
        for entry, r in zip(tenhou["log"], state.history, strict=True):  # same results as the engine
            assert entry[16][1] == list(r.payments)
            if r.kind == "win":
                assert entry[16][2][0] == r.winners[0]
    # the sample exercises the vocabulary: riichi, calls and kans all occur
    for needed in ("reach", "reach_accepted", "pon", "chi", "hora", "ryukyoku", "ankan", "kakan", "daiminkan",
                   "dora"):
        assert kinds.get(needed, 0) > 0, f"no {needed} in the sample games: {kinds}"


def test_export_from_the_journal_written_by_mjtable_sim(tmp_path: Path) -> None:
    mjtable = str(Path(sys.executable).with_name("mjtable"))
    out = subprocess.run([mjtable, "sim", "--rules", RULES, "--seed", "4", "--hands", "4", "--journal-dir",
                          str(tmp_path / "j")], capture_output=True, text=True, timeout=300, check=True)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    journal = tmp_path / "j" / "game-0.jsonl"
    tenhou, mj = export_engine_events(events_from_journal(journal))
    points = [START + s for s in summary["scores"]]
    assert check_tenhou(tenhou, start_points=START, final_points=points) == summary["hands"]
    check_mjai(mj, final_points=points)
    assert mjtable_main(["records", "export", str(journal), "--tenhou", str(tmp_path / "t.json"), "--mjai",
                         str(tmp_path / "m.jsonl"), "--title", "mjtable"]) == 0
    assert json.loads((tmp_path / "t.json").read_text()) == tenhou
    # and through the recorder: import the journal, export the files
    store = SqlEventStore(f"sqlite:///{tmp_path / 'rec.db'}")
    assert import_journals(store, [journal]) == {"event": "recorder_import", "journals": 1, "stored": 1}
    assert import_journals(store, [journal])["stored"] == 0  # idempotent
    summary2 = export(store, tmp_path / "out")
    assert summary2["riichi_exports"] == 1 and summary2["riichi_failed"] == []
    name = record_from_journal(journal)["game"]
    written = json.loads((tmp_path / "out" / f"{name}.tenhou.json").read_text())
    assert written["title"][0] == f"sim0 {name}"
    assert {**written, "title": tenhou["title"]} == tenhou
    lines = (tmp_path / "out" / f"{name}.mjai.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in lines] == mj
    store.close()


def test_recorder_stores_the_referee_only_record_and_exports_it(tmp_path: Path,
                                                                collectors: list[Collector]) -> None:
    """Real mosquitto + ACL: the table publishes the record on referee/record; the recorder (role recorder)
    stores it; a display (role display) subscribed to everything never receives it."""
    events, state = play(7, hands=3)
    roster = parse_roster("table table-T1 T1\ndisplay hall\nrecorder rec\n")
    pw = {"table-T1": "table-pw-123", "hall": "hall-pw-123", "rec": "rec-pw-123"}
    store = SqlEventStore(f"sqlite:///{tmp_path / 'rec.db'}")
    with LocalMosquitto(passwords=pw, acl=render_acl(roster)) as broker:
        display = Collector(broker.host, broker.port, ["mjtable/v1/#"], username="hall", password=pw["hall"])
        collectors.append(display)
        assert display.wait_subscribed()
        rec = Recorder(store, broker.host, broker.port, username="rec", password=pw["rec"]).start()
        assert rec.wait_connected()
        t = TableTopics("T1")
        pub = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", username="table-T1",
                            password=pw["table-T1"], will=status_message(t, "offline"),
                            online=status_message(t, "online")).start()
        assert pub.wait_connected()
        channel = TableChannel("T1", pub, game_id="T1-g7")
        doc = channel.publish_record(events)
        channel.publish_event("marker", {})
        assert display.wait_for_any(lambda _, p: json.loads(p).get("type") == "marker")
        try:
            deadline = time.monotonic() + 10.0
            while not rec.records and time.monotonic() < deadline:  # real broker: poll the recorder's counter
                time.sleep(0.05)
            assert rec.records == 1
        finally:
            rec.stop()
            pub.close()
        assert not any(tp == t.referee_record for tp, _, _ in display.messages)
    assert store.records() == [doc]
    summary = export(store, tmp_path / "out")
    assert summary["riichi_exports"] == 1
    tenhou = json.loads((tmp_path / "out" / "T1-g7.tenhou.json").read_text())
    check_tenhou(tenhou, start_points=START, final_points=final_points(state))
    mj = [json.loads(x) for x in (tmp_path / "out" / "T1-g7.mjai.jsonl").read_text().splitlines()]
    check_mjai(mj, final_points=final_points(state))
    store.close()


def test_the_record_goes_only_to_the_referee_record_topic() -> None:
    events, _ = play(3, hands=1)
    broker = MemoryBroker()
    channel = TableChannel("T1", FakePublisher(broker, "table-T1"), game_id="g")
    channel.publish_record(events)
    assert [m.topic for m in broker.log] == ["mjtable/v1/table/T1/referee/record"]
    assert broker.log[0].retain
    assert not any(channel.topics.is_public(m.topic) for m in broker.log)


def test_bad_input_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    events, _ = play(3, hands=1)
    with pytest.raises(ExportError, match="riichi"):
        export_engine_events([{**events[0], "rules": "mcr-2006"}])
    with pytest.raises(ExportError, match="not over"):
        export_engine_events(events[:40])
    bad = [*events[:10], {**events[10], "tile": "9z"}, *events[11:]]
    with pytest.raises(ExportError, match=r"rejected on replay|event 10"):
        export_engine_events(bad)
    assert events[1]["type"] == "table_built"
    built = {k: v for k, v in events[1].items() if k != "tiles"}  # a real table: the wall's faces are unseen
    partial = [{**events[0], "mode": "partial"}, built, *events[2:]]
    with pytest.raises(ExportError, match="unknown"):
        export_engine_events(partial)
    with pytest.raises(RecordError):
        engine_record(events[1:], table="T1", game="g")
    store = SqlEventStore(":memory:")
    rec = Recorder(store, "127.0.0.1", 1)
    rec.handle("mjtable/v1/table/T1/referee/record", b'{"schema": "mjtable.engine_record/1", "table": "T2"}')
    rec.handle("mjtable/v1/table/T1/referee/record", json.dumps(engine_record(events, table="T2", game="g")).encode())
    assert rec.rejected == 2 and store.records() == []
    rec.handle("mjtable/v1/table/T1/referee/record", json.dumps(engine_record(events, table="T1", game="g")).encode())
    rec.handle("mjtable/v1/table/T1/referee/record", json.dumps(engine_record(events, table="T1", game="g")).encode())
    assert rec.records == 1 and len(store.records()) == 1
    (tmp_path / "empty.jsonl").write_text("")
    assert import_journals(store, [tmp_path / "empty.jsonl"])["event"] == "error"


def test_channel_publishes_the_record_itself_at_the_game_end_and_the_recorder_exports_it(tmp_path: Path) -> None:
    """The table's channel (record_events callback) -> referee/record at game_end -> recorder -> export files."""
    views = pytest.importorskip("controller.views")
    broker = MemoryBroker()
    journal: list[dict[str, Any]] = []
    channel = TableChannel("T3", FakePublisher(broker, "table-T3"), game_id="T3-g1",
                           record_events=lambda: list(journal))
    last: list[Any] = []

    def sink(ev: Any, state: Any, fx: Any) -> None:
        journal.append(ev.to_json())  # what the journal holds once the step is accepted
        channel.publish_state(views.public_view(state, "T3"), views.referee_view(state, "T3", with_waits=False))
        last[:] = [state]

    sim.SimRun(rules=RULES, seed=21, hands_total=1, sink=sink).play()
    records = broker.messages(channel.topics.referee_record)
    assert len(records) == 1 and records[0].retain
    assert json.loads(records[0].payload)["events"] == journal
    store = SqlEventStore(f"sqlite:///{tmp_path / 'rec.db'}")
    rec = Recorder(store, "127.0.0.1", 1)
    recorder_reads = ("mjtable/v1/table/+/events", "mjtable/v1/table/+/status", "mjtable/v1/table/+/referee/record")
    from paho.mqtt.client import topic_matches_sub

    for m in broker.log:
        if any(topic_matches_sub(f, m.topic) for f in recorder_reads):
            rec.handle(m.topic, m.payload)
    assert rec.rejected == 0 and rec.records == 1
    summary = export(store, tmp_path / "out")
    assert summary["games"] == 1 and summary["riichi_exports"] == 1
    tenhou = json.loads((tmp_path / "out" / "T3-g1.tenhou.json").read_text())
    assert check_tenhou(tenhou, start_points=START, final_points=final_points(last[0])) == len(last[0].history)
    assert (tmp_path / "out" / "T3-g1.json").exists() and (tmp_path / "out" / "T3-g1.csv").exists()
    store.close()
