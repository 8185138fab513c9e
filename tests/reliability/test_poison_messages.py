"""Issue 19 point 11: poison messages.  A 4 KB nested JSON command gets an answer; the same message published as an
event is set aside and acknowledged by the recorder, whose network thread keeps storing (also after a restart: it
is not redelivered)."""

from __future__ import annotations

import json
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.commands import CommandEndpoint, parse_command
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.payload import json_depth, loads_bounded
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.rejected import RejectedLog
from mjtable.recorder.store import SqlEventStore
from mjtable.schemas import PayloadError
from tests.waiting import wait_until

NESTED = b"[" * 2000 + b"]" * 2000  # 4 KB, deeper than Python's recursion limit




def test_depth_is_bounded_before_parsing() -> None:
    assert json_depth(b'{"a": "[[[[[[", "b": [1, {"c": 2}]}') == 3
    try:
        loads_bounded(NESTED, max_bytes=4096)
    except PayloadError as exc:
        assert "deeper than" in str(exc)
    else:
        raise AssertionError("a 2000-deep payload was parsed")


def test_a_nested_4kb_command_gets_an_answer() -> None:
    broker = MemoryBroker()
    table = FakePublisher(broker, "table")
    got: list[object] = []
    endpoint = CommandEndpoint("T1", table, got.append).start()
    referee = FakePublisher(broker, "referee")
    for payload in (NESTED, b'{"schema": "mjtable.command/1", "id": "c1", "command": "pause", "x": ' + NESTED + b"}"):
        referee.publish(endpoint.topics.command, payload[:4096])
    answers = [json.loads(m.payload) for m in broker.messages(endpoint.topics.command_result)]
    assert len(answers) == 2 and not any(a["ok"] for a in answers), answers
    assert got == []
    assert parse_command(b'{"schema":"mjtable.command/1","id":"c2","command":"pause"}').command == "pause"


def _raw_client(broker: LocalMosquitto) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="poisoner")
    c.connect(broker.host, broker.port)
    c.loop_start()
    return c


def test_a_poison_event_is_set_aside_and_never_kills_the_recorder(tmp_path: Path) -> None:
    with LocalMosquitto(persistence=True, workdir=tmp_path / "broker", ws_port=None) as broker:
        store = SqlEventStore(str(tmp_path / "rec.db"))
        rejected = RejectedLog(tmp_path / "rejected.jsonl")
        rec = Recorder(store, broker.host, broker.port, client_id="rec-poison", rejected=rejected).start()
        assert rec.wait_connected(20)
        poisoner = _raw_client(broker)
        topics = TableTopics("T1")
        for payload in (NESTED, b'{"schema":"mjtable.event/1","table":"T1","data":' + b"[" * 900 + b"]" * 900 + b"}",
                        b"\xff\xfe not utf-8", b'{"truncated'):
            poisoner.publish(topics.events, payload, qos=1).wait_for_publish(10)
        pub = PahoPublisher(broker.host, broker.port, "mjtable-T1").start()
        assert pub.wait_connected(20)
        channel = TableChannel("T1", pub, game_id="g1")
        for i in range(5):
            channel.publish_event("discard", {"seat": i % 4, "tile": "5p"})
        assert wait_until(lambda: rec.stored == 5), rec.stats()  # the network thread survived the poison
        assert rec.rejected == 4 and rejected.count == 4
        assert {e["bytes"] for e in rejected.entries()} >= {len(NESTED)}
        rec.stop()
        # a restart gets nothing redelivered: the poison was acknowledged, not left to kill the next run too
        rec2 = Recorder(store, broker.host, broker.port, client_id="rec-poison", rejected=rejected).start()
        assert rec2.wait_connected(20)
        channel.publish_event("discard", {"seat": 1, "tile": "6p"})
        assert wait_until(lambda: rec2.stored == 1), rec2.stats()
        assert rec2.rejected == 0
        rec2.stop()
        pub.close()
        poisoner.loop_stop()
        poisoner.disconnect()
        store.close()
