"""Against a real mosquitto: retained state, last will on SIGKILL, ACL denials, outbox across a broker restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mjtable.broker import BrokerError, LocalMosquitto
from mjtable.mqtt.acl import parse_roster, render_acl
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from tests.mqtt.mqtt_helpers import Collector, sample_public, sample_referee
from tests.ports import a_taken_port, first_pick_is

REPO = Path(__file__).resolve().parents[2]
ROSTER = REPO / "deploy" / "mosquitto" / "roster.example"
PASSWORDS = {"table-T1": "t1-secret-pw", "table-T2": "t2-secret-pw", "referee1": "ref-secret-pw",
             "hall-display": "hall-secret-pw", "stream": "stream-secret-pw", "recorder": "rec-secret-pw"}


def _table_publisher(broker: LocalMosquitto, table: str = "T1", **kw: object) -> tuple[PahoPublisher, TableChannel]:
    topics = TableTopics(table)
    pub = PahoPublisher(broker.host, broker.port, f"mjtable-table-{table}", will=status_message(topics, "offline"),
                        online=status_message(topics, "online"), **kw)  # type: ignore[arg-type]
    pub.start()
    assert pub.wait_connected(10), pub.last_connect_error
    return pub, TableChannel(table, pub, game_id="g1")


def test_late_subscriber_gets_retained_public_and_referee_state(mosquitto: LocalMosquitto,
                                                               collectors: list[Collector]) -> None:
    pub, ch = _table_publisher(mosquitto)
    public = sample_public()
    ch.publish_state(public, sample_referee(public))
    ch.publish_timers(public["timers"], now_s=1.7e9)
    pub.close()  # flushes; the clean close publishes "offline"
    late = Collector(mosquitto.host, mosquitto.port, ["mjtable/v1/table/T1/#"])
    collectors.append(late)
    t = ch.topics
    assert late.wait_for(lambda m: {x[0] for x in m} >= {t.state, t.referee_state, t.timers, t.status})
    assert late.payloads(t.state) == [public]
    assert all(retain for _, _, retain in late.messages)
    assert late.payloads(t.status)[-1]["status"] == "offline"
    assert late.payloads(t.referee_state)[0]["seats"][0]["concealed"][0] == "1m"


def test_last_will_fires_when_the_table_process_is_killed(mosquitto: LocalMosquitto,
                                                          collectors: list[Collector]) -> None:
    t = TableTopics("T9")
    watcher = Collector(mosquitto.host, mosquitto.port, [t.status])
    collectors.append(watcher)
    assert watcher.wait_subscribed()
    script = textwrap.dedent(f"""
        import sys, time
        from mjtable.mqtt.channel import TableChannel, status_message
        from mjtable.mqtt.publisher import PahoPublisher
        from mjtable.mqtt.topics import TableTopics
        t = TableTopics("T9")
        pub = PahoPublisher("127.0.0.1", {mosquitto.port}, "mjtable-table-T9", will=status_message(t, "offline"),
                            online=status_message(t, "online")).start()
        assert pub.wait_connected(10)
        print("ready", flush=True)
        while True:
            time.sleep(1)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=REPO)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"ready"
        assert watcher.wait_for_any(lambda _, p: json.loads(p)["status"] == "online")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert watcher.wait_for(lambda m: json.loads(m[-1][1])["status"] == "offline")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if proc.stdout:
            proc.stdout.close()
    late = Collector(mosquitto.host, mosquitto.port, [t.status])
    collectors.append(late)
    assert late.wait_for(lambda m: len(m) >= 1)
    assert late.payloads(t.status) == [{"schema": "mjtable.status/1", "table": "T9", "status": "offline"}]
    assert late.messages[0][2] is True  # retained


