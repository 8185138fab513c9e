"""Partial information (overhead camera only) and camera observations checked against the game."""

from __future__ import annotations

from typing import Any

from controller.engine.effects import Alert
from controller.engine.events import ENGINE_REV
from controller.engine.state import Phase
from tests.engine.engine_helpers import Table, pass_all


def _partial(**options: Any) -> Table:
    t = Table(mode="partial", options=options)
    t.ok("table_built", tiles=None, dice=[[3, 4], [2, 5]])
    for seat in range(4):  # nobody knows the hands: each player says "过" for the initial flowers
        t.ok("button", seat=seat, button="ready")
    assert t.state.phase is Phase.TURN
    return t


def _obs(kind: str, seat: int, tiles: list[str], conf: float = 0.97, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "seat": seat, "tiles": tiles, "claimed_from": None, "position": extra.get("position", -1),
            "confidence": conf, "frame_id": 1}


def test_partial_tracks_sizes_and_accepts_unknown_discards() -> None:
    t = _partial()
    assert [t.seat(s).hand_size for s in range(4)] == [14, 13, 13, 13]
    assert t.seat(0).known == () and t.seat(0).unknown == 14
    t.ok("discard", seat=0, tile="5p")
    pass_all(t)
    assert t.state.hand is not None and t.state.hand.turn == 1 and t.seat(1).unknown == 14


def test_partial_rejects_a_fifth_copy() -> None:
    t = _partial()
    for seat in (0, 1, 2, 3):
        t.ok("discard", seat=seat, tile="7z")
        pass_all(t)
    assert t.rejected("discard", seat=0, tile="7z").reason == "impossible_tile"


def test_confident_camera_discard_is_applied() -> None:
    t = _partial()
    t.ok("camera", observation=_obs("discard", 0, ["9s"], position=0))
    assert t.seat(0).pond[-1].tile.code == "9s"
    # the same observation again (next frame) is acknowledged, not applied twice
    t.ok("camera", observation=_obs("discard", 0, ["9s"], position=0))
    assert len(t.seat(0).pond) == 1


def test_uncertain_and_low_confidence_become_alerts_then_referee_confirms() -> None:
    t = _partial()
    fx = t.ok("camera", observation=_obs("discard", 0, ["9s"], conf=0.4))
    alert = next(e for e in fx if isinstance(e, Alert))
    assert alert.kind == "camera_uncertain" and t.seat(0).pond == ()
    t.ok("camera", observation=_obs("uncertain", 0, []))
    assert t.state.alerts[-1].kind == "camera_uncertain"
    t.ok("referee", command="confirm", alert_id=alert.id)
    assert t.seat(0).pond[-1].tile.code == "9s"
    assert not t.state.alerts[0].open


def test_camera_mismatch_is_an_alert_and_changes_nothing_else() -> None:
    t = _partial()
    before = t.state.hand
    fx = t.ok("camera", observation=_obs("discard", 2, ["1m"]))  # seat 2 is not on turn
    assert [e.kind for e in fx if isinstance(e, Alert)] == ["camera_mismatch"]
    assert t.state.hand == before


def test_camera_meld_becomes_a_claim() -> None:
    t = _partial()
    t.ok("discard", seat=0, tile="3p")
    t.ok("camera", observation=_obs("meld", 1, ["3p", "4p", "5p"]))
    pass_all(t)
    assert t.seat(1).melds[0].kind == "chow" and t.seat(1).melds[0].claimed_from == 0
    assert t.seat(1).hand_size == 14 and t.seat(1).unknown == 11


def _alerts(fx: tuple[Any, ...]) -> list[tuple[str, str]]:
    return [(e.kind, e.data.get("reason", "")) for e in fx if isinstance(e, Alert)]


def test_camera_pung_or_kong_must_be_of_the_discard() -> None:
    t = _partial()
    t.ok("discard", seat=0, tile="3p")
    before = t.state.hand
    for tiles in (["5p", "5p", "5p"], ["9s", "9s", "9s", "9s"]):
        fx = t.ok("camera", observation=_obs("meld", 2, tiles, position=0))
        assert _alerts(fx) == [("camera_mismatch", "illegal_claim")]
        assert t.state.hand == before  # no claim was made for seat 2


def test_camera_meld_slots_tell_a_known_meld_from_a_second_identical_one() -> None:
    t = _partial()
    t.ok("discard", seat=0, tile="3p")
    t.ok("camera", observation=_obs("meld", 1, ["3p", "4p", "5p"], position=0))
    pass_all(t)
    assert len(t.seat(1).melds) == 1
    # the next frames show slot 0 again: acknowledged, nothing new
    fx = t.ok("camera", observation=_obs("meld", 1, ["3p", "4p", "5p"], position=0))
    assert _alerts(fx) == [] and len(t.seat(1).melds) == 1
    # slot 0 read as another meld: the referee is told, the game keeps the chow
    fx = t.ok("camera", observation=_obs("meld", 1, ["6p", "7p", "8p"], position=0))
    assert _alerts(fx) == [("camera_mismatch", "not_held")]
    assert [x.code for x in t.seat(1).melds[0].tiles] == ["3p", "4p", "5p"]
    # round the table to seat 0 again, who discards another 3p: the same chow in slot 1 is a new claim
    for seat in (1, 2, 3):
        t.ok("discard", seat=seat, tile=("9m", "9m", "9m")[seat - 1])
        pass_all(t)
    t.ok("discard", seat=0, tile="3p")
    t.ok("camera", observation=_obs("meld", 1, ["3p", "4p", "5p"], position=1))
    pass_all(t)
    assert [m.kind for m in t.seat(1).melds] == ["chow", "chow"]


