"""Claims, arbitration, wins, payments and false wins (MCR digest §4, §5, §8)."""

from __future__ import annotations

import pytest

from controller.engine.effects import HandEnded, InfractionEffect
from controller.engine.state import Phase
from tests.engine.engine_helpers import PRIORITY_HANDS, TWO_WINNERS_HANDS, Table, pass_all, promote_the_fourth_7z


def _result(t: Table) -> object:
    assert t.state.hand is not None
    return t.state.hand.result


def test_win_beats_pung_beats_chow() -> None:
    # 和 > 碰/杠 > 吃 [004:L259, L247; 003:L45@1935]
    t = Table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    hand = t.state.hand
    assert hand is not None and hand.claim is not None
    assert hand.claim.eligible == {1, 2, 3}
    t.ok("claim", seat=1, kind="chow", tiles=["3p", "4p"])
    t.ok("claim", seat=2, kind="pung")
    fx = t.ok("claim", seat=3, kind="win")
    assert t.state.phase is Phase.HAND_OVER
    r = t.state.history[-1]
    assert r.winners == (3,) and r.discarder == 0 and not r.self_drawn
    assert any(isinstance(e, HandEnded) for e in fx)
    assert ("Pure Straight", 16, 1) in r.fans
    # discard win: every loser pays 8, the discarder also pays the fan total [000:L689; 004:L413]
    assert r.payments[0] == -(8 + r.total) and r.payments[1] == r.payments[2] == -8
    assert r.payments[3] == 24 + r.total and sum(r.payments) == 0


def test_pung_beats_chow_and_takes_the_turn() -> None:
    t = Table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=1, kind="chow", tiles=["3p", "4p"])
    t.ok("claim", seat=2, kind="pung")
    t.ok("button", seat=3, button="pass")
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and t.state.phase is Phase.TURN
    meld = t.seat(2).melds[-1]
    assert meld.kind == "pung" and meld.claimed_from == 0
    assert t.seat(0).pond[-1].called
    assert t.seat(2).hand_size == 14


def test_one_winner_nearest_counter_clockwise() -> None:
    # several 和 on one discard: the first counter-clockwise from the discarder [000:L548; 004:L275]
    t = Table()
    t.deal(TWO_WINNERS_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=3, kind="win")
    t.ok("claim", seat=1, kind="win")
    pass_all(t)
    assert t.state.history[-1].winners == (1,)


def test_chow_only_from_the_left_player() -> None:
    # 吃 only on the 上家's discard [000:L338; 004:L163]
    t = Table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    # a chow from anyone else is a wrong chow (错吃): no win this hand [000:L785; 004:L454] (issue 16 point 8)
    fx = t.ok("claim", seat=3, kind="chow", tiles=["4p", "6p"])
    assert [e.infraction["kind"] for e in fx if isinstance(e, InfractionEffect)] == ["wrong_call"]
    assert t.seat(3).dead is not None and not t.seat(3).melds


def test_self_drawn_win_pays_8_plus_fan_from_each() -> None:
    # (8 + fan) x 3 [000:L688; 004:L412]
    t = Table()
    hands = dict(TWO_WINNERS_HANDS)
    hands[0] = "9p1s1s2s2s7s7s9s3z3z4z4z6z7z"
    t.deal(hands, draws="5p")
    t.ok("discard", seat=0, tile="9p")
    pass_all(t)
    assert t.state.hand is not None and t.state.hand.turn == 1
    t.ok("declare_win", seat=1)
    r = t.state.history[-1]
    assert r.self_drawn and r.winners == (1,)
    assert ("Fully Concealed Hand", 4, 1) in r.fans  # 不求人 includes the self-draw
    assert r.payments == (-(8 + r.total), 3 * (8 + r.total), -(8 + r.total), -(8 + r.total))


def test_claim_window_closes_at_its_limit() -> None:
    # pung within 3 s [000:L504; 004:L247]; chow and win wait for the next player's draw [004:L478]
    t = Table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("tick", dt_s=1.0)
    assert t.state.phase is Phase.CLAIMS
    t.ok("tick", dt_s=2.5)
    assert t.state.hand is not None and t.state.hand.claim is not None and t.state.hand.claim.slow
    t.ok("button", seat=1, button="pass")  # the next player reaches into the wall
    assert t.state.phase is not Phase.CLAIMS and t.state.hand is not None and t.state.hand.turn == 1


