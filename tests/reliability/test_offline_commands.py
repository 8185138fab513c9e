"""Issue 19, smaller: referee commands sent while the table is offline vanished without a word.  They are not
queued, on purpose (a stale *pause* or *penalty* must not fire minutes later; docs/mqtt.md), and the display says
so instead of sending (tests/mqtt/test_mqtt_display.py).  Here, with a real mosquitto: a command published while
the table is offline gets no answer and never reaches the table when it comes back; one sent once it is back
does."""

from __future__ import annotations

import json
import queue

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.channel import status_message
from mjtable.mqtt.commands import Command, CommandEndpoint
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from tests.mqtt.mqtt_helpers import Collector


def _table(broker: LocalMosquitto, commands: queue.Queue[Command]) -> PahoPublisher:
    topics = TableTopics("T1")
    pub = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", will=status_message(topics, "offline"),
                        online=status_message(topics, "online")).start()
    CommandEndpoint("T1", pub, commands.put).start()
    assert pub.wait_connected()
    return pub


def _send(referee: Collector, cid: str) -> None:
    doc = {"schema": "mjtable.command/1", "id": cid, "command": "pause"}
    referee.client.publish(TableTopics("T1").command + "/referee1", json.dumps(doc), qos=1).wait_for_publish(10)


def test_a_command_sent_while_the_table_is_offline_is_not_delivered_later(mosquitto: LocalMosquitto) -> None:
    topics = TableTopics("T1")
    referee = Collector(mosquitto.host, mosquitto.port, [topics.status])
    assert referee.wait_subscribed()
    commands: queue.Queue[Command] = queue.Queue()
    _table(mosquitto, commands).close()  # the table was up once, then went offline (retained status)
    assert referee.wait_for(lambda m: any(b'"offline"' in p for t, p, _ in m if t == topics.status), 10)
    _send(referee, "while-offline")
    back = _table(mosquitto, commands)  # back online: a clean session, nothing queued for it
    try:
        got: list[str] = []
        for n in range(50):  # until the table's subscription is in place (its SUBACK is not waited for)
            _send(referee, f"once-back-{n}")
            try:
                got.append(commands.get(timeout=0.2).id)
                break
            except queue.Empty:
                continue
        while True:
            try:
                got.append(commands.get(timeout=0.5).id)
            except queue.Empty:
                break
        assert got and all(cid.startswith("once-back-") for cid in got), got  # the offline one never arrives
    finally:
        back.close()
        referee.close()
