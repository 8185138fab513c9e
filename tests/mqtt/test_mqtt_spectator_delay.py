"""The spectator broadcast delay survives a table crash: a table process killed with copies still delayed is
restarted on the same queue file and releases them at their due times, in order, through a real mosquitto."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.delay import SpectatorDelayQueue
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from tests.mqtt.mqtt_helpers import Collector

REPO = Path(__file__).resolve().parents[2]
T0 = 1_795_000_000.0
N = 12


class FakeClock:
    def __init__(self, now_s: float) -> None:
        self.now_s = now_s

    def __call__(self) -> float:
        return self.now_s


def test_delayed_copies_survive_a_kill_and_are_released_at_their_due_times(
        mosquitto: LocalMosquitto, tmp_path: Path, collectors: list[Collector]) -> None:
    t = TableTopics("T5")
    live = Collector(mosquitto.host, mosquitto.port, [t.events])
    spectator = Collector(mosquitto.host, mosquitto.port, [f"{t.spectator_base}/#"])
    collectors += [live, spectator]
    assert live.wait_subscribed() and spectator.wait_subscribed()
    queue_path = tmp_path / "outbox.db"  # the delay queue shares the outbox's file (its own table)
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from mjtable.mqtt.channel import TableChannel, status_message
        from mjtable.mqtt.delay import SpectatorDelayQueue
        from mjtable.mqtt.outbox import Outbox
        from mjtable.mqtt.publisher import PahoPublisher
        from mjtable.mqtt.topics import TableTopics
        t = TableTopics("T5")
        path = Path({str(queue_path)!r})
        pub = PahoPublisher("127.0.0.1", {mosquitto.port}, "mjtable-table-T5", outbox=Outbox(path),
                            will=status_message(t, "offline"), online=status_message(t, "online")).start()
        assert pub.wait_connected(10)
        ch = TableChannel("T5", pub, clock=lambda: {T0}, spectator_delay_s=60.0, game_id="g5",
                          delay_queue=SpectatorDelayQueue(path))
        for i in range({N}):
            ch.publish_event("marker", {{"i": i}}, event_id=f"g5:{{i}}", ts_s={T0} + i)
        assert ch.tick() == 0
        print("ready", flush=True)
        while True:
            time.sleep(1)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=REPO)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"ready"
        assert live.wait_for(lambda m: len(m) >= N)  # the live copies went out at once...
        os.kill(proc.pid, signal.SIGKILL)  # ... and the table dies with every spectator copy still delayed
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if proc.stdout:
            proc.stdout.close()
    assert spectator.messages == []
    live_payloads = [p for _, p, _ in live.messages]

    clock = FakeClock(T0 + 30.0)  # the restarted table, 30 s later
    queue = SpectatorDelayQueue(queue_path)
    assert len(queue) == N
    pub = PahoPublisher(mosquitto.host, mosquitto.port, "mjtable-table-T5", outbox=Outbox(queue_path),
                        will=status_message(t, "offline"), online=status_message(t, "online")).start()
    try:
        assert pub.wait_connected(10)
        ch = TableChannel("T5", pub, clock=clock, spectator_delay_s=60.0, game_id="g5b", delay_queue=queue)
        assert ch.delayed_count == N
        assert ch.tick() == 0  # not due yet: the broadcast delay is kept across the restart
        clock.now_s = T0 + 60.0
        assert ch.tick() == N
        assert spectator.wait_for(lambda m: len(m) >= N)
        assert [p for _, p, _ in spectator.messages] == live_payloads  # same copies, same order
        assert ch.delayed_count == 0 and len(queue) == 0
        ch.publish_event("after", {}, event_id="g5b:1")  # new copies wait behind nothing now
        assert ch.delayed_count == 1
    finally:
        pub.close()
        queue.close()


def test_no_delay_keeps_order_behind_copies_left_from_before_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "delay.db"
    broker = MemoryBroker()
    clock = FakeClock(T0)
    q1 = SpectatorDelayQueue(path)
    ch1 = TableChannel("T1", FakePublisher(broker, "table-T1"), clock=clock, spectator_delay_s=10.0, game_id="a",
                       delay_queue=q1)
    ch1.publish_event("one", {}, event_id="a:1")
    q1.close()  # "crash": the channel is gone, its queue file stays
    q2 = SpectatorDelayQueue(path)
    ch2 = TableChannel("T1", FakePublisher(broker, "table-T1"), clock=clock, spectator_delay_s=0.0, game_id="b",
                       delay_queue=q2)
    ch2.publish_event("two", {}, event_id="b:1")
    mirror = ch2.topics.spectator("events")
    assert broker.messages(mirror) == []  # "two" may not overtake "one"
    assert ch2.tick() == 0  # "two" is due (no delay) but waits behind "one"
    clock.now_s = T0 + 10.0
    ch2.tick()
    assert [json.loads(m.payload)["type"] for m in broker.messages(mirror)] == ["one", "two"]
    q2.close()