def test_acl_from_deploy_roster(collectors: list[Collector]) -> None:
    acl = render_acl(parse_roster(ROSTER.read_text()))
    assert acl == (REPO / "deploy" / "mosquitto" / "acl.example").read_text()
    with LocalMosquitto(passwords=PASSWORDS, acl=acl) as broker:
        t1, t2 = TableTopics("T1"), TableTopics("T2")
        bad = Collector(broker.host, broker.port, ["#"], username="referee1", password="wrong")
        anon = Collector(broker.host, broker.port, ["#"])
        collectors += [bad, anon]
        display = Collector(broker.host, broker.port, [t1.state, t1.referee_state, "mjtable/v1/#"],
                            username="hall-display", password=PASSWORDS["hall-display"])
        referee = Collector(broker.host, broker.port, ["mjtable/v1/table/+/#"], username="referee1",
                            password=PASSWORDS["referee1"])
        collectors += [display, referee]
        assert display.wait_subscribed() and referee.wait_subscribed()
        assert bad.wait_for(lambda m: bad.connect_reason is not None)
        assert anon.wait_for(lambda m: anon.connect_reason is not None)
        assert "Not authorized" in str(bad.connect_reason) and "Not authorized" in str(anon.connect_reason)
        pub, ch = _table_publisher(broker, "T1", username="table-T1", password=PASSWORDS["table-T1"])
        public = sample_public()
        # the T1 table tries to write T2's state and to forge a referee command: both are dropped
        pub.publish(t2.state, b'{"forged": true}', retain=True)
        pub.publish(t1.command, b'{"forged": true}')
        ch.publish_state(public, sample_referee(public))
        # a display may not command a table
        display.client.publish(t1.command, b'{"forged": true}', qos=1)
        ch.publish_event("marker", {})
        assert referee.wait_for_any(lambda t, _: t == t1.events)
        assert display.wait_for_any(lambda t, _: t == t1.events)
        pub.close()
        ref_topics = [t for t, _, _ in referee.messages]
        disp_topics = [t for t, _, _ in display.messages]
        assert t1.referee_state in ref_topics and t1.state in ref_topics
        assert t1.referee_state not in disp_topics and t1.state in disp_topics
        assert t2.state not in ref_topics and t2.state not in disp_topics
        assert t1.command not in ref_topics
        assert all(b"forged" not in p for _, p, _ in referee.messages + display.messages)


def test_no_event_lost_when_the_broker_restarts_mid_game(tmp_path: Path, collectors: list[Collector]) -> None:
    broker = LocalMosquitto(persistence=True, workdir=tmp_path / "broker").start()
    try:
        consumer = Collector(broker.host, broker.port, ["mjtable/v1/table/+/events"], client_id="rec-test",
                             clean_session=False)
        collectors.append(consumer)
        assert consumer.wait_subscribed()
        pub, ch = _table_publisher(broker, "T1", outbox=Outbox(tmp_path / "outbox.db"))
        sent = [ch.publish_event("discard", {"seat": i % 4, "tile": "5p"})["id"] for i in range(200)]
        broker.stop()
        sent += [ch.publish_event("discard", {"seat": i % 4, "tile": "6p"})["id"] for i in range(200)]
        broker.start()
        sent += [ch.publish_event("discard", {"seat": i % 4, "tile": "7p"})["id"] for i in range(200)]

        def all_in(msgs: list[tuple[str, bytes, bool]]) -> bool:
            return {json.loads(p)["id"] for _, p, _ in msgs} >= set(sent)

        assert consumer.wait_for(all_in, timeout_s=30)
        ids = [json.loads(p)["id"] for _, p, _ in consumer.messages]
        first_seen: list[str] = []
        for i in ids:  # consumers drop duplicates by id
            if i not in first_seen:
                first_seen.append(i)
        assert first_seen == sent  # nothing lost, order kept
        pub.close()
    finally:
        broker.close()


