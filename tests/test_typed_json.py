"""One ``to_json`` (mjtable.typed_json) for engine events, engine effects and the MCU bridge's events: the same
JSON each family wrote with its own copy before (issue 18)."""

from __future__ import annotations

import enum
import json

from controller.engine.effects import Alert, SessionEnded
from controller.engine.events import CameraObserved, Claim, event_from_json
from firmware_bridge.commands import FaultCode, Severity
from firmware_bridge.events import Fault
from mjtable.typed_json import json_value


class _Word(enum.StrEnum):
    TURN = "turn"


def test_values_become_plain_json() -> None:
    assert json_value((1, (2, 3), {"a": (4,)})) == [1, [2, 3], {"a": [4]}]
    assert json_value({1: "x"}) == {"1": "x"}
    assert json_value(FaultCode(next(iter(FaultCode)).value)) == next(iter(FaultCode)).name.lower()
    assert json_value(_Word.TURN) == "turn"  # a string enum keeps its value, as json.dumps writes it


def test_engine_events_round_trip_and_keep_their_shape() -> None:
    ev = Claim(id="e2", at_s=1.5, seat=1, kind="chow", tiles=("3p", "4p"))
    out = ev.to_json()
    assert out == {"type": "claim", "id": "e2", "at_s": 1.5, "seat": 1, "kind": "chow", "tiles": ["3p", "4p"]}
    assert event_from_json(out) == ev
    cam = CameraObserved(id="e3", at_s=2.0, observation={"seat": 0, "slots": [{"tile": "5p"}]})
    assert event_from_json(json.loads(json.dumps(cam.to_json()))) == cam


def test_effects_and_bridge_events_keep_their_shape() -> None:
    fx = SessionEnded(scores=[1, -1, 0, 0], ranking_points=[4.0, 0.0, 2.0, 1.0])
    assert fx.to_json() == {"type": "session_ended", "scores": [1, -1, 0, 0], "ranking_points": [4.0, 0.0, 2.0, 1.0]}
    al = Alert(id="a1", kind="timer_zero", message="x", data={"seat": 2})
    assert al.to_json() == {"type": "alert", "id": "a1", "kind": "timer_zero", "message": "x", "data": {"seat": 2}}
    code, sev = next(iter(FaultCode)), next(iter(Severity))
    f = Fault(code=code, severity=sev, detail=3, build_id=0)
    assert f.to_json() == {"type": "fault", "code": code.name.lower(), "severity": sev.name.lower(), "detail": 3,
                           "build_id": 0}
