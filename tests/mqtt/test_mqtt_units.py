"""Unit tests: schemas, guard, topics, ACL rendering, outbox, command parsing, channel on the fake broker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjtable import schemas
from mjtable.mqtt.acl import RosterEntry, parse_roster, render_acl
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.commands import Command, CommandEndpoint, CommandError, engine_event_json, parse_command
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.guard import HiddenInformationError, check_public
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.topics import TableTopics, TopicError, table_of
from tests.mqtt.mqtt_helpers import sample_public, sample_referee


class FakeClock:
    def __init__(self, now_s: float = 1_800_000_000.0) -> None:
        self.now_s = now_s

    def __call__(self) -> float:
        return self.now_s


def test_sample_states_match_their_schemas() -> None:
    pub = sample_public()
    schemas.validate("public_state", pub)
    schemas.validate("referee_state", sample_referee(pub))
    not_ref = dict(pub, schema="mjtable.referee_state/1")
    with pytest.raises(schemas.PayloadError, match="concealed"):
        schemas.validate("referee_state", not_ref)


def test_guard_refuses_hidden_information() -> None:
    pub = sample_public()
    check_public(pub)
    with pytest.raises(HiddenInformationError, match="referee state"):
        check_public(sample_referee(pub))
    leaky = sample_public()
    leaky["seats"][1]["melds"][1]["tiles"] = ["7p"] * 4
    with pytest.raises(HiddenInformationError, match="face-down"):
        check_public(leaky)
    shown = sample_public()
    shown["seats"][1]["melds"][1]["tiles"] = ["7p"] * 4
    shown["result"] = {"kind": "draw", "winners": [], "fans": [], "total": 0, "payments": [0, 0, 0, 0]}
    check_public(shown)  # at the end of the hand the kong is shown
    schemas.validate("public_state", shown)
    leaky = sample_public()
    leaky["seats"][2]["concealed"] = ["1m"]
    with pytest.raises(HiddenInformationError, match=r"seats\[2\]\.concealed"):
        check_public(leaky)
    with pytest.raises(HiddenInformationError, match="drew"):
        check_public({"type": "draw", "data": {"seat": 1, "tile": "5p"}})
    check_public({"type": "draw", "data": {"seat": 1, "tile": "3f"}})
    with pytest.raises(HiddenInformationError, match="定缺"):
        check_public({"sichuan": {"revealed": False, "voids": ["m", None, None, None]}})
    check_public({"sichuan": {"revealed": True, "voids": ["m", "p", "s", "m"]}})
    with pytest.raises(HiddenInformationError, match="void_tiles"):
        check_public({"sichuan": {"revealed": True, "void_tiles": ["1m"]}})
    with pytest.raises(HiddenInformationError, match="ura"):
        check_public({**sample_public(), "riichi": {"ura_indicators": ["3p"]}})
    with pytest.raises(HiddenInformationError, match="furiten"):
        check_public({"riichi": {"furiten": [False] * 4}})


def test_topics() -> None:
    t = TableTopics("T1")
    assert t.state == "mjtable/v1/table/T1/state"
    assert t.command == "mjtable/v1/table/T1/referee/command"
    assert t.spectator("events") == "mjtable/v1/spectator/T1/events"
    assert table_of(t.referee_state) == ("T1", "referee/state")
    assert not t.is_public(t.referee_state)
    with pytest.raises(TopicError):
        TableTopics("a/b")
    with pytest.raises(TopicError):
        TableTopics("+")


def test_acl_render_from_roster() -> None:
    roster = parse_roster("table t1 T1  # the first table\nreferee alice\ndisplay hall\n")
    assert roster[0] == RosterEntry("table", "t1", "T1")
    acl = render_acl(roster)
    assert "user t1\ntopic write mjtable/v1/table/T1/state\n" in acl
    assert "topic write mjtable/v1/table/+/referee/command" in acl
    with pytest.raises(ValueError, match="line 1"):
        parse_roster("table t1\n")
    with pytest.raises(ValueError, match="unknown role"):
        parse_roster("admin bob\n")


def test_outbox_persists_in_order(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "out.db")
    ids = [box.put("a/b", f"m{i}".encode(), 1, False) for i in range(5)]
    box.ack(ids[1])
    box.close()
    again = Outbox(tmp_path / "out.db")
    assert [i.payload for i in again.pending()] == [b"m0", b"m2", b"m3", b"m4"]
    assert len(again) == 4


@pytest.mark.parametrize(("payload", "reason"), [
    pytest.param(b"x" * 5000, "exceeds", id="oversized"),
    pytest.param(b"\xff\xfe", "UTF-8", id="binary"),
    pytest.param(b"{not json", "JSON", id="not_json"),
    pytest.param(b'{"schema":"mjtable.command/1","id":"c1","command":"format_disk"}', "unknown command", id="unknown"),
    pytest.param(b'{"schema":"mjtable.command/1","id":"c1","command":"apply_penalty","seat":7,"points":5}',
                 "seat", id="bad_seat"),
    pytest.param(b'{"schema":"mjtable.command/1","id":"c1","command":"pause","x":1}', "Additional", id="extra_field"),
])
def test_bad_commands_are_rejected_with_a_reason(payload: bytes, reason: str) -> None:
    with pytest.raises(CommandError, match=reason):
        parse_command(payload)


def test_command_endpoint_answers_everything_and_drops_duplicates() -> None:
    broker = MemoryBroker()
    pub = FakePublisher(broker, "table-T1")
    got: list[Command] = []
    ep = CommandEndpoint("T1", pub, got.append).start()
    topic = ep.topics.command + "/alice"  # the referee is the user the ACL let write under its name
    ok = {"schema": "mjtable.command/1", "id": "c1", "command": "correct_tile", "seat": 1, "zone": "pond",
          "position": 3, "tile": "5p", "referee": "alice"}
    pub.publish(topic, json.dumps(ok).encode())
    pub.publish(topic, json.dumps(ok).encode())  # a QoS 1 redelivery
    pub.publish(topic, b"garbage")
    assert [c.id for c in got] == ["c1"]
    assert got[0].args == {"seat": 1, "zone": "pond", "position": 3, "tile": "5p"}
    assert engine_event_json(got[0], 5.0) == {"type": "referee", "id": "cmd:c1", "at_s": 5.0, "command": "correct_tile",
                                              "seat": 1, "position": 3, "tile": "5p", "reason": "referee alice"}
    assert got[0].to_json() == ok
    ep.answer("c1", ok=True)
    results = [json.loads(m.payload) for m in broker.messages(ep.topics.command_result)]
    assert [r["ok"] for r in results] == [False, True]
    assert "JSON" in results[0]["error"]
    for r in results:
        schemas.validate("command_result", r)


def test_channel_publishes_guarded_state_events_and_delayed_mirror() -> None:
    broker = MemoryBroker()
    clock = FakeClock()
    pub = FakePublisher(broker, "table-T1")
    ch = TableChannel("T1", pub, clock=clock, spectator_delay_s=60, game_id="g1")
    public = sample_public()
    ch.publish_state(public, sample_referee(public))
    ch.publish_event("discard", {"seat": 0, "tile": "5p"})
    t = ch.topics
    assert json.loads(broker.retained[t.state]) == public
    assert json.loads(broker.retained[t.referee_state])["seats"][0]["concealed"][0] == "1m"
    assert t.spectator("state") not in broker.retained
    clock.now_s += 59
    assert ch.tick() == 0
    clock.now_s += 1
    assert ch.tick() == 2
    assert json.loads(broker.retained[t.spectator("state")]) == public
    # a leaky state is refused and nothing is published
    n = len(broker.log)
    leaky = sample_public(seq=2)
    leaky["seats"][1]["melds"][1]["tiles"] = ["7p"] * 4
    with pytest.raises(schemas.PayloadError):
        ch.publish_state(leaky)
    ch.validate = False
    with pytest.raises(HiddenInformationError):
        ch.publish_state(leaky)
    assert len(broker.log) == n
    with pytest.raises(ValueError, match=r"0\.\.300"):
        TableChannel("T1", pub, spectator_delay_s=301)


def test_channel_derives_hand_result_and_game_end_once() -> None:
    broker = MemoryBroker()
    ch = TableChannel("T1", FakePublisher(broker), clock=FakeClock(), game_id="g1")
    done = sample_public(seq=5)
    done["result"] = {"kind": "win", "winners": [2], "fans": [{"name": "All Pungs", "points": 6, "count": 1},
                      {"name": "Pung of Terminals or Honors", "points": 1, "count": 1},
                      {"name": "Self-Drawn", "points": 1, "count": 1}],
                      "total": 8, "payments": [-16, -16, 48, -16], "hands": {"2": "[111z]555m99p 999s 9s"}}
    ch.publish_state(done)
    ch.publish_state(done)
    done["phase"] = "session_over"
    ch.publish_state(done)
    events = [json.loads(m.payload) for m in broker.messages(ch.topics.events)]
    assert [e["type"] for e in events] == ["hand_result", "game_end"]
    assert events[0]["id"] == "g1:hand1:result"
    assert events[0]["data"]["result"]["payments"] == [-16, -16, 48, -16]


@settings(max_examples=300, deadline=None)
@given(payload=st.one_of(st.binary(max_size=600), st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=12), kids, max_size=6)),
    max_leaves=20).map(lambda d: json.dumps(d).encode())))
def test_any_payload_is_a_command_or_a_clear_rejection(payload: bytes) -> None:
    try:
        cmd = parse_command(payload)
    except CommandError as exc:
        assert exc.reason
    else:
        schemas.validate("command", cmd.to_json())


@settings(max_examples=200, deadline=None)
@given(payload=st.binary(max_size=300), leaf=st.sampled_from(["events", "status", "state", "x/y"]))
def test_recorder_never_crashes_on_garbage(payload: bytes, leaf: str) -> None:
    from mjtable.recorder.recorder import Recorder
    from mjtable.recorder.store import SqlEventStore

    store = SqlEventStore(":memory:")
    rec = Recorder(store, "127.0.0.1", 1)
    rec.handle(f"mjtable/v1/table/T1/{leaf}", payload)
    rec.handle("not/ours", payload)
    assert rec.stored == 0 and rec.rejected >= 1
    store.close()