def test_hand_seen_turns_full_information_on_for_that_seat() -> None:
    t = _partial()
    bad = _obs("hand_seen", 1, ["1m"] * 3)
    fx = t.ok("camera", observation=bad)
    assert [e.kind for e in fx if isinstance(e, Alert)] == ["camera_mismatch"]
    hand = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "4p", "6p", "2z", "2z"]
    t.ok("camera", observation=_obs("hand_seen", 1, hand))
    assert t.seat(1).fully_known and len(t.seat(1).known) == 13
    from controller.views import public_view, referee_view

    pub = public_view(t.state)
    assert "concealed" not in pub["seats"][1]
    ref = referee_view(t.state)
    assert ref["seats"][1]["concealed"] == hand and ref["seats"][0]["concealed"] is None
    assert {w["tile"] for w in ref["seats"][1]["waits"]} == {"5p"}


def test_partial_win_is_checked_when_laid_down() -> None:
    t = _partial()
    t.ok("discard", seat=0, tile="5p")
    shown = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "4p", "6p", "2z", "2z", "5p"]
    t.ok("camera", observation=_obs("win_shown", 1, shown))
    pass_all(t)
    r = t.state.history[-1]
    assert r.winners == (1,) and r.discarder == 0 and ("Pure Straight", 16, 1) in r.fans


def test_partial_win_with_a_wrong_count_is_rejected() -> None:
    t = _partial()
    t.ok("discard", seat=0, tile="5p")
    assert t.rejected("claim", seat=1, kind="win", tiles=["1m", "2m"]).reason == "bad_hand"


def test_mcu_fault_pauses_and_link_down_alerts() -> None:
    t = _partial()
    fx = t.ok("mcu_fault", code="JAM", message="wall lift jammed")
    assert t.state.paused and any(isinstance(e, Alert) and e.kind == "mcu_fault" for e in fx)
    fx = t.ok("link_changed", up=False)
    assert not t.state.link_up and t.state.alerts[-1].kind == "link_down"


def test_face_down_kong_is_turned_up_at_the_win() -> None:
    # partial information: the overhead camera never sees a concealed kong's face; the winner turns it up
    # (核实暗杠): the first four shown tiles per face-down kong, then the concealed tiles
    t = _partial()
    t.ok("concealed_kong", seat=0)  # no face
    assert t.seat(0).melds[0].tiles == () and t.seat(0).unknown == 11
    t.ok("discard", seat=0, tile="9s")
    pass_all(t)
    t.ok("discard", seat=1, tile="5p")
    concealed = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "5p"]
    bad = [
        (concealed, "bad_hand"),  # the kong not shown
        (["7z", "7z", "7z", "6z", *concealed], "bad_hand"),  # not four of one face
        (["9s", "9s", "9s", "9s", *concealed], "impossible_tile"),  # a 9s is already face up in the pond
        (["7z", "7z", "7z", "7z", *concealed[:-1]], "bad_hand"),  # one concealed tile short
    ]
    for tiles, reason in bad:
        assert t.rejected("claim", seat=0, kind="win", tiles=tiles, dt_s=0.0).reason == reason, tiles
    t.ok("claim", seat=0, kind="win", tiles=["7z", "7z", "7z", "7z", *concealed])  # inside the 3 s window
    pass_all(t)
    r = t.state.history[-1]
    assert r.kind == "win" and r.winners == (0,) and r.discarder == 1
    fans = {name for name, _pts, _n in r.fans}
    assert {"Pure Straight", "Concealed Kong"} <= fans
    assert r.hands[0][1].startswith("{7777z}")


def test_confirming_an_uncertain_reading_applies_what_it_was_about() -> None:
    # the pipeline sends {"type": "uncertain", "about": "discard", ...}; the referee's confirm applies it once
    # (it used to raise a new camera_uncertain alert each time: an endless loop in the demo)
    t = _partial()
    fx = t.ok("camera", observation={**_obs("uncertain", 0, ["9s"], conf=0.5, position=0), "about": "discard"})
    alert = next(e for e in fx if isinstance(e, Alert))
    assert alert.kind == "camera_uncertain" and "discard" in alert.message and t.seat(0).pond == ()
    t.ok("referee", command="confirm", alert_id=alert.id)
    assert [p.tile.code for p in t.seat(0).pond] == ["9s"]
    assert sum(1 for a in t.state.alerts if a.kind == "camera_uncertain") == 1
    # without "about" there is nothing to apply: the confirm is refused with a reason, the alert stays open
    fx = t.ok("camera", observation=_obs("uncertain", 1, []))
    vague = next(e for e in fx if isinstance(e, Alert))
    assert t.rejected("referee", command="confirm", alert_id=vague.id).reason == "bad_event"
    assert next(a for a in t.state.alerts if a.id == vague.id).open