def test_outbox_of_a_crashed_table_is_delivered_by_the_next_process(tmp_path: Path,
                                                                    collectors: list[Collector]) -> None:
    broker = LocalMosquitto(persistence=True, workdir=tmp_path / "broker").start()
    try:
        consumer = Collector(broker.host, broker.port, ["mjtable/v1/table/+/events"], client_id="rec-crash",
                             clean_session=False)
        collectors.append(consumer)
        assert consumer.wait_subscribed()
        broker.stop()  # the table starts while the broker is away ...
        box = tmp_path / "outbox.db"
        pub = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", outbox=Outbox(box)).start()
        ch = TableChannel("T1", pub, game_id="g1")
        sent = [ch.publish_event("discard", {"seat": i % 4, "tile": "1s"})["id"] for i in range(50)]
        pub.kill()  # ... and dies before it ever reached it
        assert len(Outbox(box)) == 100  # each event and its spectator mirror
        broker.start()
        # Let the recorder's persistent session come back first: while a subscriber is reconnecting, mosquitto
        # may deliver a live message ahead of the ones it queued for that session (a broker-side race, not the
        # table's order; consumers can always restore order from the envelope's ``seq``).
        assert consumer.wait_subscribed(n=2, timeout_s=15)
        again = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", outbox=Outbox(box)).start()
        ch2 = TableChannel("T1", again, game_id="g1", first_seq=ch.seq)
        sent.append(ch2.publish_event("discard", {"seat": 0, "tile": "2s"})["id"])
        assert consumer.wait_for(lambda m: {json.loads(p)["id"] for _, p, _ in m} >= set(sent), timeout_s=30)
        ids = list(dict.fromkeys(json.loads(p)["id"] for _, p, _ in consumer.messages))
        assert ids == sent
        seqs = [json.loads(p)["seq"] for _, p, _ in consumer.messages]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(sent)
        again.close()
        assert len(Outbox(box)) == 0
    finally:
        broker.close()


