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
    unnamed = {**_timer_alert(), "data": {"seat": 2}}
    assert redact_alert(unnamed, SEATED)["message"] == "timer zero (Ann)"  # the player at the seat now
    assert redact_alert(unnamed)["message"] == "timer zero (seat 2)"  # nobody named: the seat, as before


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
    channel.publish_effect({"type": "alert", **_timer_alert(), "data": {"seat": 2}}, event_id="g1:7:fx1")
    sent = [m for m in broker.messages("#") if m.topic.endswith("/events") and b'"alert"' in m.payload]
    assert sent and b"timer zero (Cy)" in sent[-1].payload and b"turn time is up" not in sent[-1].payload


def test_an_alert_of_an_earlier_hand_keeps_the_player_it_was_about() -> None:
    """The retained state lists recent alerts across hands: after the seats rotate, seat 2 of an old alert is still
    the player the engine named then, not whoever sits there now."""
    public = {"seq": 9, "seats": [{"seat": s, "player": p} for s, p in enumerate(SEATED)],
              "alerts": [{"id": "alert-3", "kind": "timer_zero", "open": True, "at_s": 9.0}], "infractions": []}
    then = {**_timer_alert(), "data": {"seat": 2, "player": "Cy"}}  # raised in round 1, when Cy sat at seat 2
    assert redact_public_state(public, {"alerts": [then]})["alerts"][0]["message"] == "timer zero (Cy)"


def test_a_name_that_reads_like_a_tile_is_not_put_in_public_words() -> None:
    """A team name such as "DJ 3m" would make the guard refuse the whole public state; the seat stands in."""
    from mjtable.mqtt.guard import check_public

    alert = {**_timer_alert(), "data": {"seat": 1, "player": "DJ 3m"}}
    assert redact_alert(alert, ["Ann", "DJ 3m", "Cy", "Di"])["message"] == "timer zero (seat 1)"
    public = {"seq": 9, "seats": [{"seat": s, "player": p} for s, p in enumerate(["Ann", "DJ 3m", "Cy", "Di"])],
              "alerts": [{"id": "alert-3", "kind": "timer_zero", "open": True, "at_s": 9.0}], "infractions": []}
    check_public(redact_public_state(public, {"alerts": [alert]}))  # no refusal


def test_the_engine_names_the_player_when_it_raises_a_camera_alert() -> None:
    from controller.engine.effects import Alert
    from tests.engine.engine_helpers import Table

    t = Table(mode="partial", options={"players": ("Ann", "Bo", "Cy", "Di")})
    t.ok("table_built", tiles=None, dice=[[3, 4], [2, 5]])
    for seat in range(4):
        t.ok("button", seat=seat, button="ready")
    obs = {"type": "discard", "seat": 0, "tiles": ["9s"], "claimed_from": None, "position": -1, "confidence": 0.4,
           "frame_id": 1}
    alert = next(e for e in t.ok("camera", observation=obs) if isinstance(e, Alert))
    assert alert.data["player"] == "Ann"
