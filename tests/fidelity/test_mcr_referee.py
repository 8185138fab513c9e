"""Issue 16, MCR points 1, 2, 6, 7, 8, 9, 13 on the live engine (each test failed before its fix)."""

from __future__ import annotations

import pytest

from controller.engine.effects import Alert, InfractionEffect, Rejected
from controller.engine.state import Phase
from tests.engine.engine_helpers import PRIORITY_HANDS, T0, Table, pass_all


def _kinds(fx: tuple[object, ...]) -> list[str]:
    return [e.infraction["kind"] for e in fx if isinstance(e, InfractionEffect)]


# --- point 1: claim windows per version -----------------------------------------------------------------


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006"])
def test_a_win_at_3_5_s_is_a_win_in_1998_and_2006(rules: str) -> None:
    """A win has no 3 s limit [000:L504 names only 碰; 004:L247 碰(杠)]: at 3.5 s the window still waits for the
    next player's draw, and the win stands without any infraction."""
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=3.5)
    hand = t.state.hand
    assert t.state.phase is Phase.CLAIMS and hand is not None and hand.claim is not None and hand.claim.slow
    fx = t.ok("claim", seat=3, kind="win")
    assert t.state.phase.value == "hand_over" and t.state.history[-1].winners == (3,)
    assert _kinds(fx) == [] and not t.state.infractions


def test_a_win_at_3_5_s_is_late_in_2017() -> None:
    """2017: "报碰、杠、和牌者要快(在3秒之内)" and a late one is "无效,而且违规" [003:L45@1972, @2059]."""
    t = Table(rules="mcr-2017")
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=3.5)
    fx = t.ok("claim", seat=3, kind="win")
    assert _kinds(fx) == ["late_call"] and t.state.infractions[0].points == 0
    assert t.state.phase is Phase.CLAIMS  # still open for seat 1's chow


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006", "mcr-2017"])
def test_a_chow_at_3_5_s_is_taken(rules: str) -> None:
    """报吃应稍慢些 [000:L500; 004:L246; 003:L45@1972]: the chow is open until the next player draws."""
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=3.5)
    fx = t.ok("claim", seat=1, kind="chow", tiles=["3p", "4p"])
    assert _kinds(fx) == []
    assert t.state.phase is Phase.TURN and t.state.hand is not None and t.state.hand.turn == 1
    assert t.seat(1).melds[-1].kind == "chow"


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006", "mcr-2017"])
def test_a_pung_at_3_5_s_is_void_and_laddered(rules: str) -> None:
    """超过3秒钟碰牌,即为犯规 [000:L797; 004:L457; 003:L45@2059]: warning, then 5, 10, 20."""
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=3.5)
    fx = t.ok("claim", seat=2, kind="pung")
    assert _kinds(fx) == ["late_call"] and not t.seat(2).melds


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006"])
def test_the_next_players_draw_ends_the_window(rules: str) -> None:
    """"已伸手进入牌池抓牌者,即为放弃吃牌、碰牌(杠)、和牌的权利" [004:L478]: the next player's pass (his draw) ends
    the slow window; a win after it is refused, not punished (no seed penalty)."""
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=3.5)
    t.ok("button", seat=1, button="pass")
    assert t.state.phase is Phase.TURN and t.state.hand is not None and t.state.hand.turn == 1
    assert t.rejected("claim", seat=3, kind="win").reason == "no_window"
    assert not t.state.infractions


def test_the_next_players_discard_is_his_draw_too() -> None:
    t = Table()
    t.deal(PRIORITY_HANDS, draws="9s")
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=4.0)
    t.ok("discard", seat=1, tile="9s")  # he drew 9s and threw it: the window on 5p is over
    hand = t.state.hand
    assert hand is not None and hand.claim is not None and hand.claim.tile.code == "9s"


# --- point 2: the 1998 turn clock ------------------------------------------------------------------------


def test_1998_turn_limit_counts_from_the_upper_players_discard_claims_included() -> None:
    """每次从上家打出牌后,到自己出牌的时限为15秒(包括吃牌、碰牌、杠牌、补花) [000:L496]."""
    t = Table(rules="mcr-1998")
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    shown = t.now_s
    t.ok("claim", seat=2, kind="pung", dt_s=1.0)
    pass_all(t)
    assert [x.deadline_s for x in t.state.timers if x.name == "turn"] == [shown + 15.0]


def test_1998_kong_does_not_restart_the_turn_limit() -> None:
    hands = dict(PRIORITY_HANDS)
    hands[2] = "555p6m6m8m2s2s3s5z5z6z7z"  # a concealed pung of 5p: kong on the discard, then replacement
    t = Table(rules="mcr-1998")
    t.deal(hands, back="9m")
    t.ok("discard", seat=0, tile="5p")
    shown = t.now_s
    t.ok("claim", seat=2, kind="kong")
    pass_all(t)
    assert t.seat(2).melds[-1].kind == "kong"
    assert [x.deadline_s for x in t.state.timers if x.name == "turn"] == [shown + 15.0]