def test_deploy_config_runs_a_real_broker(tmp_path: Path, collectors: list[Collector]) -> None:
    """deploy/mosquitto/mjtable.conf, with its paths and ports moved into a temporary folder, starts mosquitto:
    no anonymous access, the roster's users work, websockets listener up."""
    from mjtable.broker import _wait_port, free_port

    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "passwd").write_text("")
    for user in ("table-T1", "referee1"):
        subprocess.run(["mosquitto_passwd", "-b", str(etc / "passwd"), user, PASSWORDS[user]], check=True)
    (etc / "acl").write_text(render_acl(parse_roster(ROSTER.read_text())))
    port, ws_port = free_port(), free_port()
    conf = (REPO / "deploy" / "mosquitto" / "mjtable.conf").read_text()
    conf = conf.replace("/etc/mosquitto/mjtable/", f"{etc}/").replace("/var/lib/mosquitto/", f"{tmp_path}/")
    conf = conf.replace("listener 1883", f"listener {port} 127.0.0.1").replace("listener 9001",
                                                                                f"listener {ws_port} 127.0.0.1")
    if os.geteuid() == 0:
        conf = "user root\n" + conf
    (tmp_path / "mosquitto.conf").write_text(conf)
    proc = subprocess.Popen(["mosquitto", "-c", str(tmp_path / "mosquitto.conf")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, proc, 10)
        _wait_port(ws_port, proc, 10)
        anon = Collector("127.0.0.1", port, ["#"])
        referee = Collector("127.0.0.1", port, ["mjtable/v1/table/+/#"], username="referee1",
                            password=PASSWORDS["referee1"])
        collectors += [anon, referee]
        assert referee.wait_subscribed()
        assert anon.wait_for(lambda m: anon.connect_reason is not None)
        assert "Not authorized" in str(anon.connect_reason)
        pub = PahoPublisher("127.0.0.1", port, "mjtable-table-T1", username="table-T1", password=PASSWORDS["table-T1"])
        pub.start()
        assert pub.wait_connected(10)
        TableChannel("T1", pub, game_id="g").publish_state(sample_public())
        assert referee.wait_for_any(lambda t, _: t.endswith("/T1/state"))
        pub.close()
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_chatty_broker_log_never_blocks_the_broker(collectors: list[Collector]) -> None:
    """mosquitto logs to a pipe that ``LocalMosquitto`` drains: with every log type on, 3000 publishes write
    far more than a pipe holds (64 KiB), and every one still arrives; the log's tail stays readable."""
    with LocalMosquitto(ws_port=None, extra_config="log_type all") as broker:
        sub = Collector(broker.host, broker.port, ["chatty/#"])
        collectors.append(sub)
        assert sub.wait_subscribed()
        pub, _ = _table_publisher(broker)
        for i in range(3000):
            pub.publish(f"chatty/{i}", json.dumps({"i": i}).encode(), qos=1, retain=False)
        assert sub.wait_for(lambda m: len(m) >= 3000, timeout_s=30.0), len(sub.messages)
        pub.close()
        assert "Received PUB" in broker.log_tail()  # the last lines of its log, kept for error messages


def test_a_broker_that_cannot_start_says_why() -> None:
    with pytest.raises(BrokerError, match=r"exited with code .*no_such_option"):
        LocalMosquitto(ws_port=None, extra_config="no_such_option 1").start()


def test_the_websockets_port_is_never_the_mqtt_port(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The kernel may hand a released port out again at once: picked one after the other, both listeners could get
    the same port and take each other's clients (a recorder's MQTT connection lost at once, seen in CI)."""
    from mjtable import broker

    handed_out = iter([50001, 50001, 50002])
    monkeypatch.setattr(broker, "_bound_port", lambda: next(handed_out))
    b = LocalMosquitto(workdir=tmp_path)
    conf = b._write_config().read_text()
    assert (b.port, b.ws_port) == (50001, 50002)
    assert conf.count("listener 50001 ") == 1 and conf.count("listener 50002 ") == 1


def test_a_subscription_made_while_the_client_connects_is_not_lost(mosquitto: LocalMosquitto) -> None:
    """A subscription made on another thread in the middle of the connect handshake (after the connect callback
    has read the subscriptions, before it marks the client connected) must still reach the broker.  Found in CI:
    the service's command topic was subscribed just then, and the referee's ``clear_fault`` never arrived."""
    import threading

    t = TableTopics("T4")
    pub = PahoPublisher(mosquitto.host, mosquitto.port, "mjtable-table-T4", online=status_message(t, "online"))
    got: list[bytes] = []
    arrived = threading.Event()
    real_register = pub._register
    raced: list[bool] = []

    def on_command(topic: str, payload: bytes) -> None:
        got.append(payload)
        arrived.set()

    def register_then_race(mid: int, rowid: int | None) -> None:  # runs inside _on_connect (the online status)
        real_register(mid, rowid)
        if not raced:
            raced.append(True)
            other = threading.Thread(target=pub.subscribe, args=(t.command, on_command))
            other.start()
            other.join()

    pub._register = register_then_race  # type: ignore[method-assign]
    pub.start()
    try:
        assert pub.wait_connected(10), pub.last_connect_error
        assert raced
        sender = PahoPublisher(mosquitto.host, mosquitto.port, "referee-T4").start()
        try:
            assert sender.wait_connected(10)
            deadline = time.monotonic() + 5
            while not arrived.is_set() and time.monotonic() < deadline:  # the SUBACK may still be on its way
                sender.publish(t.command, b'{"command": "resume"}', qos=1)
                arrived.wait(0.2)
        finally:
            sender.close()
        assert got, "the command topic was never subscribed"
    finally:
        pub.close()


def test_a_picked_port_taken_before_the_broker_binds_is_picked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A free port is released before mosquitto binds it; another test worker (or any client's source port) may
    take it in between.  A broker whose ports were picked for it picks again instead of failing the run."""
    from mjtable import broker as broker_module

    picks: list[int] = []
    with a_taken_port() as busy:
        monkeypatch.setattr(broker_module, "free_port", first_pick_is(busy, broker_module.free_port, picks))
        with LocalMosquitto() as broker:
            assert broker.port != busy and broker.running
            assert picks[0] == busy and len(picks) >= 3  # the taken pick, then the new ports
        with pytest.raises(BrokerError, match="exited"):  # a port given by the caller is not changed
            LocalMosquitto(port=busy, ws_port=None).start()
