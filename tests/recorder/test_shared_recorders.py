"""Several recorders, one truth: two recorder processes on one PostgreSQL share the tables through an MQTT 5
shared subscription; each event is stored exactly once although either recorder is SIGKILLed mid-stream."""

from __future__ import annotations

from pathlib import Path

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.recorder.store import SqlEventStore
from tests.recorder.helpers import RecorderProcess
from tests.waiting import wait_until

TABLES = 4


def _publish(channels: list[TableChannel], n_per_table: int) -> list[tuple[str, str]]:
    sent = []
    for i in range(n_per_table):
        for ch in channels:
            doc = ch.publish_event("discard", {"seat": i % 4, "tile": "5p"})
            sent.append((doc["table"], doc["id"]))
    return sent


def test_two_recorders_share_the_tables_and_either_can_be_killed(postgres_url: str, tmp_path: Path) -> None:
    broker = LocalMosquitto(ws_port=None).start()
    addr = f"{broker.host}:{broker.port}"
    recs = {name: RecorderProcess(addr, postgres_url, name, "--share-group", "recorders")
            for name in ("rec-a", "rec-b")}
    pubs: list[PahoPublisher] = []
    store = SqlEventStore(postgres_url)
    try:
        for r in recs.values():
            assert r.start().wait_connected(), r.lines
        channels = []
        for t in range(TABLES):
            pub = PahoPublisher(broker.host, broker.port, f"mjtable-table-S{t}").start()
            assert pub.wait_connected()
            pubs.append(pub)
            channels.append(TableChannel(f"S{t}", pub, game_id=f"S{t}-g1"))
        sent = _publish(channels, 100)
        assert wait_until(lambda: store.count() >= len(sent) // 2)  # both are storing
        for victim in ("rec-a", "rec-b"):  # kill one, keep publishing, restart it under the same client id
            recs[victim].kill()
            sent += _publish(channels, 100)
            assert recs[victim].start().wait_connected(), recs[victim].lines
            sent += _publish(channels, 50)
        assert wait_until(lambda: store.count() >= len(sent), 60), (store.count(), len(sent))
        stored = [(e["table"], e["id"]) for e in store.events()]
        assert len(stored) == len(set(stored)) == len(sent)  # every event, once
        assert set(stored) == set(sent)
        per_recorder = store.count_by_recorder()
        assert set(per_recorder) == {"rec-a", "rec-b"} and min(per_recorder.values()) > 0, per_recorder
        for r in recs.values():
            assert r.last_stats().get("rejected") == 0
    finally:
        for pub in pubs:
            pub.close()
        for r in recs.values():
            r.stop()
        store.close()
        broker.close()
