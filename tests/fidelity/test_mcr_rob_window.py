"""Issue 16 point 1 for the robbing-the-kong window: under MCR 1998/2006 a win has no 3 s limit and the right ends
when the next action happens (the kong player reaches for his replacement); 2017 keeps the 3 s (each failed before)."""

from __future__ import annotations

import pytest

from controller.engine.effects import InfractionEffect
from controller.engine.state import Phase
from tests.engine.engine_helpers import Table, promote_the_fourth_7z

ROBBER = "1m9m1p9p1s9s1z1z2z3z4z5z6z"  # seat 3: thirteen orphans, waiting on 7z


def _promoted(rules: str) -> Table:
    """Seat 1 pungs 7z, later draws the fourth 7z and adds it (加杠): seat 3 may rob it."""
    t = Table(rules=rules)
    promote_the_fourth_7z(t, ROBBER, back="1p")
    assert t.state.phase is Phase.ROB_KONG
    return t


def _kinds(fx: tuple[object, ...]) -> list[str]:
    return [e.infraction["kind"] for e in fx if isinstance(e, InfractionEffect)]


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006"])
def test_robbing_the_kong_at_3_5_s_is_a_win_in_1998_and_2006(rules: str) -> None:
    """抢杠和 is a win on the added tile [000:L626; 004:L274, L344]; a win has no 3 s limit (only 碰/杠 are "要在3秒
    之内报出" [000:L504; 004:L247]): the window waits past 3 s and the robbing win stands, no infraction."""
    t = _promoted(rules)
    t.ok("tick", dt_s=3.5)
    hand = t.state.hand
    assert t.state.phase is Phase.ROB_KONG and hand is not None and hand.claim is not None and hand.claim.slow
    fx = t.ok("claim", seat=3, kind="win")
    assert _kinds(fx) == [] and not t.state.infractions
    r = t.state.history[-1]
    assert r.winners == (3,) and r.discarder == 1
    assert any(n.lower() == "robbing the kong" for n, _, _ in r.fans)


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006"])
def test_the_kong_players_replacement_draw_ends_the_rob_window(rules: str) -> None:
    """"报开杠后应即在牌墙最后补进一张牌" [000:L508; 004:L248] and "已伸手进入牌池抓牌者,即为放弃…和牌的权利"
    [004:L478]: the kong player's replacement draw (his *pass*: the draw signal) is the next action; the kong stands
    and a robbing win after it is refused, not punished."""
    t = _promoted(rules)
    t.ok("tick", dt_s=3.5)
    t.ok("button", seat=1, button="pass")
    hand = t.state.hand
    assert t.state.phase is Phase.TURN and hand is not None and hand.turn == 1 and hand.after_kong
    assert t.seat(1).melds[0].kind == "kong" and hand.drawn is not None and hand.drawn.code == "1p"
    assert t.rejected("claim", seat=3, kind="win").reason in ("no_window", "wrong_phase")
    assert not t.state.infractions


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006"])
def test_the_kong_players_discard_also_ends_the_rob_window(rules: str) -> None:
    """A discard by the kong player shows he drew his replacement: the kong stands, then the discard is handled."""
    t = _promoted(rules)
    t.ok("tick", dt_s=3.5)
    t.ok("discard", seat=1, tile="1p")
    hand = t.state.hand
    assert hand is not None and hand.claim is not None and hand.claim.tile.code == "1p"
    assert t.seat(1).melds[0].kind == "kong"


def test_a_pung_in_a_slow_rob_window_is_refused_not_late() -> None:
    """Only a win may rob a kong [000:L626]: a pung call there is refused as before, not laddered as a late pung."""
    t = _promoted("mcr-2006")
    t.ok("tick", dt_s=3.5)
    assert t.rejected("claim", seat=2, kind="pung").reason == "illegal_claim"
    assert not t.state.infractions


def test_2017_rob_window_keeps_its_3_s() -> None:
    """2017: "报碰、杠、和牌者要快(在3秒之内)" [003:L45@1972]: the window closes at 3 s and the kong stands."""
    t = _promoted("mcr-2017")
    t.ok("tick", dt_s=3.5)
    hand = t.state.hand
    assert t.state.phase is Phase.TURN and hand is not None and hand.turn == 1
    assert t.seat(1).melds[0].kind == "kong"


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006"])
def test_the_next_players_hand_camera_showing_his_draw_ends_the_window(rules: str) -> None:
    """Point 1: the end of the slow window is the next player's draw, also as his hand camera sees it (one tile
    more than he held): the window closes, the draw is his, and a late win is refused [004:L478]."""
    from tests.engine.engine_helpers import PRIORITY_HANDS

    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS, draws="9s")
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=3.5)
    held = [x.code for x in t.seat(1).known]
    t.ok("camera", observation={"type": "hand_seen", "seat": 1, "tiles": [*held, "9s"], "claimed_from": None,
                                "position": 0, "confidence": 0.99, "frame_id": 3})
    hand = t.state.hand
    assert t.state.phase is Phase.TURN and hand is not None and hand.turn == 1
    assert hand.drawn is not None and hand.drawn.code == "9s" and not t.state.alerts
    assert t.rejected("claim", seat=3, kind="win").reason == "no_window"