def test_uncertain_hand_reading_stays_referee_only() -> None:
    t = _partial()
    obs = {**_obs("uncertain", 2, ["1m", "2m", "3m"], conf=0.3), "about": "hand_seen"}
    fx = t.ok("camera", observation=obs)
    alert = next(e for e in fx if isinstance(e, Alert))
    assert alert.data["referee_only"] is True


def test_face_down_kong_from_the_camera_with_full_information() -> None:
    # the camera sees four backs; the engine knows the seat's tiles and so the face (the one kind held four times)
    from tests.engine.engine_helpers import Table as FullTable

    t = FullTable()
    t.deal({0: "7z7z7z7z2m2m3m3m4p4p5s5s6s8m"}, back="9s")
    t.ok("camera", observation=_obs("concealed_kong", 0, ["back"] * 4, position=0))
    assert [m.kind for m in t.seat(0).melds] == ["concealed_kong"]
    assert [x.code for x in t.seat(0).melds[0].tiles] == ["7z"] * 4 and "9s" in t.concealed(0)
    # two four-alikes: the referee says which
    t2 = FullTable()
    t2.deal({0: "7z7z7z7z2m2m2m2m4p4p5s5s6s8m"}, back="9s")
    fx = t2.ok("camera", observation=_obs("concealed_kong", 0, ["back"] * 4, position=0))
    assert _alerts(fx) == [("camera_mismatch", "ambiguous")] and t2.seat(0).melds == ()
    # none: a misread, not a kong
    t3 = FullTable()
    t3.deal({0: "7z7z7z2m2m2m3m4p4p5s5s6s8m8m"}, back="9s")
    fx = t3.ok("camera", observation=_obs("concealed_kong", 0, ["back"] * 4, position=0))
    assert _alerts(fx) == [("camera_mismatch", "not_held")] and t3.seat(0).melds == ()


def _phase(t: Table) -> Phase:
    """The phase now (a call, so that a type checker keeps no earlier narrowing)."""
    return t.state.phase


def _unsure_read_then_the_next_hand(t: Table) -> Alert:
    """Hand 1: an unsure read of seat 1's discard left open, seat 0's 5p entered by hand, seat 1's win on it; then
    hand 2 built and every seat past the flowers (seat 1 deals and has the turn).  Returns the open alert."""
    fx = t.ok("camera", observation={**_obs("uncertain", 1, ["9s"], conf=0.5, position=0), "about": "discard"})
    stale = next(e for e in fx if isinstance(e, Alert))
    t.ok("discard", seat=0, tile="5p")
    shown = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "4p", "6p", "2z", "2z", "5p"]
    t.ok("camera", observation=_obs("win_shown", 1, shown))
    pass_all(t)
    assert _phase(t) is Phase.HAND_OVER
    t.ok("table_built", tiles=None, dice=[[3, 4], [2, 5]])
    dealer = t.state.session.dealer
    for k in range(4):  # "过" for the initial flowers, from the new dealer on
        t.ok("button", seat=(dealer + k) % 4, button="ready")
    hand = t.state.hand
    assert hand is not None and _phase(t) is Phase.TURN and hand.turn == 1 == dealer
    return stale


def test_an_alert_left_open_from_an_earlier_hand_cannot_be_confirmed_into_this_one() -> None:
    """An unsure read of hand 1 that the referee left open (he entered the discard by hand) must not become a
    discard of hand 2 when confirmed there: seats rotate and ponds start again, so its seat and position now
    mean another tile of another hand.  It can still be rejected (closed)."""
    t = _partial(engine_rev=ENGINE_REV)
    stale = _unsure_read_then_the_next_hand(t)
    rej = t.rejected("referee", command="confirm", alert_id=stale.id)
    assert rej.reason == "wrong_phase" and "hand 1" in rej.message
    assert all(t.seat(s).pond == () for s in range(4))
    t.ok("referee", command="reject", alert_id=stale.id)
    assert not next(a for a in t.state.alerts if a.id == stale.id).open


def test_a_journal_started_before_the_stale_alert_rule_replays_its_confirm_as_it_was_played() -> None:
    """ENGINE_REV: a session journaled before the rule (engine_rev 0) took such a confirm; replaying it must too."""
    t = _partial()
    old = _unsure_read_then_the_next_hand(t)
    t.ok("referee", command="confirm", alert_id=old.id)  # what the engine of that day did
    assert [p.tile.code for p in t.seat(1).pond] == ["9s"]
