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


def _table_listening(
    mosquitto: LocalMosquitto, topics: TableTopics, client_id: str
) -> tuple[mqtt.Client, list[dict[str, Any]], threading.Lock]:
    """A client in the table's place, subscribed to the referee's commands: (client, commands received, their
    lock).  The caller stops it."""
    received: list[dict[str, Any]] = []
    lock = threading.Lock()

    def on_message(client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        with lock:
            received.append(json.loads(msg.payload))

    table = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id)
    table.on_message = on_message
    table.connect(mosquitto.host, mosquitto.port)
    table.subscribe(topics.command, qos=1)
    table.loop_start()
    return table, received, lock


def test_a_lost_command_is_sent_again_until_the_table_answers(mosquitto: LocalMosquitto) -> None:
    topics = TableTopics("t-resend")
    table, received, lock = _table_listening(mosquitto, topics, "the-table-that-drops-commands")
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


def test_a_change_while_the_referee_waits_out_a_pause_is_not_lost(mosquitto: LocalMosquitto) -> None:
    """The referee waits ``resume_after_s`` before resuming a pause.  If in that wait the table resumes by itself
    and a camera alert opens (the last change for a while: the table waits for the referee), the referee must
    still see the alert and answer it, not sleep until some later change that never comes."""
    topics = TableTopics("t-wake")
    table, received, lock = _table_listening(mosquitto, topics, "the-table-that-waits")
    config = SimpleNamespace(table_id="t-wake")
    service = SimpleNamespace(state=SimpleNamespace(paused=True, seq=7, alerts=(), phase=None, config=config),
                              changed=asyncio.Event())
    referee = DemoReferee(cast(Any, service), mosquitto.host, mosquitto.port, resume_after_s=0.5)
    alert = SimpleNamespace(id="a9", open=True, kind="camera_unknown_tile", data=())

    async def scenario() -> list[str]:
        task = asyncio.create_task(referee.run())
        try:
            await asyncio.sleep(0.2)  # the referee is waiting out the pause
            service.state = SimpleNamespace(paused=False, seq=9, alerts=(alert,), phase=None, config=config)
            service.changed.set()
            for _ in range(100):
                await asyncio.sleep(0.05)
                with lock:
                    if received:
                        break
            with lock:
                return [doc["command"] for doc in received]
        finally:
            task.cancel()

    try:
        commands = asyncio.run(scenario())
    finally:
        referee.close()
        table.loop_stop()
        table.disconnect()
    assert commands == ["reject"], f"the referee missed the alert that opened while it waited: {commands}"
