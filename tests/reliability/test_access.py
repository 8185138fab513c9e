"""Issue 19 points 8-10 and issue 17 point 6, against a real mosquitto running deploy/mosquitto/mjtable.conf with the
files ``mjtable-broker-users`` makes (what deploy/install.sh runs):

* the installed config starts (before: no ACL file, mosquitto 2 exits with rc 13);
* client ids are tied to users: the display account cannot kick a table off or take over the recorder's session;
* the ``referee`` of a command is the authenticated user, never the payload's word; a referee cannot speak for another;
* a referee's free-text reason never reaches a public topic;
* passwords never appear on a command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.engine.events import RefereeCommand
from mjtable.broker import _wait_port, free_port
from mjtable.mqtt.commands import Command, CommandEndpoint
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from mjtable.service.events_out import public_event
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "deploy" / "mosquitto" / "mjtable-broker-users"
USERS = {"table-T1": ("table", "T1"), "referee1": ("referee", None), "referee2": ("referee", None),
         "hall-display": ("display", None), "recorder": ("recorder", None)}
PASSWORD = "correct-horse-battery"




def _tool(etc: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), "--dir", str(etc), *args], input=stdin, capture_output=True,
                          text=True, check=False, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})


@dataclass
class Installed:
    port: int
    ws_port: int
    proc: subprocess.Popen[bytes] | None
    conf: Path


def _start(tmp: Path, etc: Path) -> Installed:
    port, ws_port = free_port(), free_port()
    conf = (REPO / "deploy" / "mosquitto" / "mjtable.conf").read_text()
    assert conf.count("\nuse_username_as_clientid true") == 2  # per listener (a listener option)
    assert "listener 9001 127.0.0.1" in conf  # plain ws only on loopback: bind what we mean
    conf = conf.replace("/etc/mosquitto/mjtable/", f"{etc}/").replace("/var/lib/mosquitto/", f"{tmp}/")
    conf = conf.replace("listener 1883 0.0.0.0", f"listener {port} 127.0.0.1")
    conf = conf.replace("listener 9001 127.0.0.1", f"listener {ws_port} 127.0.0.1")
    if os.geteuid() == 0:
        conf = "user root\n" + conf
    path = tmp / "mosquitto.conf"
    path.write_text(conf)
    proc = subprocess.Popen(["mosquitto", "-c", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Installed(port, ws_port, proc, path)


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Installed]:
    etc = tmp_path / "etc"
    assert _tool(etc, "init").returncode == 0  # what install.sh runs
    for user, (role, table) in USERS.items():
        r = _tool(etc, "add", role, user, *([table] if table else []), "--password-stdin", stdin=PASSWORD + "\n")
        assert r.returncode == 0, r.stderr
    assert PASSWORD not in (etc / "passwd").read_text()
    broker = _start(tmp_path, etc)
    assert broker.proc is not None
    try:
        _wait_port(broker.port, broker.proc, 10)
        yield broker
    finally:
        broker.proc.terminate()
        broker.proc.wait(10)


def listening_on(port: int) -> set[str]:
    """The local addresses (hex, as in /proc/net/tcp*) of the sockets listening on ``port``."""
    found = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, _, hex_port = local.rpartition(":")
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(addr)
    return found


def test_every_listener_binds_what_it_says(installed: Installed) -> None:
    from mjtable.broker import LocalMosquitto

    _wait_port(installed.ws_port, installed.proc, 10)  # type: ignore[arg-type]
    loopback = "0100007F"  # 127.0.0.1 in /proc/net/tcp's byte order
    assert listening_on(installed.ws_port) == {loopback}  # before: every interface (mosquitto 2.0 websockets)
    assert listening_on(installed.port) == {loopback}
    with LocalMosquitto() as demo_broker:  # the demo's and the tests' broker: loopback only, both listeners
        assert demo_broker.ws_port is not None
        assert listening_on(demo_broker.port) == {loopback} and listening_on(demo_broker.ws_port) == {loopback}


def test_install_creates_the_acl_and_the_installed_config_starts(tmp_path: Path) -> None:
    dry = subprocess.run(["bash", str(REPO / "deploy" / "install.sh"), "--dry-run"], capture_output=True, text=True,
                         check=False, timeout=60)
    assert "mjtable-broker-users --dir /etc/mosquitto/mjtable init" in dry.stdout, dry.stdout
    etc = tmp_path / "etc"
    assert _tool(etc, "init").returncode == 0
    assert (etc / "acl").exists() and (etc / "passwd").exists()
    broker = _start(tmp_path, etc)
    assert broker.proc is not None
    try:
        _wait_port(broker.port, broker.proc, 10)  # rc 13 (no ACL file) before install.sh created it
    finally:
        broker.proc.terminate()
        broker.proc.wait(10)
    assert _tool(etc, "init").returncode == 0  # idempotent: an existing ACL is kept


def _client(port: int, user: str, client_id: str, *, clean: bool = True) -> tuple[mqtt.Client, list[str]]:
    got: list[str] = []
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean)
    c.username_pw_set(user, PASSWORD)
    c.on_message = lambda _c, _u, m: got.append(m.topic)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c, got


def test_the_display_account_cannot_take_a_table_or_recorder_client_id(installed: Installed) -> None:
    table = PahoPublisher("127.0.0.1", installed.port, "mjtable-T1", username="table-T1", password=PASSWORD).start()
    assert table.wait_connected(10)
    rec, _ = _client(installed.port, "recorder", "mjtable-recorder", clean=False)
    rec.subscribe("mjtable/v1/table/+/events", qos=1)
    time.sleep(0.5)
    rec.loop_stop()
    rec.disconnect()  # the recorder is away: the broker queues its events in its persistent session
    topics = TableTopics("T1")
    for i in range(10):
        table.publish(topics.events, json.dumps({"i": i}).encode(), qos=1)
    assert wait_until(lambda: table.pending_count() == 0)
    for cid in ("mjtable-T1", "table-T1", "mjtable-recorder", "recorder"):
        intruder, _ = _client(installed.port, "hall-display", cid)
        time.sleep(0.3)
        intruder.loop_stop()
        intruder.disconnect()
    assert table.connects == 1 and table.connected  # never kicked
    rec2, rec2_got = _client(installed.port, "recorder", "mjtable-recorder", clean=False)
    assert wait_until(lambda: len(rec2_got) >= 10), rec2_got  # the queued session survived: nothing erased
    rec2.loop_stop()
    rec2.disconnect()
    table.close()


def test_the_referee_is_the_authenticated_user(installed: Installed) -> None:
    table = PahoPublisher("127.0.0.1", installed.port, "mjtable-T1", username="table-T1", password=PASSWORD).start()
    got: list[Command] = []
    endpoint = CommandEndpoint("T1", table, got.append).start()
    assert table.wait_connected(10)
    time.sleep(0.3)
    ref1, _ = _client(installed.port, "referee1", "r1")
    topics = endpoint.topics
    doc = {"schema": "mjtable.command/1", "id": "c1", "command": "pause", "referee": "the head referee"}
    ref1.publish(f"{topics.command}/referee1", json.dumps(doc), qos=1).wait_for_publish(5)
    ref1.publish(f"{topics.command}/referee2", json.dumps({**doc, "id": "c2"}), qos=1).wait_for_publish(5)
    ref1.publish(topics.command, json.dumps({**doc, "id": "c3"}), qos=1).wait_for_publish(5)
    assert wait_until(lambda: len(got) >= 1)
    time.sleep(0.5)
    assert [(c.id, c.referee) for c in got] == [("c1", "referee1")]  # c2/c3: denied by the ACL
    ref1.loop_stop()
    ref1.disconnect()
    table.close()


def test_a_referee_reason_never_reaches_the_public_stream() -> None:
    ev = RefereeCommand(id="cmd:1", at_s=1.0, command="pause", reason="seat 2 holds 5p 5p 5p, checking")
    pairs = public_event(ev, ())
    assert pairs == [("referee", {"command": "pause"})]
    assert "5p" not in json.dumps(pairs)


def test_a_referees_penalty_words_and_user_name_never_reach_the_hall(installed: Installed) -> None:
    """Issue 19.9 through the installed broker: referee1 applies a penalty without a reason (the table words it
    ``referee referee1``), referee2 one whose reason quotes a hand, and a dead hand with a reason; the hall display
    (display role, every topic it may read) sees each infraction's kind, player and points in neutral words, never
    the reasons or a referee's user name; a referee reads them in full on the referee state."""
    from controller.engine.events import event_from_json
    from controller.engine.step import step
    from controller.views import public_view, referee_view
    from mjtable.mqtt.channel import TableChannel
    from mjtable.mqtt.commands import engine_event_json
    from tests.engine.engine_helpers import TWO_WINNERS_HANDS, Table

    reason, dead = "showed his hand 123m456p789s1122z to seat 3", "argued with the referee"
    table = PahoPublisher("127.0.0.1", installed.port, "mjtable-T1", username="table-T1", password=PASSWORD).start()
    got: list[Command] = []
    endpoint = CommandEndpoint("T1", table, got.append).start()
    assert table.wait_connected(10)
    hall: list[tuple[str, str]] = []
    referee: list[tuple[str, str]] = []
    display, _ = _client(installed.port, "hall-display", "hall-display")
    display.on_message = lambda _c, _u, m: hall.append((m.topic, m.payload.decode()))
    display.subscribe("mjtable/v1/#", qos=1)
    watcher, _ = _client(installed.port, "referee2", "referee2")
    watcher.on_message = lambda _c, _u, m: referee.append((m.topic, m.payload.decode()))
    watcher.subscribe("mjtable/v1/table/T1/referee/#", qos=1)
    time.sleep(0.5)
    topics = endpoint.topics
    r1, _ = _client(installed.port, "referee1", "referee1")
    r2 = watcher
    sent = [(r1, "referee1", {"id": "c1", "command": "apply_penalty", "seat": 2, "points": 10}),
            (r2, "referee2", {"id": "c2", "command": "apply_penalty", "seat": 0, "points": 5, "reason": reason}),
            (r2, "referee2", {"id": "c3", "command": "dead_hand", "seat": 1, "reason": dead})]
    for client, user, doc in sent:
        client.publish(f"{topics.command}/{user}", json.dumps({"schema": "mjtable.command/1", **doc}),
                       qos=1).wait_for_publish(5)
    assert wait_until(lambda: len(got) >= 3)
    assert [c.referee for c in got] == ["referee1", "referee2", "referee2"]
    t = Table()
    t.deal(TWO_WINNERS_HANDS)
    channel = TableChannel("T1", table, game_id="g-access")
    for cmd in got:  # what the table service does with each command (mjtable.service.parts)
        t.now_s += 0.5
        t.state, fx = step(t.state, event_from_json(engine_event_json(cmd, t.now_s)))
        for k, e in enumerate(fx):
            channel.publish_effect(e.to_json(), event_id=f"g-access:{t.state.seq}:fx{k}")
        channel.publish_state(public_view(t.state, "T1"), referee_view(t.state, "T1", with_waits=False))
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=1, kind="win")  # the dead seat's call: a false win
    channel.publish_state(public_view(t.state, "T1"), referee_view(t.state, "T1", with_waits=False))
    channel.publish_event("marker", {})
    assert wait_until(lambda: any('"marker"' in p for _, p in hall))
    assert wait_until(lambda: sum(tp == topics.referee_state for tp, _ in referee) >= 4)
    for c in (display, watcher, r1):
        c.loop_stop()
        c.disconnect()
    table.close()
    public = [p for tp, p in hall if "/referee/" not in tp]
    assert public and len(public) == len(hall)
    assert any(tp.startswith("mjtable/v1/spectator/") for tp, _ in hall)  # the mirror is checked too
    infractions = [json.loads(p)["data"] for tp, p in hall if tp == topics.events and '"type":"infraction"' in p]
    assert [(i["kind"], i["seat"], i["points"], i["message"]) for i in infractions[:2]] == [
        ("referee", 2, 10, "penalty by the referee"), ("referee", 0, 5, "penalty by the referee")]
    for text in public:
        for secret in ("referee1", "referee2", "showed his hand", "123m456p", "argued"):
            assert secret not in text, (secret, text)
    full = "\n".join(p for tp, p in referee if tp == topics.referee_state)
    for secret in ("referee referee1", reason, dead):
        assert secret in full, secret


def test_the_shared_display_password_goes_only_to_the_listed_hall_screens() -> None:
    import http.client
    import threading

    from mjtable.cli_display import make_server

    server = make_server("127.0.0.1", 0, "ws://127.0.0.1:9001", public_user="hall-display",
                         public_password="hall-secret-123")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = int(server.server_address[1])
    try:
        def config_from(source: str) -> dict[str, object]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
            conn.request("GET", "/config.json")
            doc: dict[str, object] = json.loads(conn.getresponse().read())
            conn.close()
            return doc

        assert config_from("127.0.0.1")["public_password"] == "hall-secret-123"  # the kiosk on this machine
        other = config_from("127.0.0.2")  # any other browser
        assert other["public_password"] is None and other["public_user"] is None
    finally:
        server.shutdown()
        server.server_close()
