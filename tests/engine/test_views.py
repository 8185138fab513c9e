"""Views: the public view never holds a concealed tile; both views validate against the MQTT JSON Schemas
(``mjtable/schemas``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.engine.simulate import SimRun
from controller.engine.state import GameState
from controller.engine.step import step
from controller.views import public_view, referee_view


def _states(seed: int, hands: int) -> list[GameState]:
    run = SimRun(seed=seed, hands_total=hands)
    state = run.start()
    out = [state]
    while (ev := run.next_event(state)) is not None:
        state, _ = step(state, ev)
        out.append(state)
    return out


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def test_public_view_never_shows_a_concealed_tile() -> None:
    for state in _states(seed=4, hands=2)[::3]:
        view = public_view(state)
        json.dumps(view)
        hand = state.hand
        for seat in view["seats"]:
            assert "concealed" not in seat and "waits" not in seat
        if hand is None or hand.result is not None:
            continue
        # count every tile code the public view shows: it must equal the visible tiles, nothing more
        shown = [s for s in _strings(view["seats"]) if len(s) == 2 and s[0].isdigit() and s[1] in "mpszf"]
        visible = sum(len(s.pond) + len(s.flowers) + sum(len(m.tiles) for m in s.melds if m.kind != "concealed_kong")
                      for s in hand.seats)
        assert len(shown) == visible
        assert "drawn" not in json.dumps(view)


def test_referee_view_adds_concealed_and_waits() -> None:
    states = _states(seed=4, hands=1)
    mid = states[len(states) // 2]
    view = referee_view(mid)
    assert view["schema"] == "mjtable.referee_state/1"
    hand = mid.hand
    assert hand is not None
    for seat in view["seats"]:
        assert seat["concealed"] == [t.code for t in hand.seats[seat["seat"]].known]
        assert isinstance(seat["waits"], list)


@pytest.mark.parametrize("name", ["public_state", "referee_state"])
def test_views_match_area7_schemas(name: str) -> None:
    schemas = pytest.importorskip("mjtable.schemas")
    for state in _states(seed=6, hands=2)[::7]:
        view = public_view(state) if name == "public_state" else referee_view(state, with_waits=False)
        schemas.validate(name, view)


def test_a_referees_words_stay_in_the_referee_view() -> None:
    """A penalty's and a dead hand's free-text reason are the referee's: the public view says what happened in
    neutral words (kind, player, points; "penalty by the referee"), the referee view keeps the words.  Before: the
    public view's infraction message was the reason itself."""
    from controller.engine.effects import InfractionEffect
    from tests.engine.engine_helpers import TWO_WINNERS_HANDS, Table, pass_all

    t = Table()
    t.deal(TWO_WINNERS_HANDS)
    fx = t.ok("referee", command="apply_penalty", seat=2, points=10, reason="showed his hand 123m456p to seat 3")
    (effect,) = [e for e in fx if isinstance(e, InfractionEffect)]
    assert effect.infraction["message"] == "penalty by the referee"
    assert effect.infraction["referee_note"] == "showed his hand 123m456p to seat 3"  # referee/events: in full
    t.ok("referee", command="apply_penalty", seat=0, points=5)  # no reason: nothing to keep
    t.ok("referee", command="dead_hand", seat=1, reason="argued after a wrong tile count")
    public = public_view(t.state)
    assert [i["message"] for i in public["infractions"]] == ["penalty by the referee"] * 2
    assert public["seats"][1]["dead"] is True
    assert not any("123m" in s or "argued" in s for s in _strings(public)) and "referee_note" not in str(public)
    referee = referee_view(t.state, with_waits=False)
    assert referee["infractions"][0]["message"] == "penalty by the referee: showed his hand 123m456p to seat 3"
    assert referee["infractions"][0]["referee_note"] == "showed his hand 123m456p to seat 3"
    assert referee["infractions"][1]["message"] == "penalty by the referee" and "referee_note" not in \
        referee["infractions"][1]
    assert referee["seats"][1]["dead_reason"] == "dead hand (相公) by the referee: argued after a wrong tile count"
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=1, kind="win")  # the dead seat's call: a false win, worded without the referee's words
    pass_all(t)
    false_win = t.state.infractions[-1]
    assert false_win.kind == "false_win_dead_hand" and "argued" not in false_win.message
    assert false_win.message.startswith("false win (dead_hand): P2 has lost the right to win: dead hand (相公) "
                                        "by the referee")
    assert false_win.note == "argued after a wrong tile count"
    assert "argued" not in json.dumps(public_view(t.state), ensure_ascii=False)