def test_2006_turn_limit_still_counts_from_the_draw() -> None:
    t = Table(rules="mcr-2006")
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=1.0)
    pass_all(t)
    assert [x.deadline_s for x in t.state.timers if x.name == "turn"] == [t.now_s + 10.0]


# --- point 6: 1998 flowers must be replaced ---------------------------------------------------------------


@pytest.mark.parametrize(("rules", "refused"), [("mcr-1998", True), ("mcr-2006", False), ("mcr-2017", False)])
def test_a_flower_discard(rules: str, refused: bool) -> None:
    """1998 "抓到花牌后,明放在立牌前,并从牌墙最后补一张牌" [000:L348, L350]; 2017 "也可藏花或打出" [003:L45@2419]."""
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS, draws="1f")
    t.ok("discard", seat=0, tile="5p")
    pass_all(t)
    assert t.state.hand is not None and t.state.hand.drawn is not None and t.state.hand.drawn.code == "1f"
    if refused:
        assert t.rejected("discard", seat=1, tile="1f").reason == "must_replace_flower"
        t.ok("flower", seat=1, tile="1f")
    else:
        t.ok("discard", seat=1, tile="1f")


# --- point 7: overruns raise an alert, no invented ladder ---------------------------------------------------


def test_mcr_overrun_is_an_alert_with_evidence_and_no_penalty() -> None:
    t = Table()
    t.deal(PRIORITY_HANDS)
    fx = t.ok("tick", dt_s=21.0)
    alerts = [e for e in fx if isinstance(e, Alert) and e.kind == "timer_zero"]
    assert alerts and alerts[0].data["timer"] == "opening" and alerts[0].data["seat"] == 0
    assert alerts[0].data["player"] == "P1" and isinstance(alerts[0].data["journal_seq"], int)
    assert _kinds(fx) == [] and not t.state.infractions


def test_venue_option_puts_overruns_on_the_ladder() -> None:
    t = Table(rules="mcr-2006:overrun_penalty=true")
    t.deal(PRIORITY_HANDS)
    fx = t.ok("tick", dt_s=21.0)
    assert _kinds(fx) == ["opening_overrun"]


def test_unknown_venue_option_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown option"):
        Table(rules="mcr-2006:nope=1")


# --- point 8: wrong and empty calls ---------------------------------------------------------------------


def test_wrong_chow_is_a_dead_hand_with_penalty_tiles() -> None:
    """错吃 [000:L785; 004:L454]: 停和陪打; the shown tiles are 罚张, discarded first [000:L808; 004:L462]."""
    t = Table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    fx = t.ok("claim", seat=3, kind="chow", tiles=["4p", "6p"])  # not his upper player's discard
    assert _kinds(fx) == ["wrong_call"]
    assert t.seat(3).dead is not None and [x.code for x in t.seat(3).penalty_tiles] == ["4p", "6p"]
    pass_all(t)
    # seat 3 plays on; at its turn it must throw a penalty tile first
    for seat in (1, 2):
        hand = t.state.hand
        assert hand is not None and hand.drawn is not None
        t.ok("discard", seat=seat, tile=hand.drawn.code)
        pass_all(t)
    assert t.rejected("discard", seat=3, tile="1s").reason == "penalty_tile"
    t.ok("discard", seat=3, tile="6p")
    assert [x.code for x in t.seat(3).penalty_tiles] == ["4p"]


def test_2017_wrong_call_raises_the_pay_for_all_alert() -> None:
    """2017 错吃: 停和陪打 and "由此导致其他家和牌,则包付三家应付的分" [003:L45@2059]: the referee is told."""
    t = Table(rules="mcr-2017")
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    fx = t.ok("claim", seat=3, kind="chow", tiles=["4p", "6p"])
    assert _kinds(fx) == ["wrong_call"]
    alert = next(e for e in fx if isinstance(e, Alert) and e.kind == "wrong_call")
    assert alert.data["seat"] == 3 and alert.data["tiles"] == ["4p", "6p"]


def test_a_call_without_the_tiles_is_an_empty_call_not_a_rejection() -> None:
    """空碰 [000:L789; 004:L455]: seat 1 holds no 5p pair; the call is void, the seat plays on (not dead)."""
    t = Table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    fx = t.ok("claim", seat=1, kind="pung")
    assert _kinds(fx) == ["empty_call"] and t.state.infractions[-1].points == 0
    assert t.seat(1).dead is None and not t.seat(1).melds
    pass_all(t)
    assert t.state.hand is not None and t.state.hand.turn == 1