def test_late_call_is_void_and_recorded() -> None:
    # a pung later than 3 s: warning, then 5, 10, 20 ... per hand [000:L797; 004:L457]
    t = Table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    pass_all(t)
    before = t.seat(2)
    fx = t.ok("claim", seat=2, kind="pung")
    assert t.seat(2).melds == before.melds
    inf = [e for e in fx if isinstance(e, InfractionEffect)]
    assert inf and inf[0].infraction["kind"] == "late_call" and inf[0].infraction["points"] == 0
    fx = t.ok("claim", seat=2, kind="kong")
    assert next(e for e in fx if isinstance(e, InfractionEffect)).infraction["points"] == 5


@pytest.mark.parametrize(("rules", "each", "disqualified"), [("mcr-1998", 20, True), ("mcr-2006", 20, False),
                                                             ("mcr-2017", 20, False)])
def test_false_win_far_from_ready(rules: str, each: int, disqualified: bool) -> None:
    # 诈和: 20 to each, 停和; V1998 有意诈和 disqualifies [000:L802-804; 004:L460; 003:L45@3770-3819]
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=2, kind="win")
    pass_all(t)
    first = t.state.infractions[0]
    assert first.seat == 2 and first.kind == "false_win_far_short" and f"pays {3 * each}" in first.message
    assert t.seat(2).dead is not None
    assert sum(t.state.session.scores) == 0
    kinds = [i.kind for i in t.state.infractions]
    assert ("disqualified" in kinds) is disqualified


@pytest.mark.parametrize(("rules", "seat3_may_win"), [("mcr-2006", True), ("mcr-2017", False)])
def test_after_a_false_first_win_later_callers(rules: str, seat3_may_win: bool) -> None:
    # V2017: if the first in order is a false win the later ones cannot win [003:L45@3976]
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=2, kind="win")
    t.ok("claim", seat=3, kind="win")
    pass_all(t)
    won = t.state.phase is Phase.HAND_OVER and t.state.history[-1].winners == (3,)
    assert won is seat3_may_win


def test_false_win_under_minimum_pays_10_each() -> None:
    # 错和: complete shape under 8 points -> 10 to each [000:L801; 004:L459]
    t = Table()
    hands = dict(PRIORITY_HANDS)
    hands[2] = "123m456m678s234s5z"  # waits 5z: concealed 2 + single wait 1 + short straight 1 + voided 1
    hands[0] = "5z1m1m2m2m7m7m9m3z3z4z4z6z7z"
    hands[1] = "34p345m8m1s1s2z2z6z7z9m"
    t.deal(hands, draws="9s5z")  # seat 1 draws 9s, then seat 2 draws the 5z it waits on
    t.ok("discard", seat=0, tile="5z")
    t.ok("claim", seat=2, kind="win")
    pass_all(t)
    assert t.state.session.scores[2] == -30
    assert sum(t.state.session.scores) == 0
    assert t.state.infractions[0].kind == "false_win_under_minimum"
    assert t.seat(2).dead is not None
    assert t.state.phase is Phase.TURN  # the hand goes on [000:L801; 004:L459 "比赛继续进行"]
    # a dead hand may not win: when seat 2 later draws its winning 5z, declaring is another false win,
    # punished like an intentional one (20 to each) [003:L45@3819 "相公与停和者而宣布和牌的,处罚与有意诈和同"]
    t.ok("discard", seat=1, tile="9s")
    pass_all(t)
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and hand.drawn is not None and hand.drawn.code == "5z"
    fx = t.ok("declare_win", seat=2)
    inf = [e.infraction for e in fx if isinstance(e, InfractionEffect)]
    assert [i["kind"] for i in inf] == ["false_win_dead_hand"] and inf[0]["seat"] == 2
    assert t.state.session.scores == (30, 30, -90, 30)
    assert t.state.phase is Phase.TURN and not any(isinstance(e, HandEnded) for e in fx)
    assert t.state.hand is not None and t.state.hand.result is None


