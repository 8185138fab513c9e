"""A public alert names the player it is about (seats rotate, and the hall display shows players, not seat
numbers), never its data or the engine's words."""

from __future__ import annotations

from typing import Any

from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.guard import redact_alert, redact_public_state

SEATED = ["Cy", "Di", "Ann", "Bo"]  # the second round's seating of Ann, Bo, Cy, Di (rotation A)


def _timer_alert() -> dict[str, Any]:
    return {"id": "alert-3", "kind": "timer_zero", "message": "turn time is up for Ann", "open": True, "at_s": 9.0,
            "data": {"seat": 2, "player": "Ann", "referee_only": False}}


def test_a_public_alert_names_the_player_at_its_seat() -> None:
    out = redact_alert(_timer_alert(), SEATED)
    assert out["message"] == "timer zero (Ann)" and out["seat"] == 2 and "data" not in out
    assert redact_alert(_timer_alert())["message"] == "timer zero (seat 2)"  # nobody named: the seat, as before


def test_the_public_state_and_the_event_stream_name_the_player() -> None:
    public = {"seq": 7, "seats": [{"seat": s, "player": p} for s, p in enumerate(SEATED)],
              "alerts": [{"id": "alert-3", "kind": "timer_zero", "open": True, "at_s": 9.0}], "infractions": []}
    referee = {"alerts": [_timer_alert()]}
    assert redact_public_state(public, referee)["alerts"][0]["message"] == "timer zero (Ann)"
    # the event stream: the channel names the player from the last state it published (a real engine's views)
    from controller.views import public_view, referee_view
    from tests.engine.engine_helpers import TWO_WINNERS_HANDS, Table

    t = Table(options={"players": ("Ann", "Bo", "Cy", "Di")})
    t.deal(TWO_WINNERS_HANDS)
    broker = MemoryBroker()
    channel = TableChannel("T1", FakePublisher(broker), game_id="g1")
    channel.publish_state(public_view(t.state), referee_view(t.state, with_waits=False))
    channel.publish_effect({"type": "alert", **_timer_alert()}, event_id="g1:7:fx1")
    sent = [m for m in broker.messages("#") if m.topic.endswith("/events") and b'"alert"' in m.payload]
    assert sent and b"timer zero (Cy)" in sent[-1].payload and b"turn time is up" not in sent[-1].payload
