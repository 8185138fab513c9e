"""Property: over simulated games (the bots of ``controller.bots`` playing through the live engine,
``controller.engine``), no concealed tile ever reaches a public topic.

Every step's public and referee views go through the real :class:`TableChannel` (schema check + guard) into
the in-memory broker; then every message on a public topic (live and spectator) is checked:

* tile codes appear only where tiles are face up (ponds, visible melds, flowers, last discard, claim window,
  and the hands shown at a win);
* counting: for every tile kind, copies visible on the public topics + copies concealed in the referee
  view never exceed the copies in the set -- a concealed tile that leaked anywhere would be counted twice;
* no face-down kong shows its faces, and the referee topic is the only place concealed hands appear.

One game also runs through a real mosquitto, read back by a subscriber with the ``display`` role.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.acl import parse_roster, render_acl
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from tests.mqtt.mqtt_helpers import Collector

sim = pytest.importorskip("controller.engine.simulate")
views = pytest.importorskip("controller.views")

TILE = re.compile(r"^([0-9][mps]|[1-7]z|[1-8]f)$")
EXPOSED = re.compile(
    r"^\$(\.data)?(\.result)?\.seats\[\d\]\.(flowers\[\d+\]|melds\[\d+\]\.tiles\[\d\]|pond\[\d+\]\.tile)$"
    r"|^\$(\.data)?\.last_discard\.tile$|^\$(\.data)?\.claim_window\.tile$"
    r"|^\$(\.data)?\.result\.(hands\.\d|win_tile|wins\[\d\]\.(win_tile|hand))$|^\$\.data\.tile$|^\$\.data\.tiles\[\d\]$"
    r"|^\$\.riichi\.dora_indicators\[\d\]$")
SHOWN_AT_THE_END = re.compile(r"^\$\.riichi\.ura_indicators\[\d\]$")


def tile_strings(doc: Any, path: str = "$") -> list[tuple[str, str]]:
    """Every (path, tile code) in a JSON document."""
    if isinstance(doc, dict):
        return [x for k, v in doc.items() for x in tile_strings(v, f"{path}.{k}")]
    if isinstance(doc, list):
        return [x for i, v in enumerate(doc) for x in tile_strings(v, f"{path}[{i}]")]
    if isinstance(doc, str) and TILE.match(doc):
        return [(path, doc)]
    return []


def kind(code: str) -> str:
    return "5" + code[1] if code[0] == "0" else code


def check_public_message(topic: str, doc: dict[str, Any], referee: dict[str, Any]) -> None:
    found = tile_strings(doc)
    for path, code in found:
        shown = bool(SHOWN_AT_THE_END.match(path)) and doc.get("result") is not None
        assert EXPOSED.match(path) or shown, f"tile {code} at {path} on {topic}"
    if doc.get("schema") != "mjtable.public_state/1" or doc.get("result") is not None:
        return
    visible: Counter[str] = Counter()
    for seat in doc["seats"]:  # each physical tile once: a called pond tile is counted in the meld
        visible.update(kind(c) for c in seat["flowers"])
        visible.update(kind(p["tile"]) for p in seat["pond"] if not p["called"])
        visible.update(kind(c) for m in seat["melds"] for c in (m["tiles"] or []))
    riichi = doc.get("riichi")
    if isinstance(riichi, dict):  # dora indicators lie face up on the dead wall
        visible.update(kind(c) for c in riichi.get("dora_indicators", []))
    concealed = Counter(kind(c) for s in referee["seats"] for c in (s["concealed"] or []))
    for k in visible.keys() | concealed.keys():
        limit = 1 if k.endswith("f") else 4
        assert visible[k] + concealed[k] <= limit, f"{k}: {visible[k]} visible + {concealed[k]} concealed on {topic}"
    for seat in doc["seats"]:
        assert "concealed" not in seat and "waits" not in seat
        for m in seat["melds"]:
            assert m["type"] != "concealed_kong" or m["tiles"] is None


def run_game(seed: int, hands: int, channel: TableChannel, on_step: Any = None, rules: str = "mcr-2006") -> int:
    steps = 0

    def sink(ev: Any, state: Any, fx: Any) -> None:
        nonlocal steps
        steps += 1
        public = views.public_view(state, channel.topics.table_id)
        referee = views.referee_view(state, channel.topics.table_id, with_waits=False)
        channel.publish_state(public, referee)
        channel.publish_event(ev.type if ev.type != "draw" else "draw", _public_event(ev.to_json()), event_id=ev.id)
        channel.tick(channel.clock() + 1e6)
        if on_step is not None:
            on_step(referee)

    sim.SimRun(rules=rules, seed=seed, hands_total=hands, sink=sink).play()
    return steps


def _public_event(obj: dict[str, Any]) -> dict[str, Any]:
    """What a table would put on the public event stream for an engine input event (no hidden fields)."""
    if obj["type"] in ("discard", "claim", "flower", "declare_win", "promoted_kong", "referee"):
        return {k: v for k, v in obj.items() if k not in ("type", "id", "at_s")}
    return {"seat": obj.get("seat")} if "seat" in obj else {}


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.generate], derandomize=False)
@pytest.mark.parametrize("rules", ["mcr-2006", "mcr-2017", "sichuan-sbr-2025", "riichi-hkma-2025"])
@example(seed=46015)  # MCR: a concealed kong revealed at the end of the hand
@example(seed=475142)  # riichi: a bot offered a kong claim when four kans were out (no fifth kan, L319)
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_no_concealed_tile_on_public_topics_in_simulated_games(seed: int, rules: str) -> None:
    broker = MemoryBroker()
    channel = TableChannel("T1", FakePublisher(broker, "table-T1"), game_id=f"g{seed}")
    topics = channel.topics
    cursor = 0
    referee_seen = 0

    def on_step(referee: dict[str, Any]) -> None:
        nonlocal cursor, referee_seen
        new, cursor = broker.log[cursor:], len(broker.log)
        for m in new:
            doc = json.loads(m.payload)
            if topics.is_public(m.topic):
                check_public_message(m.topic, doc, referee)
            else:
                assert m.topic == topics.referee_state
                referee_seen += 1

    steps = run_game(seed, 2, channel, on_step, rules)
    assert steps > 50 and referee_seen == steps
    assert any(json.loads(m.payload)["type"] == "hand_result" for m in broker.messages(topics.events))


def test_no_concealed_tile_reaches_a_display_through_mosquitto(collectors: list[Collector]) -> None:
    roster = parse_roster("table table-T1 T1\ndisplay hall\n")
    pw = {"table-T1": "table-pw-123", "hall": "hall-pw-123"}
    with LocalMosquitto(passwords=pw, acl=render_acl(roster)) as broker:
        display = Collector(broker.host, broker.port, ["mjtable/v1/#"], username="hall", password=pw["hall"])
        collectors.append(display)
        assert display.wait_subscribed()
        t = TableTopics("T1")
        pub = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", username="table-T1",
                            password=pw["table-T1"], will=status_message(t, "offline"),
                            online=status_message(t, "online")).start()
        assert pub.wait_connected()
        channel = TableChannel("T1", pub, game_id="g-real")
        referees: list[dict[str, Any]] = []
        run_game(7, 1, channel, referees.append)
        channel.publish_event("marker", {})
        assert display.wait_for_any(lambda _, p: json.loads(p).get("type") == "marker")
        pub.close()
        states = [json.loads(p) for tp, p, _ in display.messages if tp == t.state]
        assert len(states) == len(referees)
        assert not any(tp == t.referee_state for tp, _, _ in display.messages)
        for state, referee in zip(states, referees, strict=True):
            check_public_message(t.state, state, referee)
        for tp, p, _ in display.messages:
            check_public_message(tp, json.loads(p), referees[-1])