def test_referee_dead_hand_command_takes_away_the_right_to_win() -> None:
    # 相公 / 停和陪打 by the referee: the seat keeps playing but may not win [000:L820; 004:L457; 003:L45@2521]
    t = Table()
    t.deal(TWO_WINNERS_HANDS)  # seats 1 and 3 both wait on 5p
    t.ok("referee", command="dead_hand", seat=1, reason="wrong tile count (相公)")
    assert t.seat(1).dead == "dead hand (相公) by the referee"  # public words; the referee's own stay his
    assert t.seat(1).dead_note == "wrong tile count (相公)"
    assert t.rejected("referee", command="dead_hand", seat=7).reason == "bad_seat"
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=1, kind="win")
    t.ok("claim", seat=3, kind="win")
    pass_all(t)
    kinds = [i.kind for i in t.state.infractions]
    assert kinds == ["false_win_dead_hand"] and t.state.infractions[0].seat == 1
    r = t.state.history[-1]
    assert r.winners == (3,) and r.discarder == 0  # the live hand still wins on the same tile (2006)
    scores = t.state.session.scores
    assert sum(scores) == 0
    assert scores[1] == -60 - 8  # 20 to each for the dead hand's call, then 8 to the winner


def test_robbing_the_kong() -> None:
    # only the tile added to a 加杠 can be robbed; it counts as a discard win by the promoter [000:L626; 004:L344]
    t = Table()
    promote_the_fourth_7z(t, "1m9m1p9p1s9s1z1z2z3z4z5z6z")  # seat 3: thirteen orphans, waiting on 7z
    assert t.state.phase is Phase.ROB_KONG
    rej = t.rejected("claim", seat=2, kind="pung")
    assert rej.reason == "illegal_claim"
    t.ok("claim", seat=3, kind="win")
    pass_all(t)
    r = t.state.history[-1]
    assert r.winners == (3,) and r.discarder == 1
    assert any(n.lower() == "robbing the kong" for n, _, _ in r.fans)
    assert any(n == "Thirteen Orphans" for n, _, _ in r.fans)
    assert r.payments[1] == -(8 + r.total)


def test_promoted_kong_not_robbed_becomes_a_kong_with_replacement() -> None:
    t = Table()
    promote_the_fourth_7z(t, "1m9m1p9p1s9s1z1z2z3z4z5z5z", back="1p")
    pass_all(t)
    assert t.state.phase is Phase.TURN
    assert t.seat(1).melds[0].kind == "kong" and len(t.seat(1).melds[0].tiles) == 4
    assert t.state.hand is not None and t.state.hand.after_kong and _last_draw(t, 1) == "1p"
    assert t.seat(1).hand_size == 14


def test_concealed_kong_is_face_down_in_public_and_revealed_to_the_referee() -> None:
    # 暗杠 lies face down until the hand ends; replacement from the back [000:L511; 004:L250]
    from controller.views import public_view, referee_view

    t = Table()
    t.deal({0: "7z7z7z7z2m2m3m3m4p4p5s5s6s8m"}, back="9s")
    t.ok("concealed_kong", seat=0, tile="7z")
    assert "9s" in t.concealed(0) and t.seat(0).hand_size == 14
    pub = public_view(t.state)["seats"][0]["melds"][0]
    ref = referee_view(t.state)["seats"][0]["melds"][0]
    assert pub == {"type": "concealed_kong", "tiles": None, "claimed_from": None}
    assert ref["tiles"] == ["7z", "7z", "7z", "7z"]
    assert t.rejected("concealed_kong", seat=0, tile="2m").reason == "not_held"


def _last_draw(t: Table, seat: int) -> str:
    hand = t.state.hand
    assert hand is not None and hand.turn == seat and hand.drawn is not None
    return hand.drawn.code


def test_a_broken_project_scorer_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """No silent PyMahjongGB fallback: when ``controller.mcr`` cannot be imported, building an MCR ruleset
    raises instead of scoring with another calculator's readings."""
    import sys

    from controller.engine.mcr_ruleset import AreaOneScorer, McrRuleset, default_scorer

    monkeypatch.setitem(sys.modules, "controller.mcr", None)  # what a broken or missing package looks like
    with pytest.raises(ImportError):
        default_scorer()
    with pytest.raises(ImportError):
        McrRuleset("mcr-2006")
    monkeypatch.undo()
    assert isinstance(default_scorer(), AreaOneScorer)
    assert isinstance(McrRuleset("mcr-2017").scorer, AreaOneScorer)