def test_second_empty_call_costs_5() -> None:
    t = Table()
    t.deal(PRIORITY_HANDS, draws="9s1p")
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=1, kind="kong")  # no 5p at all: empty, a warning
    pass_all(t)
    t.ok("discard", seat=1, tile="9s")
    pass_all(t)
    t.ok("discard", seat=2, tile="1p")
    fx = t.ok("claim", seat=1, kind="pung")  # no 1p pair either: the second this hand costs 5
    assert _kinds(fx) == ["empty_call"] and t.state.infractions[-1].points == 5
    assert t.state.session.penalties[1] == 5


# --- point 9: 2017 intentional false win ------------------------------------------------------------------


def test_2017_intentional_false_win_warns_then_proposes_disqualification() -> None:
    """有意诈和: 20 to each and a warning; again: 取消比赛资格 [003:L45@3775]."""
    t = Table(rules="mcr-2017")
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    fx = t.ok("claim", seat=2, kind="win")
    pass_all(t)
    kinds = [i.kind for i in t.state.infractions]
    assert kinds == ["false_win_far_short", "intentional_false_win"], (kinds, fx)
    assert "disqualified" not in kinds
    hand = t.state.hand
    assert hand is not None and hand.turn == 1 and hand.drawn is not None
    t.ok("discard", seat=1, tile=hand.drawn.code)
    t.ok("claim", seat=2, kind="win")  # a dead seat calls a win again: same as intentional [003:L45@3819]
    pass_all(t)
    kinds = [i.kind for i in t.state.infractions]
    assert kinds[-2:] == ["intentional_false_win", "disqualified"]
    assert t.state.infractions[-1].status == "proposed"


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006"])
def test_no_2017_warning_in_older_versions(rules: str) -> None:
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=2, kind="win")
    pass_all(t)
    assert "intentional_false_win" not in [i.kind for i in t.state.infractions]


# --- point 13: the referee corrects a meld ---------------------------------------------------------------


def _partial_with_pung() -> Table:
    t = Table(mode="partial")
    t.ok("table_built", tiles=None, dice=[[1, 1], [1, 1]])
    for seat in range(4):
        if t.state.phase is Phase.FLOWERS:
            t.ok("button", seat=(t.state.hand.flower_seat if t.state.hand else seat), button="ready")
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=2, kind="pung")
    pass_all(t)
    assert t.seat(2).melds[-1].kind == "pung"
    return t


def test_referee_corrects_a_misread_meld() -> None:
    t = _partial_with_pung()
    t.ok("referee", command="correct_meld", seat=2, position=0, tiles=["5p", "5p", "5p", "5p"])
    m = t.seat(2).melds[0]
    assert m.kind == "kong" and [x.code for x in m.tiles] == ["5p"] * 4 and m.claimed_from == 0
    rej = t.rejected("referee", command="correct_meld", seat=2, position=0, tiles=["6p", "6p", "6p"])
    assert rej.reason == "bad_event" and "correct_tile" in rej.message
    assert t.rejected("referee", command="correct_meld", seat=2, position=3, tiles=["5p"] * 3).reason == "bad_event"
    assert t.rejected("referee", command="correct_meld", seat=2, position=0, tiles=["5p", "6p", "9p"]).reason \
        == "bad_event"


def test_correct_meld_is_refused_with_full_information() -> None:
    t = Table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=2, kind="pung")
    pass_all(t)
    fx = t.send("referee", command="correct_meld", seat=2, position=0, tiles=["5p"] * 3)
    assert isinstance(fx[0], Rejected) and fx[0].reason == "bad_event"


def test_correct_meld_travels_the_mqtt_command_schema_into_the_engine() -> None:
    """The referee display sends ``correct_meld`` on the command topic (docs/mqtt.md); it validates against
    mjtable.command/1 and becomes the engine's referee event."""
    import json

    from controller.engine.events import event_from_json
    from mjtable.mqtt.commands import CommandError, engine_event_json, parse_command

    doc = {"schema": "mjtable.command/1", "id": "m1", "command": "correct_meld", "seat": 2, "position": 0,
           "tiles": ["5p", "5p", "5p", "5p"], "referee": "alice"}
    cmd = parse_command(json.dumps(doc).encode())
    ev = engine_event_json(cmd, T0 + 100.0)
    assert ev["tiles"] == ["5p", "5p", "5p", "5p"] and ev["position"] == 0
    t = _partial_with_pung()
    ev["at_s"] = t.now_s + 1.0
    from controller.engine.step import step

    state, fx = step(t.state, event_from_json(ev))
    assert not fx and state.hand is not None and state.hand.seats[2].melds[0].kind == "kong"
    for bad in ({**doc, "tiles": ["5p"]}, {**doc, "tiles": ["xx", "5p", "5p"]}, {**doc, "position": -1}):
        with pytest.raises(CommandError):
            parse_command(json.dumps(bad).encode())
