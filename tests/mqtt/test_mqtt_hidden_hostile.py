"""Property: hostile events (illegal discards of held tiles, wrong claims, misread or unsure camera events, false
wins) through the REAL engine never put a concealed tile on a public topic, while the referee topic gets the
reports in full.

The live engine (``controller.engine``) words its rejections and camera-mismatch alerts for the referee
(``seat 2 does not hold 5p``, the camera observation with the tiles it saw).  :class:`TableChannel` must publish them
only on ``referee/events`` and publicly at most a redacted form (kind, seat).  Every public message is checked twice:
the tile-placement and counting check of :mod:`tests.mqtt.test_mqtt_hidden`, and no tile word in any
``message``/``reason`` text.  The test also proves it is not vacuous: some referee-topic report does name a tile that
was concealed at that moment.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.acl import parse_roster, render_acl
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.guard import TILE_WORD, HiddenInformationError, check_public
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from tests.mqtt.mqtt_helpers import Collector
from tests.mqtt.test_mqtt_hidden import _public_event, check_public_message

sim = pytest.importorskip("controller.engine.simulate")
views = pytest.importorskip("controller.views")
events = pytest.importorskip("controller.engine.events")
effects = pytest.importorskip("controller.engine.effects")
step_mod = pytest.importorskip("controller.engine.step")

WORD_KEYS = ("message", "reason", "detail")


def words(doc: Any) -> list[str]:
    """Every string under a ``message``/``reason``/``detail`` key."""
    if isinstance(doc, dict):
        out = [v for k, v in doc.items() if k in WORD_KEYS and isinstance(v, str)]
        return out + [w for v in doc.values() for w in words(v)]
    if isinstance(doc, list):
        return [w for v in doc for w in words(v)]
    return []


def hostile_event(state: Any, rng: random.Random, n: int, at_s: float) -> Any | None:
    """One event a careless player, a wrong button or a misreading camera could produce now (illegal riichi
    declarations and false wins included: their rejections and infractions quote hands)."""
    hand = state.hand
    if hand is None or state.phase.value in ("building", "hand_over", "session_over"):
        return None
    held = [(s, t.code) for s in range(4) for t in hand.seats[s].known]
    if not held:
        return None
    seat, code = rng.choice(held)
    turn = hand.turn if hand.turn is not None else 0
    eid = f"h{n}"
    pick = rng.randrange(9)
    if pick == 7 and hand.turn is not None:  # a riichi declared with a discard, legal or not
        mine = [c for s, c in held if s == turn]
        if mine:
            return events.Discard(id=eid, at_s=at_s, seat=turn, tile=rng.choice(mine), riichi=True)
        return None
    if pick == 8 and hand.turn is not None and rng.random() < 0.3:  # a (usually false) win on one's own draw
        return events.DeclareWin(id=eid, at_s=at_s, seat=turn)
    if pick >= 7:
        return None
    if pick == 0:  # a player discards a tile he holds out of turn
        other = [(s, c) for s, c in held if s != turn] or held
        seat, code = rng.choice(other)
        return events.Discard(id=eid, at_s=at_s, seat=seat, tile=code)
    if pick == 1:  # the turn player "discards" a tile another player holds (he does not)
        held_by_turn = {c for s, c in held if s == turn}
        foreign = [c for s, c in held if s != turn and c not in held_by_turn]
        if not foreign:
            return None
        return events.Discard(id=eid, at_s=at_s, seat=turn, tile=rng.choice(foreign))
    if pick == 2:  # a wrong claim naming two tiles from the hand
        tiles = [c for s, c in held if s == seat][:2]
        return events.Claim(id=eid, at_s=at_s, seat=seat, kind=rng.choice(["chow", "pung", "kong"]), tiles=tiles)
    if pick == 3:  # the camera is sure it saw a concealed tile discarded by the wrong seat
        other = [(s, c) for s, c in held if s != turn] or held
        seat, code = rng.choice(other)
        return events.CameraObserved(id=eid, at_s=at_s, observation={
            "type": "discard", "seat": seat, "tiles": [code], "claimed_from": None, "position": 99,
            "confidence": 0.99, "frame_id": n})
    if pick == 4:  # an unsure read of a concealed tile
        return events.CameraObserved(id=eid, at_s=at_s, observation={
            "type": "discard", "seat": seat, "tiles": [code], "claimed_from": None, "position": 0,
            "confidence": 0.3, "frame_id": n})
    if pick == 5:  # a hand camera's view of a concealed hand, unsure
        return events.CameraObserved(id=eid, at_s=at_s, observation={
            "type": "hand_seen", "seat": seat, "tiles": [c for s, c in held if s == seat], "claimed_from": None,
            "position": 0, "confidence": 0.4, "frame_id": n})
    # a concealed kong of tiles the seat holds, read with confidence but impossible
    return events.CameraObserved(id=eid, at_s=at_s, observation={
        "type": "concealed_kong", "seat": seat, "tiles": [code] * 4, "claimed_from": None, "position": 0,
        "confidence": 0.95, "frame_id": n})


def play_hostile(seed: int, rules: str, channel: TableChannel, on_step: Any, *, hands: int = 2,
                 hostile_rate: float = 0.25) -> dict[str, int]:
    """Play a bot session through the engine, injecting hostile events; publish everything via ``channel``."""
    run = sim.SimRun(rules=rules, seed=seed, hands_total=hands)
    rng = random.Random(seed)
    tid = channel.topics.table_id
    counts = {"steps": 0, "rejected": 0, "alerts": 0, "infractions": 0}
    state = run.start()
    n = 0

    def publish(ev: Any, new: Any, fx: tuple[Any, ...]) -> None:
        counts["steps"] += 1
        referee = views.referee_view(new, tid, with_waits=False)
        channel.publish_state(views.public_view(new, tid), referee)
        if not (fx and isinstance(fx[0], effects.Rejected)) and not isinstance(ev, events.CameraObserved):
            channel.publish_event(ev.type, _public_event(ev.to_json()), event_id=ev.id)
        for k, e in enumerate(fx):
            obj = e.to_json()
            if obj["type"] in ("rejected", "alert", "infraction"):
                counts[{"rejected": "rejected", "alert": "alerts", "infraction": "infractions"}[obj["type"]]] += 1
            channel.publish_effect(obj, event_id=f"{ev.id}:fx{k}")
        channel.tick(channel.clock() + 1e6)
        on_step(referee)

    for _ in range(20_000):
        if rng.random() < hostile_rate:
            n += 1
            bad = hostile_event(state, rng, n, run.now_s)
            if bad is not None:
                new, fx = step_mod.step(state, bad)
                publish(bad, new, fx)
                state = new
        ev = run.next_event(state)
        if ev is None:
            break
        new, fx = step_mod.step(state, ev)
        if fx and isinstance(fx[0], effects.Rejected):  # a hostile event changed what the bot may do: skip it
            publish(ev, new, fx)
            continue
        publish(ev, new, fx)
        state = new
    return counts


class Checker:
    """Checks every new broker message: public ones for hidden tiles, referee reports for what they name."""

    def __init__(self, broker: MemoryBroker, topics: TableTopics) -> None:
        self.broker = broker
        self.topics = topics
        self.cursor = 0
        self.referee_reports = 0
        self.reports_naming_concealed = 0

    def __call__(self, referee: dict[str, Any]) -> None:
        new, self.cursor = self.broker.log[self.cursor:], len(self.broker.log)
        concealed = {c for s in referee["seats"] for c in (s["concealed"] or [])}
        for m in new:
            doc = json.loads(m.payload)
            if self.topics.is_public(m.topic):
                check_public_message(m.topic, doc, referee)
                check_public(doc)
                for text in words(doc):
                    assert not TILE_WORD.search(text), f"tile named in {text!r} on {m.topic}"
                assert "observation" not in m.payload.decode()
            elif m.topic == self.topics.referee_events:
                self.referee_reports += 1
                text = m.payload.decode()
                if any(f'"{c}"' in text or f" {c}" in text for c in concealed):
                    self.reports_naming_concealed += 1
            else:
                assert m.topic == self.topics.referee_state, m.topic


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.generate], derandomize=True)
@pytest.mark.parametrize("rules", ["mcr-2006", "sichuan-sbr-2025", "riichi-hkma-2025"])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_hostile_events_never_leak_to_public_topics(seed: int, rules: str) -> None:
    broker = MemoryBroker()
    channel = TableChannel("T1", FakePublisher(broker, "table-T1"), game_id=f"g{seed}")
    check = Checker(broker, channel.topics)
    counts = play_hostile(seed, rules, channel, check)
    assert counts["steps"] > 20  # not vacuous: two hands really played (a quick ron can end a riichi hand early)
    assert counts["rejected"] + counts["alerts"] >= 3
    assert check.referee_reports == counts["rejected"] + counts["alerts"] + counts["infractions"]


def test_hostile_reports_really_carry_hidden_tiles_to_the_referee_only() -> None:
    """Not vacuous: over a few seeds the referee topic gets reports naming concealed tiles; none reach public."""
    naming = 0
    for seed in range(3):
        broker = MemoryBroker()
        channel = TableChannel("T1", FakePublisher(broker, "table-T1"), game_id=f"g{seed}")
        check = Checker(broker, channel.topics)
        play_hostile(seed, "mcr-2006", channel, check, hostile_rate=0.4)
        naming += check.reports_naming_concealed
    assert naming > 0


def test_public_state_alert_words_are_redacted_and_guard_refuses_raw_ones() -> None:
    broker = MemoryBroker()
    channel = TableChannel("T1", FakePublisher(broker, "table-T1"), game_id="g")
    run = sim.SimRun(rules="mcr-2006", seed=5, hands_total=1)
    state = run.start()
    while state.hand is None or state.phase.value != "turn":
        state, _ = step_mod.step(state, run.next_event(state))
    hand = state.hand
    other = next(s for s in range(4) if s != hand.turn)
    code = hand.seats[other].known[0].code
    obs = {"type": "discard", "seat": other, "tiles": [code], "claimed_from": None, "position": 99,
           "confidence": 0.99, "frame_id": 1}
    state, fx = step_mod.step(state, events.CameraObserved(id="cam1", at_s=run.now_s, observation=obs))
    public = views.public_view(state, "T1")
    assert public["alerts"], "the mismatch must be an alert"
    with pytest.raises(HiddenInformationError):
        check_public({**public, "alerts": [{**public["alerts"][-1], "message": f"camera saw {code}"}]})
    channel.publish_state(public, views.referee_view(state, "T1", with_waits=False))
    sent = json.loads(broker.retained[channel.topics.state])
    alert = sent["alerts"][-1]
    assert alert["kind"] == "camera_mismatch" and alert["seat"] == other and "data" not in alert
    referee = json.loads(broker.retained[channel.topics.referee_state])
    assert referee["alerts"][-1]["data"]["observation"]["tiles"] == [code]  # the referee keeps it all
    for k, e in enumerate(fx):
        channel.publish_effect(e.to_json(), event_id=f"cam1:fx{k}")
    full = [json.loads(m.payload) for m in broker.messages(channel.topics.referee_events)]
    assert full and full[0]["data"]["data"]["observation"]["tiles"] == [code]
    pub = [json.loads(m.payload) for m in broker.messages(channel.topics.events) if b'"alert"' in m.payload]
    assert pub and code not in json.dumps(pub[0]) and pub[0]["data"]["seat"] == other


def test_rejections_and_alerts_through_mosquitto_reach_referees_not_displays(collectors: list[Collector]) -> None:
    """Real broker, real ACL: a display sees only redacted alerts; a referee gets the full reports."""
    roster = parse_roster("table table-T1 T1\ndisplay hall\nreferee ref\n")
    pw = {"table-T1": "table-pw-123", "hall": "hall-pw-123", "ref": "ref-pw-123"}
    with LocalMosquitto(passwords=pw, acl=render_acl(roster)) as broker:
        display = Collector(broker.host, broker.port, ["mjtable/v1/#"], username="hall", password=pw["hall"])
        ref = Collector(broker.host, broker.port, ["mjtable/v1/table/+/referee/events"], username="ref",
                        password=pw["ref"])
        collectors += [display, ref]
        assert display.wait_subscribed() and ref.wait_subscribed()
        t = TableTopics("T1")
        pub = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", username="table-T1",
                            password=pw["table-T1"], will=status_message(t, "offline"),
                            online=status_message(t, "online")).start()
        assert pub.wait_connected()
        channel = TableChannel("T1", pub, game_id="g-real")
        referees: list[dict[str, Any]] = []
        counts = play_hostile(11, "mcr-2006", channel, referees.append, hostile_rate=0.4)
        channel.publish_event("marker", {})
        assert display.wait_for_any(lambda _, p: json.loads(p).get("type") == "marker")
        reports = counts["rejected"] + counts["alerts"] + counts["infractions"]
        assert reports > 5
        assert ref.wait_for(lambda m: len(m) >= reports)
        pub.close()
        assert not any("/referee/" in tp for tp, _, _ in display.messages)
        for tp, p, _ in display.messages:
            doc = json.loads(p)
            check_public(doc)
            assert not any(TILE_WORD.search(w) for w in words(doc)), (tp, doc)
        kinds = {json.loads(p)["type"] for _, p, _ in ref.messages}
        assert "rejected" in kinds
