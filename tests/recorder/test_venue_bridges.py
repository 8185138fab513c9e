"""More tables than one broker: per-room mosquitto brokers bridged to a venue broker (all real, loopback).

The recorders (a shared subscription, with the venue's password file and ACL), and a referee on the venue
broker see every room's tables under the unchanged topic names; referee commands reach the table in its room;
a venue broker restart loses nothing (the room brokers queue for their bridges)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.acl import RosterEntry, render_acl
from mjtable.mqtt.bridge import bridge_acl_rules, bridge_state_topic, bridge_watch_acl_rules, room_bridge_config
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.commands import Command, CommandEndpoint
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics, TopicError
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.store import SqlEventStore
from tests.mqtt.mqtt_helpers import Collector, sample_public
from tests.waiting import wait_until

ROOMS = {"east": ["E1", "E2"], "west": ["W1"]}
USERS = {"bridge-east": "pw-east", "bridge-west": "pw-west", "rec-a": "pw-rec", "rec-b": "pw-rec",
         "referee": "pw-ref"}


def _venue_acl() -> str:
    acl = render_acl([RosterEntry("recorder", "rec-a"), RosterEntry("recorder", "rec-b"),
                      RosterEntry("referee", "referee")])
    for room, tables in ROOMS.items():
        acl += "\n" + bridge_acl_rules(f"bridge-{room}", room, tables)
    return acl + "\n" + bridge_watch_acl_rules("referee")


def test_rooms_bridged_to_a_venue_broker(tmp_path: Path) -> None:
    venue = LocalMosquitto(ws_port=None, passwords=USERS, acl=_venue_acl(), persistence=True,
                           workdir=tmp_path / "venue").start()
    rooms = {room: LocalMosquitto(ws_port=None, persistence=True, workdir=tmp_path / room, extra_config=(
        room_bridge_config(room, venue.host, venue.port, tables=tables, username=f"bridge-{room}",
                           password=USERS[f"bridge-{room}"], restart_timeout_s=(1, 1)))).start()
             for room, tables in ROOMS.items()}
    store = SqlEventStore(f"sqlite:///{tmp_path / 'venue.db'}")
    # one MQTT 5 and one MQTT 3.1.1 recorder in the same shared-subscription group
    recorders = [Recorder(store, venue.host, venue.port, client_id=name, username=name, password="pw-rec",
                          share_group="venue", mqtt_version=version).start()
                 for name, version in (("rec-a", "5"), ("rec-b", "3.1.1"))]
    referee = Collector(venue.host, venue.port, ["mjtable/v1/table/+/state", "mjtable/v1/table/+/status",
                                                 "mjtable/v1/bridge/+/state"],
                        username="referee", password="pw-ref")
    in_room: dict[str, Collector] = {}
    pubs: list[PahoPublisher] = []
    try:
        assert all(r.wait_connected(20) for r in recorders), [r.last_connect_error for r in recorders]
        assert referee.wait_for(lambda ms: {t for t, p, _ in ms if "/bridge/" in t and p == b"1"} == {
            bridge_state_topic(r) for r in ROOMS}, 20), (referee.messages, venue.log_tail(),
                                                              [b.log_tail() for b in rooms.values()])
        channels: dict[str, TableChannel] = {}
        for room, tables in ROOMS.items():
            broker = rooms[room]
            in_room[room] = Collector(broker.host, broker.port, ["mjtable/v1/table/+/referee/command/+"])
            for t in tables:
                tt = TableTopics(t)
                pub = PahoPublisher(broker.host, broker.port, f"mjtable-table-{t}", will=status_message(tt, "offline"),
                                    online=status_message(tt, "online")).start()
                assert pub.wait_connected()
                pubs.append(pub)
                channels[t] = TableChannel(t, pub, game_id=f"{t}-g1")
        acted: list[Command] = []  # what table E2's own command endpoint hands on (it drops redelivered ids)
        CommandEndpoint("E2", next(p for p in pubs if p.client_id == "mjtable-table-E2"), acted.append).start()
        sent: list[str] = []

        def publish(n: int) -> None:
            for i in range(n):
                for ch in channels.values():
                    sent.append(ch.publish_event("discard", {"seat": i % 4, "tile": "5p"})["id"])

        publish(50)
        channels["W1"].publish_state(sample_public(seq=7, hand_no=1, table="W1"))
        assert wait_until(lambda: store.count() == len(sent)), (store.count(), len(sent))
        # the retained state and status of a table in the west room, on the venue broker, under the same names
        assert referee.wait_for(lambda ms: any(t == TableTopics("W1").state for t, _, _ in ms))
        assert referee.wait_for(lambda ms: any(t == TableTopics("E2").status and json.loads(p)["status"] == "online"
                                               for t, p, _ in ms))
        # a referee command on the venue broker reaches the table's own room, and the table acts on it once
        cmd = {"schema": "mjtable.command/1", "id": "c1", "command": "pause"}
        # (under the venue ACL a referee writes only under its own user name: .../referee/command/<user>)
        command_topic = TableTopics("E2").command + "/referee"
        referee.client.publish(command_topic, json.dumps(cmd), qos=1)
        assert in_room["east"].wait_for(lambda ms: any(t == command_topic for t, _, _ in ms))
        referee.client.publish(command_topic, json.dumps(cmd), qos=1)  # the same command again (a double click)
        assert in_room["east"].wait_for(lambda ms: sum(t == command_topic for t, _, _ in ms) >= 2)
        # the venue broker goes down: the rooms keep playing, their brokers queue, nothing is lost
        venue.stop(timeout_s=60)  # a clean stop saves its queues (a crash loses what it acknowledged since its
        publish(50)               # last autosave: hop-by-hop QoS 1, see docs/mqtt.md)
        venue.start()
        assert wait_until(lambda: store.count() == len(sent), 60), (store.count(), len(sent))
        stored = [e["id"] for e in store.events()]
        assert sorted(stored) == sorted(sent)
        assert sum(r.rejected for r in recorders) == 0
        # a group member sees only its share: its partner's events are no gaps to report or ask resends for
        assert [r.missing_seen for r in recorders] == [0, 0]
        assert all(r.stored > 0 for r in recorders), [r.stored for r in recorders]  # both took a share
        # a room broker lost: the venue sees its bridge go down (the bridge's last will on the venue broker)
        rooms["west"].stop()
        assert referee.wait_for(lambda ms: any(t == bridge_state_topic("west") and p == b"0" for t, p, _ in ms), 30)
        # QoS 1 is at least once: when the venue broker restarts, the bridge may deliver the command again (seen
        # in CI, 2026-11-29). Every copy is the same command, and the table's endpoint acts on its id once.
        copies = [m for m in in_room["east"].messages if m[0] == command_topic]
        assert copies and set(copies) == {(command_topic, json.dumps(cmd).encode(), False)}, copies
        assert wait_until(lambda: len(acted) >= 1)
        assert [(c.id, c.command, c.referee) for c in acted] == [("c1", "pause", "referee")]
    finally:
        for pub in pubs:
            pub.close()
        for c in (referee, *in_room.values()):
            c.close()
        for r in recorders:
            r.stop()
        store.close()
        for b in rooms.values():
            b.close()
        venue.close()


def test_bridge_config_refuses_what_would_lose_or_leak() -> None:
    conf = room_bridge_config("east", "venue.lan", 8883, tables=["E1"], username="bridge-east", password="s3cret",
                              cafile="/etc/mosquitto/certs/ca.crt")
    lines = conf.splitlines()
    assert "cleansession false" in lines and "bridge_cafile /etc/mosquitto/certs/ca.crt" in lines
    assert "topic mjtable/v1/table/E1/referee/command in 1" in lines
    assert "topic mjtable/v1/table/E1/referee/command/+ in 1" in lines  # a referee's own command topic
    assert "topic mjtable/v1/table/E1/recorder/ack in 1" in lines  # the venue recorder's end-to-end ack
    assert not any(line.endswith("referee/command out 1") for line in lines)  # commands never go back out
    assert "topic mjtable/v1/table/E2/events out 1" not in lines
    for bad in ({"qos": 0}, {"password": "two words"}):
        with pytest.raises(ValueError):
            room_bridge_config("east", "venue.lan", 8883, username="u", **bad)
    with pytest.raises(ValueError, match="room id"):
        room_bridge_config("east/#", "venue.lan", 8883)
    with pytest.raises(TopicError):
        bridge_acl_rules("u", "east", ["E1/#"])
