"""Hostile input: random events at random points of real hands are either rejected with the state untouched
or accepted with every invariant intact (144 tiles accounted for, zero-sum scores, hand sizes)."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.effects import Rejected
from controller.engine.events import EventFormatError, event_from_json
from controller.engine.simulate import SimRun
from controller.engine.state import GameState
from controller.engine.step import step
from mjtable.tiles import ALL_CODES
from tests.engine.test_properties import _check_invariants


def _snapshots() -> list[GameState]:
    run = SimRun(seed=13, hands_total=2)
    state = run.start()
    out = []
    while (ev := run.next_event(state)) is not None:
        state, _ = step(state, ev)
        out.append(state)
    return out[::5]


SNAPSHOTS = _snapshots()
TILES = st.sampled_from([*ALL_CODES, "0z", "9f", "", "back", "55p"])
SEATS = st.one_of(st.integers(-1, 5), st.just(None))


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["discard", "claim", "flower", "concealed_kong", "promoted_kong", "declare_win",
                                 "button", "camera", "referee", "dice_rolled", "table_built", "tick"]))
    obj: dict[str, Any] = {"type": kind, "id": draw(st.text(min_size=1, max_size=6)), "at_s": 1_767_230_000.0}
    if kind in ("discard", "flower", "concealed_kong", "promoted_kong"):
        obj.update(seat=draw(SEATS), tile=draw(TILES))
    elif kind == "claim":
        obj.update(seat=draw(SEATS), kind=draw(st.sampled_from(["chow", "pung", "kong", "win", "rob"])),
                   tiles=draw(st.lists(TILES, max_size=14)))
    elif kind == "declare_win":
        obj.update(seat=draw(SEATS), tiles=draw(st.lists(TILES, max_size=14)))
    elif kind == "button":
        obj.update(seat=draw(SEATS), button=draw(st.sampled_from(["call", "pass", "ready", "honk"])))
    elif kind == "camera":
        obj["observation"] = {"type": draw(st.sampled_from(["discard", "meld", "concealed_kong", "win_shown",
                                                           "uncertain", "hand_seen", "smoke"])),
                              "seat": draw(SEATS), "tiles": draw(st.lists(TILES, max_size=14)),
                              "claimed_from": None, "position": draw(st.integers(-1, 30)),
                              "confidence": draw(st.floats(0, 1)), "frame_id": 1}
    elif kind == "referee":
        obj.update(command=draw(st.sampled_from(["pause", "resume", "confirm", "reject", "correct_tile",
                                                 "apply_penalty", "waive_penalty", "dead_hand", "void_call",
                                                 "launch"])),
                   seat=draw(SEATS), alert_id=draw(st.sampled_from([None, "alert-1"])),
                   tile=draw(TILES), position=draw(st.integers(-1, 5)), points=draw(st.integers(0, 20)))
    elif kind == "dice_rolled":
        obj["dice"] = [draw(st.integers(-1, 8)), draw(st.integers(-1, 8))]
    elif kind == "table_built":
        obj["tiles"] = draw(st.one_of(st.none(), st.lists(TILES, max_size=3)))
    return obj


@settings(max_examples=int(os.environ.get("MJTABLE_FUZZ", "300")), deadline=None)
@given(idx=st.integers(0, len(SNAPSHOTS) - 1), obj=events())
def test_random_events_never_break_the_state(idx: int, obj: dict[str, Any]) -> None:
    state = SNAPSHOTS[idx]
    try:
        ev = event_from_json(obj)
    except EventFormatError:
        return
    new, fx = step(state, ev)
    if fx and isinstance(fx[0], Rejected):
        assert new is state
        return
    _check_invariants(new)
