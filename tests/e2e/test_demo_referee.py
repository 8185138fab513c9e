"""The demo's floor referee sends a command again, under the same id, while the table has not answered it and is
still paused (a command lost on the way is not the end of the session); it stops once the answer comes."""

from __future__ import annotations

import asyncio
import json
import threading
from types import SimpleNamespace
from typing import Any, cast

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mjtable.broker import LocalMosquitto
from mjtable.demo.referee import DemoReferee
from mjtable.mqtt.commands import result_doc
from mjtable.mqtt.topics import TableTopics
from tests.waiting import wait_until


def test_a_lost_command_is_sent_again_until_the_table_answers(mosquitto: LocalMosquitto) -> None:
    topics = TableTopics("t-resend")
    received: list[dict[str, Any]] = []
    lock = threading.Lock()

    def on_message(client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        with lock:
            received.append(json.loads(msg.payload))

    table = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="the-table-that-drops-commands")
    table.on_message = on_message
    table.connect(mosquitto.host, mosquitto.port)
    table.subscribe(topics.command, qos=1)
    table.loop_start()
    state = SimpleNamespace(paused=True, seq=7, alerts=(), phase=None, config=SimpleNamespace(table_id="t-resend"))
    service = SimpleNamespace(state=state, changed=asyncio.Event())
    referee = DemoReferee(cast(Any, service), mosquitto.host, mosquitto.port, resume_after_s=0.1,
                          resend_after_s=0.4)

    async def scenario() -> tuple[int, int]:
        task = asyncio.create_task(referee.run())
        try:
            for _ in range(200):  # the table drops the first two: the referee must send a third
                await asyncio.sleep(0.05)
                with lock:
                    if len(received) >= 3:
                        break
            with lock:
                unanswered = len(received)
            answer = result_doc("t-resend", received[0]["id"], True, None)
            table.publish(topics.command_result, json.dumps(answer).encode(), qos=1)
            await asyncio.to_thread(wait_until, lambda: any(r.get("command_id") == answer["command_id"]
                                                            for r in list(referee.results)), 10.0)
            await asyncio.sleep(1.2)  # three resend periods: nothing more may come
            with lock:
                return unanswered, len(received)
        finally:
            task.cancel()

    try:
        unanswered, after = asyncio.run(scenario())
    finally:
        referee.close()
        table.loop_stop()
        table.disconnect()
    assert unanswered >= 3, "the referee never sent its unanswered command again"
    ids = {doc["id"] for doc in received}
    assert ids == {"demo-pause7-resume"}, f"a resend must reuse the command's id (the table drops repeats): {ids}"
    assert {doc["command"] for doc in received} == {"resume"}
    assert after <= unanswered + 1, f"the referee kept sending after the table answered ({unanswered} -> {after})"
